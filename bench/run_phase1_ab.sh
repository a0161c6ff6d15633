#!/usr/bin/env bash
# Phase 1 alone (`dirload add --no-index`), two builds run in turn on the
# same generated LDIF: native format on LMDB and slapd's format (a slapd.conf
# without index lines), one run of each build after the other, so that a
# slow spell of a shared machine falls on both; the builds take turns going
# first. Each timed command ends with `sync -f` on its database directory.
#
# usage: bench/run_phase1_ab.sh --before BUILD --after BUILD [--entries N]
#          [--runs R] [--formats "native mdb"] [--dir WORKDIR]
# Prints one line per run and a table of medians, each format's "after"
# against its "before".
set -euo pipefail
# shellcheck source=bench_common.sh
source "$(dirname "$0")/bench_common.sh"  # ab_setup, slapd_conf, timed_run, report

entries=285000
runs=5
formats="native mdb"
work=/tmp/dirload-phase1-ab
ab_setup "$@"
slapd_conf "$work/db" 274877906944 > "$work/slapd.conf"

results="$work/phase1-ab.txt"
: > "$results"
for ((i = 1; i <= runs; i++)); do
  # The builds take turns going first: run in a fixed order, the second
  # build lost 6 of 7 pairs to the first with no change between them that
  # could slow it (bench/README.md, "A record's text kept whole").
  sides="before after"
  ((i % 2)) || sides="after before"
  for side in $sides; do
    build=$before
    [[ $side == after ]] && build=$after
    for format in $formats; do
      args=(--db "$work/db" --suffix "$suffix")
      [[ $format == mdb ]] && args=(-f "$work/slapd.conf")
      timed_run "$results" "$format:$side" "$work/db" 1 "$build/tools/dirload" add --no-index \
        --progress never "${args[@]}" -l "$ldif"
    done
  done
done
report "$results" "native=native:before,mdb=mdb:before"
