#!/usr/bin/env python3
"""Check that every class appears often enough for every piece set, on both square colours.

Reads a manifest written by render_boards.py (one JSON line per board: set, labels in display
order) and counts, per set, each of the 12 pieces on light and on dark squares (empty squares
are always plentiful). Prints the sets with the fewest examples of their rarest piece and
square colour, and exits with status 1 when any set falls under --min.

Usage: python3 -m img2fen_training.eval.class_counts --manifest work/render-all/manifest.jsonl [--min 20] [--show 10]
"""

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

PIECES = "KQRBNPkqrbnp"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--manifest", type=Path, required=True)
    ap.add_argument("--min", type=int, default=20, help="fewest examples of any piece on either square colour")
    ap.add_argument("--show", type=int, default=10, help="how many of the sparsest sets to list")
    a = ap.parse_args()
    counts = defaultdict(Counter)  # set -> (piece, shade) -> n
    boards = Counter()
    for line in a.manifest.read_text().splitlines():
        rec = json.loads(line)
        boards[rec["set"]] += 1
        rows = rec["labels"].split("/")
        for r, row in enumerate(rows):
            for c, ch in enumerate(row):
                if ch != ".":
                    # a8 (display top left on a board from White's side) is light; the colour of
                    # a displayed square is the same from either side.
                    counts[rec["set"]][ch, "dark" if (r + c) % 2 else "light"] += 1
    rows = []
    for name in sorted(boards):
        c = counts[name]
        rarest = min(((c[p, s], p, s) for p in PIECES for s in ("light", "dark")))
        rows.append((rarest[0], name, boards[name], f"{rarest[1]} on {rarest[2]}"))
    rows.sort()
    print(f"{len(rows)} sets, {sum(boards.values())} boards; the rarest piece and square colour per set:")
    print("| set | boards | rarest | examples |")
    print("|---|---|---|---|")
    for n, name, nb, what in rows[: a.show]:
        print(f"| {name} | {nb} | {what} | {n} |")
    low = [r for r in rows if r[0] < a.min]
    print(f"sets under {a.min} examples of some piece on some square colour: {len(low)}")
    sys.exit(1 if low else 0)


if __name__ == "__main__":
    main()
