#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine (run as root, or with sudo available).
#
#   scripts/bootstrap.sh run    install what is missing, build (release), run the default report
#   scripts/bootstrap.sh test   install what is missing, build, check the format, run every test,
#                               run clang-tidy, then the sanitizer (ASan+UBSan) build and its tests,
#                               then the libFuzzer targets over their seed corpora (scripts/fuzz.sh).
#                               Tests that time this machine (label `measure`) are left out:
#                               `ctest --test-dir build/dev -L measure` runs them.
#
# Nothing is downloaded at build time. Every C++ dependency is a Debian package; the web page's
# chart library (and the browser test's driver) are npm packages installed here, before the build,
# pinned by web/package-lock.json.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-run}

packages=(build-essential cmake ninja-build ccache python3
          nlohmann-json3-dev libcli11-dev libfmt-dev libtomlplusplus-dev
          libgtest-dev libgmock-dev librapidcheck-dev libbenchmark-dev libopenblas-dev pkg-config
          libmicrohttpd-dev pybind11-dev python3-dev python3-pytest)
# npm for the web page's chart library; Debian's chromium for the browser test.
command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)
# pandas, numpy and Dask for the grid's tests; pip and setuptools for the package's; nbconvert,
# ipykernel and matplotlib to execute the example notebooks; libclang's Python binding for the
# function-size check (tests/arch/functions.py).
test_packages=(chromium clang-format clang-tidy clang libclang-rt-14-dev python3-clang python3-pandas python3-numpy python3-distributed
               python3-pip python3-setuptools jupyter-nbconvert python3-ipykernel python3-matplotlib)

install_missing() {
  local missing=()
  for p in "${packages[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "bootstrap: installing ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
}

# Chart.js (embedded into the binary) and playwright-core, pinned by web/package-lock.json.
install_web() {
  if [ ! -f web/node_modules/.package-lock.json ] || ! cmp -s web/package-lock.json web/node_modules/.llmecon-lock; then
    echo "bootstrap: npm ci in web/"
    npm ci --prefix web --no-audit --no-fund --loglevel=error
    cp web/package-lock.json web/node_modules/.llmecon-lock
  fi
}

jobs=$(nproc 2>/dev/null || echo 2)

case "$mode" in
  run)
    install_missing
    install_web
    cmake --preset release -DLLMECON_BUILD_TESTS=OFF -DLLMECON_BUILD_BENCH=OFF >/dev/null
    cmake --build --preset release --target llmecon -j "$jobs"
    ./build/release/apps/cli/llmecon report
    ;;
  test)
    install_missing "${test_packages[@]}"
    install_web
    cmake --preset dev >/dev/null
    cmake --build --preset dev -j "$jobs"
    scripts/check.sh format
    ctest --preset dev -j "$jobs"
    scripts/check.sh tidy
    cmake --preset asan >/dev/null
    cmake --build --preset asan -j "$jobs"
    ctest --preset asan -j "$jobs"
    # Every input parser under libFuzzer (clang, ASan+UBSan): a fixed, seeded budget, so the
    # same inputs run every time.
    cmake --preset fuzz >/dev/null
    cmake --build --preset fuzz -j "$jobs"
    scripts/fuzz.sh
    ;;
  *)
    echo "usage: scripts/bootstrap.sh run|test" >&2
    exit 2
    ;;
esac
