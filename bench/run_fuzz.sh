#!/usr/bin/env bash
# Builds dirload's libFuzzer targets (tests/fuzz) with clang, ASan and UBSan,
# runs each for M minutes from a copy of its committed seeds, and prints per
# target: executions per second, coverage (libFuzzer's "cov:" at the start
# and at the end), corpus size and crashes.
#
# usage: bench/run_fuzz.sh [--minutes M] [--targets "ldif_reader dn ..."]
#                          [--build DIR] [--work DIR] [--jobs N]
#   --minutes  per target (default 5); M may be a fraction (0.5)
#   --targets  names with or without "_fuzzer" (default: all)
#   --build    the clang build directory (default ROOT/build-fuzz)
#   --work     corpora, crash artifacts and logs (default /tmp/dirload-fuzz)
#   --jobs     targets run at once, and build jobs (default: the core count)
# Crashes, leaks, timeouts and out-of-memory inputs go to WORK/artifacts/T/;
# the exit status is 1 when there is any. A crash stops that target early:
# add the input to tests/fuzz/seeds/T/ once fixed.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
all_targets="ldif_reader entry_codec idl_format filter dn schema_loader slapd_config cn_config
  mdb_entry mdb_dn_node"
minutes=5
targets=$all_targets
build="$root/build-fuzz"
work=/tmp/dirload-fuzz
jobs=$(nproc)
while (($#)); do
  case "$1" in
    --minutes) minutes=$2; shift 2 ;;
    --targets) targets=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
seconds=$(awk -v m="$minutes" 'BEGIN { s = int(m * 60 + 0.5); print (s < 1 ? 1 : s) }')
names=()
for t in $targets; do
  t=${t%_fuzzer}
  [[ -d $root/tests/fuzz/seeds/$t ]] || { echo "unknown target $t" >&2; exit 2; }
  names+=("$t")
done

# Configure once; a build directory configured otherwise is refused rather
# than silently reused.
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
if [[ ! -f $build/CMakeCache.txt ]]; then
  mkdir -p "$build"
  CC=clang CXX=clang++ cmake -S "$root" -B "$build" -DDIRLOAD_FUZZ=ON \
    -DDIRLOAD_SANITIZE="address;undefined" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DDIRLOAD_TESTS=OFF "${launcher[@]}" >"$build/configure.log" 2>&1 ||
    { cat "$build/configure.log" >&2; exit 2; }
elif ! grep -q '^DIRLOAD_FUZZ:BOOL=ON' "$build/CMakeCache.txt"; then
  echo "$build is not a DIRLOAD_FUZZ build" >&2
  exit 2
fi
cmake --build "$build" -j "$jobs" --target "${names[@]/%/_fuzzer}"

rm -rf "$work"
mkdir -p "$work/corpus" "$work/artifacts" "$work/logs"
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

run_one() {
  local t=$1
  cp -r "$root/tests/fuzz/seeds/$t" "$work/corpus/$t"
  mkdir -p "$work/artifacts/$t"
  # Status ignored: a crash is counted from the artifacts below.
  "$build/tests/fuzz/${t}_fuzzer" "$work/corpus/$t" -max_total_time="$seconds" \
    -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$work/artifacts/$t/" >"$work/logs/$t.log" 2>&1 || true
}

echo "running ${#names[@]} targets, $seconds s each, $jobs at a time; logs in $work/logs"
running=0
for t in "${names[@]}"; do
  if ((running >= jobs)); then
    wait -n
    running=$((running - 1))
  fi
  run_one "$t" &
  running=$((running + 1))
done
wait

crashed=0
printf '\n%-14s %10s %10s %9s %9s %11s %8s\n' target execs/s executions cov-seeds cov-end \
  corpus crashes
for t in "${names[@]}"; do
  log="$work/logs/$t.log"
  stat() { sed -n "s/^stat::$1: *//p" "$log" | tail -1; }
  execs_s=$(stat average_exec_per_sec)
  execs=$(stat number_of_executed_units)
  cov0=$(grep -o 'INITED cov: [0-9]*' "$log" | head -1 | grep -o '[0-9]*$' || true)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*$' || true)
  corp=$(grep -o 'corp: [0-9]*/[0-9A-Za-z]*' "$log" | tail -1 | sed 's/corp: //' || true)
  crashes=$(find "$work/artifacts/$t" -type f | wc -l)
  ((crashes == 0)) || crashed=1
  printf '%-14s %10s %10s %9s %9s %11s %8s\n' "$t" "${execs_s:--}" "${execs:--}" "${cov0:--}" \
    "${cov:--}" "${corp:--}" "$crashes"
done
if ((crashed)); then
  echo "crash inputs:"
  find "$work/artifacts" -type f
  exit 1
fi
