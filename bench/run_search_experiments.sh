#!/usr/bin/env bash
# The search-rate experiments: what slapd serves from a database dirload
# loaded (slapd's back-mdb format), measured with bench/dirload-searchrate.
#   sn:      (sn=VALUE) with sn indexed (added afterwards with `dirload index`)
#            or not, x stats logging on (loglevel 256 to a file) or off, x 1
#            and 4 clients; medians of --runs.
#   logging: random valid uid= and mail= equality filters, asynchronous
#            (--async 4), 3 clients x 2 connections = 6 connections, loglevel
#            256 to a file (and through syslog where /dev/log exists) against 0.
#   clients: 18,992 entries, 18,986 of them under ou=Users,ou=People; uid=
#            over three pattern files (the first 1,000 users; all; all with
#            even-numbered clients in reverse order), 1 to 15 clients.
#   offline: the sn= and uid= searches on the same databases through
#            `dirload search --bench` (worker processes, each with its own
#            read session, no server, no protocol), slapd stopped.
#
# Writes to --out: search_experiments.csv (one row per run), *.md tables of
# medians, search_clients.png and search_logging.png (gnuplot), and checks
# that every table holds every cell (exit 1 if not).
#
# usage: bench/run_search_experiments.sh [--quick] [--build DIR] [--out DIR] [--runs N] [--cell S]
#   --quick: a few thousand entries, clients 1 to 4, about 1 s a cell (for CI)
#   --runs N: runs per cell (default 3, medians); --cell S: seconds a run (default 10)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench_common.sh
source "$root/bench/bench_common.sh"  # for slapd_conf only

quick=0
build="$root/build"
out=/tmp/dirload-search-experiments
runs=3
cell_seconds=""
while (($#)); do
  case "$1" in
    --quick) quick=1; shift ;;
    --build) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --cell) cell_seconds=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
if ((quick)); then
  sn_entries=3000 client_entries=2000 first_n=500 cell=1 warmup=0.3 runs=1
  client_counts="1 2 3 4"
else
  sn_entries=60000 client_entries=18992 first_n=1000 cell=10 warmup=2
  client_counts=$(seq 1 15)
fi
cell=${cell_seconds:-$cell}

dirload="$build/tools/dirload"
gen="$build/bench/dirload-gen"
searchrate="$build/bench/dirload-searchrate"
for p in "$dirload" "$gen" "$searchrate"; do
  [[ -x $p ]] || { echo "$p missing: cmake --build $build" >&2; exit 2; }
done
for p in slapd ldapsearch gnuplot; do
  command -v "$p" > /dev/null || [[ -x /usr/sbin/$p ]] ||
    { echo "$p missing (apt-get install slapd ldap-utils gnuplot-nox)" >&2; exit 2; }
done
PATH=$PATH:/usr/sbin
suffix="dc=example,dc=com"
work="$out/work"
rm -rf "$work" && mkdir -p "$work"
csv="$out/search_experiments.csv"
echo "experiment,pattern,index,logging,clients,connections,async,run,requests,errors,seconds,requests_per_second,per_client_rps,mean_ms,p99_ms" > "$csv"

# ------------------------------------------------------------------ slapd
slapd_pid=""
stop_slapd() {
  if [[ -n $slapd_pid ]]; then
    kill "$slapd_pid" 2> /dev/null || true
    wait "$slapd_pid" 2> /dev/null || true
    slapd_pid=""
  fi
}
trap stop_slapd EXIT

# start_slapd CONF LOGGING: slapd on a free loopback port, in the
# foreground; LOGGING is 0 (nothing) or 256 (stats, written to a file:
# slapd's debug output is its stderr). Sets $url.
start_slapd() {
  local conf=$1 level=$2 attempt port
  stop_slapd
  for attempt in 1 2 3 4 5; do
    port=$((20000 + RANDOM % 40000))
    slapd -h "ldap://127.0.0.1:$port/" -f "$conf" -d "$level" > /dev/null 2> "$work/slapd-$level.log" &
    slapd_pid=$!
    url="ldap://127.0.0.1:$port"
    for _ in $(seq 50); do
      if ldapsearch -x -LLL -o nettimeout=2 -H "$url" -b "" -s base 1.1 > /dev/null 2>&1; then
        return 0
      fi
      kill -0 "$slapd_pid" 2> /dev/null || break
      sleep 0.1
    done
    stop_slapd
  done
  echo "slapd did not start: $(tail -3 "$work/slapd-$level.log")" >&2
  exit 1
}

# cell EXPERIMENT PATTERN INDEX LOGGING CLIENTS ASYNC VALUES FILTER [ARGS...]:
# one run of dirload-searchrate against $url per --runs, a CSV row each.
cell() {
  local exp=$1 pattern=$2 index=$3 logging=$4 clients=$5 async=$6 values=$7 filter=$8 r
  shift 8
  for ((r = 1; r <= runs; r++)); do
    "$searchrate" -H "$url" -b "$suffix" --filter "$filter" --values "$values" \
      --clients "$clients" --async "$async" --duration "$cell" --warmup "$warmup" \
      --attrs 1.1 --csv "$work/cell.csv" "$@" > "$work/cell.out" ||
      { cat "$work/cell.out" >&2; echo "$exp $pattern: dirload-searchrate failed" >&2; exit 1; }
    awk -F, -v pre="$exp,$pattern,$index,$logging,$clients,$clients,$async,$r" -v n="$clients" '
      $1 != "total" && NR > 1 { rates += $6 }
      $1 == "total" { printf "%s,%s,%s,%s,%s,%.1f,%s,%s\n", pre, $2, $4, $5, $6, rates / n, $7, $10 }
    ' "$work/cell.csv" | tee -a "$csv"
  done
}

# ------------------------------------------------ data for sn and logging
ldif="$work/people.ldif"
"$gen" --entries "$sn_entries" --seed 1 -o "$ldif"
# Plain values only (base64 ones are non-ASCII names); deterministic order.
grep '^sn: ' "$ldif" | cut -d' ' -f2- | sort -u > "$work/sn.txt"
{ grep '^uid: ' "$ldif" | sed 's/^uid: /uid=/'; grep '^mail: ' "$ldif" | sed 's/^mail: /mail=/'; } \
  > "$work/uid-mail.txt"
db="$work/db-people"
mkdir -p "$db"
base_index="index objectClass,o pres,eq
index uid,mail eq"
slapd_conf "$db" 4294967296 "$base_index" > "$work/people-noindex.conf"
slapd_conf "$db" 4294967296 "$base_index
index sn pres,eq" > "$work/people-sn.conf"
"$dirload" add --progress never --format mdb -f "$work/people-noindex.conf" -l "$ldif"

# --------------------------------------------------------- sn experiment
for index in off on; do
  conf="$work/people-noindex.conf"
  if [[ $index == on ]]; then
    conf="$work/people-sn.conf"
    stop_slapd  # dirload index takes the database while slapd is down
    "$dirload" index --progress never -f "$conf" sn
  fi
  for logging in off on; do
    level=0
    [[ $logging == on ]] && level=256
    start_slapd "$conf" "$level"
    for clients in 1 4; do
      cell sn sn "$index" "$logging" "$clients" 1 "$work/sn.txt" '(sn=%s)' --order random
    done
  done
done

# ---------------------------------------------------- logging experiment
for level in 0 256; do
  start_slapd "$work/people-noindex.conf" "$level"
  logging=$([[ $level == 0 ]] && echo 0 || echo 256-file)
  cell logging uid-mail on "$logging" 6 4 "$work/uid-mail.txt" '(%s)' --raw-values --order random
done
syslog_note="through syslog: left out, this machine has no /dev/log"
if [[ -S /dev/log ]]; then
  # slapd logging to syslog: without -d it detaches, so it is stopped by its pid file.
  { cat "$work/people-noindex.conf"; echo "loglevel 256"; } |
    sed "s|^database mdb|pidfile $work/slapd-syslog.pid\n&|" > "$work/people-syslog.conf"
  stop_slapd
  port=$((20000 + RANDOM % 40000))
  slapd -h "ldap://127.0.0.1:$port/" -f "$work/people-syslog.conf" -s 256
  url="ldap://127.0.0.1:$port"
  for _ in $(seq 50); do
    ldapsearch -x -LLL -H "$url" -b "" -s base 1.1 > /dev/null 2>&1 && break
    sleep 0.1
  done
  cell logging uid-mail on 256-syslog 6 4 "$work/uid-mail.txt" '(%s)' --raw-values --order random
  kill "$(cat "$work/slapd-syslog.pid")"
  syslog_note="through syslog: measured (row 256-syslog)"
fi
stop_slapd

# ---------------------------------------------------- client experiment
# 18,992 entries as in the account: the suffix, five ous and the users.
cldif="$work/users.ldif"
awk -v n="$client_entries" -v s="$suffix" 'BEGIN {
  printf "dn: %s\nobjectClass: dcObject\nobjectClass: organization\ndc: example\no: Example\n\n", s
  split("People Groups Hosts Services", ous, " ")
  for (i = 1; i <= 4; i++) printf "dn: ou=%s,%s\nobjectClass: organizationalUnit\nou: %s\n\n", ous[i], s, ous[i]
  printf "dn: ou=Users,ou=People,%s\nobjectClass: organizationalUnit\nou: Users\n\n", s
  for (i = 1; i <= n - 6; i++)
    printf "dn: uid=u%06d,ou=Users,ou=People,%s\nobjectClass: inetOrgPerson\nuid: u%06d\ncn: User %d\nsn: Number%d\nmail: u%06d@example.com\n\n", i, s, i, i, i % 997, i
}' > "$cldif"
grep '^uid: ' "$cldif" | cut -d' ' -f2 > "$work/uid-all.txt"
head -n "$first_n" "$work/uid-all.txt" > "$work/uid-first.txt"
cdb="$work/db-users"
mkdir -p "$cdb"
slapd_conf "$cdb" 1073741824 "index objectClass,uid eq" > "$work/users.conf"
"$dirload" add --progress never --format mdb -f "$work/users.conf" -l "$cldif"
start_slapd "$work/users.conf" 0
for clients in $client_counts; do
  cell clients first on 0 "$clients" 1 "$work/uid-first.txt" '(uid=%s)'
  cell clients all on 0 "$clients" 1 "$work/uid-all.txt" '(uid=%s)'
  cell clients all-reverse-even on 0 "$clients" 1 "$work/uid-all.txt" '(uid=%s)' --order alternate
done
stop_slapd

# ------------------------------------------------------- offline search
# offline EXP PATTERN INDEX CONF VALUES FILTER WORKERS: `dirload search
# --bench WORKERS` (a comma list) per --runs, a CSV row per worker count.
offline() {
  local exp=$1 pattern=$2 index=$3 conf=$4 values=$5 filter=$6 list=$7 r
  for ((r = 1; r <= runs; r++)); do
    "$dirload" search -f "$conf" --bench "$list" --values "$values" --bench-seconds "$cell" \
      "$filter" > "$work/offline.out" ||
      { cat "$work/offline.out" >&2; echo "$exp $pattern: dirload search --bench failed" >&2; exit 1; }
    awk -v pre="$exp,$pattern,$index,none" -v r="$r" 'NR > 1 {
        printf "%s,%s,0,1,%s,%s,%s,%s,%.1f,%.1f,%s,%s\n", pre, $1, r, $2, $4, $5, $6, $6 / $1, $7, $9
      }' "$work/offline.out" | tee -a "$csv"
  done
}
offline_sn_workers="1,4"
if ((quick)); then
  offline_workers=$(echo "$client_counts" | tr ' ' ',')
else
  offline_workers="1,2,4,8,15"
fi
offline offline-sn sn off "$work/people-noindex.conf" "$work/sn.txt" '(sn=%s)' "$offline_sn_workers"
offline offline-sn sn on "$work/people-sn.conf" "$work/sn.txt" '(sn=%s)' "$offline_sn_workers"
offline offline-clients first on "$work/users.conf" "$work/uid-first.txt" '(uid=%s)' "$offline_workers"
offline offline-clients all on "$work/users.conf" "$work/uid-all.txt" '(uid=%s)' "$offline_workers"

# ---------------------------------------------------------------- tables
# median_of KEYFIELDS...: "key<TAB>median rps<TAB>median mean_ms<TAB>median p99<TAB>median per-client<TAB>requests<TAB>seconds"
medians() {
  awk -F, 'NR > 1 {
      k = $1 "," $2 "," $3 "," $4 "," $5
      rps[k] = rps[k] " " $12; mean[k] = mean[k] " " $14; p99[k] = p99[k] " " $15
      pc[k] = pc[k] " " $13; req[k] = req[k] " " $9; sec[k] = sec[k] " " $11
    }
    function median(list,   n, a, i, j, t) {
      n = split(list, a, " ")
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
      return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    END { for (k in rps) printf "%s,%s,%s,%s,%s,%s,%s\n", k, median(rps[k]), median(mean[k]), median(p99[k]), median(pc[k]), median(req[k]), median(sec[k]) }
  ' "$csv" | sort -t, -k1,1 -k2,2 -k3,3 -k4,4 -k5,5n > "$work/medians.csv"
}
medians
# get EXP PATTERN INDEX LOGGING CLIENTS FIELD (6 rps, 7 mean, 8 p99, 9 per-client, 10 requests, 11 seconds)
get() {
  awk -F, -v k="$1,$2,$3,$4,$5" -v f="$6" '$1 "," $2 "," $3 "," $4 "," $5 == k { print $f; found = 1 }
    END { if (!found) print "MISSING" }' "$work/medians.csv"
}
label=""
((quick)) && label=" (--quick: $sn_entries and $client_entries entries, ${cell} s a cell, $runs run; not the full experiment)"

{
  echo "### sn= equality, $sn_entries entries: requests/s (median of $runs)$label"
  echo
  echo "| sn index | stats logging | 1 client | 4 clients | 1 client mean ms | 4 clients mean ms |"
  echo "|---|---|---:|---:|---:|---:|"
  for index in off on; do
    for logging in off on; do
      echo "| $index | $logging | $(get sn sn $index $logging 1 6) | $(get sn sn $index $logging 4 6) |" \
        "$(get sn sn $index $logging 1 7) | $(get sn sn $index $logging 4 7) |"
    done
  done
  for index in off on; do
    echo "| $index | offline, 1 and 4 workers | $(get offline-sn sn $index none 1 6) |" \
      "$(get offline-sn sn $index none 4 6) | $(get offline-sn sn $index none 1 7) |" \
      "$(get offline-sn sn $index none 4 7) |"
  done
  echo
  echo "Offline: the same searches through \`dirload search --bench\` on the same database, slapd stopped."
} > "$out/search_sn.md"

{
  echo "### uid/mail equality, async 4, 3 clients x 2 connections, $sn_entries entries$label"
  echo
  echo "| loglevel | requests/s | mean ms | p99 ms | cost (req/s at 0 / here) |"
  echo "|---|---:|---:|---:|---:|"
  base_rps=$(get logging uid-mail on 0 6 6)
  for logging in 0 256-file $([[ -S /dev/log ]] && echo 256-syslog); do
    rps=$(get logging uid-mail on "$logging" 6 6)
    cost=$(awk -v a="$base_rps" -v b="$rps" 'BEGIN { if (b + 0 > 0) printf "%.2fx", a / b; else print "MISSING" }')
    echo "| $logging | $rps | $(get logging uid-mail on "$logging" 6 7) |" \
      "$(get logging uid-mail on "$logging" 6 8) | $cost |"
  done
  echo
  echo "Loglevel 256 $syslog_note."
} > "$out/search_logging.md"

{
  echo "### uid= over clients, $client_entries entries$label"
  for pattern in first all all-reverse-even; do
    echo
    case $pattern in
      first) echo "Pattern: the first $first_n users, in order" ;;
      all) echo "Pattern: all users, in order" ;;
      all-reverse-even) echo "Pattern: all users, even-numbered clients in reverse order" ;;
    esac
    echo
    echo "| clients | rate per client (req/s) | total requests | time per request (ms) | requests/s per client | total requests/s | total time (s) |"
    echo "|---:|---:|---:|---:|---:|---:|---:|"
    for clients in $client_counts; do
      rps=$(get clients "$pattern" on 0 "$clients" 6)
      per=$(awk -v a="$rps" -v n="$clients" 'BEGIN { if (a == "MISSING") print a; else printf "%.1f", a / n }')
      echo "| $clients | $(get clients "$pattern" on 0 "$clients" 9) | $(get clients "$pattern" on 0 "$clients" 10) |" \
        "$(get clients "$pattern" on 0 "$clients" 7) | $per | $rps | $(get clients "$pattern" on 0 "$clients" 11) |"
    done
  done
  echo
  echo "Offline, the same uid= searches through \`dirload search --bench\` (worker processes, slapd stopped):"
  echo
  echo "| workers | first $first_n: requests/s | mean ms | all: requests/s | mean ms | slapd, all, same clients: requests/s |"
  echo "|---:|---:|---:|---:|---:|---:|"
  for w in ${offline_workers//,/ }; do
    echo "| $w | $(get offline-clients first on none "$w" 6) | $(get offline-clients first on none "$w" 7) |" \
      "$(get offline-clients all on none "$w" 6) | $(get offline-clients all on none "$w" 7) |" \
      "$(get clients all on 0 "$w" 6) |"
  done
} > "$out/search_clients.md"

# ----------------------------------------------------------------- plots
for pattern in first all all-reverse-even; do
  awk -F, -v p="$pattern" '$1 == "clients" && $2 == p { print $5, $6 }' "$work/medians.csv" \
    | sort -n > "$work/plot-$pattern.dat"
done
awk -F, '$1 == "offline-clients" && $2 == "all" { print $5, $6 }' "$work/medians.csv" \
  | sort -n > "$work/plot-offline.dat"
awk -F, '$1 == "logging" { print $4, $6 }' "$work/medians.csv" > "$work/plot-logging.dat"
awk -F, '$1 == "sn" && $5 == 1 { print "idx-" $3 "/log-" $4, $6 }' "$work/medians.csv" \
  > "$work/plot-sn.dat"
gnuplot <<PLOT
set terminal png size 800,500
set output "$out/search_clients.png"
set title "uid= equality, $client_entries entries: requests/s against clients"
set xlabel "clients (offline: workers)"; set ylabel "slapd requests/s"; set yrange [0:*]
set y2label "offline requests/s"; set y2range [0:*]; set y2tics; set ytics nomirror
set key bottom right
plot "$work/plot-first.dat" with linespoints title "slapd, first $first_n", \
     "$work/plot-all.dat" with linespoints title "slapd, all", \
     "$work/plot-all-reverse-even.dat" with linespoints title "slapd, all, even clients reversed", \
     "$work/plot-offline.dat" axes x1y2 with linespoints title "offline (dirload search --bench), all"
unset y2label; unset y2tics; set ytics mirror
set output "$out/search_logging.png"
set title "What stats logging costs: requests/s"
set style data histograms; set style fill solid; set boxwidth 0.8; unset xlabel; set key off
set multiplot layout 1,2
set title "uid/mail async, 6 connections, by loglevel"
plot "$work/plot-logging.dat" using 2:xtic(1)
set title "sn=, 1 client, by index and logging"
set xtics rotate by -30
plot "$work/plot-sn.dat" using 2:xtic(1)
unset multiplot
PLOT

cat "$out/search_sn.md" "$out/search_logging.md" "$out/search_clients.md" > "$out/search_experiments.md"
cat "$out/search_experiments.md"
if grep -q MISSING "$out"/search_*.md; then
  echo "a table lacks cells (MISSING above)" >&2
  exit 1
fi
for f in search_clients.png search_logging.png; do
  [[ -s $out/$f ]] || { echo "$f was not drawn" >&2; exit 1; }
done
echo "every table holds every cell; CSV: $csv"
