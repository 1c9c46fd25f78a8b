"""Fixes the batch size of an exported model (dynamic `n` → a number), as `export_onnx(batch=)`
now writes the physical-board model: tract optimises a graph only for the shapes it knows when it
loads it, and one cell at a time runs its lazy im2col and depthwise convolutions (the physical
model v0.3: 64 tall cells in 32-55 ms → 24 ms). img2fen feeds such a model in chunks of its
batch. The weights are untouched; the upgraded model is checked against the original on random
cells with ONNX Runtime.

    python3 -m img2fen_training.fixed_batch models/physical_classifier.onnx --batch 1
"""

import argparse
from pathlib import Path

import numpy as np
import onnx

from .onnx_batches import rewrite_in_place, run_batches


def fix_batch(model: onnx.ModelProto, batch: int) -> bool:
    """Sets every input's and output's first dimension to `batch`; False when already fixed."""
    g = model.graph
    dims = [v.type.tensor_type.shape.dim[0] for v in list(g.input) + list(g.output)]
    if all(d.HasField("dim_value") and d.dim_value == batch for d in dims):
        return False
    for d in dims:
        d.ClearField("dim_param")
        d.dim_value = batch
    del g.value_info[:]  # intermediate shapes that still say `n`
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("models", type=Path, nargs="+")
    ap.add_argument("--batch", type=int, default=1)
    a = ap.parse_args()

    def check(before, after):
        shape = [d if isinstance(d, int) else 1 for d in after.get_inputs()[0].shape[1:]]
        x = np.random.default_rng(0).random((37, *shape), dtype=np.float32)
        diff = max(float(np.abs(u - v).max()) for u, v in zip(run_batches(before, x), run_batches(after, x)))
        assert diff < 1e-4, diff
        return f"batch {a.batch}; outputs differ from before by at most {diff:.2e}"

    rewrite_in_place(a.models, lambda model: fix_batch(model, a.batch), check, f"batch already {a.batch}")


if __name__ == "__main__":
    main()
