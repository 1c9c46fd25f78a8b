#!/usr/bin/env python3
"""A labelled folder's pictures saved as phones save photos: HEIC and AVIF.

Each picture of LABELS (any labels.csv: testdata/expected.csv, realdata-dev's, a render's) is
saved as HEIC (libheif through pillow-heif) and as AVIF (Pillow), at quality 90, every other one
stored sideways with its turn to upright in the container (EXIF orientation 6 given to the
encoders, which write it as an `irot` box), as phones store portrait photos. OUT/labels.csv has a
row per new file with the source's columns, so that `img2fen eval OUT/labels.csv` measures the
same boards decoded from HEIC and AVIF; compare it with `img2fen eval LABELS`.

Usage: python3 -m img2fen_training.render.phone LABELS --out DIR   (needs the "phone" extra)
"""

import argparse
import csv
import sys
from pathlib import Path

from PIL import Image, ImageOps


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("labels", type=Path, help="a labels.csv whose file column is relative to its folder")
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args()
    import pillow_heif
    pillow_heif.register_heif_opener()
    with open(a.labels, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"phone: {a.labels} has no rows")
    a.out.mkdir(parents=True, exist_ok=True)
    exif = Image.Exif()
    exif[0x0112] = 6
    out_rows = []
    for i, row in enumerate(rows):
        img = ImageOps.exif_transpose(Image.open(a.labels.parent / row["file"]))
        if img.mode.startswith("I;16"):
            # Pillow clips 16-bit grey to 255 on the way to RGB: keep the upper byte.
            img = img.convert("I").point(lambda v: v / 256).convert("L")
        img = img.convert("RGB")
        turned = i % 2 == 1
        stem = Path(row["file"]).with_suffix("").as_posix().replace("/", "__")
        for ext in ("heic", "avif"):
            name = f"{stem}{'_turned' if turned else ''}.{ext}"
            if turned:
                img.transpose(Image.Transpose.ROTATE_90).save(a.out / name, quality=90, exif=exif.tobytes())
            else:
                img.save(a.out / name, quality=90)
            out_rows.append({**row, "file": name})
    with open(a.out / "labels.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(out_rows)
    print(f"{len(out_rows)} HEIC and AVIF pictures in {a.out}")


if __name__ == "__main__":
    main()
