#!/usr/bin/env bash
# Opens a review page in headless Chromium (Debian's chromium package) and checks that it shows
# every picture; with --screenshot FILE also saves a screenshot of the page.
#
# Usage: scripts/check_review.sh [--screenshot FILE] [IMAGE ...]
#        (default images: the screenshots in testdata/ and a book picture from testdata/formats)
set -euo pipefail
cd "$(dirname "$0")/.."
shot=""
if [ "${1:-}" = "--screenshot" ]; then shot=$2; shift 2; fi
images=("$@")
[ ${#images[@]} -gt 0 ] || images=(testdata/black_side_blue.png testdata/small_board_article.png testdata/green_arrows.jpg)
command -v chromium > /dev/null || { echo "needs chromium (apt-get install chromium)" >&2; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
./target/release/img2fen --backend tract "${images[@]}" --review "$dir/review" > /dev/null 2>&1 || true
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
       --disable-component-update --disable-sync --user-data-dir="$dir/profile" --hide-scrollbars
       --virtual-time-budget=5000)
dom=$(chromium "${flags[@]}" --dump-dom "file://$dir/review/index.html" 2> /dev/null)
total=$(grep -o '<img ' <<< "$dom" | wc -l)
loaded=$(grep -o 'data-loaded="1"' <<< "$dom" | wc -l)
echo "review page: $loaded of $total pictures shown"
if [ -n "$shot" ]; then
  chromium "${flags[@]}" --window-size=900,1250 --screenshot="$shot" "file://$dir/review/index.html" 2> /dev/null
  echo "screenshot: $shot"
fi
[ "$total" -gt 0 ] && [ "$loaded" -eq "$total" ]
