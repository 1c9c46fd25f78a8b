#!/usr/bin/env python3
"""Train the glyph classifier of text boards on patches cut by `img2fen dataset --text`, export
ONNX.

Input folders hold cells.npy (uint8 [N, 24, 24]: img2fen's textboard::Glyphs::patches, dark ink
on a light ground, stretched to its own grey range), labels.npy (uint8 [N], textboard's glyph
classes: an empty-square mark, the twelve pieces in img2fen's class order (letter and Unicode
symbol alike), the digits 1-8, the file letters a, c-h, and any other character) and
boards.npy. The network sees [N, 1, 24, 24] / 255 and outputs 29 logits.

Usage: python3 -m img2fen_training.train.glyphs --train DIR --val DIR --out models/glyph_classifier.onnx
"""

import json
import sys
import time

import numpy as np
import torch

from img2fen_training.train.coords import LabelNet
from img2fen_training.train.pieces import arguments, confusion, export_onnx, fit, load, predict, seeded

CLASSES = [".", "P", "N", "B", "R", "Q", "K", "p", "n", "b", "r", "q", "k", "1", "2", "3", "4", "5", "6", "7", "8",
           "a", "c", "d", "e", "f", "g", "h", "other"]
PX = 24


def augment(x: torch.Tensor, g: torch.Generator) -> torch.Tensor:
    """Photometric jitter per patch: contrast, brightness, gamma and noise."""
    n = x.shape[0]
    r = lambda lo, hi: torch.rand(n, 1, 1, 1, generator=g, device=x.device) * (hi - lo) + lo
    x = (x - 0.5) * r(0.75, 1.15) + 0.5 + r(-0.08, 0.08)
    x = x.clamp(0, 1) ** r(0.75, 1.35)
    x = x + torch.randn(x.shape, generator=g, device=x.device) * r(0.0, 0.04)
    return x.clamp(0, 1)


def main():
    ap = arguments(__doc__, 4e-3, "16,32,64", "channels of the three conv blocks")
    ap.add_argument("--other-keep", type=float, default=0.3,
                    help="fraction of the training patches of other characters kept (they are most of any text)")
    a = ap.parse_args()
    rng, g = seeded(a)
    tc, tl, _ = load(a.train)
    other = len(CLASSES) - 1
    keep = (tl != other) | (rng.random(len(tl)) < a.other_keep)
    tc, tl = tc[keep], tl[keep]
    vc, vl, _ = load(a.val)
    print(f"train {len(tl)} patches, val {len(vl)}; class counts {np.bincount(tl, minlength=len(CLASSES)).tolist()}",
          file=sys.stderr)
    channels = tuple(int(c) for c in a.channels.split(","))
    # The coordinate reader's network (three conv blocks, 24 -> 3 pixels, one linear layer) with
    # 29 outputs: about 1.3M multiply-adds a glyph at 16-32-64.
    model = LabelNet(channels, classes=len(CLASSES))
    nparams = sum(p.numel() for p in model.parameters())
    print(f"{nparams} parameters", file=sys.stderr)
    tx, ty = torch.from_numpy(tc), torch.from_numpy(tl)
    t0 = time.time()
    history = []

    def after_epoch(epoch, loss):
        pred = predict(model, vc).argmax(1)
        acc = float((pred == vl).mean())
        square = vl < 13
        square_acc = float((pred[square] == vl[square]).mean())
        history.append({"epoch": epoch + 1, "loss": loss, "val_acc": acc, "val_square_acc": square_acc,
                        "seconds": time.time() - t0})
        print(f"epoch {epoch + 1}: loss {loss:.4f}  val {acc:.4%}  square glyphs {square_acc:.4%}  "
              f"({time.time() - t0:.0f} s)", file=sys.stderr)

    fit(model, tx, ty, epochs=a.epochs, batch=a.batch, lr=a.lr, g=g, augment=augment, after_epoch=after_epoch)
    pred = predict(model, vc).argmax(1)
    cm = confusion(pred, vl, len(CLASSES))
    diff = export_onnx(model, (256, 1, PX, PX), "patches", a.out, vc[:512])
    report = {"parameters": nparams, "channels": list(channels), "train_patches": int(len(tl)),
              "val_patches": int(len(vl)), "epochs": a.epochs, "train_seconds": round(time.time() - t0, 1),
              "history": history, "confusion": cm.tolist(), "classes": CLASSES, "onnx_max_logit_diff": diff,
              "onnx_bytes": a.out.stat().st_size}
    if a.report:
        a.report.write_text(json.dumps(report, indent=1))
    print(json.dumps({k: v for k, v in report.items() if k not in ("confusion", "history")}), file=sys.stderr)


if __name__ == "__main__":
    main()
