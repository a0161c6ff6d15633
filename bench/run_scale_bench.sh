#!/usr/bin/env bash
# Scale: the full load (15 workload indexes) at several sizes, dirload in each
# format and optionally slapadd -q beside it, on the same generated LDIF and
# slapd.conf. Per run: wall and CPU seconds, peak anonymous memory (RssAnon,
# sampled every 50 ms from /proc: the mapped database is not counted),
# database size (blocks in use) and entries/s. Every timed command ends with
# `sync -f` on its database directory.
#
# usage: bench/run_scale_bench.sh [--entries "285000 1000000"] [--formats "mdb native"]
#          [--with-slapadd] [--runs R] [--slapadd-runs R] [--sort-memory SIZE]
#          [--build DIR] [--baseline DIR] [--dir WORKDIR] [--out DIR] [--keep]
#          [--interleave] [--variant "ARGS"]
#   --runs: dirload runs per size and format (default 3; medians)
#   --slapadd-runs: slapadd runs per size (default: 1 from 1M entries, else --runs)
#   --sort-memory: passed to dirload add (default: dirload's own)
#   --baseline: another build (its tools/dirload) run beside, as tool
#           "baseline", to measure a change side by side
#   --variant: the same build run beside with these extra arguments to
#           dirload add, as tool "variant" (e.g. --variant --one-pass)
#   --keep: keep the generated LDIF and the last databases (default: removed
#           after each size, so that 10M fits on the disk)
#   --interleave: run every size in each round (run 1 of each size, then
#           run 2...) instead of all runs of one size, then the next; every
#           LDIF is kept until the end
# Free memory is touched once per size first, or once with --interleave
# (bench/warm_memory.cc).
# Writes OUT/scale.csv (one row per run), OUT/scale.md (medians, speed-ups,
# growth against the first size) and OUT/scale.png (time against entries).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=workload_indexes.sh
source "$root/bench/workload_indexes.sh"
# shellcheck source=bench_common.sh
source "$root/bench/bench_common.sh"  # for slapd_conf and generate_ldif

sizes="285000 1000000"
formats="mdb native"
with_slapadd=0
runs=3
slapadd_runs=""
sort_memory=""
build="$root/build"
baseline=""
variant=""
work=/tmp/dirload-scale
out=""
keep=0
interleave=0
while (($#)); do
  case "$1" in
    --entries) sizes=$2; shift 2 ;;
    --formats) formats=$2; shift 2 ;;
    --with-slapadd) with_slapadd=1; shift ;;
    --runs) runs=$2; shift 2 ;;
    --slapadd-runs) slapadd_runs=$2; shift 2 ;;
    --sort-memory) sort_memory=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --baseline) baseline=$2; shift 2 ;;
    --variant) variant=$2; shift 2 ;;
    --dir) work=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    --interleave) interleave=1; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
out=${out:-$work}
dirload="$build/tools/dirload"
gen="$build/bench/dirload-gen"
[[ -x $dirload && -x $gen ]] || { echo "build first: cmake --build $build" >&2; exit 2; }
tools="dirload"
if [[ -n $baseline ]]; then
  [[ -x $baseline/tools/dirload ]] || { echo "--baseline: no $baseline/tools/dirload" >&2; exit 2; }
  tools="$tools baseline"
fi
[[ -n $variant ]] && tools="$tools variant"
for f in $formats; do
  [[ $f == mdb || $f == native ]] || { echo "--formats: mdb or native, not $f" >&2; exit 2; }
done
if ((with_slapadd)); then
  command -v slapadd > /dev/null || [[ -x /usr/sbin/slapadd ]] ||
    { echo "slapadd missing: apt-get install slapd" >&2; exit 2; }
  PATH=$PATH:/usr/sbin
fi
command -v gnuplot > /dev/null || { echo "gnuplot missing: apt-get install gnuplot-nox" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "/usr/bin/time missing: apt-get install time" >&2; exit 2; }
mkdir -p "$work" "$out"
suffix="dc=example,dc=com"
csv="$out/scale.csv"
echo "tool,format,entries,run,wall_s,cpu_s,peak_rss_anon_mb,db_mb,entries_per_s,phase1_s,phase2_s" > "$csv"

# slapd.conf for DBDIR with the workload's index lines (the mdb format and
# slapadd read the same one; only the directory differs).
conf_for() { slapd_conf "$1" 274877906944 "$WORKLOAD_INDEX_LINES"; }

# Peak RssAnon (KB) of the process /usr/bin/time (pid $1) runs, until it ends.
peak_anon() {
  local timer=$1 pid="" peak=0 key value unit
  while kill -0 "$timer" 2> /dev/null; do
    [[ -z $pid ]] && pid=$(pgrep -P "$timer" | head -n1 || true)
    if [[ -n $pid && -r /proc/$pid/status ]]; then
      while read -r key value unit; do
        if [[ $key == RssAnon: ]]; then
          ((value > peak)) && peak=$value
          break
        fi
      done < "/proc/$pid/status" 2> /dev/null || true
    fi
    sleep 0.05
  done
  echo "$peak"
}

# timed TOOL FORMAT N RUN DBDIR COMMAND...: one fresh run, a CSV row. The
# phases' wall seconds come from dirload's --stats (empty for slapadd).
timed() {
  local tool=$1 format=$2 n=$3 run=$4 db=$5 t0 t1 user sys rss peak size wall phases=","
  shift 5
  rm -rf "$db" "$work/stats.json" && mkdir -p "$db"
  sync
  t0=$(date +%s.%N)
  /usr/bin/time -f "%U %S %M" -o "$work/time.out" "$@" > "$work/cmd.out" 2>&1 &
  local timer=$!
  peak=$(peak_anon "$timer")
  wait "$timer" || { tail -5 "$work/cmd.out" >&2; echo "$tool $format $n failed" >&2; exit 1; }
  sync -f "$db"
  t1=$(date +%s.%N)
  read -r user sys rss < <(tail -n1 "$work/time.out")
  size=$(du -sk "$db" | cut -f1)
  wall=$(echo "$t1 - $t0" | bc -l)
  if [[ -s $work/stats.json ]]; then
    phases=$(jq -r '[(.phases[] | select(.name == "load") | .wall_seconds),
                     (.phases[] | select(.name == "index") | .wall_seconds)]
                    | map(. * 1000 | round / 1000) | join(",")' "$work/stats.json")
  fi
  printf '%s,%s,%s,%s,%.3f,%.2f,%.1f,%.1f,%.0f,%s\n' "$tool" "$format" "$n" "$run" "$wall" \
    "$(echo "$user + $sys" | bc -l)" "$(echo "$peak / 1024" | bc -l)" \
    "$(echo "$size / 1024" | bc -l)" "$(echo "$n / $wall" | bc -l)" "$phases" | tee -a "$csv"
}

sm_args=()
[[ -n $sort_memory ]] && sm_args=(--sort-memory "$sort_memory")

# prepare_ldif N: the generated LDIF of N entries, read once into the page
# cache (while it fits), outside the timed region.
prepare_ldif() {
  local ldif="$work/people-$1.ldif"
  generate_ldif "$gen" "$1" "$ldif"
  cat "$ldif" > /dev/null
}

# one_round N R: run R of every tool and format at size N.
one_round() {
  local n=$1 r=$2 ldif="$work/people-$1.ldif" f tool db bin sruns order=$tools extra
  sruns=${slapadd_runs:-$((n >= 1000000 ? 1 : runs))}
  # With a baseline or a variant, even rounds run it first: on this machine
  # a run's place in the sequence moved its time, so neither tool keeps the
  # same place.
  ((r % 2 == 0)) && order=$(echo "$tools" | awk '{ for (i = NF; i > 0; i--) printf "%s ", $i }')
  for f in $formats; do
    for tool in $order; do
      db="$work/db-$f"
      bin=$dirload
      [[ $tool == baseline ]] && bin=$baseline/tools/dirload
      extra=()
      [[ $tool == variant ]] && read -r -a extra <<< "$variant"
      if [[ $f == mdb ]]; then
        conf_for "$db" > "$work/dirload-mdb.conf"
        timed "$tool" mdb "$n" "$r" "$db" "$bin" add --progress never \
          --stats "$work/stats.json" "${sm_args[@]}" "${extra[@]}" \
          -f "$work/dirload-mdb.conf" -l "$ldif"
      else
        timed "$tool" native "$n" "$r" "$db" "$bin" add --progress never \
          --stats "$work/stats.json" "${sm_args[@]}" "${extra[@]}" \
          --format native --db "$db" --suffix "$suffix" -l "$ldif" "${WORKLOAD_INDEXES[@]}"
      fi
      ((keep)) || [[ $r -lt $runs ]] || rm -rf "$db"
    done
  done
  if ((with_slapadd)) && ((r <= sruns)); then
    conf_for "$work/db-slapadd" > "$work/slapadd.conf"
    timed slapadd mdb "$n" "$r" "$work/db-slapadd" slapadd -q -f "$work/slapadd.conf" -l "$ldif"
    ((keep)) || [[ $r -lt $sruns ]] || rm -rf "$work/db-slapadd"
  fi
}

if ((interleave)); then
  # Every size in each round, so that a slow spell of the machine falls on
  # all sizes alike and the growth between them is measured side by side.
  for n in $sizes; do prepare_ldif "$n"; done
  warm_memory
  for ((r = 1; r <= runs; r++)); do
    for n in $sizes; do one_round "$n" "$r"; done
  done
  if ! ((keep)); then
    for n in $sizes; do rm -f "$work/people-$n.ldif"; done
  fi
else
  for n in $sizes; do
    prepare_ldif "$n"
    warm_memory
    for ((r = 1; r <= runs; r++)); do one_round "$n" "$r"; done
    ((keep)) || rm -f "$work/people-$n.ldif"
  done
fi

# ---------------------------------------------------------------- tables
first=$(echo "$sizes" | awk '{ print $1 }')
# Per tool, format and size: medians of wall, CPU, RssAnon, database size and
# the phases, the run count, and the median over runs of wall / wall of the
# same run at the first size (runs made side by side with --interleave).
awk -F, -v first="$first" 'NR > 1 {
    k = $1 "," $2 "," $3
    wall[k] = wall[k] " " $5; cpu[k] = cpu[k] " " $6; anon[k] = anon[k] " " $7
    db[k] = db[k] " " $8; n[k]++
    if ($10 != "") p1[k] = p1[k] " " $10
    if ($11 != "") p2[k] = p2[k] " " $11
    run_wall[k "," $4] = $5; runs_of[k] = runs_of[k] " " $4
  }
  function median(list,   c, a, i, j, t) {
    c = split(list, a, " ")
    if (c == 0) return ""
    for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return (c % 2) ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2
  }
  END {
    for (k in wall) {
      split(k, f, ",")
      ratios = ""
      c = split(runs_of[k], rs, " ")
      for (i = 1; i <= c; i++) {
        base = run_wall[f[1] "," f[2] "," first "," rs[i]]
        if (base != "") ratios = ratios " " run_wall[k "," rs[i]] / base
      }
      printf "%s,%s,%s,%s,%s,%d,%s,%s,%s\n", k, median(wall[k]), median(cpu[k]), median(anon[k]),
        median(db[k]), n[k], median(p1[k]), median(p2[k]), median(ratios)
    }
  }
' "$csv" | sort -t, -k1,1 -k2,2 -k3,3n > "$work/medians.csv"

{
  echo "### Full load, 15 indexes: medians of the runs"
  echo
  echo "| tool | format | entries | wall s | phase 1 s | phase 2 s | CPU s | CPU/wall | peak RssAnon MB | database MB | entries/s | slapadd -q / this | wall / wall at $first | the same, median of runs | entries / $first | runs |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  awk -F, -v first="$first" '
    { key[NR] = $0; wall[$1 "," $2 "," $3] = $4 }
    END {
      for (i = 1; i <= NR; i++) {
        split(key[i], f, ",")
        base = wall["slapadd,mdb," f[3]]
        speed = base != "" ? sprintf("%.1fx", base / f[4]) : "-"
        w0 = wall[f[1] "," f[2] "," first]
        growth = w0 != "" ? sprintf("%.2f", f[4] / w0) : "-"
        paired = f[11] != "" && w0 != "" ? sprintf("%.2f", f[11]) : "-"
        p1 = f[9] != "" ? sprintf("%.2f", f[9]) : "-"
        p2 = f[10] != "" ? sprintf("%.2f", f[10]) : "-"
        printf "| %s | %s | %d | %.2f | %s | %s | %.2f | %.2f | %.0f | %.0f | %.0f | %s | %s | %s | %.2f | %d |\n",
          f[1], f[2], f[3], f[4], p1, p2, f[5], f[5] / f[4], f[6], f[7], f[3] / f[4], speed, growth,
          paired, f[3] / first, f[8]
      }
    }' "$work/medians.csv"
  echo
  echo "Command: bench/run_scale_bench.sh --entries \"$sizes\" --formats \"$formats\"" \
    "$( ((with_slapadd)) && echo --with-slapadd) --runs $runs${sort_memory:+ --sort-memory $sort_memory}${baseline:+ --baseline $baseline}${variant:+ --variant \"$variant\"}$( ((interleave)) && echo " --interleave")"
} > "$out/scale.md"

plots=""
while IFS=, read -r tool format; do
  awk -F, -v t="$tool" -v f="$format" '$1 == t && $2 == f { print $3, $4 }' "$work/medians.csv" \
    > "$work/plot-$tool-$format.dat"
  plots+="${plots:+, }\"$work/plot-$tool-$format.dat\" with linespoints title \"$tool ($format)\""
done < <(cut -d, -f1,2 "$work/medians.csv" | sort -u)
gnuplot <<PLOT
set terminal png size 800,500
set output "$out/scale.png"
set title "Full load with the 15 workload indexes: wall time against entries"
set xlabel "entries"; set ylabel "seconds"
set logscale xy; set key top left; set grid
plot $plots
PLOT
cat "$out/scale.md"
echo "CSV: $csv   plot: $out/scale.png"
