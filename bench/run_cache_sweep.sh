#!/usr/bin/env bash
# The cache experiment on Berkeley DB: how the buffer-pool size, the IDL
# cache, id2entry's cache priority, mapping id2entry and the phase-2 method
# change the time and the page traffic of a load with the 15 workload indexes.
#
# Every variant runs at every cache size of the grid (some variants at a
# subset). A variant is one of two jobs:
#   add    dirload add with indexes: phase 1, then phase 2 in the same process
#          and the same buffer pool (id2entry's pages are still in it)
#   index  dirload index --all on a database loaded once with --no-index:
#          phase 2 alone, with a fresh pool, as slapindex after slapadd
# plus "add-no-index", phase 1 alone. Each run writes its --stats JSON; the
# figures come from there (the engine's memp_stat/memp_fstat counters, the IDL
# cache's counters, phase times) and the wall time and peak RSS of the whole
# process from /usr/bin/time.
#
# Output in OUT (default WORKDIR/cache-sweep): sweep.csv (one row a run),
# sweep.md (medians per variant and cache size), and the plots wall.png,
# pages_read.png, pages_written.png (one line per variant, log2 cache axis,
# the index data size marked).
#
# usage: bench/run_cache_sweep.sh [--quick] [--entries N] [--runs R]
#            [--sizes "8M 64M ..."] [--variants "index-sort ..."]
#            [--idl-cache N] [--dir WORKDIR] [--build BUILD] [--out OUT]
# --runs R repeats the whole grid R times (the table shows medians);
# --sizes and --variants run a part of the grid.
set -euo pipefail
here=$(dirname "$0")
# shellcheck source=bench_common.sh
source "$here/bench_common.sh"
# shellcheck source=workload_indexes.sh
source "$here/workload_indexes.sh"

quick=0
runs_given=0
sizes=""
only_variants=""
idl=50000  # the IDL cache of the reference account (285,000 entries)
out=""
rest=()
while (($#)); do
  case "$1" in
    --quick) quick=1; shift ;;
    --sizes) sizes=$2; shift 2 ;;
    --variants) only_variants=$2; shift 2 ;;
    --idl-cache) idl=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --runs) runs_given=$2; shift 2 ;;
    *) rest+=("$1"); shift ;;
  esac
done
if ((quick)); then
  # A smoke run: every variant and every output on a small input, in seconds.
  entries_default=2000
  [[ -n $sizes ]] || sizes="256K 1M 16M"
  idl_off_sizes="256K 16M"
  idl=200
else
  entries_default=285000
  # From well below the index data (~170 MB at 285,000 entries) to above the
  # whole database (~530 MB). One pass of the grid takes about 20 minutes here.
  [[ -n $sizes ]] || sizes="8M 32M 64M 128M 256M 1G"
  # IDL cache off costs ~3 min a run at 285,000 entries: both ends only.
  idl_off_sizes="8M 1G"
fi
need_slapd=0
bench_setup --entries "$entries_default" --dir /tmp/dirload-sweep "${rest[@]}"
((runs_given)) && runs=$runs_given || runs=1
[[ -n $out ]] || out="$work/cache-sweep"
mkdir -p "$out"
command -v jq > /dev/null || { echo "jq missing: apt-get install jq" >&2; exit 2; }
command -v gnuplot > /dev/null || { echo "gnuplot missing: apt-get install gnuplot-nox" >&2; exit 2; }

# name | job | sizes ("" = all) | extra options
variants=(
  "add-no-index|add||--no-index"
  "add-cache-idl|add||--index-method cache --idl-cache-size $idl"
  "add-cache-idl-lowprio|add||--index-method cache --idl-cache-size $idl --id2entry-priority very_low"
  "add-sort|add||--index-method sort"
  "index-cache-idl-off|index|$idl_off_sizes|--index-method cache --idl-cache-size 0"
  "index-cache-idl|index||--index-method cache --idl-cache-size $idl"
  "index-cache-idl-mmap|index||--index-method cache --idl-cache-size $idl --mmap"
  "index-sort|index||--index-method sort"
)

csv="$out/sweep.csv"
columns="variant,job,cache_size,cache_bytes,run,wall_s,cpu_s,load_s,index_s,peak_rss_mb"
columns+=",hits,misses,pages_read,pages_written,pages_created,pages_mapped"
columns+=",clean_evictions,dirty_evictions,trickle_writes"
columns+=",idl_hits,idl_misses,idl_evictions,idl_flushes"
columns+=",id2entry_priority,mmap_size,index_data_bytes"
echo "$columns" > "$csv"

# The base of the index jobs: entries only, loaded once.
base="$work/sweep-base"
rm -rf "$base"
"$dirload" add --progress never --backend bdb --no-index --db "$base" --suffix "$suffix" \
  -l "$ldif" "${WORKLOAD_INDEXES[@]}" > /dev/null

# row VARIANT JOB SIZE RUN WALL STATS.json: one CSV row. Counters of the two
# phases add up: the load phase's are counted from the pool's creation, the
# index phase's are the difference across it.
row() {
  local variant=$1 job=$2 size=$3 run=$4 wall=$5 rss_kb=$6 stats=$7
  jq -r --arg v "$variant" --arg j "$job" --arg s "$size" --arg r "$run" --arg w "$wall" \
    --arg rss "$rss_kb" '
    def sum(k): [.phases[] | .[k] // 0] | add;
    def phase(n): [.phases[] | select(.name == n) | .wall_seconds] | add // 0;
    [$v, $j, $s, (.settings.cache_bytes // ""), $r, $w, sum("cpu_seconds"),
     phase("load"), phase("index"), (($rss | tonumber) / 1024 | floor),
     sum("cache.hits"), sum("cache.misses"), sum("cache.pages_read"),
     sum("cache.pages_written"), sum("cache.pages_created"), sum("cache.pages_mapped"),
     sum("cache.clean_evictions"), sum("cache.dirty_evictions"), sum("cache.trickle_writes"),
     sum("idl_cache.hits"), sum("idl_cache.misses"), sum("idl_cache.evictions"),
     sum("idl_cache.flushes"),
     (.settings["table.id2entry.priority"] // ""), (.settings.mmap_size // ""),
     ([to_entries[] | select(.key | test("^table\\.idx\\..*\\.bytes$")) | .value] | add // 0)]
    | @csv' "$stats" >> "$csv"
}

if [[ -n $only_variants ]]; then
  chosen=()
  for v in "${variants[@]}"; do
    [[ " $only_variants " == *" ${v%%|*} "* ]] && chosen+=("$v")
  done
  ((${#chosen[@]})) || { echo "no variant matches: $only_variants" >&2; exit 2; }
  variants=("${chosen[@]}")
fi

total=0
for v in "${variants[@]}"; do
  IFS='|' read -r name job only _ <<< "$v"
  for size in ${only:-$sizes}; do
    [[ " $sizes " == *" $size "* ]] && total=$((total + runs))
  done
done
echo "cache sweep: $entries entries, $total runs, sizes: $sizes" >&2

n=0
for ((r = 1; r <= runs; r++)); do
  for v in "${variants[@]}"; do
    IFS='|' read -r name job only extra <<< "$v"
    for size in ${only:-$sizes}; do
      [[ " $sizes " == *" $size "* ]] || continue
      n=$((n + 1))
      stats="$out/$name-$size-$r.json"
      # shellcheck disable=SC2206
      opts=($extra --cache-size "$size" --progress never --stats "$stats")
      if [[ $job == add ]]; then
        db="$work/sweep-add"
        rm -rf "$db"
        cmd=("$dirload" add --backend bdb --db "$db" --suffix "$suffix" -l "$ldif"
             "${opts[@]}" "${WORKLOAD_INDEXES[@]}")
      else
        db=$base
        cmd=("$dirload" index --all --db "$db" "${opts[@]}" "${WORKLOAD_INDEXES[@]}")
      fi
      sync
      t0=$(date +%s.%N)
      /usr/bin/time -f "%M" -o "$work/time.out" "${cmd[@]}" > "$work/cmd.out" 2>&1 ||
        { cat "$work/cmd.out" >&2; echo "$name at $size failed" >&2; exit 1; }
      t1=$(date +%s.%N)
      wall=$(echo "$t1 - $t0" | bc -l)
      row "$name" "$job" "$size" "$r" "$wall" "$(tail -n1 "$work/time.out")" "$stats"
      printf '[%d/%d] %-22s %6s %8.2f s\n' "$n" "$total" "$name" "$size" "$wall" >&2
    done
  done
done

"$here/cache_sweep_report.sh" "$csv" "$out"
