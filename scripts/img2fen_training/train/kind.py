#!/usr/bin/env python3
"""Train the kind classifier: is a located board a flat one (a diagram, a screen, a print, or a
photo of one) or a physical one (a real set on a table)? Export it to ONNX.

Input: folders written by `img2fen dataset --boards` (cells.npy uint8 [N, 64, 64]: the warped
board reduced 4x, img2fen's cells::kind_view), given as flat or physical. The network sees grey
levels / 255, shape [N, 1, 64, 64], and outputs 2 logits: flat, physical.

Usage: python3 -m img2fen_training.train.kind --flat DIR [DIR...] --physical DIR [DIR...]
           --val-flat DIR --val-physical DIR --out models/kind_classifier.onnx
"""

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn

from img2fen_training.train.pieces import augment, export_onnx, fit, predict


class KindNet(nn.Module):
    """Four conv blocks halving a 64x64 view to 4x4, global average pooling, one linear layer:
    the kind is a property of the whole board, wherever its pieces stand."""

    def __init__(self, channels=(8, 16, 32, 48)):
        super().__init__()

        def block(i, o):
            return nn.Sequential(nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True),
                                 nn.MaxPool2d(2))

        a, b, c, d = channels
        self.features = nn.Sequential(block(1, a), block(a, b), block(b, c), block(c, d))
        self.head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(d, 2))

    def forward(self, x):
        return self.head(self.features(x))


def views(dirs, label):
    x = np.concatenate([np.load(Path(d) / "cells.npy") for d in dirs])
    return x, np.full(len(x), label, dtype=np.int64)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--flat", nargs="+", required=True)
    ap.add_argument("--physical", nargs="+", required=True)
    ap.add_argument("--val-flat", nargs="+", required=True)
    ap.add_argument("--val-physical", nargs="+", required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--report", type=Path)
    a = ap.parse_args()
    torch.manual_seed(a.seed)
    torch.set_num_threads(a.threads)
    g = torch.Generator().manual_seed(a.seed)
    fx, fy = views(a.flat, 0)
    px, py = views(a.physical, 1)
    tx, ty = np.concatenate([fx, px]), np.concatenate([fy, py])
    vfx, vfy = views(a.val_flat, 0)
    vpx, vpy = views(a.val_physical, 1)
    vx, vy = np.concatenate([vfx, vpx]), np.concatenate([vfy, vpy])
    print(f"train {len(fx)} flat + {len(px)} physical, val {len(vfx)} + {len(vpx)}", file=sys.stderr)
    model = KindNet()
    t0 = time.time()
    history = []

    def after_epoch(epoch, loss):
        pred = predict(model, vx).argmax(1)
        flat_ok, phys_ok = float((pred[vy == 0] == 0).mean()), float((pred[vy == 1] == 1).mean())
        history.append({"epoch": epoch + 1, "loss": loss, "val_flat_right": flat_ok, "val_physical_right": phys_ok})
        print(f"epoch {epoch + 1}: loss {loss:.4f}  val flat {flat_ok:.2%}  physical {phys_ok:.2%}", file=sys.stderr)

    def augment_views(x, g):
        mirror = torch.rand(x.shape[0], generator=g) < 0.5
        x = torch.where(mirror[:, None, None, None], x.flip(-1), x)
        turn = torch.rand(x.shape[0], generator=g) < 0.5  # a board read from beside it
        x = torch.where(turn[:, None, None, None], x.transpose(-1, -2).flip(-1), x)
        return augment(x, g)

    fit(model, torch.from_numpy(tx), torch.from_numpy(ty), epochs=a.epochs, batch=a.batch, lr=a.lr, g=g,
        augment=augment_views, after_epoch=after_epoch)
    diff = export_onnx(model, (1, 1, 64, 64), "boards", a.out, vx[:256])
    report = {"parameters": sum(p.numel() for p in model.parameters()), "train_flat": int(len(fx)),
              "train_physical": int(len(px)), "epochs": a.epochs, "history": history,
              "train_seconds": round(time.time() - t0, 1), "onnx_max_logit_diff": diff}
    if a.report:
        a.report.write_text(json.dumps(report, indent=1))
    print(json.dumps({k: v for k, v in report.items() if k != "history"}), file=sys.stderr)


if __name__ == "__main__":
    main()
