#!/usr/bin/env bash
# The piece model's recipe for a machine with a GPU and many cores: more boards, more epochs and
# bigger batches than train_model.sh's CPU recipe, and both of its runs at once. From one render
# of every piece set it trains, side by side on the GPU:
#   heldout-plain, heldout-shape: the training families only (every set but render_boards.py's
#                                 HELDOUT), measured on the held-out families;
#   final-plain, final-shape:     every family (the shippable models).
# "-shape" adds train.py's design jitter (--shape-aug), "-plain" does without, so that one run
# measures what the jitter is worth on unseen designs.
#
#   python3 -m img2fen_training.assets --out work/assets && cargo build --release   # once, with network
#   scripts/train_gpu.sh                                                          # on the GPU machine
#
# Knobs (environment): BOARDS (16000), HELDOUT_BOARDS (1000), EPOCHS (24), BATCH (2048), LR (6e-3), DEVICE (cuda),
# SHAPE (the jittered share, 0.5), SEED (4), JOBS (render processes, every core), ASSETS
# (work/assets), IMG2FEN (./target/release/img2fen), WORK (work/gpu).
# Writes WORK/<run>/piece_classifier.onnx with training_report.json, and WORK/<run>/heldout.md
# (img2fen_training.eval.model on the held-out families' cells).
set -euo pipefail
cd "$(dirname "$0")/.."
# The training package (scripts/img2fen_training) imports from any directory once installed
# (python3 -m pip install -e 'scripts[train]'); here it is put on the path.
export PYTHONPATH="$PWD/scripts${PYTHONPATH:+:$PYTHONPATH}"
BOARDS="${BOARDS:-16000}"; HELDOUT_BOARDS="${HELDOUT_BOARDS:-1000}"; EPOCHS="${EPOCHS:-24}"; BATCH="${BATCH:-2048}"
LR="${LR:-6e-3}"; DEVICE="${DEVICE:-cuda}"; SHAPE="${SHAPE:-0.5}"; SEED="${SEED:-4}"; JOBS="${JOBS:-$(nproc)}"
ASSETS="${ASSETS:-work/assets}"; IMG2FEN="${IMG2FEN:-./target/release/img2fen}"; W="${WORK:-work/gpu}"
mkdir -p "$W"
SECONDS=0
python3 -m img2fen_training.render.boards --assets "$ASSETS" --out "$W/render-all" --count "$BOARDS" --seed "$SEED" --split all --jobs "$JOBS"
python3 -m img2fen_training.render.boards --assets "$ASSETS" --out "$W/render-heldout" --count "$HELDOUT_BOARDS" --seed $((SEED + 1000)) --split heldout --jobs "$JOBS"
echo "train_gpu: rendered in $SECONDS s" >&2
# The training families' boards are the render's boards minus the held-out sets'.
python3 - "$W/render-all/manifest.jsonl" "$W/render-train/manifest.jsonl" <<'EOF'
import json, sys
from pathlib import Path
from img2fen_training.render.boards import HELDOUT
src, dst = Path(sys.argv[1]), Path(sys.argv[2])
dst.parent.mkdir(parents=True, exist_ok=True)
boards = [json.loads(l) for l in src.read_text().splitlines() if l]
kept = [dict(b, image=f"../{src.parent.name}/{b['image']}") for b in boards if b["set"] not in HELDOUT]
dst.write_text("".join(json.dumps(b) + "\n" for b in kept))
print(f"train_gpu: {len(kept)} of {len(boards)} boards are from training families", file=sys.stderr)
EOF
for split in all train; do
  "$IMG2FEN" dataset --manifest "$W/render-$split/manifest.jsonl" --out "$W/cells-$split" --copies 2 --jitter 0.06 --seed "$SEED"
done
"$IMG2FEN" dataset --manifest "$W/render-heldout/manifest.jsonl" --out "$W/cells-heldout" --copies 1 --jitter 0.06 --seed $((SEED + 1000))
echo "train_gpu: cells cut at $SECONDS s" >&2

run() {  # name, training cells, shape share
  mkdir -p "$W/$1"
  python3 -m img2fen_training.train.pieces --device "$DEVICE" --train "$W/$2" --val "$W/cells-heldout" --epochs "$EPOCHS" --batch "$BATCH" \
    --lr "$LR" --seed "$SEED" --shape-aug "$3" --threads 2 \
    --out "$W/$1/piece_classifier.onnx" --report "$W/$1/training_report.json" >"$W/$1/train.log" 2>&1
  python3 -m img2fen_training.eval.model --model "$W/$1/piece_classifier.onnx" --cells "$W/cells-heldout" \
    --manifest "$W/render-heldout/manifest.jsonl" >"$W/$1/heldout.md"
}
run heldout-plain cells-train 0 & run heldout-shape cells-train "$SHAPE" & run final-plain cells-all 0 & run final-shape cells-all "$SHAPE" &
fail=0; for _ in 1 2 3 4; do wait -n || fail=1; done
echo "train_gpu: trained at $SECONDS s" >&2
for r in heldout-plain heldout-shape final-plain final-shape; do
  echo "== $r: $(grep "^epoch" "$W/$r/train.log" | tail -n 1)" >&2
  grep -m 6 -E '^\| (flat|book|3d|all) ' "$W/$r/heldout.md" >&2 || true
done
exit "$fail"
