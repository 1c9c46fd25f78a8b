#!/usr/bin/env python3
"""Rewrites a model trained with `train.py --board-norm` so that tract can run it.

torch exports BoardNorm's grouping of the batch into boards of 64 as a Reshape whose shape it
computes from the input's (Shape, Gather, Concat), and tract cannot analyse a batch axis divided
by 64. The rewritten model drops the grouping and normalises over the whole batch instead: it
must be given one board, 64 cells, per run (as `Recognizer::second_look` does since this commit).
The parameters' own reshapes get constant shapes.

Usage: scripts/boardnorm_onnx.py IN.onnx OUT.onnx
"""

import sys

import numpy as np
import onnx
from onnx import numpy_helper


def main():
    m = onnx.load(sys.argv[1])
    g = m.graph
    inits = {i.name: i for i in g.initializer}
    for k, n in enumerate(g.node):
        if n.op_type == "Reshape" and n.input[0] in inits:
            # weight.view(1, c, 1, 1)
            c = int(np.prod(inits[n.input[0]].dims))
            name = f"boardnorm_param_shape_{k}"
            g.initializer.append(numpy_helper.from_array(np.array([1, c, 1, 1], dtype=np.int64), name))
            n.input[1] = name
        elif n.op_type == "Reshape":
            # [N, C, H, W] <-> [N / 64, 64, C, H, W]: gone, the batch is one board
            n.op_type = "Identity"
            del n.input[1]
            del n.attribute[:]
        elif n.op_type == "ReduceMean":
            (axes,) = [a for a in n.attribute if a.name == "axes"]
            assert list(axes.ints) == [1, 3, 4], axes.ints
            del axes.ints[:]
            axes.ints.extend([0, 2, 3])
    while True:
        used = {i for n in g.node for i in n.input} | {o.name for o in g.output}
        dead = [n for n in g.node if not any(o in used for o in n.output)]
        if not dead:
            break
        for n in dead:
            g.node.remove(n)
    onnx.checker.check_model(m)
    onnx.save(m, sys.argv[2])


if __name__ == "__main__":
    main()
