#!/usr/bin/env bash
# Where a full load spends its CPU: one load of the generated workload (the
# 15 indexes of workload_indexes.sh) per format, with dirload's own figures
# (`-v`: CPU seconds per stage, and how busy each thread was) and a sampled
# profile from linux-perf (`perf record -F 999`, no call graphs) whose
# hottest symbols are listed with their share of all samples.
#
# usage: bench/run_profile.sh [--entries N] [--formats "mdb native"] [--top K]
#          [--build DIR] [--dir WORKDIR] [--out DIR]
# Writes OUT/profile-FORMAT.txt (the -v summary and the top symbols) and
# prints them. Needs `perf` (Debian: linux-perf) and permission to sample
# (root, or kernel.perf_event_paranoid <= 1).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=workload_indexes.sh
source "$root/bench/workload_indexes.sh"
# shellcheck source=bench_common.sh
source "$root/bench/bench_common.sh"  # for slapd_conf and generate_ldif

entries=285000
formats="mdb native"
top=25
build="$root/build"
work=/tmp/dirload-profile
out=""
while (($#)); do
  case "$1" in
    --entries) entries=$2; shift 2 ;;
    --formats) formats=$2; shift 2 ;;
    --top) top=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --dir) work=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h | --help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
out=${out:-$work/results}
dirload="$build/tools/dirload"
gen="$build/bench/dirload-gen"
[[ -x $dirload && -x $gen ]] || { echo "build first: cmake --build $build" >&2; exit 2; }
command -v perf > /dev/null || { echo "perf missing: apt-get install linux-perf" >&2; exit 2; }
mkdir -p "$work" "$out"
suffix="dc=example,dc=com"
ldif="$work/people-$entries.ldif"
generate_ldif "$gen" "$entries" "$ldif"
cat "$ldif" > /dev/null
warm_memory

for format in $formats; do
  db="$work/db-$format"
  rm -rf "$db" && mkdir -p "$db"
  slapd_conf "$db" 17179869184 "$WORKLOAD_INDEX_LINES" > "$work/slapd.conf"
  args=(add -f "$work/slapd.conf" -l "$ldif" -v --progress never)
  [[ $format == native ]] && args+=(--format native)
  report="$out/profile-$format.txt"
  {
    echo "# $entries entries, format $format, dirload at $("$dirload" --version | sed -n 's/^commit: //p')"
    echo "# perf record -F 999 -- dirload ${args[*]}"
  } > "$report"
  perf record -q -F 999 -o "$work/perf.data" -- "$dirload" "${args[@]}" 2> "$work/load.err" > /dev/null ||
    { cat "$work/load.err" >&2; exit 1; }
  grep -E '^dirload: (load|index):' "$work/load.err" >> "$report"
  echo "# top $top symbols, share of all samples" >> "$report"
  perf report -q -i "$work/perf.data" --no-children --sort dso,sym --stdio 2> /dev/null |
    awk -v top="$top" '/^ +[0-9]/ && n < top {
      n++; share = $1; $1 = ""; sub(/^ +/, ""); sym = $0
      if (length(sym) > 110) sym = substr(sym, 1, 107) "..."
      printf "%8s  %s\n", share, sym
    }' >> "$report"
  cat "$report"
done
rm -f "$work/perf.data"
