#!/bin/sh
# Parse benchmark on the standard workload: 285,000 generated entries
# (~360 MB of LDIF), plain and gzip.
#
#   bench/run_parse_bench.sh DATA_DIR [BUILD_DIR]
#
# The inputs are generated into DATA_DIR once (outside the timed region) and
# reused; BUILD_DIR (default: build, next to this script's parent) must hold a
# Release build of dirload-gen and dirload-parse-bench. Set ENTRIES, SEED or
# REPEAT to change the workload or the number of runs.
set -eu

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 DATA_DIR [BUILD_DIR]" >&2
  exit 2
fi
data_dir=$1
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${2:-$root/build}
entries=${ENTRIES:-285000}
seed=${SEED:-1}
repeat=${REPEAT:-3}

gen=$build_dir/bench/dirload-gen
bench=$build_dir/bench/dirload-parse-bench
for tool in "$gen" "$bench"; do
  if [ ! -x "$tool" ]; then
    echo "$0: $tool not built (cmake --build $build_dir --target dirload-gen dirload-parse-bench)" >&2
    exit 1
  fi
done

mkdir -p "$data_dir"
plain=$data_dir/gen-$entries-s$seed.ldif
gz=$plain.gz
# Write to a temporary name first so an interrupted run never leaves a
# truncated input that later runs would trust.
if [ ! -s "$plain" ]; then
  echo "generating $plain"
  "$gen" --entries "$entries" --seed "$seed" -o "$plain.tmp"
  mv "$plain.tmp" "$plain"
fi
if [ ! -s "$gz" ]; then
  echo "generating $gz"
  "$gen" --entries "$entries" --seed "$seed" --gzip -o "$gz.tmp"
  mv "$gz.tmp" "$gz"
fi

# Warm the page cache so the first timed run does not pay for the disk.
cat "$plain" "$gz" > /dev/null

for input in "$plain" "$gz"; do
  echo
  "$bench" "$input" --repeat "$repeat" --json
done
