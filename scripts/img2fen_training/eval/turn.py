#!/usr/bin/env python3
"""Turns every picture of a labelled folder by an angle, for a stress test of the board finder
on real pictures (issue 4 asks for boards turned up to about 20 degrees).

Each picture (turned by its EXIF orientation first, as img2fen reads it) gets a margin of 15%
of its long side in a neutral grey-brown, is turned by ANGLE degrees counter-clockwise
(bicubic, the canvas grown to hold it) and saved as JPEG at quality 90 in OUT, with a
labels.csv of its own (the labels are unchanged: the board is only turned). Then

    img2fen eval OUT/labels.csv --backend tract --misses
"""
import argparse
import csv
from pathlib import Path

from PIL import Image, ImageOps

GROUND = (128, 120, 110)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("labels", type=Path)
    ap.add_argument("--angle", type=float, required=True)
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    rows = list(csv.DictReader(a.labels.open(newline="")))
    with (a.out / "labels.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["file", "fen_field1", "flipped", "kind", "notes"])
        for i, r in enumerate(rows):
            im = ImageOps.exif_transpose(Image.open(a.labels.parent / r["file"])).convert("RGB")
            pad = int(0.15 * max(im.size))
            canvas = Image.new("RGB", (im.width + 2 * pad, im.height + 2 * pad), GROUND)
            canvas.paste(im, (pad, pad))
            name = f"{i:03d}.jpg"
            canvas.rotate(a.angle, resample=Image.BICUBIC, expand=True, fillcolor=GROUND).save(a.out / name, quality=90)
            w.writerow([name, r["fen_field1"], r["flipped"], r["kind"], r.get("notes", "")])


if __name__ == "__main__":
    main()
