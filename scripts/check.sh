#!/usr/bin/env bash
# Convention checks that CI runs (.ci/run, through scripts/bootstrap.sh test):
#   scripts/check.sh format   clang-format finds nothing to change (.clang-format)
#   scripts/check.sh tidy     clang-tidy finds nothing in src/ and apps/ (.clang-tidy), using the
#                             dev build's compile_commands.json
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
  format)
    mapfile -t files < <(git ls-files '*.cpp' '*.hpp' | grep -v '^tests/compile_fail/')
    clang-format --dry-run --Werror "${files[@]}"
    echo "check: format clean (${#files[@]} files)"
    ;;
  tidy)
    [ -f build/dev/compile_commands.json ] || { echo "check: configure the dev preset first" >&2; exit 2; }
    # GCC-only warning flags in the compile commands are not clang's concern.
    run-clang-tidy -p build/dev -j "$(nproc)" -quiet -extra-arg=-Wno-unknown-warning-option \
      "$PWD/(src|apps|python)/.*\.cpp" > build/dev/tidy.log 2>&1 || { grep -E "error:|warning:" build/dev/tidy.log | sort -u >&2; exit 1; }
    echo "check: tidy clean"
    ;;
  *)
    echo "usage: scripts/check.sh format|tidy" >&2
    exit 2
    ;;
esac
