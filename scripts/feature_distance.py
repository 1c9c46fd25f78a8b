#!/usr/bin/env python3
"""Does the distance of a cell's features from the training cells flag misreads better than the
class probability does?

A classifier is often confidently wrong on a piece design it has never seen (models/README.md,
"Choosing --min-confidence"). Out-of-distribution detectors that look at the network's features
instead of its softmax (Mahalanobis distance to the class means, Lee et al. 2018; its relative
form, Ren et al. 2021) catch such inputs better in the literature. This measures them here.

The features are the input of the model's last linear layer, read from the exported ONNX by
adding that tensor as an output (nothing is retrained). Class means and one shared covariance
come from `--train` cells (the cells the model was trained on); the scores are measured on
`--cells` (held-out designs). To keep the test honest, a combined flag (probability and distance)
is fitted on half the held-out piece sets and measured on the other half.

With `--others`, models trained the same way with other seeds join in as a deep ensemble
(Lakshminarayanan et al. 2017): the mean of the members' probabilities, and whether they
disagree on the class, are scored too.

Usage: scripts/feature_distance.py --model M.onnx --train CELLS_DIR --cells CELLS_DIR
                                   --manifest render-heldout/manifest.jsonl [--train-cells 150000]
                                   [--others M2.onnx M3.onnx]
"""

import argparse
import json
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort

SHARES = [0.65, 0.8, 0.9, 0.95]


def session_with_features(model: Path):
    m = onnx.load(str(model))
    last = [n for n in m.graph.node if n.op_type in ("Gemm", "MatMul")][-1]
    feat = last.input[0]
    m.graph.output.append(onnx.helper.make_tensor_value_info(feat, onnx.TensorProto.FLOAT, None))
    return ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])


def run(sess, cells, batch=4096):
    logits, feats = [], []
    for i in range(0, len(cells), batch):
        lo, fe = sess.run(None, {"cells": cells[i:i + batch].astype(np.float32)[:, None] / 255})
        logits.append(lo)
        feats.append(fe.reshape(len(fe), -1))
    return np.concatenate(logits), np.concatenate(feats)


def softmax(x):
    e = np.exp(x - x.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


class Gaussians:
    """Class means with one shared covariance, and one Gaussian for all cells (the background
    of the relative Mahalanobis distance)."""

    def __init__(self, feats, labels, shrink=1e-3):
        d = feats.shape[1]
        self.means = np.stack([feats[labels == c].mean(0) for c in range(13)])
        centred = feats - self.means[labels]
        cov = centred.T @ centred / len(feats)
        self.prec = np.linalg.inv(cov + shrink * np.trace(cov) / d * np.eye(d))
        self.mean0 = feats.mean(0)
        c0 = feats - self.mean0
        cov0 = c0.T @ c0 / len(feats)
        self.prec0 = np.linalg.inv(cov0 + shrink * np.trace(cov0) / d * np.eye(d))

    def distances(self, feats, batch=8192):
        """Squared Mahalanobis distance to every class mean (n x 13) and to the background (n)."""
        out, out0 = [], []
        pm = self.means @ self.prec
        mpm = (pm * self.means).sum(1)
        for i in range(0, len(feats), batch):
            f = feats[i:i + batch]
            fp = f @ self.prec
            out.append((fp * f).sum(1)[:, None] - 2 * f @ pm.T + mpm[None, :])
            g = f - self.mean0
            out0.append(((g @ self.prec0) * g).sum(1))
        return np.concatenate(out), np.concatenate(out0)


def needless_at(score_flag_high, wrong, shares=SHARES):
    """Needless flags per 64 squares when the highest scores are flagged until each share of
    the misreads is."""
    cols = []
    for share in shares:
        thr = np.quantile(score_flag_high[wrong], 1 - share)
        cols.append(((score_flag_high >= thr) & ~wrong).sum() / len(wrong) * 64)
    return cols


def fit_logistic(x, y, steps=400, lr=0.5):
    """Plain logistic regression by gradient descent on standardised features."""
    mu, sd = x.mean(0), x.std(0) + 1e-9
    z = (x - mu) / sd
    w, b = np.zeros(z.shape[1]), 0.0
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(z @ w + b)))
        g = p - y
        w -= lr * (z.T @ g) / len(y)
        b -= lr * g.mean()
    return lambda q: ((q - mu) / sd) @ w + b


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", type=Path, required=True)
    ap.add_argument("--train", type=Path, required=True, help="cells the model was trained on")
    ap.add_argument("--cells", type=Path, required=True, help="held-out cells")
    ap.add_argument("--manifest", type=Path, required=True, help="the held-out render manifest (piece set per board)")
    ap.add_argument("--train-cells", type=int, default=150000)
    ap.add_argument("--bank", type=int, default=20000, help="training cells the nearest-neighbour score searches")
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--others", type=Path, nargs="*", default=[],
                    help="models of the same recipe trained with other seeds (an ensemble)")
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    sess = session_with_features(a.model)

    tc = np.load(a.train / "cells.npy", mmap_mode="r")
    tl = np.load(a.train / "labels.npy").astype(np.int64)
    pick = np.sort(rng.choice(len(tl), min(a.train_cells, len(tl)), replace=False))
    _, tf = run(sess, np.asarray(tc[pick]))
    gauss = Gaussians(tf.astype(np.float64), tl[pick])

    cells = np.load(a.cells / "cells.npy")
    labels = np.load(a.cells / "labels.npy").astype(np.int64)
    boards = np.load(a.cells / "boards.npy")
    logits, feats = run(sess, cells)
    probs = softmax(logits)
    pred = probs.argmax(1)
    wrong = pred != labels
    dist, dist0 = gauss.distances(feats.astype(np.float64))
    d_pred = dist[np.arange(len(pred)), pred]
    d_min = dist.min(1)
    conf = probs.max(1)
    top2 = np.sort(probs, 1)[:, ::-1][:, :2]
    print(f"held-out cells {len(labels)}, misread {wrong.sum()} ({wrong.mean():.2%}); "
          f"train features from {len(pick)} cells, {tf.shape[1]} dimensions\n")

    # k-th nearest training cell by cosine distance of the L2-normalised features (Sun et al. 2022).
    bank = tf[rng.choice(len(tf), min(a.bank, len(tf)), replace=False)]
    bank = bank / (np.linalg.norm(bank, axis=1, keepdims=True) + 1e-9)
    knn = np.concatenate([
        -np.sort(-(f / (np.linalg.norm(f, axis=1, keepdims=True) + 1e-9)) @ bank.T, 1)[:, a.k - 1]
        for f in np.array_split(feats, max(1, len(feats) // 4096))
    ])
    scores = {
        "1 - best class probability": 1 - conf,
        "1 - margin to the second class": 1 - (top2[:, 0] - top2[:, 1]),
        "Mahalanobis to the predicted class": d_pred,
        "Mahalanobis to the nearest class": d_min,
        "relative Mahalanobis (predicted - background)": d_pred - dist0,
        f"cosine distance to the {a.k}th nearest training cell": 1 - knn,
    }
    if a.others:
        member_probs = [probs] + [softmax(run(session_with_features(m), cells)[0]) for m in a.others]
        mean = np.mean(member_probs, 0)
        votes = np.stack([mp.argmax(1) for mp in member_probs])
        n = len(member_probs)
        ens_wrong = mean.argmax(1) != labels
        print(f"ensemble of {n}: misread {ens_wrong.mean():.2%} with the mean of the probabilities "
              f"(this model alone {wrong.mean():.2%}); its scores below count this model's misreads\n")
        scores[f"1 - ensemble of {n}: mean probability of this model's class"] = 1 - mean[np.arange(len(pred)), pred]
        scores[f"ensemble of {n}: members disagree, then 1 - best probability"] = \
            (votes != pred[None]).any(0) + (1 - conf)
    print("All held-out cells; needless flags per 64 squares when each share of misreads is flagged:\n")
    print("| score | " + " | ".join(f"{s:.0%}" for s in SHARES) + " |\n|---|" + "---|" * len(SHARES))
    for name, sc in scores.items():
        print(f"| {name} | " + " | ".join(f"{v:.2f}" for v in needless_at(sc, wrong)) + " |")
    print()
    if a.others:
        print(f"The ensemble as the classifier (its own misreads, {ens_wrong.mean():.2%}): "
              f"1 - its best mean probability:\n")
        print("| " + " | ".join(f"{s:.0%}" for s in SHARES) + " |\n|" + "---|" * len(SHARES))
        print("| " + " | ".join(f"{v:.2f}" for v in needless_at(1 - mean.max(1), ens_wrong)) + " |\n")

    # Combined score, fitted on half the piece sets, measured on the other half, and back.
    sets = [json.loads(l)["set"] for l in open(a.manifest)]
    names = sorted(set(sets))
    rng.shuffle(names)
    half = set(names[: len(names) // 2])
    in_a = np.array([sets[b] in half for b in boards])
    x = np.stack([np.log(1 - conf + 1e-6), np.log(1 - (top2[:, 0] - top2[:, 1]) + 1e-6),
                  np.log(d_pred + 1), np.log(np.maximum(d_pred - dist0, 0) + 1), 1 - knn], 1)
    combined = np.zeros(len(labels))
    for fit_on in (in_a, ~in_a):
        f = fit_logistic(x[fit_on], wrong[fit_on].astype(np.float64))
        combined[~fit_on] = f(x[~fit_on])
    print("Combined (logistic on log(1-p), log(1-margin), log Mahalanobis, log relative, nearest-neighbour distance; fitted on the "
          "other half of the piece sets):\n")
    print("| score | " + " | ".join(f"{s:.0%}" for s in SHARES) + " |\n|---|" + "---|" * len(SHARES))
    print("| 1 - best class probability | " + " | ".join(f"{v:.2f}" for v in needless_at(1 - conf, wrong)) + " |")
    print("| combined | " + " | ".join(f"{v:.2f}" for v in needless_at(combined, wrong)) + " |")


if __name__ == "__main__":
    main()
