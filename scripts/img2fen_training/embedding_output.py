"""Gives an exported model the second output `export_onnx` now writes: `embedding`, the input of
its final linear layer (a Gemm node producing `logits`), so that `img2fen learn-set` can fit a
piece set's own head over it. Models exported before that output existed are upgraded in place
without retraining; their logits stay bit for bit the same (the graph only gains an output).

    python3 -m img2fen_training.embedding_output models/piece_classifier.onnx models/physical_classifier.onnx
"""

import argparse
from pathlib import Path

import numpy as np
import onnx
from onnx import helper

from .onnx_batches import rewrite_in_place


def add_embedding_output(model: onnx.ModelProto) -> bool:
    """Adds the output; False when the model already has it."""
    g = model.graph
    if any(o.name == "embedding" for o in g.output):
        return False
    final = [n for n in g.node if "logits" in n.output]
    if len(final) != 1 or final[0].op_type != "Gemm":
        raise ValueError("its logits do not come from one Gemm node")
    gemm = final[0]
    attrs = {a.name: helper.get_attribute_value(a) for a in gemm.attribute}
    if attrs.get("transA", 0) != 0:
        raise ValueError("the final Gemm transposes its input")
    weights = {t.name: t for t in g.initializer}
    w = onnx.numpy_helper.to_array(weights[gemm.input[1]])
    dim = w.shape[1] if attrs.get("transB", 0) else w.shape[0]
    g.node.append(helper.make_node("Identity", [gemm.input[0]], ["embedding"], name="embedding"))
    g.output.append(helper.make_tensor_value_info("embedding", onnx.TensorProto.FLOAT, ["n", dim]))
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("models", type=Path, nargs="+")

    def check(old, new):
        inp = old.get_inputs()[0]
        shape = [2 if not isinstance(d, int) else d for d in inp.shape]
        x = np.random.default_rng(0).random(shape, dtype=np.float32)
        a, (b, e) = old.run(None, {inp.name: x})[0], new.run(None, {inp.name: x})
        assert np.array_equal(a, b), "logits changed"
        return f"embedding output of {e.shape[1]} values added; logits unchanged"

    rewrite_in_place(ap.parse_args().models, add_embedding_output, check, "already has an embedding output")


if __name__ == "__main__":
    main()
