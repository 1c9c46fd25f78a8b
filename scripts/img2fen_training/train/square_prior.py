#!/usr/bin/env python3
"""Count where each piece stands in real positions: the prior with which img2fen decodes a
physical board as a whole (`fen::decode_whole_board`).

A photo of a real set leaves the piece's type in doubt far more often than its presence or
colour; where pieces usually stand (pawns on the second to seventh ranks, kings near their
corners, the starting squares) settles many of those doubts. This writes, for each of the 64
squares (a8 first, h1 last, White at the bottom), how many of the positions hold each class
there (classes `.PNBRQKpnbrqk`); img2fen adds one to each count and takes the logarithm of the
share.

Usage: python3 -m img2fen_training.train.square_prior [--positions work/assets/positions.txt]
                                     [--out models/square_prior.json]
"""

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from img2fen_training.paths import ASSETS, ROOT

CLASSES = ".PNBRQKpnbrqk"


def count(lines, leave_out=()) -> np.ndarray:
    """[64, 13] counts of each class on each square (a8..h1) over FEN field 1 at the start of each
    line, leaving out the placements in `leave_out`."""
    counts = np.zeros((64, 13), dtype=np.int64)
    leave_out = set(leave_out)
    for line in lines:
        placement = line.split()[0] if line.strip() else ""
        if not placement or placement in leave_out:
            continue
        i = 0
        for ch in placement:
            if ch.isdigit():
                counts[i:i + int(ch), 0] += 1
                i += int(ch)
            elif ch != "/":
                counts[i, CLASSES.index(ch)] += 1
                i += 1
        assert i == 64, f"a placement of 64 squares: {placement}"
    return counts


def log_prior(counts: np.ndarray) -> np.ndarray:
    """log P(class | square) with one added to every count, as img2fen computes it."""
    c = counts + 1.0
    return np.log(c / c.sum(1, keepdims=True))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--positions", type=Path, default=ASSETS / "positions.txt")
    ap.add_argument("--out", type=Path, default=ROOT / "models" / "square_prior.json")
    a = ap.parse_args()
    lines = a.positions.read_text().splitlines()
    counts = count(lines)
    n = int(counts[0].sum())
    a.out.write_text(json.dumps({
        "about": "How many of the positions hold each class on each square; img2fen's whole-board "
                 "decoding of physical boards adds one to each and takes the log of the share.",
        "fitted_on": f"{n} positions of positions.txt (img2fen_training.assets), White at the bottom",
        "classes": CLASSES,
        "squares": "a8 b8 ... h8, a7 ... h1",
        "counts": counts.tolist(),
    }, indent=0) + "\n")
    print(f"wrote {a.out} from {n} positions", file=sys.stderr)


if __name__ == "__main__":
    main()
