#!/usr/bin/env bash
# Fetch libonnxruntime from PyPI's onnxruntime wheel (no Python install needed) and put it where
# img2fen looks for it: DEST (default target/release/onnxruntime/). Prints the library's path.
# img2fen works without it (pure-Rust tract backend); with it, --backend auto uses ONNX Runtime.
set -euo pipefail
VERSION="${ORT_VERSION:-1.32.0}"
DEST="${1:-target/release/onnxruntime}"
if ls "$DEST"/libonnxruntime.so* >/dev/null 2>&1; then
  ls "$DEST"/libonnxruntime.so* | head -n 1
  exit 0
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
python3 -m pip download --quiet --no-deps --only-binary=:all: "onnxruntime==$VERSION" -d "$tmp" >&2
mkdir -p "$DEST"
python3 - "$tmp" "$DEST" <<'PY'
import glob, os, sys, zipfile
wheel = glob.glob(os.path.join(sys.argv[1], "onnxruntime-*.whl"))[0]
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        if "/capi/libonnxruntime.so" in name:
            out = os.path.join(sys.argv[2], os.path.basename(name))
            with open(out, "wb") as f:
                f.write(z.read(name))
PY
ls "$DEST"/libonnxruntime.so* | head -n 1
