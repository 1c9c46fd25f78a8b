#!/usr/bin/env python3
"""How far can a classifier be adapted to one piece set from one picture? Step 3 alone, at true
corners: for each set (a manifest row's `set`), learn from its first picture (the starting
position where there is one), read the set's other pictures, and compare ways of adapting:

- `model`: the model alone;
- `head`: a head over the model's embedding added to its logits (what `img2fen learn-set` fits);
- `last`: the last conv block and the linear layer fine-tuned, earlier blocks frozen;
- `all`: every layer fine-tuned (what chesscog does with its pretrained network).

The model is rebuilt in torch from its ONNX file (conv layers with BatchNorm folded in, ReLU,
2x2 max-pool, then one linear layer: the physical model's TallNet and the piece model's net when
they are plain chains). Cells come from `img2fen dataset --tall` (or flat): the test cells cut
once at the true corners, the learning cells cut several times with jittered corners.

Usage:
  python3 -m img2fen_training.eval.adapt --model models/physical_classifier.onnx \
      --manifest M.jsonl --cells TEST_DIR --learn-cells LEARN_DIR [--steps 60]
"""

import argparse
import copy
import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import onnx
import torch
import torch.nn as nn
from onnx import numpy_helper

from ..onnx_batches import run_batches

CLASSES = ".PNBRQKpnbrqk"


class Chain(nn.Module):
    """Conv (+bias) -> ReLU -> MaxPool blocks, then Flatten and a Linear layer, from ONNX weights."""

    def __init__(self, path: Path):
        super().__init__()
        m = onnx.load(str(path))
        init = {i.name: torch.from_numpy(numpy_helper.to_array(i).copy()) for i in m.graph.initializer}
        layers, linear = [], None
        for node in m.graph.node:
            if node.op_type == "Conv":
                w, b = init[node.input[1]], init[node.input[2]]
                conv = nn.Conv2d(w.shape[1], w.shape[0], w.shape[2], padding=w.shape[2] // 2)
                conv.weight.data, conv.bias.data = w, b
                layers.append(conv)
            elif node.op_type == "Relu":
                layers.append(nn.ReLU())
            elif node.op_type == "MaxPool":
                layers.append(nn.MaxPool2d(2))
            elif node.op_type == "Gemm":
                w, b = init[node.input[1]], init[node.input[2]]
                linear = nn.Linear(w.shape[1], w.shape[0])
                linear.weight.data, linear.bias.data = w, b
            elif node.op_type != "Flatten":
                raise SystemExit(f"{path}: node {node.op_type} is not a plain chain")
        self.features = nn.Sequential(*layers)
        self.linear = linear

    def embed(self, x):
        return self.features(x).flatten(1)

    def forward(self, x):
        return self.linear(self.embed(x))


def balanced_loss(logits, y):
    counts = torch.bincount(y, minlength=logits.shape[1]).float()
    w = torch.where(counts > 0, 1.0 / counts.clamp(min=1), torch.zeros_like(counts))
    return (nn.functional.cross_entropy(logits, y, reduction="none") * w[y]).sum() / w[y].sum()


def adapt(base: Chain, x, y, mode, steps, lr, penalty):
    """A copy of `base` adapted to cells x with labels y; returns a function cells -> logits."""
    net = Chain.__new__(Chain)
    nn.Module.__init__(net)
    net.features = copy.deepcopy(base.features)
    net.linear = copy.deepcopy(base.linear)
    start = {k: v.clone() for k, v in net.state_dict().items()}
    if mode == "head":
        with torch.no_grad():
            e = base.embed(x)
            z0 = base(x)
        scale = 1.0 / e.pow(2).sum(1).mean().sqrt()
        dw = torch.zeros(13, e.shape[1], requires_grad=True)
        db = torch.zeros(13, requires_grad=True)
        opt = torch.optim.Adam([dw, db], lr=0.05)
        for _ in range(150):
            opt.zero_grad()
            loss = balanced_loss(z0 + (e * scale) @ dw.T + db, y) + penalty * dw.pow(2).sum()
            loss.backward()
            opt.step()

        def read(c):
            with torch.no_grad():
                return base(c) + (base.embed(c) * scale) @ dw.T + db
        return read
    if mode == "model":
        return lambda c: base(c).detach()
    convs = [m for m in net.features if isinstance(m, nn.Conv2d)]
    params = list(net.linear.parameters())
    if mode == "last":
        params += list(convs[-1].parameters())
    elif mode == "all":
        params = list(net.parameters())
    opt = torch.optim.Adam(params, lr=lr)
    g = torch.Generator().manual_seed(0)
    for _ in range(steps):
        opt.zero_grad()
        xb = x
        # Tone changes between pictures of one set: contrast, brightness, a little noise.
        c = 0.8 + 0.4 * torch.rand(x.shape[0], 1, 1, 1, generator=g)
        b = 0.1 * (torch.rand(x.shape[0], 1, 1, 1, generator=g) - 0.5)
        xb = ((x - 0.5) * c + 0.5 + b + 0.02 * torch.randn(x.shape, generator=g)).clamp(0, 1)
        flip = torch.rand(x.shape[0], generator=g) < 0.5
        xb = torch.where(flip[:, None, None, None], xb.flip(-1), xb)
        loss = balanced_loss(net(xb), y)
        named = dict(net.named_parameters())
        loss = loss + penalty * sum((named[k] - start[k]).pow(2).sum() for k in named if named[k].requires_grad)
        loss.backward()
        opt.step()
    net.eval()
    return lambda c: net(c).detach()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", type=Path, required=True)
    ap.add_argument("--manifest", type=Path, required=True, help="rows with image, labels and set")
    ap.add_argument("--cells", type=Path, required=True, help="test cells, one cut per picture")
    ap.add_argument("--learn-cells", type=Path, required=True, help="the same pictures cut several times")
    ap.add_argument("--modes", default="model,head,last,all")
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--penalty", type=float, default=1e-3)
    ap.add_argument("--learn-count", type=int, default=1, help="pictures of each set to learn from")
    ap.add_argument("--confusions", action="store_true", help="print each mode's most common misreads")
    a = ap.parse_args()
    torch.set_num_threads(2)
    rows = [json.loads(s) for s in a.manifest.read_text().splitlines() if s.strip()]
    base = Chain(a.model).eval()

    def load(d):
        c = torch.from_numpy(np.load(d / "cells.npy")).float()[:, None] / 255
        return c, torch.from_numpy(np.load(d / "labels.npy")).long(), np.load(d / "boards.npy")

    tc, tl, tb = load(a.cells)
    lc, ll, lb = load(a.learn_cells)
    with torch.no_grad():
        check = base(tc[:256])
    import onnxruntime as ort
    ref = run_batches(ort.InferenceSession(str(a.model), providers=["CPUExecutionProvider"]), tc[:256].numpy())[0]
    print(f"torch rebuild: max logit difference {np.abs(check.numpy() - ref).max():.2e}", file=sys.stderr)
    sets = {}
    for i, r in enumerate(rows):
        sets.setdefault(r.get("set", "all"), []).append(i)
    start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
    modes = a.modes.split(",")
    totals = {m: [0, 0, 0, 0] for m in modes}
    confusions = {m: Counter() for m in modes}
    print("| set | pictures | " + " | ".join(modes) + " |")
    print("|---|---:|" + "---:|" * len(modes))
    for name, idx in sets.items():
        if len(idx) <= a.learn_count:
            continue
        # The starting position first, where the set has one, then the set's pictures in order.
        order = sorted(idx, key=lambda i: rows[i]["labels"].split(" ")[0] != start)
        learn, others = order[:a.learn_count], order[a.learn_count:]
        m_learn = torch.from_numpy(np.isin(lb, learn))
        cells = []
        for mode in modes:
            read = adapt(base, lc[m_learn], ll[m_learn], mode, a.steps, a.lr, a.penalty)
            right = boards = exact = 0
            for i in others:
                m = torch.from_numpy(tb == i)
                pred = read(tc[m]).argmax(1)
                ok = int((pred == tl[m]).sum())
                for t_, p_ in zip(tl[m].tolist(), pred.tolist()):
                    if t_ != p_:
                        confusions[mode][(CLASSES[t_], CLASSES[p_])] += 1
                right += ok
                boards += 1
                exact += int(ok == int(m.sum()))
            n = int(sum((tb == i).sum() for i in others))
            t = totals[mode]
            t[0] += right
            t[1] += n
            t[2] += exact
            t[3] += boards
            cells.append(f"{right / n:.2%} ({exact})")
        print(f"| {name} | {len(others)} | " + " | ".join(cells) + " |", flush=True)
    print("| all | " + str(totals[modes[0]][3]) + " | "
          + " | ".join(f"{t[0] / t[1]:.2%} ({t[2]})" for t in totals.values()) + " |")
    if a.confusions:
        for mode, c in confusions.items():
            print(f"{mode}: " + ", ".join(f"{t}->{p} {n}" for (t, p), n in c.most_common(12)))


if __name__ == "__main__":
    main()
