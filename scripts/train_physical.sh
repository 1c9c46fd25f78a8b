#!/usr/bin/env bash
# Retrain the physical-board models and the kind classifier: render photos of physical sets with
# the 3D data engine (render/physical.py, pyrender on Mesa's software EGL), cut tall cells with
# img2fen's own code (img2fen dataset --tall), train on CPU, export ONNX, and measure them on
# held-out sets and materials with true corners; then train the kind classifier on views of
# flat and physical boards (img2fen dataset --boards).
#
# Two models read a physical board (docs/experiments/2026-12-07-physical-fixed-batch-cascade.md):
# the occupancy model (TallNet, four conv blocks from scratch; models/physical_occupancy.onnx)
# reads every tall cell, and the physical model (EfficientNet-Lite0's first 8 blocks with their
# ImageNet weights, the cell scaled 2x inside the network, fine-tuned; the `pretrained` extra)
# reads the cells the first does not find surely empty.
#
# Two halves are rendered: SCENES at 640x480 (seed SEED) and HR_SCENES at 1280x960 (seed SEED + 20),
# where pieces are drawn with more pixels, as in phone photos; the held-out scenes at 1280x960.
# The occupancy model trains on both halves for EPOCHS; the physical model on the first half for
# LITE_EPOCHS (the shipped v0.4: 2,000 scenes, 3 epochs, about an hour on two cores).
# Knobs (environment): SCENES (2000), HR_SCENES (2400), VAL_SCENES (240), EPOCHS (10), LITE_EPOCHS (3),
# CHANNELS (12,24,48,96), DETAILS and TURNED (0.8 and 0.8; the share of procedural sets with
# Staunton details, and of those the share turned with Staunton profiles; render.physical --details/--turned),
# SEED (100), WORK (work), MODELS (models; the reports go beside the models),
# OCCUPANCY (1; 0 keeps the occupancy model in MODELS), KIND (1; 0 keeps the kind classifier in MODELS).
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH="$PWD/scripts${PYTHONPATH:+:$PYTHONPATH}"
SCENES="${SCENES:-2000}"; HR_SCENES="${HR_SCENES:-2400}"; VAL_SCENES="${VAL_SCENES:-240}"; EPOCHS="${EPOCHS:-10}"; SEED="${SEED:-100}"
LITE_EPOCHS="${LITE_EPOCHS:-3}"; CHANNELS="${CHANNELS:-12,24,48,96}"; DETAILS="${DETAILS:-0.8}"; TURNED="${TURNED:-0.8}"
OCCUPANCY="${OCCUPANCY:-1}"; KIND="${KIND:-1}"; W="${WORK:-work}"; M="${MODELS:-models}"
python3 -m pip install -q -e "scripts[train,pretrained]"
[ -x work/venv3d/bin/python ] || bash scripts/setup_3d.sh
cargo build --release
render() { LP_NUM_THREADS=1 work/venv3d/bin/python -m img2fen_training.render.physical --details "$DETAILS" --turned "$TURNED" "$@"; }
render --out "$W/phys-heldout" --count "$VAL_SCENES" --seed $((SEED + 220)) --split heldout --size 1280x960
render --out "$W/phys-train" --count "$SCENES" --seed "$SEED" --split train
# The high-resolution half trains the occupancy and kind models only.
if [ "$OCCUPANCY" != 0 ] || [ "$KIND" != 0 ]; then
  render --out "$W/phys-train2" --count "$HR_SCENES" --seed $((SEED + 20)) --split train --size 1280x960
fi
./target/release/img2fen dataset --tall --manifest "$W/phys-train/manifest.jsonl" --out "$W/phys-train-c1" --copies 1 --jitter 0.08 --seed 6
./target/release/img2fen dataset --tall --manifest "$W/phys-heldout/manifest.jsonl" --out "$W/phys-heldout-cells" --copies 1 --jitter 0
if [ "$OCCUPANCY" != 0 ]; then
  ./target/release/img2fen dataset --tall --manifest "$W/phys-train2/manifest.jsonl" --out "$W/phys-train2-c1" --copies 1 --jitter 0.08 --seed 8
  time python3 -m img2fen_training.train.physical --train "$W/phys-train-c1" --more-train "$W/phys-train2-c1" --val "$W/phys-heldout-cells" \
    --epochs "$EPOCHS" --empty-keep 0.25 --channels "$CHANNELS" --out "$M/physical_occupancy.onnx" \
    --report "$M/physical_occupancy_training_report.json"
fi
time python3 -m img2fen_training.train.physical --train "$W/phys-train-c1" --val "$W/phys-heldout-cells" \
  --epochs "$LITE_EPOCHS" --empty-keep 0.25 --backbone lite0 --blocks 8 --upsample 2 --lr 2e-3 \
  --out "$M/physical_classifier.onnx" --report "$M/physical_training_report.json"
for model in physical_occupancy physical_classifier; do
  python3 -m img2fen_training.eval.tall --cells "$W/phys-heldout-cells" --manifest "$W/phys-heldout/manifest.jsonl" --model "$M/$model.onnx"
done
if [ "$KIND" = 0 ]; then
  echo "train_physical: models written in $M; kind classifier kept (KIND=0); rebuild (cargo build --release) to embed them" >&2
  exit 0
fi
# The kind classifier: flat boards (screens, books, photos of both) against the physical scenes.
python3 -m img2fen_training.render.boards --out "$W/kind-flat-train" --count 1500 --seed 21 --split train --photo-share 0.35
python3 -m img2fen_training.render.boards --out "$W/kind-flat-train2" --count 2500 --seed 23 --split train --photo-share 0.5
python3 -m img2fen_training.render.boards --out "$W/kind-flat-val" --count 300 --seed 22 --split heldout --photo-share 0.35
views() { ./target/release/img2fen dataset --boards --manifest "$1/manifest.jsonl" --out "$2" --copies 1 --jitter "$3"; }
views "$W/kind-flat-train" "$W/kind-flat-train-views" 0.08
views "$W/kind-flat-train2" "$W/kind-flat-train2-views" 0.08
views "$W/phys-train" "$W/kind-phys-train-views" 0.08
views "$W/phys-train2" "$W/kind-phys-train2-views" 0.08
views "$W/kind-flat-val" "$W/kind-flat-val-views" 0.05
views "$W/phys-heldout" "$W/kind-phys-val-views" 0.05
python3 -m img2fen_training.train.kind --flat "$W/kind-flat-train-views" "$W/kind-flat-train2-views" \
  --physical "$W/kind-phys-train-views" "$W/kind-phys-train2-views" \
  --val-flat "$W/kind-flat-val-views" --val-physical "$W/kind-phys-val-views" --epochs 12 --batch 128 \
  --out "$M/kind_classifier.onnx" --report "$M/kind_training_report.json"
echo "train_physical: models in $M; rebuild (cargo build --release) to embed them" >&2
