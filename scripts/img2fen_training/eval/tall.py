#!/usr/bin/env python3
"""Measure a physical-board classifier on tall cells cut at known corners, by camera-angle band.

This measures step 3 alone: the cells are cut by `img2fen dataset --tall --copies 1` from a
manifest whose corners are true (rendered scenes, or realdata-physical's board_corners.json turned
into a manifest with --from-corners), so a miss is the model's, not the board finder's.

Usage:
  python3 -m img2fen_training.eval.tall --from-corners ../shared/realdata-physical/board_corners.json \
      --manifest OUT.jsonl [--scenes SCENES.jsonl]
  python3 -m img2fen_training.eval.tall --cells DIR --manifest M.jsonl --model models/physical_classifier.onnx

With several --cells folders (the same boards cut differently, e.g. `dataset --tall --piece-height H`),
each alone is measured in one line, and then a reading that takes, for each board, the cut whose 64
cells the model reads most confidently (mean top softmax probability), and the best cut per board
by its labels (an upper bound no reader reaches).
"""

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from ..onnx_batches import run_batches


def band(tilt):
    return "0-20" if tilt < 20 else "20-40" if tilt < 40 else "40-60"


def physical_sets(labels: Path) -> dict:
    """Each picture's piece set, from the `set: ...;` part of labels.csv's notes (empty when the
    file or the note is missing)."""
    if not labels.exists():
        return {}
    import csv

    out = {}
    with open(labels, newline="") as f:
        for row in csv.DictReader(f):
            notes = row.get("notes", "")
            if "set:" in notes:
                out[row["file"]] = notes.split("set:", 1)[1].split(";")[0].strip()
    return out


def cell_probabilities(cells, nets, temperature: float = 1.0):
    """The class probabilities of tall `cells` ([N, H, W] bytes) under each model of `nets`
    (onnxruntime InferenceSessions), their logits divided by `temperature`, averaged over the
    models."""
    probs = 0
    for net in nets:
        lg = run_batches(net, cells[:, None].astype(np.float32) / 255)[0] / temperature
        p = np.exp(lg - lg.max(1, keepdims=True))
        probs = probs + p / p.sum(1, keepdims=True)
    return probs / len(nets)


def choose_cuts(folders, probs, labels, boards):
    """Each cut's squares, then per board the cut the model is surest of; returns its readings.
    `probs`: one `[cells, 13]` array of class probabilities per cut."""
    probs = np.stack(probs)
    preds = probs.argmax(2)
    conf = probs.max(2)
    ids = np.unique(boards)
    for f, pr in zip(folders, preds):
        print(f"cut {f}: {(pr == labels).mean():.2%} of squares", file=sys.stderr)
    print(f"all cuts' probabilities averaged: {(probs.mean(0).argmax(1) == labels).mean():.2%} of squares", file=sys.stderr)
    chosen = np.array([conf[:, boards == b].mean(1).argmax() for b in ids])
    best = np.array([(preds[:, boards == b] == labels[boards == b]).sum(1).argmax() for b in ids])
    out = preds[0].copy()
    for b, c in zip(ids, chosen):
        out[boards == b] = preds[c][boards == b]
    oracle = sum((preds[c][boards == b] == labels[boards == b]).sum() for b, c in zip(ids, best)) / len(labels)
    print(f"surest cut per board: {(out == labels).mean():.2%} of squares (chosen: "
          + ", ".join(f"{f.name} {int((chosen == i).sum())}" for i, f in enumerate(folders))
          + f"); best cut per board by the labels: {oracle:.2%}", file=sys.stderr)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cells", type=Path, nargs="+")
    ap.add_argument("--manifest", type=Path, required=True)
    ap.add_argument("--model", type=Path, nargs="+", help="several: their probabilities averaged")
    ap.add_argument("--from-corners", type=Path, help="write --manifest from a board_corners.json and stop")
    ap.add_argument("--scenes", type=Path, help="with --from-corners, also write a scenes.jsonl for img2fen eval-locate")
    a = ap.parse_args()
    if a.from_corners:
        root = a.from_corners.parent.resolve()
        rows = json.loads(a.from_corners.read_text())
        sets = physical_sets(root / "labels.csv")
        with open(a.manifest, "w") as f:
            for r in rows:
                f.write(json.dumps({"image": str(root / r["file"]), "corners": r["corners_a8_h8_h1_a1"],
                                    "labels": r["fen_field1"], "tilt": r["tilt_deg"],
                                    "set": sets.get(r["file"], "")}) + "\n")
        if a.scenes:
            with open(a.scenes, "w") as f:
                for r in rows:
                    f.write(json.dumps({"image": str(root / r["file"]), "kind": "physical " + band(r["tilt_deg"]),
                                        "boards": [{"corners": r["corners_a8_h8_h1_a1"]}]}) + "\n")
        return
    import onnxruntime as ort

    rows = [json.loads(line) for line in a.manifest.read_text().splitlines() if line.strip()]
    nets = [ort.InferenceSession(str(m), providers=["CPUExecutionProvider"]) for m in a.model]

    def read(folder):
        """The class probabilities of the cells in `folder`, averaged over the models; labels; boards."""
        probs = cell_probabilities(np.load(folder / "cells.npy"), nets)
        return probs, np.load(folder / "labels.npy"), np.load(folder / "boards.npy")

    probs, labels, boards = read(a.cells[0])
    pred = probs.argmax(1)
    if len(a.cells) > 1:
        pred = choose_cuts(a.cells, [probs] + [read(c)[0] for c in a.cells[1:]], labels, boards)
    stats = {}
    for b in np.unique(boards):
        m = boards == b
        key = band(rows[b].get("tilt", 0))
        s = stats.setdefault(key, [0, 0, 0, 0])
        s[0] += int((pred[m] == labels[m]).sum())
        s[1] += int(m.sum())
        s[2] += int((pred[m] == labels[m]).all())
        s[3] += 1
    total = [sum(v[i] for v in stats.values()) for i in range(4)]
    print("| angle band | boards | exact | squares |")
    print("|---|---:|---:|---:|")
    for key in ["0-20", "20-40", "40-60"]:
        if key in stats:
            s = stats[key]
            print(f"| {key} | {s[3]} | {s[2]} ({s[2] / s[3]:.1%}) | {s[0] / s[1]:.2%} |")
    print(f"| all | {total[3]} | {total[2]} ({total[2] / total[3]:.1%}) | {total[0] / total[1]:.2%} |")
    cm = np.zeros((13, 13), dtype=int)
    np.add.at(cm, (labels, pred), 1)
    names = ".PNBRQKpnbrqk"
    worst = sorted(((cm[i, j], names[i], names[j]) for i in range(13) for j in range(13) if i != j), reverse=True)[:8]
    print("most common misreads (true -> read):", ", ".join(f"{t}->{r} {n}" for n, t, r in worst if n), file=sys.stderr)
    # Which part of a square's reading fails: is a piece there, its colour, its type.
    both = (labels > 0) & (pred > 0)
    same_type = (labels[both] - 1) % 6 == (pred[both] - 1) % 6
    per_type = " ".join(f"{k} {same_type[(labels[both] - 1) % 6 == i].mean():.0%}" for i, k in enumerate("PNBRQK"))
    print(f"occupancy {((labels > 0) == (pred > 0)).mean():.2%}, colour of pieces {((labels[both] < 7) == (pred[both] < 7)).mean():.2%}, "
          f"type of pieces {same_type.mean():.2%} ({per_type})", file=sys.stderr)
    sets = sorted({r.get("set", "") for r in rows})
    if 1 < len(sets) <= 6:
        for name in sets:
            m = np.isin(boards, [i for i, r in enumerate(rows) if r.get("set", "") == name])
            print(f"set {name}: {(pred[m] == labels[m]).mean():.2%} of {int(m.sum()) // 64} boards' squares", file=sys.stderr)


if __name__ == "__main__":
    main()
