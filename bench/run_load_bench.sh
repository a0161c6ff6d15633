#!/usr/bin/env bash
# Phase-1 benchmark: `dirload add` (no indexes) against `slapadd -q` on
# back-mdb (no index lines, tool-threads 2), side by side in one run, on the
# same generated LDIF. Each run ends with the database on disk: the timed
# command is followed by `sync -f` on the database directory, for both tools.
#
# usage: bench/run_load_bench.sh [--entries N] [--runs R] [--dir WORKDIR] [--build BUILD]
# Prints one line per run and a table of medians with the ratio.
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
[[ -x /usr/bin/time ]] || { echo "/usr/bin/time missing: apt-get install time" >&2; exit 2; }

mkdir -p "$work"
ldif="$work/people-$entries.ldif"
[[ -s $ldif ]] || "$gen" --entries "$entries" --seed 1 -o "$ldif"
suffix="dc=example,dc=com"
cat > "$work/slapd.conf" <<CONF
include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/inetorgperson.schema
include /etc/ldap/schema/nis.schema
modulepath /usr/lib/ldap
moduleload back_mdb
tool-threads 2
database mdb
suffix "$suffix"
directory $work/slapd-db
maxsize 8589934592
CONF
cat "$ldif" > /dev/null  # into the page cache, outside the timed region

results="$work/load-results.txt"
: > "$results"
# run NAME DBDIR COMMAND...: times COMMAND plus a sync of DBDIR.
run() {
  local name=$1 db=$2
  shift 2
  rm -rf "$db" && mkdir -p "$db"
  sync
  local t0 t1 rss
  t0=$(date +%s.%N)
  /usr/bin/time -f "%M %U %S" -o "$work/time.out" "$@" > "$work/cmd.out" 2>&1 ||
    { cat "$work/cmd.out" >&2; echo "$name failed" >&2; exit 1; }
  sync -f "$db"
  t1=$(date +%s.%N)
  read -r rss user sys < <(tail -n1 "$work/time.out")
  # Blocks in use, not apparent size: LMDB files are sparse up to the map size.
  local size
  size=$(($(du -sk "$db" | cut -f1) * 1024))
  printf '%s %.3f %s %s %.2f\n' "$name" "$(echo "$t1 - $t0" | bc -l)" "$rss" "$size" \
    "$(echo "$user + $sys" | bc -l)" | tee -a "$results"
}

for ((i = 1; i <= runs; i++)); do
  run slapadd-q "$work/slapd-db" slapadd -q -f "$work/slapd.conf" -l "$ldif"
  run dirload-lmdb "$work/dl-lmdb" "$dirload" add --no-index --progress never \
    --db "$work/dl-lmdb" --suffix "$suffix" -l "$ldif"
  run dirload-bdb "$work/dl-bdb" "$dirload" add --no-index --progress never --backend bdb \
    --db "$work/dl-bdb" --suffix "$suffix" -l "$ldif"
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
    base = median(wall["slapadd-q"])
    printf "%-14s %8s %8s %12s %12s %9s\n", "tool", "wall s", "CPU s", "peak RSS MB", "database MB", "speed-up"
    for (k in wall) {
      m = median(wall[k])
      printf "%-14s %8.2f %8.2f %12.1f %12.1f %8.1fx\n", k, m, median(cpu[k]), rss[k] / 1024, size[k] / 1e6, base / m
    }
  }' "$results"
