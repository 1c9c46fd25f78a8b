#!/usr/bin/env bash
# Retrain the piece model from scratch: fetch the piece sets from the registries, render boards,
# cut cells with img2fen's own code, train on CPU, export ONNX, measure calibration and accuracy
# on held-out families.
#
#   scripts/train_model.sh            # train on the training families, validate on held-out ones
#   FINAL=1 scripts/train_model.sh    # then retrain on every family (the shipped model)
#
# Knobs (environment): BOARDS (training boards, 5000), HELDOUT_BOARDS (1000), EPOCHS (6), SEED (1),
# FLIP (share of training cells mirrored left to right, 0), SETS (the piece sets training draws
# from, one name a line: models/piece_sets.txt, the shipped model's; empty for every set
# fetched), FONT_SHARE (share of training boards drawn with a chess-font set; empty: every set
# the same), PHOTO_SHARE (share of training boards photographed, 0), TONE_SHARE (share of
# screen boards whose pieces are drawn in other tones: white without a dark outline, black in
# grey; 0), SMALL_SHARE (share of training boards shown small, squares of 8-16 px; 0),
# TEXTURE_SHARE (share of training boards drawn on a wood, marble or stone texture, besides
# the 15% draw_board textures its own way; 0), TEXTURES (which textures the training boards
# draw from: train, heldout or all; empty: all), LATEX (diagrams typeset by LaTeX in the skak
# fonts, printed and scanned, added to the training boards: render.latex, seed LATEX_SEED, 500; 0),
# BOOK_ARROWS (share of book diagrams with thin black arrows drawn across them; 0),
# WORK (scratch folder, work), MODEL (output, models/piece_classifier.onnx; the training
# report goes beside it as training_report.json, or STEM_training_report.json for a model
# named otherwise). The small-board model (models/piece_classifier_small.onnx) is
#   FINAL=1 SMALL_SHARE=0.15 BOARDS=6000 EPOCHS=7 SEED=4 MODEL=models/piece_classifier_small.onnx scripts/train_model.sh
set -euo pipefail
cd "$(dirname "$0")/.."
# The training package (scripts/img2fen_training) imports from any directory once installed
# (python3 -m pip install -e 'scripts[train]'); here it is put on the path.
export PYTHONPATH="$PWD/scripts${PYTHONPATH:+:$PYTHONPATH}"
BOARDS="${BOARDS:-5000}"; HELDOUT_BOARDS="${HELDOUT_BOARDS:-1000}"; EPOCHS="${EPOCHS:-6}"; SEED="${SEED:-1}"
FLIP="${FLIP:-0}"; SETS="${SETS-models/piece_sets.txt}"; FONT_SHARE="${FONT_SHARE:-}"; PHOTO_SHARE="${PHOTO_SHARE:-0}"; TONE_SHARE="${TONE_SHARE:-0}"
SMALL_SHARE="${SMALL_SHARE:-0}"; TEXTURE_SHARE="${TEXTURE_SHARE:-0}"; TEXTURES="${TEXTURES:-}"
LATEX="${LATEX:-0}"; LATEX_SEED="${LATEX_SEED:-500}"; BOOK_ARROWS="${BOOK_ARROWS:-0}"
pick=(--photo-share "$PHOTO_SHARE" --tone-share "$TONE_SHARE" --small-share "$SMALL_SHARE" --texture-share "$TEXTURE_SHARE"
      --book-arrow-share "$BOOK_ARROWS")
[ -n "$SETS" ] && pick+=(--only "$SETS"); [ -n "$FONT_SHARE" ] && pick+=(--font-share "$FONT_SHARE"); [ -n "$TEXTURES" ] && pick+=(--textures "$TEXTURES")
W="${WORK:-work}"; MODEL="${MODEL:-models/piece_classifier.onnx}"
stem="$(basename "$MODEL" .onnx)"; reports="$(dirname "$MODEL")/"; [ "$stem" = piece_classifier ] || reports+="${stem}_"
python3 -m pip install -q -e "scripts[train]"
command -v npm >/dev/null || { echo "train_model: npm is needed to fetch npm piece sets" >&2; exit 1; }
cargo build --release
python3 -m img2fen_training.assets --out "$W/assets"
split=train; [ "${FINAL:-0}" = 1 ] && split=all
python3 -m img2fen_training.render.boards --assets "$W/assets" --out "$W/render-$split" --count "$BOARDS" --seed "$SEED" --split "$split" "${pick[@]}"
python3 -m img2fen_training.render.boards --assets "$W/assets" --out "$W/render-heldout" --count "$HELDOUT_BOARDS" --seed $((SEED + 1000)) --split heldout
# How often the rarest piece appears on each square colour, per set (a report, not a gate).
python3 -m img2fen_training.eval.class_counts --manifest "$W/render-$split/manifest.jsonl" --show 5 || true
./target/release/img2fen dataset --manifest "$W/render-$split/manifest.jsonl" --out "$W/cells-$split" --copies 2 --jitter 0.06 --seed "$SEED"
./target/release/img2fen dataset --manifest "$W/render-heldout/manifest.jsonl" --out "$W/cells-heldout" --copies 1 --jitter 0.06 --seed $((SEED + 1000))
more=()
if [ "$LATEX" -gt 0 ]; then
  # Rendered once per count (about 25 minutes for 1,600 on two cores): a folder that holds them is kept.
  [ "$(wc -l < "$W/latex/manifest.jsonl" 2>/dev/null || echo 0)" = "$LATEX" ] ||
    python3 -m img2fen_training.render.latex --out "$W/latex" --count "$LATEX" --seed "$LATEX_SEED"
  ./target/release/img2fen dataset --manifest "$W/latex/manifest.jsonl" --out "$W/cells-latex" --copies 2 --jitter 0.06 --seed "$SEED"
  more=(--more-train "$W/cells-latex")
fi
time python3 -m img2fen_training.train.pieces --train "$W/cells-$split" "${more[@]}" --val "$W/cells-heldout" --epochs "$EPOCHS" --seed "$SEED" --flip "$FLIP" \
  --out "$MODEL" --report "${reports}training_report.json"
# Calibration on the held-out families (unseen designs, like real pictures): ECE and the
# temperature that would fit them. With FINAL=1 those families are in training, so the
# numbers then describe seen designs.
python3 -m img2fen_training.train.calibrate --model "$MODEL" --cells "$W/cells-heldout" --report "${reports}calibration_report.json"
python3 -m img2fen_training.eval.model --model "$MODEL" --cells "$W/cells-heldout" \
  --manifest "$W/render-heldout/manifest.jsonl" > "$W/heldout_measurement.md"
echo "train_model: model in $MODEL; held-out measurement in $W/heldout_measurement.md" >&2
echo "train_model: rebuild (cargo build --release) to embed the new model" >&2
