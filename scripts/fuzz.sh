#!/usr/bin/env bash
# Fuzzes decode + locate + the whole pipeline (pure-Rust backend) with libFuzzer through
# cargo fuzz (target fuzz/fuzz_targets/pipeline.rs). Needs a nightly toolchain; installs
# cargo-fuzz from crates.io when missing.
#
# Seeds: fuzz/seeds (committed: the corpus minimised after the last long run) and the pictures
# in testdata/formats and testdata/bad. New inputs go to fuzz/corpus/pipeline (not committed);
# crashes to fuzz/artifacts/pipeline.
#
# Leak detection is off: ort 2.0.0-rc.14 with ort-tract leaks one 40-byte type-info box per
# inference (GetTensorTypeAndShape in an output value is never released), which LeakSanitizer
# reports on the first input. It is not in img2fen's code; memory use stays flat in practice
# (40 bytes a board).
#
# Usage: scripts/fuzz.sh [SECONDS]   (default 1800)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-1800}
command -v cargo-fuzz > /dev/null || cargo install cargo-fuzz --locked
mkdir -p fuzz/corpus/pipeline fuzz/seeds
ASAN_OPTIONS=detect_leaks=0 cargo +nightly fuzz run pipeline -O fuzz/corpus/pipeline fuzz/seeds testdata/formats testdata/bad -- \
  -max_total_time="$secs" -detect_leaks=0 -timeout=60 -rss_limit_mb=4096 -max_len=100000 -print_final_stats=1
