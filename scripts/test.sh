#!/usr/bin/env bash
# The project's test command (CI runs exactly this, through .ci/run): formatting, ruff on the
# training package, clippy with warnings as errors, then every test.
# Every test passes with the pure-Rust backend alone; when ONNX Runtime can be fetched from PyPI,
# the backend-agreement test also checks that it gives the same classes as tract.
set -euo pipefail
cd "$(dirname "$0")/.."
if lib="$(bash scripts/fetch_onnxruntime.sh target/onnxruntime 2>/dev/null)"; then
  export IMG2FEN_ORT_LIB="$PWD/$lib"
  echo "test: ONNX Runtime at $IMG2FEN_ORT_LIB" >&2
else
  echo "test: ONNX Runtime not available; testing the tract backend only" >&2
fi
# HEIC and AVIF decoders (libheif, libavif) from PyPI wheels: with IMG2FEN_CODECS set, the
# phone-picture tests must decode them; without, they check that img2fen says how to get them.
if codecs="$(bash scripts/fetch_codecs.sh target/codecs 2>/dev/null)"; then
  export IMG2FEN_CODECS="$PWD/$codecs"
  echo "test: HEIC and AVIF decoders in $IMG2FEN_CODECS" >&2
else
  echo "test: HEIC and AVIF decoders not available; testing that img2fen names them" >&2
fi
cargo fmt --check
# The training package stays ruff-clean (ruff comes from PyPI when it is not installed).
if python3 -m ruff --version >/dev/null 2>&1 || python3 -m pip install -q ruff >/dev/null 2>&1; then
  python3 -m ruff check --quiet --config scripts/pyproject.toml scripts
else
  echo "test: ruff not available; the Python package is not linted" >&2
fi
cargo clippy --release --all-targets -- -D warnings
cargo test --release
