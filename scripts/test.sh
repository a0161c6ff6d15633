#!/usr/bin/env bash
# Installs what is missing, builds dirload from scratch with address and
# undefined-behaviour sanitizers, and runs every test suite.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/install-deps.sh" --test
build="${DIRLOAD_TEST_BUILD:-$root/build-test}"
rm -rf "$build"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Debug "-DDIRLOAD_SANITIZE=address;undefined"
cmake --build "$build" -j"$(nproc)"
cd "$build"
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
ctest --output-on-failure -j"$(nproc)" --timeout 900
