#!/usr/bin/env python3
"""Draws the cells a piece model misreads, set by set: for each piece set asked for, one row of
cells read right (one per class, for reference) and one of misread cells, each labelled
"truth>read" in the classes' FEN letters ("." empty). The cells are those `img2fen dataset`
cut, so the picture shows exactly what the model saw.

Usage: python3 -m img2fen_training.eval.misreads --model M.onnx --cells DIR --manifest render/manifest.jsonl
                                --sets font-line,font-condal --out misreads.png [--per-row 12]
"""
import argparse
import json
from collections import Counter
from pathlib import Path

import numpy as np
import onnxruntime as ort
from PIL import Image, ImageDraw

CLASSES = ".PNBRQKpnbrqk"
SCALE = 3


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", type=Path, required=True)
    ap.add_argument("--cells", type=Path, required=True)
    ap.add_argument("--manifest", type=Path, required=True)
    ap.add_argument("--sets", required=True, help="piece sets, comma-separated")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--per-row", type=int, default=12)
    a = ap.parse_args()

    cells = np.load(a.cells / "cells.npy")
    labels = np.load(a.cells / "labels.npy").astype(np.int64)
    boards = np.load(a.cells / "boards.npy")
    sets = np.array([json.loads(line)["set"] for line in a.manifest.open()])[boards]
    sess = ort.InferenceSession(str(a.model), providers=["CPUExecutionProvider"])

    tile = 32 * SCALE
    cap = 14
    rows = []
    for name in a.sets.split(","):
        idx = np.flatnonzero(sets == name)
        if len(idx) == 0:
            raise SystemExit(f"show_misreads: no cells of set {name!r} in {a.cells}")
        pred = sess.run(None, {"cells": cells[idx].astype(np.float32)[:, None] / 255})[0].argmax(1)
        right = idx[pred == labels[idx]]
        wrong = [(i, p) for i, p in zip(idx, pred) if p != labels[i]]
        # One reference cell per class read right; then the misreads, commonest confusion first,
        # at most two of each.
        ref = [(i, labels[i]) for c in range(1, 13) for i in right[labels[right] == c][:1]]
        common = Counter((labels[i], p) for i, p in wrong)
        shown, seen = [], Counter()
        for (t, p), _ in common.most_common():
            for i, q in wrong:
                if (labels[i], q) == (t, p) and seen[(t, p)] < 2:
                    shown.append((i, q))
                    seen[(t, p)] += 1
        acc = 1 - len(wrong) / len(idx)
        rows.append((f"{name}: {acc:.1%} of {len(idx)} cells read right; read right (top), misread (below)", ref, shown[:a.per_row]))

    width = a.per_row * tile
    height = sum(cap + 2 * (tile + cap) for _ in rows)
    out = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(out)
    y = 0
    for title, ref, shown in rows:
        draw.text((2, y + 1), title, fill=0)
        y += cap
        for line, misread in ((ref[:a.per_row], False), (shown, True)):
            for k, (i, p) in enumerate(line):
                cell = Image.fromarray(cells[i]).resize((tile, tile), Image.NEAREST)
                out.paste(cell, (k * tile, y))
                text = f"{CLASSES[labels[i]]}>{CLASSES[p]}" if misread else CLASSES[labels[i]]
                draw.text((k * tile + 3, y + tile + 1), text, fill=0)
            y += tile + cap
    out.save(a.out)
    print(f"show_misreads: {a.out}")


if __name__ == "__main__":
    main()
