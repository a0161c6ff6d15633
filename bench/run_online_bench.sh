#!/usr/bin/env bash
# Writing slapd's database while slapd serves it and a client writes through
# it (bench/dirload-ldap-writer, one add at a time, as fast as slapd
# answers):
#   add:   dirload add --online    vs  slapadd (without -q) beside slapd
#   index: dirload index --online  vs  slapindex (without -q) beside slapd
# For each: entries/s of the tool, the client's add latency meanwhile
# (median, p99, max), how many adds slapd acknowledged are missing after a
# restart, and whether the index databases equal slapindex's (slapindex -q
# -t on a copy changes no index database: mdb_dump before and after).
#
#   bench/run_online_bench.sh [--entries N] [--more N] [--runs N] [--batch N]
#                             [--tools "T ..."] [--build DIR] [--dir DIR]
# --entries: the database before (default 20000); --more: appended (default
# 10000); --batch: dirload's --batch (default 100); --tools: some of
# dirload-add-online slapadd dirload-index-online slapindex (default all).
# Prints one line per run and tool, then the medians.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="$root/build"
work=/tmp/dirload-online-bench
entries=20000
more=10000
runs=3
batch=100
tools="dirload-add-online slapadd dirload-index-online slapindex"
while (($#)); do
  case "$1" in
    --entries) entries=$2; shift 2 ;;
    --more) more=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --batch) batch=$2; shift 2 ;;
    --tools) tools=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --dir) work=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
dirload="$build/tools/dirload"
gen="$build/bench/dirload-gen"
writer="$build/bench/dirload-ldap-writer"
for p in "$dirload" "$gen" "$writer"; do
  [[ -x $p ]] || { echo "build first: cmake --build $build ($p)" >&2; exit 2; }
done
for p in slapd slapadd slapindex ldapsearch mdb_dump; do
  command -v "$p" >/dev/null || { echo "$p missing: apt-get install slapd ldap-utils lmdb-utils" >&2; exit 2; }
done
source "$root/bench/workload_indexes.sh"
# shellcheck source=bench_common.sh
source "$root/bench/bench_common.sh"  # for generate_ldif
mkdir -p "$work"
rootdn="cn=admin,dc=example,dc=com"

all="$work/all-$((entries + more)).ldif"
generate_ldif "$gen" $((entries + more)) "$all"
awk -v n="$entries" 'BEGIN { RS = ""; ORS = "\n\n" } NR <= n' "$all" > "$work/base.ldif"
awk -v n="$entries" 'BEGIN { RS = ""; ORS = "\n\n" } NR > n' "$all" > "$work/more.ldif"

conf() {  # conf DIR
  cat <<EOF
include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/inetorgperson.schema
include /etc/ldap/schema/nis.schema
modulepath /usr/lib/ldap
moduleload back_mdb
database mdb
suffix "dc=example,dc=com"
rootdn "$rootdn"
rootpw secret
sizelimit unlimited
directory $1
maxsize 4294967296
$WORKLOAD_INDEX_LINES
EOF
}

port=$((20000 + RANDOM % 20000))
slapd_pid=
start_slapd() {  # start_slapd CONF
  slapd -h "ldap://127.0.0.1:$port/" -f "$1" -d 0 > /dev/null 2> "$work/slapd.err" &
  slapd_pid=$!
  for _ in $(seq 100); do
    ldapsearch -x -LLL -H "ldap://127.0.0.1:$port" -b "" -s base 1.1 > /dev/null 2>&1 && return
    sleep 0.1
  done
  echo "slapd did not start: $(cat "$work/slapd.err")" >&2
  exit 1
}
stop_slapd() {
  kill "$slapd_pid"
  wait "$slapd_pid" 2> /dev/null || true
}
writer_pid=
start_writer() {  # start_writer PREFIX
  "$writer" --uri "ldap://127.0.0.1:$port" --bind-dn "$rootdn" --password secret \
    --base "ou=People,dc=example,dc=com" --prefix "$1" --count 100000000 --seconds 3600 \
    --acked "$work/$1.acked" > "$work/$1.writer" 2> "$work/$1.writer.err" &
  writer_pid=$!
  sleep 0.3  # the client's first adds before the tool starts
}
stop_writer() {
  kill -TERM "$writer_pid"
  wait "$writer_pid" || true
}
field() {  # field NAME FILE: the value of NAME=... in the writer's report
  sed -n "s/.*\\b$1=\\([0-9.]*\\).*/\\1/p" "$2"
}
# How many acknowledged adds are missing after a restart (an add in flight
# when the client stopped may be there without its acknowledgement).
missing() {  # missing PREFIX
  ldapsearch -x -LLL -o ldif-wrap=no -H "ldap://127.0.0.1:$port" -D "$rootdn" -w secret \
    -b "dc=example,dc=com" "(uid=$1-*)" 1.1 | sed -n 's/^dn: //p' > "$work/$1.found"
  grep -cvxFf "$work/$1.found" "$work/$1.acked" || true
}
# "yes" when slapindex -q -t on a copy of DIR changes no index database.
indexes_equal() {  # indexes_equal DIR
  local copy="$work/copy" d same=yes
  rm -rf "$copy"; mkdir "$copy"; cp "$1/data.mdb" "$copy/"
  conf "$copy" > "$work/copy.conf"
  for d in $(mdb_dump -l "$copy"); do mdb_dump -s "$d" "$copy" > "$work/before.$d"; done
  slapindex -q -t -f "$work/copy.conf" 2> /dev/null
  for d in $(mdb_dump -l "$copy"); do
    mdb_dump -s "$d" "$copy" | cmp -s - "$work/before.$d" || same=no
  done
  echo "$same"
}
fresh() {  # fresh DIR LDIF: a database loaded by dirload with slapd stopped
  rm -rf "$1"; mkdir -p "$1"
  conf "$1" > "$1.conf"
  "$dirload" add -f "$1.conf" -l "$2" --progress never 2> /dev/null
}
now() { date +%s.%N; }

results="$work/results.txt"
: > "$results"
run_tool() {  # run_tool NAME PREFIX ENTRIES COMMAND...
  local name=$1 prefix=$2 n=$3 t0 t1
  shift 3
  start_writer "$prefix"
  t0=$(now)
  "$@" > "$work/$name.out" 2>&1 || { echo "$name failed: $(tail -3 "$work/$name.out")" >&2; exit 1; }
  t1=$(now)
  stop_writer
  local rate
  rate=$(echo "$n / ($t1 - $t0)" | bc -l)
  echo "$name $rate $(field median_ms "$work/$prefix.writer") $(field p99_ms "$work/$prefix.writer") \
$(field max_ms "$work/$prefix.writer") $(field acked "$work/$prefix.writer")" >> "$work/$name.partial"
}

for run in $(seq "$runs"); do
  # add --online and slapadd beside slapd.
  for tool in dirload-add-online slapadd; do
    [[ " $tools " == *" $tool "* ]] || continue
    db="$work/db-$tool"
    fresh "$db" "$work/base.ldif"
    start_slapd "$db.conf"
    rm -f "$work/$tool.partial"
    if [[ $tool == slapadd ]]; then
      run_tool "$tool" "w$run$tool" "$more" slapadd -f "$db.conf" -l "$work/more.ldif"
    else
      run_tool "$tool" "w$run$tool" "$more" "$dirload" add --online --batch "$batch" \
        -f "$db.conf" -l "$work/more.ldif" --progress never
    fi
    stop_slapd
    start_slapd "$db.conf"
    p=$(missing "w$run$tool")
    stop_slapd
    echo "$(cat "$work/$tool.partial") $p $(indexes_equal "$db")" >> "$results"
  done
  # index --online and slapindex beside slapd, on the whole database.
  for tool in dirload-index-online slapindex; do
    [[ " $tools " == *" $tool "* ]] || continue
    db="$work/db-$tool"
    fresh "$db" "$all"
    start_slapd "$db.conf"
    rm -f "$work/$tool.partial"
    if [[ $tool == slapindex ]]; then
      run_tool "$tool" "i$run$tool" $((entries + more)) slapindex -f "$db.conf"
    else
      run_tool "$tool" "i$run$tool" $((entries + more)) "$dirload" index --online \
        -f "$db.conf" --progress never
    fi
    stop_slapd
    start_slapd "$db.conf"
    p=$(missing "i$run$tool")
    stop_slapd
    echo "$(cat "$work/$tool.partial") $p $(indexes_equal "$db")" >> "$results"
  done
done

echo "# tool entries/s client_median_ms client_p99_ms client_max_ms client_acked acked_missing indexes_equal_slapindex"
cat "$results"
echo "# medians over $runs runs ($entries entries, $more appended, --batch $batch)"
for tool in $tools; do
  awk -v t="$tool" '$1 == t' "$results" | python3 -c '
import statistics, sys
rows = [l.split() for l in sys.stdin if l.strip()]
if rows:
    med = lambda i: statistics.median(float(r[i]) for r in rows)
    print("%-22s %8.0f entries/s  client median %.2f ms  p99 %.2f ms  max %.1f ms  acked %d  missing %s  indexes %s"
          % (rows[0][0], med(1), med(2), med(3), med(4), med(5),
             ",".join(r[6] for r in rows), ",".join(r[7] for r in rows)))'
done
