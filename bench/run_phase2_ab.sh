#!/usr/bin/env bash
# Phase 2 alone (`dirload index --all`, slapindex's rebuild of the 15
# workload indexes), two builds run in turn on one database per format,
# loaded once by the "after" build from the same generated LDIF. The builds
# take turns going first (before, after; then after, before; ...), so that a
# slow spell of a shared machine and the state the previous rebuild left
# (LMDB's free pages) fall on both alike. Each timed command ends with
# `sync -f` on its database directory.
#
# usage: bench/run_phase2_ab.sh --before BUILD --after BUILD [--entries N]
#          [--runs R] [--formats "mdb native"] [--dir WORKDIR]
# --runs: runs of each build (default 6).
# Prints one line per run and a table of medians, each format's "after"
# against its "before".
set -euo pipefail
# shellcheck source=bench_common.sh
source "$(dirname "$0")/bench_common.sh"  # ab_setup, slapd_conf, timed_run, report
# shellcheck source=workload_indexes.sh
source "$(dirname "$0")/workload_indexes.sh"

entries=285000
runs=6
formats="mdb native"
work=/tmp/dirload-phase2-ab
ab_setup "$@"
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
for ((i = 1; i <= runs; i++)); do
  sides="before after"
  ((i % 2 == 0)) && sides="after before"
  for side in $sides; do
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
