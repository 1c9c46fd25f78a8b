#!/usr/bin/env python3
"""Join piece models of the same interface into one ONNX model whose logits are the mean of
theirs: an ensemble that img2fen runs like any model (`--model`).

The softmax of the mean logits is the normalised geometric mean of the members' probabilities.
Each member keeps its own weights under a prefix; the input `cells` is shared. Used to measure
what an ensemble would bring (models/README.md, "Experiment: an ensemble"); it costs as many
times the classify step as it has members.

Usage: scripts/ensemble_onnx.py --out ENSEMBLE.onnx M1.onnx M2.onnx [...]
"""

import argparse
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import helper


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("models", type=Path, nargs="+")
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args()
    if len(a.models) < 2:
        ap.error("an ensemble needs two models or more")

    nodes, inits, outs = [], [], []
    first = onnx.load(str(a.models[0]))
    for i, path in enumerate(a.models):
        m = onnx.load(str(path))
        if [x.name for x in m.graph.input] != ["cells"] or [x.name for x in m.graph.output] != ["logits"]:
            raise SystemExit(f"ensemble_onnx: {path}: expected input 'cells' and output 'logits'")
        p = f"m{i}_"
        rename = {n.name: p + n.name for n in m.graph.initializer}
        for n in m.graph.node:
            rename.update({o: p + o for o in n.output if o})
        rename["cells"] = "cells"
        for t in m.graph.initializer:
            t.name = rename[t.name]
            inits.append(t)
        for n in m.graph.node:
            n.name = p + n.name
            n.input[:] = [rename.get(x, x) for x in n.input]
            n.output[:] = [rename.get(x, x) for x in n.output]
            nodes.append(n)
        outs.append(rename["logits"])
    scale = helper.make_tensor("ensemble_scale", onnx.TensorProto.FLOAT, [], [1.0 / len(outs)])
    inits.append(scale)
    nodes.append(helper.make_node("Sum", outs, ["ensemble_sum"], name="ensemble_sum"))
    nodes.append(helper.make_node("Mul", ["ensemble_sum", "ensemble_scale"], ["logits"], name="ensemble_mean"))
    graph = helper.make_graph(nodes, "ensemble", list(first.graph.input), list(first.graph.output), inits)
    model = helper.make_model(graph, opset_imports=list(first.opset_import))
    model.ir_version = first.ir_version
    onnx.checker.check_model(model)
    onnx.save(model, str(a.out))

    x = np.random.default_rng(0).random((8, 1, 32, 32), dtype=np.float32)
    want = np.mean([ort.InferenceSession(str(p), providers=["CPUExecutionProvider"]).run(None, {"cells": x})[0]
                    for p in a.models], 0)
    got = ort.InferenceSession(str(a.out), providers=["CPUExecutionProvider"]).run(None, {"cells": x})[0]
    print(f"ensemble_onnx: {len(a.models)} models in {a.out}; max |logit difference| vs the members' mean "
          f"{np.abs(got - want).max():.2e}")


if __name__ == "__main__":
    main()
