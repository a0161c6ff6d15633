#!/usr/bin/env bash
# Phase 1 alone (`dirload add --no-index`), two builds run in turn on the
# same generated LDIF: native format on LMDB and slapd's format (a slapd.conf
# without index lines), one run of each build after the other, so that a
# slow spell of a shared machine falls on both. Each timed command ends with
# `sync -f` on its database directory.
#
# usage: bench/run_phase1_ab.sh --before BUILD --after BUILD [--entries N]
#          [--runs R] [--formats "native mdb"] [--dir WORKDIR]
# Prints "build format wall_s user_s sys_s" per run, then the medians.
set -euo pipefail
# shellcheck source=bench_common.sh
source "$(dirname "$0")/bench_common.sh"  # for slapd_conf only

entries=285000
runs=5
formats="native mdb"
work=/tmp/dirload-phase1-ab
before=""
after=""
while (($#)); do
  case "$1" in
    --before) before=$2; shift 2 ;;
    --after) after=$2; shift 2 ;;
    --entries) entries=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --formats) formats=$2; shift 2 ;;
    --dir) work=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
for b in "$before" "$after"; do
  [[ -n $b && -x $b/tools/dirload ]] || { echo "--before and --after: builds with tools/dirload" >&2; exit 2; }
done
gen="$after/bench/dirload-gen"
[[ -x $gen ]] || { echo "no $gen: build dirload-gen in $after" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "/usr/bin/time missing: apt-get install time" >&2; exit 2; }
mkdir -p "$work"
suffix="dc=example,dc=com"
ldif="$work/people-$entries.ldif"
[[ -s $ldif ]] || "$gen" --entries "$entries" --seed 1 -o "$ldif"
cat "$ldif" > /dev/null
build=$after warm_memory
slapd_conf "$work/db" 274877906944 > "$work/slapd.conf"

results="$work/phase1-ab.txt"
echo "# build format wall_s user_s sys_s ($entries entries)" | tee "$results"
for ((i = 1; i <= runs; i++)); do
  for side in before after; do
    build=$before
    [[ $side == after ]] && build=$after
    for format in $formats; do
      rm -rf "$work/db" && mkdir -p "$work/db"
      if [[ $format == mdb ]]; then
        args=(-f "$work/slapd.conf")
      else
        args=(--db "$work/db" --suffix "$suffix")
      fi
      sync
      t0=$(date +%s.%N)
      /usr/bin/time -f "%U %S" -o "$work/time.out" "$build/tools/dirload" add --no-index \
        --progress never "${args[@]}" -l "$ldif" > "$work/cmd.out" 2>&1 ||
        { cat "$work/cmd.out" >&2; exit 1; }
      sync -f "$work/db"
      t1=$(date +%s.%N)
      read -r user sys < <(tail -n1 "$work/time.out")
      printf '%s %s %.3f %s %s\n' "$side" "$format" "$(echo "$t1 - $t0" | bc -l)" "$user" \
        "$sys" | tee -a "$results"
    done
  done
done
echo
echo "medians of $runs: build format wall_s user_s sys_s"
awk '!/^#/ { k = $1 " " $2; w[k] = w[k] " " $3; u[k] = u[k] " " $4; s[k] = s[k] " " $5 }
  function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  END { for (k in w) printf "%s %.3f %.2f %.2f\n", k, median(w[k]), median(u[k]), median(s[k]) }' \
  "$results" | sort
