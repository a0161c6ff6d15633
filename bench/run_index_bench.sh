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
entries=285000
runs=3
work=/tmp/dirload-bench
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build"
while (($#)); do
  case "$1" in
    --entries) entries=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --dir) work=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
dirload="$build/tools/dirload"
gen="$build/bench/dirload-gen"
[[ -x $dirload && -x $gen ]] || { echo "build first: cmake --build $build" >&2; exit 2; }
command -v slapadd >/dev/null || { echo "slapadd missing: apt-get install slapd" >&2; exit 2; }
# shellcheck source=workload_indexes.sh
source "$root/bench/workload_indexes.sh"

mkdir -p "$work"
ldif="$work/people-$entries.ldif"
[[ -s $ldif ]] || "$gen" --entries "$entries" --seed 1 -o "$ldif"
suffix="dc=example,dc=com"
cat > "$work/slapd-idx.conf" <<CONF
include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/inetorgperson.schema
include /etc/ldap/schema/nis.schema
modulepath /usr/lib/ldap
moduleload back_mdb
tool-threads 2
database mdb
suffix "$suffix"
directory $work/slapd-idx
maxsize 17179869184
$WORKLOAD_INDEX_LINES
CONF
cat "$ldif" > /dev/null

results="$work/index-results.txt"
: > "$results"
# run NAME DBDIR FRESH COMMAND...: FRESH=1 empties DBDIR first.
run() {
  local name=$1 db=$2 fresh=$3
  shift 3
  if [[ $fresh == 1 ]]; then rm -rf "$db" && mkdir -p "$db"; fi
  sync
  local t0 t1 rss user sys size
  t0=$(date +%s.%N)
  /usr/bin/time -f "%M %U %S" -o "$work/time.out" "$@" > "$work/cmd.out" 2>&1 ||
    { cat "$work/cmd.out" >&2; echo "$name failed" >&2; exit 1; }
  sync -f "$db"
  t1=$(date +%s.%N)
  read -r rss user sys < <(tail -n1 "$work/time.out")
  size=$(($(du -sk "$db" | cut -f1) * 1024))
  printf '%s %.3f %s %s %.2f\n' "$name" "$(echo "$t1 - $t0" | bc -l)" "$rss" "$size" \
    "$(echo "$user + $sys" | bc -l)" | tee -a "$results"
}

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

echo
echo "entries: $entries   LDIF: $(du -b "$ldif" | cut -f1) bytes   runs: $runs (medians)"
awk '
  { wall[$1] = wall[$1] " " $2; cpu[$1] = cpu[$1] " " $5; rss[$1] = $3; size[$1] = $4 }
  function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  END {
    printf "%-26s %8s %8s %12s %12s %9s\n", "job", "wall s", "CPU s", "peak RSS MB", "database MB", "speed-up"
    for (k in wall) {
      split(k, parts, ":")
      base = median(wall[parts[1] == "add" ? "add:slapadd-q" : "index:slapindex-q"])
      m = median(wall[k])
      printf "%-26s %8.2f %8.2f %12.1f %12.1f %8.1fx\n", k, m, median(cpu[k]), rss[k] / 1024, size[k] / 1e6, base / m | "sort"
    }
  }' "$results"
