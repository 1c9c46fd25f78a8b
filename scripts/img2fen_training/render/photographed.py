#!/usr/bin/env python3
"""A labelled folder's pictures as a phone photographs the screen that shows them.

Each picture of SRC/labels.csv (render.ui's screenshots, for example) is turned up to 6 degrees,
tilted in perspective onto a desk and given what a phone camera adds to a screen (uneven light,
a colour cast, glare, moire, blur, noise: `boards.photo_look`), then saved as a JPEG. The labels
are copied with every column kept, so that `img2fen eval OUT/labels.csv` measures the same
boards, the side to move included, as photos of a screen.

Usage: python3 -m img2fen_training.render.photographed --src DIR --out DIR [--seed 1]
"""

import argparse
import csv
import random
import sys
from pathlib import Path

from PIL import Image

from img2fen_training.render.boards import photo_look


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", type=Path, required=True, help="a folder with labels.csv")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    with open(a.src / "labels.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"photographed: {a.src / 'labels.csv'} has no rows")
    (a.out / "images").mkdir(parents=True, exist_ok=True)
    for row in rows:
        img = Image.open(a.src / row["file"]).convert("RGB")
        # The squares' size is not known here: a board fills about half the shorter side.
        square = min(img.size) / 16
        photo, _ = photo_look(rng, img, [], square, screenish=True)
        row["file"] = f"images/{Path(row['file']).stem}.jpg"
        photo.save(a.out / row["file"], quality=rng.randint(75, 92))
    with open(a.out / "labels.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    print(f"photographed: {len(rows)} photos in {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
