#!/usr/bin/env bash
# Real pictures under stress, in one command: a labelled folder of real pictures (realdata-dev
# by default) as it is, turned by 10 and 20 degrees (turn_pictures.py), darkened towards one
# side (shade_pictures.py, strengths 0.4 and 0.6) and cropped to its boards (crop_boards.py),
# each read by `img2fen eval`. Prints one markdown row per set from the legal rows' ALL line:
# boards found, exact, exact ignoring orientation, squares, orientation, misreads flagged,
# needless flags per exact board. A change to the finder or the cells that costs real pictures
# anything shows here.
#
# Usage: scripts/stress_real.sh [LABELS.csv]   (OUT=/tmp/img2fen-stress, BACKEND=tract, MODEL=a
# piece model to read with instead of the built-in one; the derived pictures are written under
# OUT, never into the project)
set -euo pipefail
cd "$(dirname "$0")/.."
# The training package (scripts/img2fen_training) imports from any directory once installed
# (python3 -m pip install -e 'scripts[train]'); here it is put on the path.
export PYTHONPATH="$PWD/scripts${PYTHONPATH:+:$PYTHONPATH}"
LABELS=$(realpath "${1:-../shared/realdata-dev/labels.csv}")
OUT=${OUT:-/tmp/img2fen-stress}
BACKEND=${BACKEND:-tract}
model=(); [ -n "${MODEL:-}" ] && model=(--model "$MODEL")
IMG2FEN=./target/release/img2fen
[ -x "$IMG2FEN" ] || cargo build --release
mkdir -p "$OUT"
python3 -m img2fen_training.eval.turn "$LABELS" --angle 10 --out "$OUT/turned10"
python3 -m img2fen_training.eval.turn "$LABELS" --angle 20 --out "$OUT/turned20"
python3 -m img2fen_training.eval.shade "$LABELS" --strength 0.4 --out "$OUT/shaded0.4"
python3 -m img2fen_training.eval.shade "$LABELS" --strength 0.6 --out "$OUT/shaded0.6"
python3 -m img2fen_training.eval.crop "$LABELS" --out "$OUT/cropped" > /dev/null
echo "| set | images | boards found | exact | exact ignoring orientation | squares | orientation | misreads flagged | needless flags per exact board |"
echo "|---|---|---|---|---|---|---|---|---|"
for set in as-is turned10 turned20 shaded0.4 shaded0.6 cropped; do
  labels="$OUT/$set/labels.csv"
  [ "$set" = as-is ] && labels="$LABELS"
  # The first ALL line is the legal rows'.
  row=$("$IMG2FEN" eval "$labels" --backend "$BACKEND" "${model[@]}" | grep -m1 '^| ALL |' | cut -d'|' -f3-10)
  echo "| $set |$row|"
done
