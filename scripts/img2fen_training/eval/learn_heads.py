"""Compares ways to learn a piece set from one board, on cells cut by `img2fen dataset` (with
`--copies C`, the first copy exact) from a manifest whose boards come in groups of one set
(`render.physical --per-set`, or any manifest with a "set" field): per group, a head is learned
from the group's first board (all its cuts) and measured on the other boards' exact cuts.

    python3 -m img2fen_training.eval.learn_heads --model M.onnx --cells DIR --manifest M.jsonl --copies 5

Methods: the model alone; a head added to the model's logits over its embedding (as
`img2fen learn-set` fits it) at several L2 penalties; nearest class mean over the embedding; and
nearest neighbour over every cut learned from.
"""

import argparse
import json
from collections import defaultdict
from pathlib import Path

import numpy as np
import onnxruntime as ort

from ..onnx_batches import run_batches


def run(model, cells, batch=512):
    sess = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"])
    logits, emb = run_batches(sess, cells.astype(np.float32)[:, None] / 255, batch)[:2]
    return logits, emb


def softmax(z):
    z = z - z.max(1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(1, keepdims=True)


def fit_head(logits, emb, y, l2, bias_l2=0.0, steps=150, lr=0.05):
    """The same fit as src/learn/fit.rs: Adam on a class-balanced softmax loss."""
    n, k = logits.shape
    scale = 1 / np.sqrt((emb ** 2).sum(1).mean())
    x = emb * scale
    count = np.bincount(y, minlength=k)
    w_row = 1 / (count[y] * (count > 0).sum())
    W = np.zeros((k, x.shape[1]), np.float32)
    b = np.zeros(k, np.float32)
    mW, vW, mb, vb = np.zeros_like(W), np.zeros_like(W), np.zeros_like(b), np.zeros_like(b)
    for t in range(1, steps + 1):
        p = softmax(logits + x @ W.T + b)
        p[np.arange(n), y] -= 1
        g = p * w_row[:, None]
        gW = g.T @ x + l2 * W
        gb = g.sum(0) + bias_l2 * b
        c1, c2 = 1 - 0.9 ** t, 1 - 0.999 ** t
        mW = 0.9 * mW + 0.1 * gW
        vW = 0.999 * vW + 0.001 * gW * gW
        W -= lr * (mW / c1) / (np.sqrt(vW / c2) + 1e-8)
        mb = 0.9 * mb + 0.1 * gb
        vb = 0.999 * vb + 0.001 * gb * gb
        b -= lr * (mb / c1) / (np.sqrt(vb / c2) + 1e-8)
    return lambda lo, e: lo + (e * scale) @ W.T + b


def augment(cells, which, k, seed=0):
    """Cells `which` with their tones changed (contrast, brightness, gamma), some blurred and
    some noisy, as other pictures of one set differ: strength `k` (1: contrast 0.7-1.3,
    brightness +-25, gamma 0.7-1.4, half blurred, noise up to 8 grey levels)."""
    rng = np.random.default_rng(seed)
    out = cells.astype(np.float32).copy()
    idx = np.flatnonzero(which)
    n = len(idx)
    x = out[idx] / 255
    c = 1 + rng.uniform(-0.3, 0.3, n)[:, None, None] * k
    b = rng.uniform(-0.1, 0.1, n)[:, None, None] * k
    g = np.exp(rng.uniform(np.log(0.7), np.log(1.4), n) * k)[:, None, None]
    x = np.clip(x, 0, 1) ** g
    x = (x - 0.5) * c + 0.5 + b
    blur = rng.random(n) < 0.5 * k
    if blur.any():
        y = x[blur]
        p = np.pad(y, ((0, 0), (1, 1), (1, 1)), mode="edge")
        y = sum(p[:, i:i + y.shape[1], j:j + y.shape[2]] for i in range(3) for j in range(3)) / 9
        x[blur] = y
    x = x + rng.normal(0, 1, x.shape) * rng.uniform(0, 8 / 255, n)[:, None, None] * k
    out[idx] = np.clip(x * 255, 0, 255)
    return out.astype(np.uint8)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", type=Path, required=True)
    ap.add_argument("--cells", type=Path, required=True)
    ap.add_argument("--manifest", type=Path, required=True)
    ap.add_argument("--copies", type=int, required=True)
    ap.add_argument("--pool", type=int, default=0,
                    help="average the embedding (channels x G x G, G the model's head grid) down to POOL x POOL first")
    ap.add_argument("--grid", type=int, default=4, help="the model's head grid G")
    ap.add_argument("--augment", type=float, default=0.0,
                    help="tone augmentation strength for the cuts learned from after the first (0: none)")
    ap.add_argument("--self-train", type=float, default=0.0,
                    help="also refit each head on the other boards' squares it reads at least this surely (0: off)")
    ap.add_argument("--heads", default="1e-3:0:150,1e-2:0:150,1e-1:0:150,1:0:150",
                    help="heads to fit, each L2:BIAS_L2:STEPS (the bias's own penalty; Adam steps)")
    a = ap.parse_args()
    sets = [json.loads(line)["set"] for line in a.manifest.open()]
    cells = np.load(a.cells / "cells.npy")
    labels = np.load(a.cells / "labels.npy").astype(np.int64)
    boards = np.load(a.cells / "boards.npy")
    copy = (np.arange(len(cells)) // 64) % a.copies
    if a.augment:
        cells = augment(cells, copy > 0, a.augment)
    logits, emb = run(a.model, cells)
    if a.pool:
        g, p = a.grid, a.pool
        e = emb.reshape(len(emb), -1, p, g // p, p, g // p)
        emb = e.mean(axis=(3, 5)).reshape(len(emb), -1)
    groups = defaultdict(list)
    for b, s in enumerate(sets):
        groups[s].append(b)
    heads = [tuple(float(x) for x in h.split(":")) for h in a.heads.split(",")]
    hname = lambda h: f"head {h[0]:g}/{h[1]:g}/{int(h[2])}"
    names = ["model"] + [hname(h) for h in heads] + ["class mean", "nearest cut"]
    right = defaultdict(int)
    exact = defaultdict(int)
    total = 0
    nboards = 0
    for s, bs in groups.items():
        tr = np.isin(boards, bs[:1])
        te_boards = bs[1:]
        te = np.isin(boards, te_boards) & (copy == 0)
        y, yt = labels[tr], labels[te]
        preds = {"model": logits[te].argmax(1)}
        for h in heads:
            f = fit_head(logits[tr], emb[tr], y, h[0], h[1], int(h[2]))
            if a.self_train:
                # Pseudo-labels: the squares of the set's other boards the head reads surely.
                p = softmax(f(logits[te], emb[te]))
                sure = p.max(1) >= a.self_train
                lo = np.concatenate([logits[tr], logits[te][sure]])
                em = np.concatenate([emb[tr], emb[te][sure]])
                f = fit_head(lo, em, np.concatenate([y, p.argmax(1)[sure]]), h[0], h[1], int(h[2]))
            preds[hname(h)] = f(logits[te], emb[te]).argmax(1)
        en = emb / (np.linalg.norm(emb, axis=1, keepdims=True) + 1e-9)
        present = np.unique(y)
        means = np.stack([en[tr][y == c].mean(0) for c in present])
        preds["class mean"] = present[(en[te] @ means.T).argmax(1)]
        preds["nearest cut"] = y[(en[te] @ en[tr].T).argmax(1)]
        total += len(yt)
        nboards += len(te_boards)
        tb = boards[te]
        row = []
        for n in names:
            ok = preds[n] == yt
            right[n] += ok.sum()
            ex = sum(ok[tb == b].all() for b in te_boards)
            exact[n] += ex
            row.append(f"{100 * ok.mean():.1f}")
        print(f"| {s} | " + " | ".join(row) + " |")
    print("| ALL squares | " + " | ".join(f"{100 * right[n] / total:.2f}" for n in names) + " |")
    print("| ALL exact | " + " | ".join(f"{exact[n]}/{nboards}" for n in names) + " |")
    print("methods: " + ", ".join(names))


if __name__ == "__main__":
    main()
