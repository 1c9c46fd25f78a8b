#!/usr/bin/env bash
# The README's speed and memory numbers, reproducible: per-step timings and batch throughput.
#
# 1. Renders three picture sets with img2fen_training.render.scenes (in $WORK, not committed):
#    500 screenshots, 600 mixed pictures (screens, book pages, 2000x1500 photos, and pictures
#    without a board), 40 phone photos of 4000x3000.
# 2. Per step (cargo bench --bench pipeline), on both backends, for the 1920x1080 screenshot in
#    testdata/, a book page and a 4000x3000 photo.
# 3. Batch runs of the release binary on all cores over each set, written to a CSV file as a
#    user would: wall time, pictures a second and peak memory (GNU time's maximum RSS).
#
# Usage: scripts/bench.sh [tract|onnxruntime ...]   (default: both; ONNX Runtime is fetched
# from PyPI by scripts/fetch_onnxruntime.sh). RUNS=30 per-step runs; SKIP_STEPS=1 runs the
# batches only.
set -euo pipefail
cd "$(dirname "$0")/.."
# The training package (scripts/img2fen_training) imports from any directory once installed
# (python3 -m pip install -e 'scripts[train]'); here it is put on the path.
export PYTHONPATH="$PWD/scripts${PYTHONPATH:+:$PYTHONPATH}"
WORK=${WORK:-work/bench}
RUNS=${RUNS:-30}
backends=("$@")
[ ${#backends[@]} -gt 0 ] || backends=(tract onnxruntime)

render() { # name args...
  local name=$1; shift
  [ -f "$WORK/$name/scenes.jsonl" ] || python3 -m img2fen_training.render.scenes --out "$WORK/$name" "$@"
}
render screens --kinds screen --count 500 --negatives 0 --seed 11
render mixed --count 500 --negatives 100 --seed 12
render photos4k --kinds photo --count 40 --negatives 0 --photo-size 4000x3000 --seed 13

cargo build --release --quiet
if [[ " ${backends[*]} " == *" onnxruntime "* ]]; then
  IMG2FEN_ORT_LIB="$PWD/$(bash scripts/fetch_onnxruntime.sh target/onnxruntime)"
  export IMG2FEN_ORT_LIB
fi
book=$(python3 -c "import json,sys; print(next(json.loads(l)['image'] for l in open(sys.argv[1]) if '\"kind\": \"book\"' in l))" "$WORK/mixed/scenes.jsonl")
photo=$(python3 -c "import json,sys; print(next(json.loads(l)['image'] for l in open(sys.argv[1]) if json.loads(l)['boards']))" "$WORK/photos4k/scenes.jsonl")

if [ -z "${SKIP_STEPS:-}" ]; then
echo "## Per step (median / p90 ms over $RUNS runs, one thread)"
for backend in "${backends[@]}"; do
  for image in testdata/lichess_page_1920x1080.png "$WORK/mixed/$book" "$WORK/photos4k/$photo"; do
    cargo bench --quiet --bench pipeline -- "$backend" "$image" "$RUNS"
  done
done
fi

echo
echo "## Batch (all cores, --output CSV)"
echo "| set | pictures | backend | seconds | pictures/s | peak RSS MB | boards read | failed |"
echo "|---|---|---|---|---|---|---|---|"
for backend in "${backends[@]}"; do
  for set in screens mixed photos4k; do
    n=$(wc -l < "$WORK/$set/scenes.jsonl")
    out="$WORK/out-$set-$backend.csv"
    # Read every picture once before timing, so that all runs find them in the page cache.
    cat "$WORK/$set"/images/* > /dev/null
    /usr/bin/time -f "%e %M" -o "$WORK/time.txt" ./target/release/img2fen --backend "$backend" "$WORK/$set/images" \
      --format csv --output "$out" 2> "$WORK/stderr.txt" || true
    # GNU time puts "Command exited with non-zero status 1" first when some pictures failed.
    read -r secs kb < <(tail -1 "$WORK/time.txt")
    summary=$(tail -1 "$WORK/stderr.txt")
    boards=$(sed -E 's/.*: ([0-9]+) boards? read.*/\1/' <<< "$summary")
    failed=$(sed -E 's/.* ([0-9]+) failed$/\1/' <<< "$summary")
    printf "| %s | %d | %s | %.1f | %.1f | %d | %s | %s |\n" "$set" "$n" "$backend" "$secs" \
      "$(echo "$n / $secs" | bc -l)" "$((kb / 1024))" "$boards" "$failed"
  done
done
