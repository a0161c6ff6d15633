#!/usr/bin/env bash
# Phase 2 alone (`dirload index --all`, slapindex's rebuild of the 15
# workload indexes), two builds run in turn on one database per format,
# loaded once by the "after" build from the same generated LDIF. Each round
# runs before, after, after, before, so that a slow spell of a shared machine
# and the state the previous rebuild left (LMDB's free pages) fall on both
# alike. Each timed command ends with `sync -f` on its database directory.
#
# usage: bench/run_phase2_ab.sh --before BUILD --after BUILD [--entries N]
#          [--rounds R] [--formats "mdb native"] [--dir WORKDIR]
# --rounds: each build runs twice per round (default 3: 6 runs each).
# Prints one line per run and a table of medians, each format's "after"
# against its "before".
set -euo pipefail
# shellcheck source=bench_common.sh
source "$(dirname "$0")/bench_common.sh"  # slapd_conf, warm_memory, timed_run, report
# shellcheck source=workload_indexes.sh
source "$(dirname "$0")/workload_indexes.sh"

entries=285000
rounds=3
formats="mdb native"
work=/tmp/dirload-phase2-ab
before=""
after=""
while (($#)); do
  case "$1" in
    --before) before=$2; shift 2 ;;
    --after) after=$2; shift 2 ;;
    --entries) entries=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --formats) formats=$2; shift 2 ;;
    --dir) work=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
for b in "$before" "$after"; do
  [[ -n $b && -x $b/tools/dirload ]] || { echo "--before and --after: builds with tools/dirload" >&2; exit 2; }
done
gen="$after/bench/dirload-gen"
[[ -x $gen ]] || { echo "no $gen: build dirload-gen in $after" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "/usr/bin/time missing: apt-get install time" >&2; exit 2; }
mkdir -p "$work"
suffix="dc=example,dc=com"
runs=$((2 * rounds))  # for report's header
ldif="$work/people-$entries.ldif"
[[ -s $ldif ]] || "$gen" --entries "$entries" --seed 1 -o "$ldif"
cat "$ldif" > /dev/null
build=$after warm_memory
slapd_conf "$work/db-mdb" 274877906944 "$WORKLOAD_INDEX_LINES" > "$work/slapd.conf"

# The databases, loaded once (not timed).
for format in $formats; do
  rm -rf "$work/db-$format" && mkdir -p "$work/db-$format"
  if [[ $format == mdb ]]; then
    "$after/tools/dirload" add --progress never -f "$work/slapd.conf" -l "$ldif" > /dev/null
  else
    "$after/tools/dirload" add --progress never --db "$work/db-native" --suffix "$suffix" \
      -l "$ldif" "${WORKLOAD_INDEXES[@]}" > /dev/null
  fi
done

results="$work/phase2-ab.txt"
: > "$results"
for ((i = 1; i <= rounds; i++)); do
  for side in before after after before; do
    build=$before
    [[ $side == after ]] && build=$after
    for format in $formats; do
      args=(--db "$work/db-native")
      [[ $format == mdb ]] && args=(-f "$work/slapd.conf")
      timed_run "$results" "$format:$side" "$work/db-$format" 0 "$build/tools/dirload" index \
        --all --progress never "${args[@]}"
    done
  done
done
report "$results" "native=native:before,mdb=mdb:before"
