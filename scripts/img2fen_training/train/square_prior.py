#!/usr/bin/env python3
"""Count where each piece stands in real positions: the prior with which img2fen decodes a
physical board as a whole (`fen::decode_whole_board`).

A photo of a real set leaves the piece's type in doubt far more often than its presence or
colour; where pieces usually stand (pawns on the second to seventh ranks, kings near their
corners, the starting squares) settles many of those doubts. Where pieces stand depends on the
kind of position (an opening, a middlegame with castled kings, a pawn endgame), so the positions
are first grouped by k-means on their 64x13 one-hot boards (`--components`, seeded), and each
group gets its own counts. This writes, for each group, how many positions it holds and, for
each of the 64 squares (a8 first, h1 last, White at the bottom), how many of them hold each
class there (classes `.PNBRQKpnbrqk`); img2fen adds one to each count, takes the logarithm of
the share, and decodes a board under the group that makes it most probable.

Usage: python3 -m img2fen_training.train.square_prior [--positions work/assets/positions.txt]
                                     [--components 12] [--out models/square_prior.json]
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


def one_hot(lines) -> np.ndarray:
    """[positions, 64 * 13] one-hot boards of the placements at the start of `lines`."""
    return np.stack([np.eye(13)[count([line]).argmax(1)].reshape(-1) for line in lines])


def groups(lines, k: int, seed: int = 0, iterations: int = 30) -> np.ndarray:
    """The k-means group (0..k-1) of each position, on its one-hot board."""
    x = one_hot(lines)
    centres = x[np.random.default_rng(seed).choice(len(x), k, replace=False)]
    for _ in range(iterations):
        near = ((x[:, None, :] - centres[None]) ** 2).sum(2).argmin(1)
        centres = np.stack([x[near == g].mean(0) if (near == g).any() else centres[g] for g in range(k)])
    return near


def components(lines, k: int, leave_out=()) -> list:
    """(positions, counts [64, 13]) of each of `k` groups of the placements in `lines` less
    `leave_out`."""
    leave_out = set(leave_out)
    lines = [line for line in lines if line.strip() and line.split()[0] not in leave_out]
    near = groups(lines, k) if k > 1 else np.zeros(len(lines), dtype=int)
    return [(int((near == g).sum()), count([lines[i] for i in np.flatnonzero(near == g)])) for g in range(k)]


def log_prior(counts: np.ndarray) -> np.ndarray:
    """log P(class | square) with one added to every count, as img2fen computes it."""
    c = counts + 1.0
    return np.log(c / c.sum(1, keepdims=True))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--positions", type=Path, default=ASSETS / "positions.txt")
    ap.add_argument("--components", type=int, default=12, help="groups of positions (k-means, seed 0)")
    ap.add_argument("--out", type=Path, default=ROOT / "models" / "square_prior.json")
    a = ap.parse_args()
    parts = components(a.positions.read_text().splitlines(), a.components)
    n = sum(m for m, _ in parts)
    head = json.dumps({
        "about": "Groups of real positions (k-means on their boards) and, in each, how many of its "
                 "positions hold each class on each square; img2fen's whole-board decoding of physical "
                 "boards adds one to each count, takes the log of the share, and uses the group that "
                 "makes the board most probable.",
        "fitted_on": f"{n} positions of positions.txt (img2fen_training.assets), White at the bottom, "
                     f"{a.components} groups",
        "classes": CLASSES,
        "squares": "a8 b8 ... h8, a7 ... h1",
    }, indent=1)
    # One line per square's 13 counts, so that the file reads (and diffs) as a table.
    groups = ",\n".join(
        f' {{"positions": {m}, "counts": [\n' + ",\n".join("  " + json.dumps(row) for row in c.tolist()) + "\n ]}"
        for m, c in parts)
    a.out.write_text(head[:-2] + ',\n "components": [\n' + groups + "\n ]\n}\n")
    print(f"wrote {a.out} from {n} positions in {a.components} groups: {[m for m, _ in parts]}", file=sys.stderr)


if __name__ == "__main__":
    main()
