#!/usr/bin/env python3
"""Crops every picture of a labelled folder to its board, for comparing the finder with boards
cropped by hand (issue 4).

For each row of LABELS.csv (file, fen_field1, flipped, kind, notes), the picture (turned by its
EXIF orientation, as img2fen reads it) is cut to the bounding box of the first board img2fen
finds, and written to OUT with a labels.csv of its own. Check the crops by eye (OUT/montage.png)
before trusting them: a crop at a misplaced board is no hand crop. Then compare

    img2fen eval LABELS.csv --backend tract
    img2fen eval OUT/labels.csv --backend tract

Pictures where no board is found are left out and listed.
"""
import argparse
import csv
import json
import subprocess
import sys
from pathlib import Path

from PIL import Image, ImageOps

from img2fen_training.paths import ROOT


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("labels", type=Path)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--img2fen", default=str(ROOT / "target/release/img2fen"))
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    rows = list(csv.DictReader(a.labels.open(newline="")))
    thumbs = []
    with (a.out / "labels.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["file", "fen_field1", "flipped", "kind", "notes"])
        for i, r in enumerate(rows):
            path = a.labels.parent / r["file"]
            run = subprocess.run([a.img2fen, "--format", "json", "--board", "1", str(path)], capture_output=True, text=True)
            boards = json.loads(run.stdout.splitlines()[0]).get("boards", []) if run.stdout else []
            if not boards:
                print(f"{path}: no board found, left out", file=sys.stderr)
                continue
            xs, ys = zip(*boards[0]["corners"])
            im = ImageOps.exif_transpose(Image.open(path)).convert("RGB")
            box = (max(0, int(min(xs))), max(0, int(min(ys))), min(im.width, round(max(xs))), min(im.height, round(max(ys))))
            crop = im.crop(box)
            name = f"{i:03d}.png"
            crop.save(a.out / name)
            w.writerow([name, r["fen_field1"], r["flipped"], r["kind"], r.get("notes", "")])
            crop.thumbnail((160, 160))
            thumbs.append(crop)
    cols = 11
    montage = Image.new("RGB", (160 * cols, 160 * ((len(thumbs) + cols - 1) // cols)), "white")
    for k, t in enumerate(thumbs):
        montage.paste(t, ((k % cols) * 160, (k // cols) * 160))
    montage.save(a.out / "montage.png")
    print(f"{len(thumbs)} crops in {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
