#!/usr/bin/env bash
# Regenerates the pictures docs/ and the README show, from this build:
#   docs/img/sweep-deepseek-v3-gb200.svg  the README's sweep (llmecon sweep --plot)
#   docs/img/web-page.png                  the web page's first screen (headless Chromium, through the
#                                          browser test, which saves it after checking the page)
# Usage: scripts/gen-docs-images.sh [LLMECON_BINARY]   (needs Debian's chromium and `npm ci --prefix web`)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/release/apps/cli/llmecon}
"$bin" sweep --batch 1:4096:x2 --context 1024,32768,131072 --plot docs/img/sweep-deepseek-v3-gb200.svg >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
node tests/web/browser_test.mjs "$bin" "$work" data/models/llama-3.1-8b-instruct.json >/dev/null
cp "$work/web-page.png" docs/img/web-page.png
echo "gen-docs-images: docs/img/sweep-deepseek-v3-gb200.svg, docs/img/web-page.png"
