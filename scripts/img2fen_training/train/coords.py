#!/usr/bin/env python3
"""Train the coordinate reader on label patches cut by `img2fen dataset --labels`, export ONNX.

Input folders hold cells.npy (uint8 [N, 24, 24]), labels.npy (uint8 [N], img2fen's
orient::LABEL_CLASSES order: nothing, 1-8, a-h) and boards.npy. The network sees exactly what
img2fen's orient::label_patches produces: each patch stretched to its own grey range, / 255,
shape [N, 1, 24, 24]; it outputs 17 logits.

Usage: python3 -m img2fen_training.train.coords --train DIR --val DIR --out models/coords_classifier.onnx
"""

import json
import sys
import time

import numpy as np
import torch
import torch.nn as nn

from img2fen_training.train.pieces import arguments, confusion, export_onnx, fit, load, predict, seeded

CLASSES = [".", "1", "2", "3", "4", "5", "6", "7", "8", "a", "b", "c", "d", "e", "f", "g", "h"]
PX = 24


class LabelNet(nn.Module):
    """Three 3x3 conv blocks with max pooling after each (24 -> 12 -> 6 -> 3 pixels), then one
    linear layer. The default 8-16-32 costs about 0.4M multiply-adds a patch, so the 92 patches
    of a board cost less than the 64 cells of the piece model."""

    def __init__(self, channels=(8, 16, 32), classes=None):
        super().__init__()
        classes = classes or len(CLASSES)
        a, b, c = channels

        def block(i, o):
            return nn.Sequential(nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True),
                                 nn.MaxPool2d(2))

        self.features = nn.Sequential(block(1, a), block(a, b), block(b, c))
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(0.2), nn.Linear(c * 3 * 3, classes))

    def forward(self, x):
        return self.head(self.features(x))


def augment(x: torch.Tensor, g: torch.Generator) -> torch.Tensor:
    """Photometric jitter per patch (contrast, brightness, gamma, noise) and, for a quarter of
    them, inverted grey levels: labels come light on dark and dark on light."""
    n = x.shape[0]
    r = lambda lo, hi: torch.rand(n, 1, 1, 1, generator=g, device=x.device) * (hi - lo) + lo
    flip = (torch.rand(n, 1, 1, 1, generator=g, device=x.device) < 0.25).float()
    x = x * (1 - flip) + (1 - x) * flip
    x = (x - 0.5) * r(0.7, 1.2) + 0.5 + r(-0.1, 0.1)
    x = x.clamp(0, 1) ** r(0.75, 1.35)
    x = x + torch.randn(x.shape, generator=g, device=x.device) * r(0.0, 0.05)
    return x.clamp(0, 1)


def main():
    ap = arguments(__doc__, 4e-3, "8,16,32", "channels of the three conv blocks")
    ap.add_argument("--none-ratio", type=float, default=2.0, help="'nothing' patches kept per label patch")
    a = ap.parse_args()
    rng, g = seeded(a)

    tc, tl, _ = load(a.train)
    n_labels = int((tl != 0).sum())
    keep = (tl != 0) | (rng.random(len(tl)) < a.none_ratio * n_labels / max(1, int((tl == 0).sum())))
    tc, tl = tc[keep], tl[keep]
    vc, vl, _ = load(a.val)
    print(f"train {len(tl)} patches, val {len(vl)}; class counts {np.bincount(tl, minlength=17).tolist()}", file=sys.stderr)

    channels = tuple(int(c) for c in a.channels.split(","))
    model = LabelNet(channels)
    nparams = sum(p.numel() for p in model.parameters())
    print(f"{nparams} parameters", file=sys.stderr)
    tx, ty = torch.from_numpy(tc), torch.from_numpy(tl)
    t0 = time.time()
    history = []

    def after_epoch(epoch, loss):
        pred = predict(model, vc).argmax(1)
        acc = float((pred == vl).mean())
        lab = vl != 0
        label_acc = float((pred[lab] == vl[lab]).mean())
        false_label = float((pred[~lab] != 0).mean())
        history.append({"epoch": epoch + 1, "loss": loss, "val_acc": acc, "val_label_acc": label_acc,
                        "val_false_label": false_label, "seconds": time.time() - t0})
        print(f"epoch {epoch + 1}: loss {loss:.4f}  val {acc:.4%}  labels read {label_acc:.3%}  "
              f"nothing read as a label {false_label:.3%}  ({time.time() - t0:.0f} s)", file=sys.stderr)

    fit(model, tx, ty, epochs=a.epochs, batch=a.batch, lr=a.lr, g=g, augment=augment, after_epoch=after_epoch)

    logits = predict(model, vc)
    pred = logits.argmax(1)
    cm = confusion(pred, vl, len(CLASSES))
    diff = export_onnx(model, (92, 1, PX, PX), "patches", a.out, vc[:512])
    report = {"parameters": nparams, "channels": list(channels), "train_patches": int(len(tl)),
              "val_patches": int(len(vl)), "epochs": a.epochs, "train_seconds": round(time.time() - t0, 1),
              "history": history, "confusion": cm.tolist(), "classes": CLASSES, "onnx_max_logit_diff": diff,
              "onnx_bytes": a.out.stat().st_size}
    if a.report:
        a.report.write_text(json.dumps(report, indent=1))
    print(json.dumps({k: v for k, v in report.items() if k not in ("confusion", "history")}), file=sys.stderr)


if __name__ == "__main__":
    main()
