#!/usr/bin/env bash
# Rewrites the flag reference at the end of docs/cli.md (after its "## Flag reference" heading)
# from `llmecon commands --markdown`, which reads the command table. The test
# `docs_cli_up_to_date` fails when the committed file differs from what the current build prints.
# Usage: scripts/gen-cli-doc.sh [LLMECON_BINARY] [OUTPUT]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/release/apps/cli/llmecon}
out=${2:-docs/cli.md}
heading="## Flag reference"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
# Everything before the heading is written by hand.
awk -v h="$heading" '$0 == h { exit } { print }' docs/cli.md > "$tmp"
{
  echo "$heading"
  echo
  "$bin" commands --markdown
} >> "$tmp"
cp "$tmp" "$out"
