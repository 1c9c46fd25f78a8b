#!/usr/bin/env python3
"""Measure board-level decoding of a classifier's cell probabilities: each board read as the most
probable whole position under the material a game allows, instead of square by square.

The decoder is a min-cost assignment (Hungarian) of the 64 squares to class slots: one king a
side (required), at most 8 pawns a side and never on the first or last rank, and the starting set
of queens, rooks, knights and bishops a side (a side's two bishops on squares of different
colours), plus `--promoted` slots of each piece per side at a cost in log-probability. It measures
step 3 alone, on cells cut at true corners as in `eval.tall` (rows are a8..h1).

Usage:
  python3 -m img2fen_training.eval.board_decode --cells DIR --manifest M.jsonl --model M.onnx \
      [--prior work/assets/positions.txt] [--games-only]
  python3 -m img2fen_training.eval.board_decode --games-csv LABELS.csv OUT.csv
      (the rows of a labels.csv whose material a game can reach, for `img2fen eval`)
"""

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from img2fen_training.eval.tall import cell_probabilities
from img2fen_training.train.square_prior import components, log_prior

NAMES = ".PNBRQKpnbrqk"
# Slots a side starts with, per piece type: (type index in PNBRQK, count).
START = {"P": 8, "N": 2, "B": 2, "R": 2, "Q": 1, "K": 1}


def slots(promoted):
    """Columns of the assignment: (class, square-colour restriction or None, extra cost)."""
    cols = []
    for side in (0, 6):
        for k, n in START.items():
            c = side + 1 + "PNBRQK".index(k)
            if k == "B":
                cols += [(c, 0, 0.0), (c, 1, 0.0)]
            else:
                cols += [(c, None, 0.0)] * n
            if k in "NBRQ":
                cols += [(c, None, promoted[1])] * promoted[0]
    cols += [(0, None, 0.0)] * 64
    return cols


def reachable(fen: str) -> bool:
    """Whether a game can reach the material of FEN field 1: one king a side, at most 8 pawns,
    and no more pieces beyond the starting set than missing pawns."""
    for side in (str.isupper, str.islower):
        pieces = [ch.upper() for ch in fen if ch.isalpha() and side(ch)]
        extra = sum(max(0, pieces.count(k) - n) for k, n in START.items() if k in "NBRQ")
        if pieces.count("K") != 1 or pieces.count("P") + extra > 8:
            return False
    return True


def square_prior(path: Path, leave_out=(), k: int = 1) -> list:
    """(log weight, log P(class | square) [64, 13]) of each of `k` groups of the positions in
    `path` (positions.txt of `img2fen_training.assets`) less `leave_out`, as `train.square_prior`
    makes them; rows a8..h1."""
    parts = components(path.read_text().splitlines(), k, leave_out)
    n = sum(m for m, _ in parts)
    return [(np.log(m / n), log_prior(c)) for m, c in parts]


def decode_mixture(probs, cols, prior, weight):
    """The board decoded under each group of `prior` ([`square_prior`]) weighted by `weight`;
    returns the classes of the group that gives the highest score, and that score."""
    best = None
    lp = np.log(np.clip(probs, 1e-9, 1))
    for log_w, log_p in prior:
        out = decode(probs, cols, prior=weight * log_p)
        score = (lp + weight * log_p)[np.arange(64), out].sum() + weight * log_w
        if best is None or score > best[1]:
            best = (out, score)
    return best


def decode(probs, cols, king_bonus=50.0, prior=None):
    """The assignment of one board's 64 squares (rows a8..h1) to `cols`; returns 64 classes.
    `prior`: log P(class | square), added to the log-probabilities."""
    from scipy.optimize import linear_sum_assignment

    lp = np.log(np.clip(probs, 1e-9, 1))
    if prior is not None:
        lp = lp + prior
    cost = np.empty((64, len(cols)))
    for j, (c, colour, extra) in enumerate(cols):
        cost[:, j] = -lp[:, c] + extra
        if colour is not None:
            for s in range(64):
                if (s // 8 + s % 8) % 2 != colour:
                    cost[s, j] = 1e6
        if c in (1, 7):
            cost[:8, j] = 1e6
            cost[56:, j] = 1e6
        if c in (6, 12):
            cost[:, j] -= king_bonus
    rows, picked = linear_sum_assignment(cost)
    out = np.zeros(64, dtype=int)
    out[rows] = [cols[j][0] for j in picked]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cells", type=Path)
    ap.add_argument("--manifest", type=Path)
    ap.add_argument("--model", type=Path, nargs="+")
    ap.add_argument("--games-csv", type=Path, nargs=2, metavar=("LABELS", "OUT"))
    ap.add_argument("--promoted", default="1:3.0", help="SLOTS:COST extra slots per piece type and side")
    ap.add_argument("--prior", type=Path, help="positions.txt: a prior on each square's class from real positions")
    ap.add_argument("--prior-weight", type=float, default=1.0)
    ap.add_argument("--components", type=int, default=1, help="groups of positions in the prior (k-means)")
    ap.add_argument("--games-only", action="store_true",
                    help="measure only boards whose material a game can reach (one king a side, promotions "
                         "within the missing pawns): the renders' dense random layouts left out")
    ap.add_argument("--temperature", type=float, default=1.0, help="logits divided by this first")
    a = ap.parse_args()
    if a.games_csv:
        import csv

        src, out = a.games_csv
        with open(src, newline="") as f:
            reader = csv.DictReader(f)
            kept = [r for r in reader if reachable(r["fen_field1"])]
        with open(out, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=reader.fieldnames)
            w.writeheader()
            w.writerows(kept)
        print(f"{len(kept)} rows of {src} hold material a game can reach", file=sys.stderr)
        return
    if not (a.cells and a.manifest and a.model):
        ap.error("--cells, --manifest and --model are needed")
    import onnxruntime as ort

    rows = [json.loads(line) for line in a.manifest.read_text().splitlines() if line.strip()]
    cells = np.load(a.cells / "cells.npy")
    labels = np.load(a.cells / "labels.npy")
    boards = np.load(a.cells / "boards.npy")
    nets = [ort.InferenceSession(str(m), providers=["CPUExecutionProvider"]) for m in a.model]
    probs = cell_probabilities(cells, nets, a.temperature)
    if a.games_only:
        keep = np.array([reachable(r["labels"]) for r in rows])
        m = keep[boards]
        probs, labels, boards = probs[m], labels[m], boards[m]
        print(f"{int(keep.sum())} of {len(rows)} boards hold material a game can reach", file=sys.stderr)
    n, cost = a.promoted.split(":")
    cols = slots((int(n), float(cost)))
    # The measured boards' own positions are left out of the prior (renders draw theirs from it).
    prior = square_prior(a.prior, [r["labels"] for r in rows], a.components) if a.prior else None
    plain = probs.argmax(1)
    board_pred = plain.copy()
    for b in np.unique(boards):
        m = np.flatnonzero(boards == b)
        assert len(m) == 64, "a board's 64 cells in order"
        board_pred[m] = decode_mixture(probs[m], cols, prior, a.prior_weight)[0] if prior else decode(probs[m], cols)

    def line(name, pred):
        both = (labels > 0) & (pred > 0)
        typ = ((labels[both] - 1) % 6 == (pred[both] - 1) % 6).mean()
        exact = sum(int((pred[boards == b] == labels[boards == b]).all()) for b in np.unique(boards))
        sets = sorted({r.get("set", "") for r in rows})
        per = ""
        if 1 < len(sets) <= 6:
            per = ", ".join(
                f"{s}: {(pred[m] == labels[m]).mean():.2%}"
                for s in sets
                for m in [np.isin(boards, [i for i, r in enumerate(rows) if r.get("set", "") == s])])
        print(f"| {name} | {(pred == labels).mean():.2%} | {typ:.1%} | {exact} | {per} |")

    print("| decoding | squares | type of pieces | exact | per set |")
    print("|---|---:|---:|---:|---|")
    line("square by square", plain)
    if prior is not None and len(prior) == 1:
        lp = np.log(np.clip(probs, 1e-9, 1)).reshape(-1, 64, 13) + a.prior_weight * prior[0][1]
        line(f"square by square, prior x{a.prior_weight}", lp.argmax(2).reshape(-1))
    named = f", prior x{a.prior_weight} in {a.components} groups" if prior else ""
    line(f"whole board (promoted {a.promoted}{named})", board_pred)
    changed = (plain != board_pred)
    print(f"squares changed: {changed.sum()}, of them now right {(board_pred[changed] == labels[changed]).sum()}, "
          f"were right {(plain[changed] == labels[changed]).sum()}", file=sys.stderr)


if __name__ == "__main__":
    main()
