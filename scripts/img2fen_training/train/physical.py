#!/usr/bin/env python3
"""Train the physical-board classifier on tall cells cut by `img2fen dataset --tall`, and export
it to ONNX.

Input folders hold cells.npy (uint8 [N, 64, 32]: a square and the room above it up to a standing
piece's head, cut by img2fen's cells::tall_cells), labels.npy and boards.npy. The network sees
grey levels / 255, shape [N, 1, 64, 32], and outputs 13 logits in img2fen's class order.

Usage: python3 -m img2fen_training.train.physical --train DIR --val DIR --out models/physical_classifier.onnx
"""

import json
import sys
import time

import numpy as np
import torch
import torch.nn as nn

from img2fen_training.train.backbones import LiteNet, lite0_weights
from img2fen_training.train.pieces import (
    CLASSES,
    arguments,
    augment,
    confusion,
    export_onnx,
    fit,
    load,
    load_training,
    predict,
    seeded,
)


class TallNet(nn.Module):
    """Four 3x3 conv blocks, each halving the cell (64x32 -> 32x16 -> 16x8 -> 8x4 -> 4x2), then
    one linear layer over the 4x2 grid: where in the cell a part sits matters (the piece's base
    at the bottom, its head above). Cells of another size (`cell` = height, width) give a grid
    a sixteenth of their size."""

    def __init__(self, channels=(12, 24, 48, 96), cell=(64, 32)):
        super().__init__()

        def block(i, o):
            return nn.Sequential(nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True),
                                 nn.MaxPool2d(2))

        a, b, c, d = channels
        self.features = nn.Sequential(block(1, a), block(a, b), block(b, c), block(c, d))
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(0.2), nn.Linear(d * (cell[0] // 16) * (cell[1] // 16), 13))

    def forward(self, x):
        return self.head(self.features(x))


def zoom_cells(x: torch.Tensor, g: torch.Generator, zoom: tuple, share: float = 0.5) -> torch.Tensor:
    """A `share` of the cells scaled by a factor drawn from `zoom` about a point on the cell's
    centre line a fifth of the way up from its foot (where a piece stands), borders repeated:
    pieces a little larger or smaller against their squares and the cell."""
    n, dev = x.shape[0], x.device
    s = torch.rand(n, generator=g, device=dev) * (zoom[1] - zoom[0]) + zoom[0]
    s = torch.where(torch.rand(n, generator=g, device=dev) < share, s, torch.ones_like(s))
    inv = 1.0 / s
    py = 0.6  # normalised: -1 is the top row, 1 the bottom
    theta = torch.zeros(n, 2, 3, device=dev)
    theta[:, 0, 0] = inv
    theta[:, 1, 1] = inv
    theta[:, 1, 2] = py * (1 - inv)
    grid = torch.nn.functional.affine_grid(theta, list(x.shape), align_corners=False)
    return torch.nn.functional.grid_sample(x, grid, mode="bilinear", padding_mode="border", align_corners=False)


def main():
    ap = arguments(__doc__, 3e-3, "12,24,48,96", "channels of the four conv blocks")
    ap.add_argument("--empty-keep", type=float, default=0.5, help="fraction of empty cells kept for training")
    ap.add_argument("--flip", type=float, default=0.5, help="share of training cells mirrored left to right")
    ap.add_argument("--zoom", default="1,1",
                    help="LO,HI: half the training cells scaled by a factor in this range about the foot of the "
                         "cell, so that a piece's size against its cell says less about its type (1,1: none)")
    ap.add_argument("--backbone", choices=["tallnet", "lite0"], default="tallnet",
                    help="tallnet: four conv blocks trained from scratch (--channels); lite0: EfficientNet-Lite0's "
                         "first --blocks blocks with their ImageNet weights (backbones.py), fine-tuned")
    ap.add_argument("--blocks", type=int, default=11, help="lite0: how many of its 16 blocks to keep")
    ap.add_argument("--head-channels", type=int, default=64, help="lite0: channels of the head's 1x1 convolution")
    ap.add_argument("--upsample", type=int, default=1, help="lite0: scale the cell by this inside the network")
    ap.add_argument("--scratch", action="store_true", help="lite0: start from random weights (to measure the pretraining)")
    ap.add_argument("--export-batch", type=int, default=1,
                    help="the ONNX model's fixed batch size (0: dynamic); img2fen runs it in chunks of it, "
                         "and tract runs these networks fastest one cell at a time")
    a = ap.parse_args()
    zoom = tuple(float(v) for v in a.zoom.split(","))
    rng, g = seeded(a)

    tc, tl = load_training([a.train, *a.more_train])
    keep = (tl != 0) | (rng.random(len(tl)) < a.empty_keep)
    tc, tl = tc[keep], tl[keep]
    vc, vl, vb = load(a.val)
    print(f"train {len(tl)} cells, val {len(vl)}; class counts {np.bincount(tl, minlength=13).tolist()}", file=sys.stderr)

    channels = tuple(int(c) for c in a.channels.split(","))
    if a.backbone == "lite0":
        model = LiteNet(a.blocks, a.head_channels, cell=tc.shape[1:3], upsample=a.upsample)
        if not a.scratch:
            print(f"{model.load_pretrained(lite0_weights())} pretrained tensors", file=sys.stderr)
    else:
        model = TallNet(channels, cell=tc.shape[1:3])
    nparams = sum(p.numel() for p in model.parameters())
    print(f"{nparams} parameters", file=sys.stderr)
    t0 = time.time()
    history = []

    def after_epoch(epoch, loss):
        pred = predict(model, vc).argmax(1)
        acc = float((pred == vl).mean())
        exact = float(np.mean([np.all(pred[vb == b] == vl[vb == b]) for b in np.unique(vb)]))
        history.append({"epoch": epoch + 1, "loss": loss, "val_square_acc": acc, "val_board_exact": exact,
                        "seconds": time.time() - t0})
        print(f"epoch {epoch + 1}: loss {loss:.4f}  val squares {acc:.4%}  boards exact {exact:.2%}  "
              f"({time.time() - t0:.0f} s)", file=sys.stderr)

    def augment_cells(x, g):
        mirror = torch.rand(x.shape[0], generator=g, device=x.device) < a.flip
        x = torch.where(mirror[:, None, None, None], x.flip(-1), x)
        if zoom != (1.0, 1.0):
            x = zoom_cells(x, g, zoom)
        return augment(x, g)

    fit(model, torch.from_numpy(tc), torch.from_numpy(tl), epochs=a.epochs, batch=a.batch, lr=a.lr, g=g,
        augment=augment_cells, after_epoch=after_epoch)
    pred = predict(model, vc).argmax(1)
    diff = export_onnx(model, (64, 1, *tc.shape[1:3]), "cells", a.out, vc[:512], batch=a.export_batch or None)
    report = {
        "parameters": nparams,
        "channels": list(channels),
        "backbone": a.backbone,
        "blocks": a.blocks if a.backbone == "lite0" else None,
        "pretrained": a.backbone == "lite0" and not a.scratch,
        "export_batch": a.export_batch or None,
        "train_cells": int(len(tl)),
        "val_cells": int(len(vl)),
        "epochs": a.epochs,
        "flip": a.flip,
        "zoom": list(zoom),
        "empty_keep": a.empty_keep,
        "batch": a.batch,
        "device": a.device,
        "train_seconds": round(time.time() - t0, 1),
        "history": history,
        "confusion": confusion(pred, vl).tolist(),
        "classes": CLASSES,
        "onnx_max_logit_diff": diff,
        "onnx_bytes": a.out.stat().st_size,
    }
    if a.report:
        a.report.write_text(json.dumps(report, indent=1))
    print(json.dumps({k: v for k, v in report.items() if k not in ("confusion", "history")}), file=sys.stderr)


if __name__ == "__main__":
    main()
