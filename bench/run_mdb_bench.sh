#!/usr/bin/env bash
# slapd's own format, side by side with OpenLDAP in one run, on the same
# generated LDIF with the 15 workload indexes and the same slapd.conf (only
# the directory differs):
#   full load:  slapadd -q (back-mdb, tool-threads 2)  vs  dirload add -f (mdb format)
#   rebuild:    slapindex -q on a database slapadd wrote without indexes
#               vs dirload index -f on a copy of the same database
# dirload's native format (LMDB, sort method) runs beside them for reference.
# Every timed command is followed by `sync -f` on its database directory;
# database sizes are blocks in use (LMDB maps its file sparsely).
#
# usage: bench/run_mdb_bench.sh [--entries N] [--runs R] [--dir WORKDIR] [--build BUILD]
set -euo pipefail
# shellcheck source=bench_common.sh
source "$(dirname "$0")/bench_common.sh"
# shellcheck source=workload_indexes.sh
source "$(dirname "$0")/workload_indexes.sh"
bench_setup "$@"
maxsize=17179869184
slapd_conf "$work/mdb-slapadd" $maxsize "$WORKLOAD_INDEX_LINES" > "$work/mdb-slapadd.conf"
slapd_conf "$work/mdb-dirload" $maxsize "$WORKLOAD_INDEX_LINES" > "$work/mdb-dirload.conf"
# The rebuild starts from a database slapadd wrote without index lines.
slapd_conf "$work/mdb-noidx" $maxsize "" > "$work/mdb-noidx.conf"
slapd_conf "$work/mdb-slapindex" $maxsize "$WORKLOAD_INDEX_LINES" > "$work/mdb-slapindex.conf"
slapd_conf "$work/mdb-dlindex" $maxsize "$WORKLOAD_INDEX_LINES" > "$work/mdb-dlindex.conf"
rm -rf "$work/mdb-noidx" && mkdir -p "$work/mdb-noidx"
slapadd -q -f "$work/mdb-noidx.conf" -l "$ldif" > /dev/null 2>&1

results="$work/mdb-results.txt"
: > "$results"
run() { timed_run "$results" "$@"; }
fresh_copy() { rm -rf "$1" && mkdir -p "$1" && cp "$work/mdb-noidx/data.mdb" "$1/"; }

for ((i = 1; i <= runs; i++)); do
  run add:slapadd-q "$work/mdb-slapadd" 1 slapadd -q -f "$work/mdb-slapadd.conf" -l "$ldif"
  run add:dirload-mdb "$work/mdb-dirload" 1 "$dirload" add --progress never \
    -f "$work/mdb-dirload.conf" -l "$ldif"
  run add:dirload-native "$work/native" 1 "$dirload" add --progress never --format native \
    --db "$work/native" --suffix "$suffix" -l "$ldif" "${WORKLOAD_INDEXES[@]}"
  fresh_copy "$work/mdb-slapindex"
  run index:slapindex-q "$work/mdb-slapindex" 0 slapindex -q -f "$work/mdb-slapindex.conf"
  fresh_copy "$work/mdb-dlindex"
  if "$dirload" index --help 2>/dev/null | grep -q -- '-F'; then
    run index:dirload-mdb "$work/mdb-dlindex" 0 "$dirload" index --progress never \
      -f "$work/mdb-dlindex.conf"
  fi
done

report "$results" "add=add:slapadd-q,index=index:slapindex-q"
# The databases must hold the same entries: a benchmark of a wrong load
# proves nothing.
if ! cmp -s <(slapcat -f "$work/mdb-slapadd.conf" | grep -v -e '^entryUUID:' -e '^entryCSN:' \
    -e '^createTimestamp:' -e '^modifyTimestamp:') \
  <(slapcat -f "$work/mdb-dirload.conf" | grep -v -e '^entryUUID:' -e '^entryCSN:' \
    -e '^createTimestamp:' -e '^modifyTimestamp:'); then
  echo "slapcat of the two loads differs beyond generated values" >&2
  exit 1
fi
for db in $(mdb_dump -l "$work/mdb-slapadd"); do
  [[ $db == id2e ]] && continue
  a=$(mdb_stat -s "$db" "$work/mdb-slapadd" | awk '/Entries/ {print $2}')
  b=$(mdb_stat -s "$db" "$work/mdb-dirload" | awk '/Entries/ {print $2}')
  [[ $a == "$b" ]] || { echo "$db: $a records from slapadd, $b from dirload" >&2; exit 1; }
done
echo "checked: slapcat equal (generated values aside), every sub-database has the same record count"
