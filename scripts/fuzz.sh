#!/usr/bin/env bash
# Fuzzes img2fen with libFuzzer through cargo fuzz. Needs a nightly toolchain; installs
# cargo-fuzz from crates.io when missing. Two targets (fuzz/fuzz_targets/):
#
#   pipeline  arbitrary bytes as a picture of any size up to the limits, or as a PDF, through
#             decode (or render), locate, classify on tract, orient, assemble and every
#             output record. Seeds: fuzz/seeds (committed: the corpus minimised after a long
#             run, and a 5000x3200 picture), testdata/formats, testdata/bad, testdata/pdf.
#   batch     the whole command on a folder tree, lists and standard input made from the
#             fuzzer's bytes (arbitrary names, contents, links, loops, FIFOs), written to a file
#             in every format and resumed. Starts from an empty corpus.
#
# New inputs go to fuzz/corpus/TARGET (not committed); crashes to fuzz/artifacts/TARGET.
#
# Leak detection is off: ort 2.0.0-rc.14 with ort-tract leaks one 40-byte type-info box per
# inference (GetTensorTypeAndShape in an output value is never released), which LeakSanitizer
# reports on the first input. It is not in img2fen's code; memory use stays flat in practice
# (40 bytes a board).
#
# Usage: scripts/fuzz.sh [SECONDS] [TARGET]   (default 1800 pipeline)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-1800}
target=${2:-pipeline}
command -v cargo-fuzz > /dev/null || cargo install cargo-fuzz --locked
mkdir -p "fuzz/corpus/$target" fuzz/seeds
seeds=()
limits=(-max_len=200000)
if [ "$target" = pipeline ]; then
  seeds=(fuzz/seeds testdata/formats testdata/bad testdata/pdf)
else
  # A tree is described by a few hundred bytes; grown from 8 bytes, libFuzzer's length limit
  # would keep the trees empty for most of a run.
  limits=(-max_len=4096 -len_control=0)
fi
# A picture of 268 megapixels (the largest read) peaks near 2 GB; two targets may run at once.
ASAN_OPTIONS=detect_leaks=0 cargo +nightly fuzz run "$target" -O "fuzz/corpus/$target" "${seeds[@]}" -- \
  -max_total_time="$secs" -detect_leaks=0 -timeout=120 -rss_limit_mb=8192 "${limits[@]}" -print_final_stats=1
