"""Runs an ONNX model over many inputs in batches, also a model exported with a fixed batch size
(the physical-board model is exported with batch 1 for tract's sake: `train.pieces.export_onnx`):
its inputs go in chunks of that size, the last one padded with zeros and its extra rows dropped."""

import numpy as np


def fixed_batch(sess):
    """The model's batch size when it is fixed, else None."""
    n = sess.get_inputs()[0].shape[0]
    return n if isinstance(n, int) and n > 0 else None


def run_batches(sess, x, step=2048):
    """Every output of `sess` for the float32 input `x` ([N, ...]), concatenated over batches."""
    name = sess.get_inputs()[0].name
    step = fixed_batch(sess) or step
    parts = []
    for i in range(0, max(len(x), 1), step):
        chunk = x[i:i + step]
        rows = len(chunk)
        if rows < step and fixed_batch(sess):
            chunk = np.concatenate([chunk, np.zeros((step - rows, *x.shape[1:]), dtype=x.dtype)])
        parts.append([out[:rows] for out in sess.run(None, {name: chunk})])
    return [np.concatenate(outs) for outs in zip(*parts)]


def rewrite_in_place(paths, rewrite, check, skipped):
    """Rewrites each ONNX model file of `paths` in place: `rewrite(model)` changes the loaded
    `onnx.ModelProto` and says whether it did (False: nothing to do, and `skipped` is printed
    after the path; a ValueError: it cannot, and the run stops naming the file); the model is
    checked and saved, then `check(before, after)` gets `onnxruntime.InferenceSession` objects of the model as
    it was and as it is, and returns the line to print."""
    import sys

    import onnx
    import onnxruntime as ort

    for path in paths:
        before = ort.InferenceSession(path.read_bytes(), providers=["CPUExecutionProvider"])
        model = onnx.load(str(path))
        try:
            changed = rewrite(model)
        except ValueError as e:
            raise SystemExit(f"{path}: {e}") from e
        if not changed:
            print(f"{path}: {skipped}", file=sys.stderr)
            continue
        onnx.checker.check_model(model)
        onnx.save(model, str(path))
        after = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        print(f"{path}: {check(before, after)}", file=sys.stderr)
