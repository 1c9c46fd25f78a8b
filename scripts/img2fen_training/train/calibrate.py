#!/usr/bin/env python3
"""Measure how well the piece model's probabilities are calibrated, and temperature-scale it.

Fits one temperature T (logits / T) by minimising the negative log-likelihood on cells cut by
`img2fen dataset` (cells the model never trained on), and reports the expected calibration
error (ECE, 15 bins of the top probability) and the NLL before and after, on the fitting cells
and, when given, on a second set. With `--out` it also writes the model with the division built
into its graph, so that img2fen's softmax gives the scaled probabilities with no code change.

Which cells to fit on matters: on boards from the piece designs it trained on the shipped model
is underconfident (T about 0.74), on designs it never saw it is calibrated (T about 1.03, fitted
with the model trained without the held-out families); real pictures are unseen designs, so the
shipped model is left unscaled (see models/README.md).

Usage: python3 -m img2fen_training.train.calibrate --model MODEL.onnx --cells DIR [--check DIR] [--out MODEL.onnx]
                            [--report FILE]
"""

import argparse
import json
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import helper, numpy_helper

from ..onnx_batches import run_batches


def logits_of(model_path, cells):
    sess = ort.InferenceSession(str(model_path), providers=["CPUExecutionProvider"])
    out = []
    for i in range(0, len(cells), 8192):
        out.append(run_batches(sess, cells[i:i + 8192].astype(np.float32)[:, None] / 255)[0])
    return np.concatenate(out).astype(np.float64)


def softmax(z):
    z = z - z.max(1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(1, keepdims=True)


def nll(logits, labels, t):
    p = softmax(logits / t)
    return float(-np.log(np.maximum(p[np.arange(len(labels)), labels], 1e-12)).mean())


def ece(logits, labels, t, bins=15):
    p = softmax(logits / t)
    conf, pred = p.max(1), p.argmax(1)
    right = pred == labels
    edges = np.linspace(0, 1, bins + 1)
    total = 0.0
    for lo, hi in zip(edges[:-1], edges[1:]):
        m = (conf > lo) & (conf <= hi)
        if m.any():
            total += m.mean() * abs(right[m].mean() - conf[m].mean())
    return float(total)


def fit_temperature(logits, labels):
    # NLL is smooth and unimodal in log T: golden-section search over T in [0.25, 8].
    lo, hi = np.log(0.25), np.log(8.0)
    g = (np.sqrt(5) - 1) / 2
    a, b = hi - g * (hi - lo), lo + g * (hi - lo)
    fa, fb = nll(logits, labels, np.exp(a)), nll(logits, labels, np.exp(b))
    for _ in range(60):
        if fa < fb:
            hi, b, fb = b, a, fa
            a = hi - g * (hi - lo)
            fa = nll(logits, labels, np.exp(a))
        else:
            lo, a, fa = a, b, fb
            b = lo + g * (hi - lo)
            fb = nll(logits, labels, np.exp(b))
    return float(np.exp((lo + hi) / 2))


def with_temperature(model_path, t, out_path):
    m = onnx.load(str(model_path))
    g = m.graph
    out = g.output[0]
    raw = out.name + "_uncalibrated"
    for node in g.node:
        node.output[:] = [raw if o == out.name else o for o in node.output]
    g.initializer.append(numpy_helper.from_array(np.array([t], dtype=np.float32), "temperature"))
    g.node.append(helper.make_node("Div", [raw, "temperature"], [out.name], name="calibrate"))
    onnx.checker.check_model(m)
    onnx.save(m, str(out_path))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", type=Path, required=True)
    ap.add_argument("--cells", type=Path, required=True, help="fitting cells (cells.npy, labels.npy)")
    ap.add_argument("--check", type=Path, help="more cells to report calibration on")
    ap.add_argument("--out", type=Path, help="write the temperature-scaled model here")
    ap.add_argument("--report", type=Path)
    a = ap.parse_args()

    cells, labels = np.load(a.cells / "cells.npy"), np.load(a.cells / "labels.npy").astype(np.int64)
    z = logits_of(a.model, cells)
    t = fit_temperature(z, labels)
    report = {"temperature": t, "fit_cells": int(len(labels)),
              "fit": {"nll_before": nll(z, labels, 1.0), "nll_after": nll(z, labels, t),
                      "ece_before": ece(z, labels, 1.0), "ece_after": ece(z, labels, t)}}
    if a.check:
        cc, cl = np.load(a.check / "cells.npy"), np.load(a.check / "labels.npy").astype(np.int64)
        zc = logits_of(a.model, cc)
        report["check_cells"] = int(len(cl))
        report["check"] = {"nll_before": nll(zc, cl, 1.0), "nll_after": nll(zc, cl, t),
                           "ece_before": ece(zc, cl, 1.0), "ece_after": ece(zc, cl, t)}
    if a.out:
        with_temperature(a.model, t, a.out)
        # The written model must give the scaled logits.
        z2 = logits_of(a.out, cells[:512])
        assert np.abs(z2 - z[:512] / t).max() < 1e-3
    print(json.dumps(report, indent=1))
    if a.report:
        a.report.write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
