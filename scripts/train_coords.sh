#!/usr/bin/env bash
# Retrain the coordinate reader: render boards with coordinates (fonts from Debian and from
# matplotlib's wheel), cut label patches with img2fen's own code, train on CPU, export ONNX.
# Validation renders held-out piece families with held-out fonts.
#
# Knobs (environment): BOARDS (8000), VAL_BOARDS (800), EPOCHS (10), CHANNELS (12,24,48), SEED (11),
# WORK (work), MODEL (models/coords_classifier.onnx; the report goes beside it as
# coords_training_report.json), NARROW_SHARE (0: the share of boards with outside labels drawn
# in a narrow frame where the picture ends, render.coords --narrow-share), UI_BOARDS (0: screenshots
# of real board UIs in headless Chromium, render.ui --fonts train, whose labels the pages' own
# fonts draw, added to the training patches; needs npm, Debian's chromium and Playwright).
set -euo pipefail
cd "$(dirname "$0")/.."
# The training package (scripts/img2fen_training) imports from any directory once installed
# (python3 -m pip install -e 'scripts[train]'); here it is put on the path.
export PYTHONPATH="$PWD/scripts${PYTHONPATH:+:$PYTHONPATH}"
BOARDS="${BOARDS:-8000}"; VAL_BOARDS="${VAL_BOARDS:-800}"; EPOCHS="${EPOCHS:-10}"; SEED="${SEED:-11}"
CHANNELS="${CHANNELS:-12,24,48}"; NARROW_SHARE="${NARROW_SHARE:-0}"; UI_BOARDS="${UI_BOARDS:-0}"; W="${WORK:-work}"; MODEL="${MODEL:-models/coords_classifier.onnx}"
python3 -m pip install -q -e "scripts[train]"
cargo build --release
[ -d "$W/assets/sets" ] || python3 -m img2fen_training.assets --out "$W/assets"
python3 -m img2fen_training.render.coords --out "$W/coords-train" --count "$BOARDS" --seed "$SEED" --split all --fonts train --narrow-share "$NARROW_SHARE"
python3 -m img2fen_training.render.coords --out "$W/coords-val" --count "$VAL_BOARDS" --seed $((SEED + 1)) --split heldout --fonts heldout --narrow-share "$NARROW_SHARE"
./target/release/img2fen dataset --labels --manifest "$W/coords-train/manifest.jsonl" --out "$W/labels-train" --copies 2 --jitter 0.06 --seed "$SEED"
./target/release/img2fen dataset --labels --manifest "$W/coords-val/manifest.jsonl" --out "$W/labels-val" --copies 1 --jitter 0.06 --seed $((SEED + 1))
MORE=()
if [ "$UI_BOARDS" != 0 ]; then
  python3 -m pip install -q -e "scripts[ui]"
  python3 -m img2fen_training.render.ui --out "$W/ui-train" --count "$UI_BOARDS" --seed $((SEED + 40)) --fonts train
  ./target/release/img2fen dataset --labels --manifest "$W/ui-train/manifest.jsonl" --out "$W/labels-ui-train" --copies 2 --jitter 0.06 --seed "$SEED"
  MORE=(--more-train "$W/labels-ui-train")
fi
time python3 -m img2fen_training.train.coords --train "$W/labels-train" "${MORE[@]}" --val "$W/labels-val" --epochs "$EPOCHS" --seed "$SEED" \
  --channels "$CHANNELS" --out "$MODEL" --report "$(dirname "$MODEL")/coords_training_report.json"
echo "train_coords: model in $MODEL; rebuild (cargo build --release) to embed it" >&2
