#!/usr/bin/env bash
# Turns the cache sweep's CSV (bench/run_cache_sweep.sh) into a markdown table
# of medians and gnuplot plots. Can be re-run on a kept CSV.
#
# usage: bench/cache_sweep_report.sh SWEEP.csv OUTDIR
# writes OUTDIR/sweep.md, OUTDIR/wall.png, OUTDIR/pages_read.png,
# OUTDIR/pages_written.png
set -euo pipefail
csv=$1
out=$2
mkdir -p "$out"
data=$(mktemp -d "${TMPDIR:-/tmp}/dirload-plot.XXXXXX")
trap 'rm -rf "$data"' EXIT

# Medians per (variant, cache size), as whitespace-separated lines sorted by
# variant and cache bytes:
# variant job size cache_mb runs wall index_s pages_read pages_written evictions
#   idl_evictions rss_mb index_data_mb hits misses mapped cpu
medians=$(awk -F, '
  function bytes(s,   n, u) {
    n = s + 0; u = toupper(substr(s, length(s)))
    if (u == "K") return n * 1024
    if (u == "M") return n * 1048576
    if (u == "G") return n * 1073741824
    return n
  }
  function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
  {
    gsub(/"/, "")
    k = $col["variant"] SUBSEP $col["cache_size"]
    if (!(k in job)) { keys[++nk] = k; job[k] = $col["job"] }
    runs[k]++
    wall[k] = wall[k] " " $col["wall_s"]
    idx[k] = idx[k] " " $col["index_s"]
    rd[k] = rd[k] " " $col["pages_read"]
    wr[k] = wr[k] " " $col["pages_written"]
    ev[k] = ev[k] " " ($col["clean_evictions"] + $col["dirty_evictions"])
    iev[k] = iev[k] " " $col["idl_evictions"]
    rss[k] = rss[k] " " $col["peak_rss_mb"]
    hit[k] = hit[k] " " $col["hits"]
    mis[k] = mis[k] " " $col["misses"]
    map[k] = map[k] " " $col["pages_mapped"]
    cpu[k] = cpu[k] " " $col["cpu_s"]
    if ($col["index_data_bytes"] + 0 > data[k]) data[k] = $col["index_data_bytes"] + 0
  }
  END {
    for (i = 1; i <= nk; i++) {
      split(keys[i], p, SUBSEP)
      printf "%s %s %s %.3f %d %.2f %.2f %d %d %d %d %d %.1f %d %d %d %.2f\n", p[1], job[keys[i]], p[2],
        bytes(p[2]) / 1048576, runs[keys[i]], median(wall[keys[i]]), median(idx[keys[i]]),
        median(rd[keys[i]]), median(wr[keys[i]]), median(ev[keys[i]]), median(iev[keys[i]]),
        median(rss[keys[i]]), data[keys[i]] / 1048576, median(hit[keys[i]]),
        median(mis[keys[i]]), median(map[keys[i]]), median(cpu[keys[i]])
    }
  }' "$csv" | sort -k1,1 -k4,4g)

index_mb=$(awk '$13 > m { m = $13 } END { printf "%.0f", m }' <<< "$medians")

# pivot FIELD TITLE: one median figure as a variant x cache-size table.
pivot() {
  echo
  echo "$2 (medians), by variant and cache size:"
  echo
  awk -v f="$1" '
    !($3 in seen) { seen[$3] = 1; mb[$3] = $4; sizes[++ns] = $3 }
    !($1 in vseen) { vseen[$1] = 1; vars[++nv] = $1 }
    { cell[$1, $3] = $f }
    END {
      # Sizes in ascending order.
      for (i = 1; i <= ns; i++) for (j = i + 1; j <= ns; j++)
        if (mb[sizes[j]] + 0 < mb[sizes[i]] + 0) { t = sizes[i]; sizes[i] = sizes[j]; sizes[j] = t }
      line = "| variant |"; rule = "|---|"
      for (i = 1; i <= ns; i++) { line = line " " sizes[i] " |"; rule = rule "---:|" }
      print line; print rule
      for (v = 1; v <= nv; v++) {
        line = "| " vars[v] " |"
        for (i = 1; i <= ns; i++) line = line " " ((vars[v], sizes[i]) in cell ? cell[vars[v], sizes[i]] : "-") " |"
        print line
      }
    }' <<< "$medians"
}

{
  echo "# Cache sweep"
  echo
  echo "From \`$(basename "$csv")\`. Medians per variant and cache size (runs: the number of runs"
  echo "behind each median). Index data (the idx.* tables' pages): ${index_mb} MB."
  echo "Wall and CPU time are the whole process's; \"phase 2\" is the index phase's wall time."
  echo
  echo "| variant | cache | runs | wall s | CPU s | phase 2 s | pages read | pages written | pool evictions | IDL evictions | hits | misses | pages mapped | peak RSS MB |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  while read -r v _ size _ runs wall idx rd wr ev iev rss _ hit mis map cpu; do
    echo "| $v | $size | $runs | $wall | $cpu | $idx | $rd | $wr | $ev | $iev | $hit | $mis | $map | $rss |"
  done <<< "$medians"
  pivot 6 "Wall seconds"
  pivot 7 "Phase 2 (index) seconds"
  pivot 8 "Pages read into the pool"
} > "$out/sweep.md"

# One data file per variant: cache MB, wall, pages read, pages written.
while read -r v _ _ mb _ wall _ rd wr _; do
  echo "$mb $wall $rd $wr" >> "$data/$v.dat"
done <<< "$medians"

# One colour and point per variant, the same in every plot and every sweep:
# the cache-method variants warm, the sort and no-index ones cool.
style() {
  case "$1" in
    add-cache-idl) echo "lc rgb '#d62728' pt 5" ;;
    add-cache-idl-lowprio) echo "lc rgb '#ff7f0e' pt 7 dt 2" ;;
    index-cache-idl) echo "lc rgb '#9467bd' pt 9" ;;
    index-cache-idl-mmap) echo "lc rgb '#e377c2' pt 11 dt 2" ;;
    index-cache-idl-off) echo "lc rgb '#8c564b' pt 13" ;;
    add-sort) echo "lc rgb '#1f77b4' pt 4" ;;
    index-sort) echo "lc rgb '#17becf' pt 6" ;;
    add-no-index) echo "lc rgb '#2ca02c' pt 8" ;;
    *) echo "" ;;
  esac
}

plot() {  # plot FILE.png COLUMN YLABEL [logscale y]
  local png=$1 column=$2 ylabel=$3 logy=${4:-}
  local series=""
  for f in "$data"/*.dat; do
    local name
    name=$(basename "$f" .dat)
    series+="${series:+, }'$f' using 1:$column with linespoints $(style "$name") title '$name'"
  done
  gnuplot <<GP
set terminal pngcairo size 1000,620 noenhanced
set output '$png'
set title 'dirload on Berkeley DB: $ylabel vs cache size (index data ${index_mb} MB, dashed)'
set xlabel 'cache size (MB, log scale)'
set ylabel '$ylabel'
set logscale x 2
${logy:+set logscale y 10}
set key outside right
set grid
set arrow from $index_mb, graph 0 to $index_mb, graph 1 nohead dashtype 2
plot $series
GP
}
plot "$out/wall.png" 2 "wall seconds" logy
plot "$out/pages_read.png" 3 "pages read into the cache" logy
plot "$out/pages_written.png" 4 "pages written from the cache" logy
echo "wrote $out/sweep.md, $out/wall.png, $out/pages_read.png, $out/pages_written.png" >&2
