#!/usr/bin/env python3
"""Train the piece classifier on cells cut by `img2fen dataset`, and export it to ONNX.

Input folders hold cells.npy (uint8 [N, 32, 32]), labels.npy (uint8 [N]) and boards.npy, as
written by `img2fen dataset`. The network sees exactly what img2fen's cells module produces:
grey levels / 255, shape [N, 1, 32, 32]; it outputs 13 logits (classes in img2fen's order:
empty, P N B R Q K, p n b r q k).

Usage: python3 -m img2fen_training.train.pieces --train DIR [--more-train DIR...] --val DIR --out models/piece_classifier.onnx [--epochs 8]
"""

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASSES = [".", "P", "N", "B", "R", "Q", "K", "p", "n", "b", "r", "q", "k"]
DEVICE = torch.device("cpu")  # set by --device


class PieceNet(nn.Module):
    """Four 3x3 conv blocks with max pooling between them (32 -> 16 -> 8 -> 4 pixels), then one
    linear layer. Most channels sit at 4x4, where they are cheap: the default 8-16-32-96 costs
    about 1M multiply-adds a cell, so 64 cells run in under 10 ms on tract."""

    def __init__(self, channels=(8, 16, 32, 96), head_grid=4):
        super().__init__()
        a, b, c, d = channels

        def block(i, o):
            return nn.Sequential(nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))

        self.features = nn.Sequential(
            block(1, a), nn.MaxPool2d(2),  # 16x16
            block(a, b), nn.MaxPool2d(2),  # 8x8
            block(b, c), nn.MaxPool2d(2),  # 4x4
            block(c, d),
        )
        # head_grid < 4 averages the 4x4 features down to head_grid x head_grid first (1: global
        # average pooling), a head that cares less where a part of the piece sits.
        pool = [] if head_grid == 4 else [nn.AdaptiveAvgPool2d(head_grid)]
        self.head = nn.Sequential(*pool, nn.Flatten(), nn.Dropout(0.2), nn.Linear(d * head_grid * head_grid, 13))

    def forward(self, x):
        return self.head(self.features(x))


def load(d: Path):
    cells = np.load(d / "cells.npy")
    labels = np.load(d / "labels.npy").astype(np.int64)
    boards = np.load(d / "boards.npy")
    return cells, labels, boards


def load_training(dirs):
    """The cells and labels of several folders (`load`), one after another."""
    parts = [load(d) for d in dirs]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def augment(x: torch.Tensor, g: torch.Generator) -> torch.Tensor:
    """Photometric jitter per cell: contrast, brightness, gamma, noise; the geometry comes from
    the corner jitter in `img2fen dataset` (and from `shape_augment` when asked for)."""
    n = x.shape[0]
    r = lambda lo, hi: torch.rand(n, 1, 1, 1, generator=g, device=x.device) * (hi - lo) + lo
    x = (x - 0.5) * r(0.7, 1.25) + 0.5 + r(-0.12, 0.12)
    x = x.clamp(0, 1) ** r(0.75, 1.35)
    x = x + torch.randn(x.shape, generator=g, device=x.device) * r(0.0, 0.04)
    return x.clamp(0, 1)


def shape_augment(x: torch.Tensor, g: torch.Generator, p: float) -> torch.Tensor:
    """Design jitter, so that a piece drawn a little wider, taller, thinner-lined or leaning reads
    as the same piece: a share `p` of the cells is resampled through a random affine map (scale
    0.88-1.12, aspect 0.92-1.08, rotation up to 4 degrees, shear up to 0.08, shift up to 1.3 px),
    half of them also get their dark strokes thickened or thinned by up to a pixel (grey
    opening/closing with a 3x3 window, blended), and a tenth of them are blurred."""
    n, dev = x.shape[0], x.device
    r = lambda lo, hi: torch.rand(n, generator=g, device=dev) * (hi - lo) + lo
    chosen = lambda share: torch.rand(n, generator=g, device=dev) < share
    scale, aspect, turn, shear = r(0.88, 1.12), r(0.92, 1.08), r(-0.07, 0.07), r(-0.08, 0.08)
    sx, sy = 1 / (scale * aspect), aspect / scale  # affine_grid maps output to input coordinates
    theta = torch.stack([
        torch.stack([sx * torch.cos(turn), -sx * torch.sin(turn) + shear, r(-0.08, 0.08)], 1),
        torch.stack([sy * torch.sin(turn), sy * torch.cos(turn), r(-0.08, 0.08)], 1),
    ], 1)
    warped = F.grid_sample(x, F.affine_grid(theta, list(x.shape), align_corners=False),
                           mode="bilinear", padding_mode="border", align_corners=False)
    out = torch.where(chosen(p)[:, None, None, None], warped, x)
    darker = -F.max_pool2d(-out, 3, 1, 1)   # dark strokes one pixel thicker
    lighter = F.max_pool2d(out, 3, 1, 1)    # one pixel thinner
    stroke = torch.where(chosen(0.5)[:, None, None, None], darker, lighter)
    blend = (r(0.3, 1.0) * chosen(p / 2))[:, None, None, None]
    out = out + blend * (stroke - out)
    blurred = F.avg_pool2d(F.pad(out, (1, 1, 1, 1), mode="replicate"), 3, 1)
    return torch.where(chosen(p / 10)[:, None, None, None], blurred, out)


def elastic_augment(x: torch.Tensor, g: torch.Generator, p: float, px: float = 1.6) -> torch.Tensor:
    """Local design jitter: a share `p` of the cells is resampled through a smooth random
    displacement field (a 4x4 grid of offsets up to `px` pixels, upsampled bicubically), so that a
    piece's parts change their proportions one against another, as they do between designs: a
    taller cross on a king, a rounder mitre, a thinner neck."""
    n, _, h, w = x.shape
    dev = x.device
    coarse = (torch.rand(n, 2, 4, 4, generator=g, device=dev) * 2 - 1) * (2 * px / w)
    field = F.interpolate(coarse, size=(h, w), mode="bicubic", align_corners=True).permute(0, 2, 3, 1)
    ident = F.affine_grid(torch.eye(2, 3, device=dev).expand(n, 2, 3), list(x.shape), align_corners=False)
    warped = F.grid_sample(x, ident + field, mode="bilinear", padding_mode="border", align_corners=False)
    chosen = torch.rand(n, generator=g, device=dev) < p
    return torch.where(chosen[:, None, None, None], warped, x)


def cutout(x: torch.Tensor, g: torch.Generator, p: float) -> torch.Tensor:
    """Covers a random 6-10 px square of a share `p` of the cells with the cell's median grey, so
    that no class is read from one detail alone (a king's cross, a bishop's slit) that another
    design may draw differently."""
    n, _, h, w = x.shape
    dev = x.device
    side = torch.randint(6, 11, (n,), generator=g, device=dev)
    x0 = (torch.rand(n, generator=g, device=dev) * (w - side + 1)).long()
    y0 = (torch.rand(n, generator=g, device=dev) * (h - side + 1)).long()
    xs = torch.arange(w, device=dev)[None, :]
    ys = torch.arange(h, device=dev)[None, :]
    inx = (xs >= x0[:, None]) & (xs < (x0 + side)[:, None])
    iny = (ys >= y0[:, None]) & (ys < (y0 + side)[:, None])
    box = (iny[:, :, None] & inx[:, None, :]) & (torch.rand(n, generator=g, device=dev) < p)[:, None, None]
    fill = x.flatten(1).median(1).values[:, None, None, None]
    return torch.where(box[:, None], fill, x)


@torch.no_grad()
def predict(model, cells, batch=4096):
    model.eval()
    out = []
    for i in range(0, len(cells), batch):
        x = torch.from_numpy(cells[i:i + batch]).float().div_(255).unsqueeze(1)
        out.append(model(x.to(DEVICE)).cpu())
    return torch.cat(out).numpy()


def fit(model, tx, ty, *, epochs, batch, lr, g, augment, after_epoch):
    """Trains `model` on uint8 images `tx` (grey levels) with classes `ty`: AdamW with a one-cycle
    schedule, cross-entropy with 2% label smoothing, `augment(x, g)` on each batch; calls
    `after_epoch(epoch, mean_loss)` after each epoch. Shared by the piece and coordinate models."""
    model.to(DEVICE)
    # The cells, the shuffling and the augmentation live where the generator `g` does: on the CPU,
    # or all on the GPU when one trains the network (no copies each batch).
    tx, ty = tx.to(g.device), ty.to(g.device)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    steps = epochs * (len(ty) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.15)
    for epoch in range(epochs):
        model.train()
        perm = torch.randperm(len(ty), generator=g, device=g.device)
        total, seen = torch.zeros((), device=DEVICE), 0
        for i in range(0, len(perm) - batch + 1, batch):
            idx = perm[i:i + batch]
            x = augment(tx[idx].float().div_(255).unsqueeze(1), g).to(DEVICE)
            loss = F.cross_entropy(model(x), ty[idx].to(DEVICE), label_smoothing=0.02)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
            total += loss.detach() * len(idx)
            seen += len(idx)
        after_epoch(epoch, float(total) / seen)


class WithEmbedding(nn.Module):
    """A model whose head ends in one linear layer, giving that layer's input as a second output,
    `embedding`: what `img2fen learn-set` fits a piece set's own head on (logits = W e + b)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        e = self.model.head[:-1](self.model.features(x))
        return self.model.head[-1](e), e


def export_onnx(model, shape, input_name, out, check_images, batch=None):
    """Exports `model` to ONNX (opset 17, batch axis dynamic, or fixed at `batch`) and checks that
    ONNX Runtime gives the same logits as torch on the CPU for `check_images` (uint8); returns the
    largest difference. img2fen feeds a model with a fixed batch in chunks of it: tract optimises
    a graph for the shapes it knows at loading, and runs depthwise convolutions (and, at batch 1,
    its lazy im2col) only when every dimension is known.
    (The reference is computed on the CPU: a GPU's TF32 convolutions differ in the third digit.)
    Outputs: `logits`, then `embedding` ([`WithEmbedding`]) when the head ends in a linear layer."""
    model.cpu().eval()
    out.parent.mkdir(parents=True, exist_ok=True)
    embeds = isinstance(getattr(model, "head", None), nn.Sequential) and isinstance(model.head[-1], nn.Linear)
    names = ["logits", "embedding"] if embeds else ["logits"]
    # The wrapper is put in eval mode too: export restores the mode it found, recursively.
    shape = (batch, *shape[1:]) if batch else shape
    dynamic = None if batch else {input_name: {0: "n"}, **{n: {0: "n"} for n in names}}
    torch.onnx.export(WithEmbedding(model).eval() if embeds else model, (torch.zeros(*shape),), str(out),
                      input_names=[input_name], output_names=names, dynamic_axes=dynamic, opset_version=17,
                      dynamo=False)
    import onnxruntime as ort
    sess = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    x = check_images.astype(np.float32)[:, None] / 255
    with torch.no_grad():
        reference = model(torch.from_numpy(x)).numpy()
    step = batch or len(x)
    got = np.concatenate([sess.run(None, {input_name: x[i:i + step]})[0] for i in range(0, len(x) - step + 1, step)])
    diff = float(np.abs(got - reference[:len(got)]).max())
    print(f"ONNX export: max |logit difference| vs torch {diff:.2e}", file=sys.stderr)
    assert diff < 1e-3, diff
    return diff


def confusion(pred, labels, classes=13):
    m = np.zeros((classes, classes), dtype=np.int64)
    np.add.at(m, (labels, pred), 1)
    return m


def arguments(description, lr, channels, channels_help):
    """The command line both training scripts share; each adds its own sampling option."""
    ap = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--train", type=Path, required=True)
    ap.add_argument("--more-train", type=Path, nargs="*", default=[],
                    help="more folders of training cells (LaTeX-typeset diagrams, for example)")
    ap.add_argument("--val", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--lr", type=float, default=lr)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--device", default="cpu", help="where the network trains: cpu, or cuda when a GPU is lent")
    ap.add_argument("--report", type=Path, help="write metrics JSON here")
    ap.add_argument("--channels", default=channels, help=channels_help)
    return ap


def seeded(a):
    """Seeds torch and sets its threads from the parsed arguments; returns a NumPy generator and
    a torch generator seeded alike."""
    global DEVICE
    DEVICE = torch.device(a.device)
    torch.manual_seed(a.seed)
    torch.set_num_threads(a.threads)
    return np.random.default_rng(a.seed), torch.Generator(DEVICE).manual_seed(a.seed)


def main():
    ap = arguments(__doc__, 3e-3, "8,16,32,96", "channels of the four conv blocks")
    ap.add_argument("--empty-keep", type=float, default=0.35, help="fraction of empty cells kept for training")
    ap.add_argument("--shape-aug", type=float, default=0.0,
                    help="share of training cells given design jitter (shape_augment: affine, stroke width, blur)")
    ap.add_argument("--head-grid", type=int, default=4, choices=[1, 2, 4],
                    help="the head's grid: 4 reads the 4x4 features as they are; 2 and 1 average them first")
    ap.add_argument("--elastic", type=float, default=0.0,
                    help="share of training cells resampled through a smooth random displacement field (elastic_augment)")
    ap.add_argument("--cutout", type=float, default=0.0,
                    help="share of training cells with a random 6-10 px square covered by their median grey")
    ap.add_argument("--flip", type=float, default=0.0,
                    help="share of training cells mirrored left to right (a mirrored piece is the same piece, "
                         "and designs differ in which way a knight faces)")
    a = ap.parse_args()
    rng, g = seeded(a)

    tc, tl = load_training([a.train, *a.more_train])
    keep = (tl != 0) | (rng.random(len(tl)) < a.empty_keep)
    tc, tl = tc[keep], tl[keep]
    vc, vl, vb = load(a.val)
    print(f"train {len(tl)} cells, val {len(vl)} cells; class counts {np.bincount(tl, minlength=13).tolist()}", file=sys.stderr)

    channels = tuple(int(c) for c in a.channels.split(","))
    model = PieceNet(channels, a.head_grid)
    nparams = sum(p.numel() for p in model.parameters())
    print(f"{nparams} parameters", file=sys.stderr)
    tx = torch.from_numpy(tc)
    ty = torch.from_numpy(tl)
    t0 = time.time()
    history = []

    def after_epoch(epoch, loss):
        pred = predict(model, vc).argmax(1)
        acc = float((pred == vl).mean())
        boards = np.unique(vb)
        exact = float(np.mean([np.all(pred[vb == b] == vl[vb == b]) for b in boards]))
        history.append({"epoch": epoch + 1, "loss": loss, "val_square_acc": acc, "val_board_exact": exact,
                        "seconds": time.time() - t0})
        print(f"epoch {epoch + 1}: loss {loss:.4f}  val squares {acc:.4%}  boards exact {exact:.2%}  "
              f"({time.time() - t0:.0f} s)", file=sys.stderr)

    def augment_cells(x, g):
        if a.flip:
            mirror = torch.rand(x.shape[0], generator=g, device=x.device) < a.flip
            x = torch.where(mirror[:, None, None, None], x.flip(-1), x)
        if a.shape_aug:
            x = shape_augment(x, g, a.shape_aug)
        if a.elastic:
            x = elastic_augment(x, g, a.elastic)
        if a.cutout:
            x = cutout(x, g, a.cutout)
        return augment(x, g)

    fit(model, tx, ty, epochs=a.epochs, batch=a.batch, lr=a.lr, g=g, augment=augment_cells, after_epoch=after_epoch)

    logits = predict(model, vc)
    pred = logits.argmax(1)
    cm = confusion(pred, vl)
    diff = export_onnx(model, (64, 1, 32, 32), "cells", a.out, vc[:512])

    report = {
        "parameters": nparams,
        "channels": list(channels),
        "train_cells": int(len(tl)),
        "val_cells": int(len(vl)),
        "epochs": a.epochs,
        "flip": a.flip,
        "shape_aug": a.shape_aug,
        "head_grid": a.head_grid,
        "elastic": a.elastic,
        "cutout": a.cutout,
        "batch": a.batch,
        "device": a.device,
        "train_seconds": round(time.time() - t0, 1),
        "history": history,
        "confusion": cm.tolist(),
        "classes": CLASSES,
        "onnx_max_logit_diff": diff,
        "onnx_bytes": a.out.stat().st_size,
    }
    if a.report:
        a.report.write_text(json.dumps(report, indent=1))
    print(json.dumps({k: v for k, v in report.items() if k not in ("confusion", "history")}), file=sys.stderr)


if __name__ == "__main__":
    main()
