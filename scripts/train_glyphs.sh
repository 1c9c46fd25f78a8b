#!/usr/bin/env bash
# Retrain the glyph classifier of text boards: render terminal screenshots of boards printed by
# python-chess and Stockfish in Debian's monospace fonts (render.terminal), cut the glyph patches
# with img2fen's own segmentation (img2fen dataset --text), train on CPU, export ONNX.
# Validation renders other pictures in the training fonts; the held-out fonts are for
# `img2fen eval` (docs/experiments/2026-12-06-terminal-boards.md).
#
# Knobs (environment): PICTURES (2500), VAL_PICTURES (300), EPOCHS (5), CHANNELS (16,32,64),
# SEED (1), WORK (work), MODEL (models/glyph_classifier.onnx; the report goes beside it as
# glyph_training_report.json).
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH="$PWD/scripts${PYTHONPATH:+:$PYTHONPATH}"
PICTURES="${PICTURES:-2500}"; VAL_PICTURES="${VAL_PICTURES:-300}"; EPOCHS="${EPOCHS:-5}"; SEED="${SEED:-1}"
CHANNELS="${CHANNELS:-16,32,64}"; W="${WORK:-work}"; MODEL="${MODEL:-models/glyph_classifier.onnx}"
python3 -m pip install -q -e "scripts[train]"
cargo build --release
python3 -m img2fen_training.render.terminal --out "$W/term-train" --count "$PICTURES" --seed "$SEED" --fonts train
python3 -m img2fen_training.render.terminal --out "$W/term-val" --count "$VAL_PICTURES" --seed $((SEED + 2)) --fonts train
./target/release/img2fen dataset --text --manifest "$W/term-train/glyphs.jsonl" --out "$W/glyphs-train"
./target/release/img2fen dataset --text --manifest "$W/term-val/glyphs.jsonl" --out "$W/glyphs-val"
time python3 -m img2fen_training.train.glyphs --train "$W/glyphs-train" --val "$W/glyphs-val" --epochs "$EPOCHS" \
  --seed "$SEED" --channels "$CHANNELS" --out "$MODEL" --report "$(dirname "$MODEL")/glyph_training_report.json"
echo "train_glyphs: model in $MODEL; rebuild (cargo build --release) to embed it" >&2
