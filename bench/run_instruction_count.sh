#!/usr/bin/env bash
# Instructions, not seconds: a small load counted by valgrind's callgrind,
# for two builds side by side. On a shared machine whose speed changes from
# one minute to the next, a change of a few percent in the CPU a load costs
# is lost in the spread of wall and CPU times; the number of instructions
# executed is the same from run to run within a fraction of a percent
# (threads take turns under valgrind, so the split of the checks between
# the reading and the writing thread moves a little). It does not count the
# time spent waiting on memory, so it complements the timed benchmarks.
#
# Counted per build, each job on its own database: phase 1 alone
# (`add --no-index`) and the index build of that database (`index`), in
# slapd's format and in the native one, with the 15 workload indexes.
#
# usage: bench/run_instruction_count.sh [--entries N] [--build DIR]
#          [--baseline DIR] [--dir WORKDIR] [--jobs "mdb-load mdb-index
#          native-load native-index"]
# Prints a table of instructions (millions) per job and build, and the
# change against the baseline. 30,000 entries (the default) take about a
# minute per build and job.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=workload_indexes.sh
source "$root/bench/workload_indexes.sh"
# shellcheck source=bench_common.sh
source "$root/bench/bench_common.sh"  # for slapd_conf and generate_ldif

entries=30000
build="$root/build"
baseline=""
work=/tmp/dirload-instructions
jobs="mdb-load mdb-index native-load native-index"
while (($#)); do
  case "$1" in
    --entries) entries=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --baseline) baseline=$2; shift 2 ;;
    --dir) work=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    -h | --help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
command -v valgrind > /dev/null || { echo "valgrind missing: apt-get install valgrind" >&2; exit 2; }
gen="$build/bench/dirload-gen"
[[ -x $build/tools/dirload && -x $gen ]] || { echo "build first: cmake --build $build" >&2; exit 2; }
[[ -z $baseline || -x $baseline/tools/dirload ]] || { echo "--baseline: no $baseline/tools/dirload" >&2; exit 2; }
mkdir -p "$work"
suffix="dc=example,dc=com"
ldif="$work/people-$entries.ldif"
generate_ldif "$gen" "$entries" "$ldif"

# count BIN ARGS...: the instructions of one run. dirload may start itself
# again (lib/util/malloc_huge_pages.cc), so children are traced and the
# last process's total is the run's.
count() {
  local out
  out=$(valgrind --tool=callgrind --trace-children=yes --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null) ||
    { echo "$out" >&2; echo "failed: $*" >&2; exit 1; }
  echo "$out" | sed -n 's/.*Collected : \([0-9]*\).*/\1/p' | tail -1
}

declare -A result
builds=(build)
[[ -n $baseline ]] && builds=(baseline build)
for which in "${builds[@]}"; do
  dir=$build
  [[ $which == baseline ]] && dir=$baseline
  bin="$dir/tools/dirload"
  for format in mdb native; do
    db="$work/db-$format"
    slapd_conf "$db" 4294967296 "$WORKLOAD_INDEX_LINES" > "$work/slapd-$format.conf"
    extra=()
    [[ $format == native ]] && extra=(--format native)
    if [[ " $jobs " == *" $format-load "* || " $jobs " == *" $format-index "* ]]; then
      rm -rf "$db" && mkdir -p "$db"
      args=(add -f "$work/slapd-$format.conf" -l "$ldif" --no-index --progress never "${extra[@]}")
      if [[ " $jobs " == *" $format-load "* ]]; then
        result[$which,$format-load]=$(count "$bin" "${args[@]}")
      else
        "$bin" "${args[@]}" > /dev/null
      fi
    fi
    if [[ " $jobs " == *" $format-index "* ]]; then
      result[$which,$format-index]=$(count "$bin" index -f "$work/slapd-$format.conf" --progress never)
    fi
  done
done

echo "### Instructions (millions), $entries entries, 15 workload indexes"
echo
if [[ -n $baseline ]]; then
  echo "| job | baseline ($("$baseline/tools/dirload" --version | sed -n 's/^commit: //p')) | this build ($("$build/tools/dirload" --version | sed -n 's/^commit: //p')) | change |"
  echo "|---|---:|---:|---:|"
else
  echo "| job | this build ($("$build/tools/dirload" --version | sed -n 's/^commit: //p')) |"
  echo "|---|---:|"
fi
for job in $jobs; do
  b=${result[build,$job]}
  if [[ -n $baseline ]]; then
    a=${result[baseline,$job]}
    awk -v j="$job" -v a="$a" -v b="$b" \
      'BEGIN { printf "| %s | %.0f | %.0f | %+.1f %% |\n", j, a / 1e6, b / 1e6, 100 * (b - a) / a }'
  else
    awk -v j="$job" -v b="$b" 'BEGIN { printf "| %s | %.0f |\n", j, b / 1e6 }'
  fi
done
echo
echo "Command: bench/run_instruction_count.sh --entries $entries${baseline:+ --baseline $baseline}"
