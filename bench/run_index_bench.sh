#!/usr/bin/env bash
# Phase-2 benchmark, side by side with OpenLDAP in one run, on the same
# generated LDIF with the 15 workload indexes:
#   full load:  slapadd -q (back-mdb, tool-threads 2)  vs  dirload add
#   rebuild:    slapindex -q                            vs  dirload index
# dirload runs with both index methods (sort, cache) and both engines. Every
# timed command is followed by `sync -f` on its database directory.
#
# usage: bench/run_index_bench.sh [--entries N] [--runs R] [--dir WORKDIR] [--build BUILD]
set -euo pipefail
# shellcheck source=bench_common.sh
source "$(dirname "$0")/bench_common.sh"
# shellcheck source=workload_indexes.sh
source "$(dirname "$0")/workload_indexes.sh"
bench_setup "$@"
slapd_conf "$work/slapd-idx" 17179869184 "$WORKLOAD_INDEX_LINES" > "$work/slapd-idx.conf"

results="$work/index-results.txt"
: > "$results"
run() { timed_run "$results" "$@"; }

for ((i = 1; i <= runs; i++)); do
  run add:slapadd-q "$work/slapd-idx" 1 slapadd -q -f "$work/slapd-idx.conf" -l "$ldif"
  run index:slapindex-q "$work/slapd-idx" 0 slapindex -q -f "$work/slapd-idx.conf"
  for backend in lmdb bdb; do
    for method in sort cache; do
      db="$work/dl-$backend-$method"
      run "add:dirload-$backend-$method" "$db" 1 "$dirload" add --progress never \
        --backend "$backend" --index-method "$method" --db "$db" --suffix "$suffix" -l "$ldif" \
        "${WORKLOAD_INDEXES[@]}"
      run "index:dirload-$backend-$method" "$db" 0 "$dirload" index --all --progress never \
        --index-method "$method" --db "$db" "${WORKLOAD_INDEXES[@]}"
    done
  done
done

report "$results" "add=add:slapadd-q,index=index:slapindex-q"
