#!/usr/bin/env bash
# schema-check beside slapschema, on one database of the generated workload
# (slapd's format, loaded once by dirload, not timed) and on a native one
# loaded from the same LDIF: every entry checked against the schema it was
# loaded with, so that all conform and both tools read and check everything.
# The jobs take turns in each round. Every timed command is followed by
# `sync -f` on its database directory (nothing is written: it costs nothing).
#
# usage: bench/run_schema_check_bench.sh [--entries N] [--runs R] [--dir WORKDIR] [--build BUILD]
set -euo pipefail
# shellcheck source=bench_common.sh
source "$(dirname "$0")/bench_common.sh"
bench_setup "$@"
db="$work/schema-mdb"
native="$work/schema-native"
slapd_conf "$db" 17179869184 > "$work/schema.conf"
rm -rf "$db" "$native" && mkdir -p "$db"
"$dirload" add --progress never -f "$work/schema.conf" -l "$ldif" > /dev/null
"$dirload" add --progress never --format native --db "$native" -f "$work/schema.conf" \
  -l "$ldif" > /dev/null

results="$work/schema-check-results.txt"
: > "$results"
run() { timed_run "$results" "$@"; }
for ((i = 1; i <= runs; i++)); do
  run check:slapschema "$db" 0 slapschema -f "$work/schema.conf"
  run check:dirload-mdb "$db" 0 "$dirload" schema-check -c -f "$work/schema.conf"
  run check:dirload-native "$native" 0 "$dirload" schema-check -c -f "$work/schema.conf" \
    --db "$native"
done

report "$results" "check=check:slapschema"
