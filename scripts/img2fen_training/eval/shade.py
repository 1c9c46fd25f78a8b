#!/usr/bin/env python3
"""Darkens every picture of a labelled folder towards one side, for a stress test of the cells'
light correction on real pictures: a phone held over a book or a screen lights one part of the
board and leaves the rest in shadow, and the vignetting of its lens darkens the corners.

Each picture (turned by its EXIF orientation first, as img2fen reads it) is multiplied by a
light that falls off smoothly from a point on or beyond its edge, on a line through its
centre: light(d) = 1 - STRENGTH * (d / D)^2, where d is the distance to that point and D the
distance from it to the farthest corner. STRENGTH 0.6 leaves the darkest corner at 40% of
its light. The point's direction is drawn per picture from --seed, so a run is repeatable.
Saved as JPEG at quality 90 in OUT, with a labels.csv of its own (the labels are unchanged).
Then

    img2fen eval OUT/labels.csv --backend tract --misses
"""
import argparse
import csv
import math
import random
from pathlib import Path

import numpy as np
from PIL import Image, ImageOps


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("labels", type=Path)
    ap.add_argument("--strength", type=float, required=True, help="how dark the farthest corner gets: 0 none, 1 black")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    rows = list(csv.DictReader(a.labels.open(newline="")))
    rng = random.Random(a.seed)
    with (a.out / "labels.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["file", "fen_field1", "flipped", "kind", "notes"])
        for i, r in enumerate(rows):
            im = ImageOps.exif_transpose(Image.open(a.labels.parent / r["file"])).convert("RGB")
            wd, ht = im.size
            angle = rng.uniform(0, 2 * math.pi)
            reach = rng.uniform(0.5, 0.8) * math.hypot(wd, ht)
            px, py = wd / 2 + reach * math.cos(angle), ht / 2 + reach * math.sin(angle)
            ys, xs = np.mgrid[0:ht, 0:wd].astype(np.float32)
            d = np.hypot(xs - px, ys - py)
            far = max(math.hypot(cx - px, cy - py) for cx in (0, wd) for cy in (0, ht))
            light = 1 - a.strength * (d / far) ** 2
            out = np.asarray(im, dtype=np.float32) * light[:, :, None]
            name = f"{i:03d}.jpg"
            Image.fromarray(out.clip(0, 255).round().astype(np.uint8)).save(a.out / name, quality=90)
            w.writerow([name, r["fen_field1"], r["flipped"], r["kind"], r.get("notes", "")])


if __name__ == "__main__":
    main()
