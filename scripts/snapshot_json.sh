#!/usr/bin/env bash
# The JSON of every picture a refactoring must not change: testdata/ and, when present,
# ../shared/realdata-dev and ../shared/realdata-physical, read by BIN (default
# target/release/img2fen) with the pure-Rust backend on one job. Writes OUT (default
# work/snapshot.jsonl). Compare two snapshots with `cmp` (or `diff` to see what moved).
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-target/release/img2fen}"
out="${2:-work/snapshot.jsonl}"
mkdir -p "$(dirname "$out")"
inputs=(testdata)
for d in ../shared/realdata-dev ../shared/realdata-physical; do
  [[ -d "$d" ]] && inputs+=("$d")
done
rm -f "$out"
"$bin" --backend tract -j 1 --format json --progress never "${inputs[@]}" >"$out" 2>"$out.stderr" || true
echo "$out: $(wc -l <"$out") records" >&2
