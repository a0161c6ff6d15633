#!/usr/bin/env bash
# dirload verify beside dirload index on the same database, per format, on
# the generated LDIF with the 15 workload indexes:
#   mdb:          slapd's format (dirload add -f slapd.conf)
#   native-lmdb:  dirload's format on LMDB
#   native-bdb:   dirload's format on Berkeley DB
# Each database is loaded once, untimed; then each run times `dirload index
# --all` (the rebuild verify is held to: within 1.5x of it) and `dirload
# verify` of every index. The speed-up column is index's median over
# verify's (at least 0.67 meets the goal). Every verify must find the
# database clean (exit 0), or the run stops.
#
# usage: bench/run_verify_bench.sh [--entries N] [--runs R] [--dir WORKDIR] [--build BUILD]
set -euo pipefail
# shellcheck source=bench_common.sh
source "$(dirname "$0")/bench_common.sh"
# shellcheck source=workload_indexes.sh
source "$(dirname "$0")/workload_indexes.sh"
bench_setup "$@"
maxsize=17179869184
slapd_conf "$work/verify-mdb" $maxsize "$WORKLOAD_INDEX_LINES" > "$work/verify-mdb.conf"

rm -rf "$work/verify-mdb" "$work/verify-native-lmdb" "$work/verify-native-bdb"
mkdir -p "$work/verify-mdb"
"$dirload" add --progress never -f "$work/verify-mdb.conf" -l "$ldif" > /dev/null
"$dirload" add --progress never --format native --db "$work/verify-native-lmdb" \
  --suffix "$suffix" -l "$ldif" "${WORKLOAD_INDEXES[@]}" > /dev/null
"$dirload" add --progress never --format native --backend bdb --db "$work/verify-native-bdb" \
  --suffix "$suffix" -l "$ldif" "${WORKLOAD_INDEXES[@]}" > /dev/null

results="$work/verify-results.txt"
: > "$results"
run() { timed_run "$results" "$@"; }

for ((i = 1; i <= runs; i++)); do
  run mdb:index "$work/verify-mdb" 0 "$dirload" index --all --progress never \
    -f "$work/verify-mdb.conf"
  run mdb:verify "$work/verify-mdb" 0 "$dirload" verify --progress never \
    -f "$work/verify-mdb.conf"
  for backend in lmdb bdb; do
    db="$work/verify-native-$backend"
    run "native-$backend:index" "$db" 0 "$dirload" index --all --progress never --db "$db"
    run "native-$backend:verify" "$db" 0 "$dirload" verify --progress never --db "$db"
  done
done

report "$results" \
  "mdb=mdb:index,native-lmdb=native-lmdb:index,native-bdb=native-bdb:index"
