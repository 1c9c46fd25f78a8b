#!/usr/bin/env bash
# One-time set-up on a fresh machine: build img2fen (release) and fetch ONNX Runtime and the
# HEIC and AVIF decoders beside it.
# Needs the Rust toolchain (cargo) and python3 with pip; nothing else.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release
bash scripts/fetch_onnxruntime.sh target/release/onnxruntime >/dev/null \
  || echo "setup: ONNX Runtime not fetched; img2fen will use its built-in tract backend" >&2
bash scripts/fetch_codecs.sh target/release/codecs >/dev/null \
  || echo "setup: HEIC and AVIF decoders not fetched; img2fen reads every other format" >&2
echo "setup: done; run ./target/release/img2fen IMAGE" >&2
