#!/usr/bin/env python3
"""Measure an exported piece model on cells cut by `img2fen dataset`.

Prints markdown: square and board accuracy overall and per piece set (from the render
manifest), the confusion matrix, a reliability table (confidence bins: mean confidence vs
accuracy) and, for candidate `--min-confidence` thresholds, the share of misread squares that
would be flagged and the flagged squares per correctly read board.

Usage: python3 -m img2fen_training.eval.model --model models/piece_classifier.onnx --cells DIR
                                [--manifest DIR/manifest.jsonl]
"""

import argparse
import json
from collections import defaultdict
from pathlib import Path

import numpy as np
import onnxruntime as ort

from img2fen_training.render.boards import HELDOUT

CLASSES = [".", "P", "N", "B", "R", "Q", "K", "p", "n", "b", "r", "q", "k"]


def softmax(x):
    e = np.exp(x - x.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", type=Path, required=True)
    ap.add_argument("--cells", type=Path, required=True)
    ap.add_argument("--manifest", type=Path)
    a = ap.parse_args()

    cells = np.load(a.cells / "cells.npy")
    labels = np.load(a.cells / "labels.npy").astype(np.int64)
    boards = np.load(a.cells / "boards.npy")
    sess = ort.InferenceSession(str(a.model), providers=["CPUExecutionProvider"])
    probs = np.concatenate([
        softmax(sess.run(None, {"cells": cells[i:i + 4096].astype(np.float32)[:, None] / 255})[0])
        for i in range(0, len(cells), 4096)
    ])
    pred = probs.argmax(1)
    conf = probs.max(1)
    right = pred == labels
    ids = np.unique(boards)
    # Boards are cut in copies; a "board" here is one cut of 64 cells.
    nb = len(labels) // 64
    board_right = right.reshape(nb, 64).all(1)
    print(f"cells: {len(labels)}, boards: {nb} (from {len(ids)} rendered images)\n")
    print(f"| squares right | boards exact |\n|---|---|\n| {right.mean():.4%} | {board_right.mean():.2%} |\n")

    if a.manifest:
        sets = [json.loads(l)["set"] for l in open(a.manifest)]
        per = defaultdict(lambda: [0, 0])
        for b, r in zip(boards, right):
            per[sets[b]][0] += int(r)
            per[sets[b]][1] += 1
        by_style = defaultdict(lambda: [0, 0, set()])
        for name, (r, n) in per.items():
            st = by_style[HELDOUT.get(name, "seen in training")]
            st[0] += r
            st[1] += n
            st[2].add(name)
        print("| style | sets | cells | squares right |\n|---|---|---|---|")
        for style, (r, n, names) in sorted(by_style.items()):
            print(f"| {style} | {len(names)} | {n} | {r / n:.2%} |")
        print()
        print("| piece set | squares right | cells |\n|---|---|---|")
        for s, (r, n) in sorted(per.items(), key=lambda kv: kv[1][0] / kv[1][1]):
            print(f"| {s} | {r / n:.2%} | {n} |")
        print()

    m = np.zeros((13, 13), dtype=np.int64)
    np.add.at(m, (labels, pred), 1)
    print("Confusion (rows: truth, columns: predicted):\n")
    print("| | " + " | ".join(CLASSES) + " |\n|" + "---|" * 14)
    for i, c in enumerate(CLASSES):
        print(f"| **{c}** | " + " | ".join(str(v) for v in m[i]) + " |")
    print()

    print("Reliability (confidence of the best class):\n\n| confidence | cells | mean confidence | accuracy |\n|---|---|---|---|")
    edges = [0.0, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 0.999, 1.0001]
    for lo, hi in zip(edges, edges[1:]):
        sel = (conf >= lo) & (conf < hi)
        if sel.any():
            print(f"| {lo:.3f}-{min(hi, 1):.3f} | {sel.sum()} | {conf[sel].mean():.4f} | {right[sel].mean():.4f} |")
    print()

    print("Thresholds (squares under the threshold are flagged):\n\n"
          "| min confidence | misreads flagged | flagged squares per correct board |\n|---|---|---|")
    wrong = ~right
    conf_b = conf.reshape(nb, 64)
    for t in [0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.98]:
        flagged_err = (conf[wrong] < t).mean() if wrong.any() else float("nan")
        per_good = (conf_b[board_right] < t).sum(1).mean() if board_right.any() else float("nan")
        print(f"| {t} | {flagged_err:.1%} | {per_good:.3f} |")
    print()

    # Whether another per-square score ranks misreads better than the best class's probability:
    # for each share of misreads to flag, the needless flags (right squares flagged) per 64.
    top2 = np.sort(probs, 1)[:, ::-1][:, :2]
    scores = {"best class probability": conf, "margin to the second class": top2[:, 0] - top2[:, 1],
              "negative entropy": (probs * np.log(probs + 1e-12)).sum(1)}
    shares = [0.65, 0.8, 0.9, 0.95]
    print("Scores (a square is flagged when its score is at most the threshold that flags the share of "
          "misreads):\n\n| score | " + " | ".join(f"needless per 64 at {s:.0%}" for s in shares) + " |\n|---|"
          + "---|" * len(shares))
    for name, sc in scores.items():
        cols = []
        for share in shares:
            thr = np.quantile(sc[wrong], share)
            cols.append(f"{((sc <= thr) & right).sum() / len(sc) * 64:.2f}")
        print(f"| {name} | " + " | ".join(cols) + " |")


if __name__ == "__main__":
    main()
