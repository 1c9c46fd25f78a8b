#!/usr/bin/env python3
"""Fit the weights with which img2fen's orient step reads the side at the bottom from the pieces.

Without coordinates, which side is at the bottom has to come from where the pieces stand. Each
feature below is a count over the displayed board that changes sign when the board is turned
round, positive when it says White is at the bottom. A logistic regression on real positions,
each shown both ways up, weighs them. `src/orient.rs` computes the same features
(`piece_features`) and reads the weights from `models/orientation_weights.json`, which this
script writes together with a few positions and their features for the Rust tests to check.

Honest measure: the weights are fitted on the even-numbered games of positions.txt and measured
on the odd ones (a game's positions all fall on one side), then refitted on all for shipping.

Usage: python3 -m img2fen_training.train.orientation [--positions work/assets/positions.txt]
                                  [--out models/orientation_weights.json]
"""

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from img2fen_training.paths import ASSETS, ROOT
from img2fen_training.render import boards as rb

FEATURES = ["pawn_height", "king_height", "piece_height", "pawns_facing", "pawns_diagonal", "pawns_home",
            "kings_home"]
L2 = 1e-3
# Log-odds for White at the bottom before any piece is seen (not fitted: the positions are shown
# both ways up equally often, pictures are not). Books print diagrams from White's side and most
# screens show the user's side as White; 1.0 (73%) lets two pawns' evidence overrule it.
WHITE_PRIOR = 1.0


def features(d):
    """The features of 64 display-order cells (row 0 at the top); see FEATURES. Mirrors
    `orient::piece_features`."""
    f = dict.fromkeys(FEATURES, 0.0)
    height = lambda r: (r - 3.5) / 3.5  # -1 on the top row, +1 on the bottom row
    white_pawns = [divmod(i, 8) for i, p in enumerate(d) if p == "P"]
    black_pawns = [divmod(i, 8) for i, p in enumerate(d) if p == "p"]
    for i, p in enumerate(d):
        if p is None:
            continue
        r, c = divmod(i, 8)
        sign = 1.0 if p.isupper() else -1.0
        role = p.lower()
        key = {"p": "pawn_height", "k": "king_height"}.get(role, "piece_height")
        f[key] += sign * height(r)
        if role == "k":
            home = 7 if p == "K" else 0  # a king at home, for its own side at the bottom
            f["kings_home"] += (r == home) - (r == 7 - home)
    for wr, wc in white_pawns:
        for br, bc in black_pawns:
            key = "pawns_facing" if wc == bc else "pawns_diagonal" if abs(wc - bc) == 1 else None
            if key:
                f[key] += float((wr > br) - (wr < br))
    f["pawns_home"] = (sum(r == 6 for r, _ in white_pawns) - sum(r == 1 for r, _ in white_pawns)
                       + sum(r == 1 for r, _ in black_pawns) - sum(r == 6 for r, _ in black_pawns))
    return [float(f[k]) for k in FEATURES]


ROLES = "PNBRQKpnbrqk"


def piece_squares(d):
    """A piece-square table that changes sign when the board is turned round: each piece's
    one-hot (piece, row, file folded onto a-d) minus the same of the turned board (384 values).
    Measured beside FEATURES (`--piece-squares`), not shipped."""
    def table(cells):
        v = np.zeros((12, 8, 4))
        for i, p in enumerate(cells):
            if p is not None:
                r, c = divmod(i, 8)
                v[ROLES.index(p), r, min(c, 7 - c)] += 1
        return v.ravel()
    return list(table(d) - table(d[::-1]))


def dataset(rows, extra=None):
    """Each position both ways up: features (and `extra`'s, when given) and whether White is at
    the bottom."""
    x, y = [], []
    for placement in rows:
        c = rb.fen_cells(placement)
        for cells, white in ((c, 1), (c[::-1], 0)):
            x.append(features(cells) + (extra(cells) if extra else []))
            y.append(white)
    return np.array(x), np.array(y)


def fit(x, y, l2=L2):
    """Logistic regression without a bias (the features are antisymmetric and every position is
    seen both ways, so the fitted bias would be zero), by Newton's method with a little L2."""
    w = np.zeros(x.shape[1])
    for _ in range(50):
        p = 1 / (1 + np.exp(-x @ w))
        g = x.T @ (p - y) / len(y) + l2 * w
        h = (x.T * (p * (1 - p))) @ x / len(y) + l2 * np.eye(len(w))
        w -= np.linalg.solve(h, g)
    return w


def accuracy(x, y, w, prior=0.0):
    return float(((x @ w + prior > 0) == (y == 1)).mean())


def compare_piece_squares(fit_rows, groups):
    """Held-out accuracy and log loss of FEATURES alone and with `piece_squares` beside them."""
    print("| model | " + " | ".join(groups) + " |", file=sys.stderr)
    print("|---|" + "---|" * len(groups), file=sys.stderr)
    for name, extra, l2 in [("7 features", None, L2), ("+ piece squares, L2 1e-3", piece_squares, 1e-3),
                            ("+ piece squares, L2 1e-2", piece_squares, 1e-2),
                            ("+ piece squares, L2 3e-2", piece_squares, 3e-2)]:
        w = fit(*dataset(fit_rows, extra), l2)
        cells = []
        for g in groups.values():
            x, y = dataset(g, extra)
            s = x @ w
            loss = float(np.mean(np.logaddexp(0, -np.where(y == 1, s, -s))))
            cells.append(f"{100 * float(((s > 0) == (y == 1)).mean()):.2f}% ({loss:.3f})")
        print(f"| {name} | " + " | ".join(cells) + " |", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--positions", type=Path, default=ASSETS / "positions.txt")
    ap.add_argument("--out", type=Path, default=ROOT / "models" / "orientation_weights.json")
    ap.add_argument("--piece-squares", action="store_true",
                    help="only measure: FEATURES with a piece-square table beside them, at three L2 weights, "
                         "on the held-out games (writes nothing)")
    a = ap.parse_args()
    rows = [line.split("\t") for line in a.positions.read_text().splitlines() if line]
    fit_rows = [r[0] for r in rows if int(r[1]) % 2 == 0]
    test = [r for r in rows if int(r[1]) % 2 == 1]
    w = fit(*dataset(fit_rows))
    report = {}
    groups = {
        "all": [r[0] for r in test],
        "played games (mate_in_N)": [r[0] for r in test if r[2].startswith("mate_in_")],
        "2+ pawns": [r[0] for r in test if sum(ch in "Pp" for ch in r[0]) >= 2],
        "0-1 pawns": [r[0] for r in test if sum(ch in "Pp" for ch in r[0]) < 2],
    }
    if a.piece_squares:
        compare_piece_squares(fit_rows, groups)
        return
    print("| positions (odd games, each both ways up) | boards | right | right with the prior |", file=sys.stderr)
    print("|---|---|---|---|", file=sys.stderr)
    for name, g in groups.items():
        x, y = dataset(g)
        acc, with_prior = accuracy(x, y, w), accuracy(x, y, w, WHITE_PRIOR)
        report[name] = {"boards": 2 * len(g), "right": round(acc, 4), "right_with_prior": round(with_prior, 4)}
        print(f"| {name} | {2 * len(g)} | {100 * acc:.1f}% | {100 * with_prior:.1f}% |", file=sys.stderr)
    final = fit(*dataset([r[0] for r in rows]))
    checks = [r[0] for r in rows[:: max(1, len(rows) // 4)][:4]]
    out = {
        "features": FEATURES,
        "weights": [round(float(v), 5) for v in final],
        "white_prior": WHITE_PRIOR,
        "fitted_on": f"{len(rows)} positions of {a.positions.name} (fetch_assets.py), both ways up",
        "held_out_games": report,
        "checks": [{"placement": p, "features": features(rb.fen_cells(p))} for p in checks],
    }
    a.out.write_text(json.dumps(out, indent=1) + "\n")
    print(f"weights {dict(zip(FEATURES, out['weights']))} -> {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
