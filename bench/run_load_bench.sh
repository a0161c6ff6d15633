#!/usr/bin/env bash
# Phase-1 benchmark: `dirload add --no-index` against `slapadd -q` on
# back-mdb (no index lines), side by side in one run, on the same generated
# LDIF: dirload in slapd's format (the same slapd.conf but for the
# directory) and in its native format on LMDB and on Berkeley DB. Each run
# ends with the database on disk: the timed command is followed by `sync -f`
# on the database directory, for every tool.
#
# usage: bench/run_load_bench.sh [--entries N] [--runs R] [--tool-threads T]
#                                [--dir WORKDIR] [--build BUILD]
# --tool-threads: slapd.conf's tool-threads for slapadd (default 2).
# Prints one line per run and a table of medians with the ratio.
set -euo pipefail
# shellcheck source=bench_common.sh
source "$(dirname "$0")/bench_common.sh"
bench_setup "$@"
slapd_conf "$work/slapd-db" 8589934592 > "$work/slapd.conf"
slapd_conf "$work/dl-mdb" 8589934592 > "$work/dirload-mdb.conf"

results="$work/load-results.txt"
: > "$results"
for ((i = 1; i <= runs; i++)); do
  timed_run "$results" slapadd-q "$work/slapd-db" 1 slapadd -q -f "$work/slapd.conf" -l "$ldif"
  timed_run "$results" dirload-slapd-format "$work/dl-mdb" 1 "$dirload" add --no-index \
    --progress never -f "$work/dirload-mdb.conf" -l "$ldif"
  timed_run "$results" dirload-lmdb "$work/dl-lmdb" 1 "$dirload" add --no-index --progress never \
    --db "$work/dl-lmdb" --suffix "$suffix" -l "$ldif"
  timed_run "$results" dirload-bdb "$work/dl-bdb" 1 "$dirload" add --no-index --progress never \
    --backend bdb --db "$work/dl-bdb" --suffix "$suffix" -l "$ldif"
done
report "$results" "=slapadd-q"
