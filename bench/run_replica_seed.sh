#!/usr/bin/env bash
# Seeding slapd replicas, measured on 127.0.0.1: a provider (slapd with
# syncprov; with --delta also accesslog) and K consumers (syncrepl,
# refreshAndPersist), each consumer seeded one way:
#   refresh      empty: syncrepl's full refresh brings every entry
#   export       `dirload cat` of the provider, loaded with `dirload add -w`
#   independent  the provider's LDIF loaded apart on every node with
#                `dirload add -o uuid=dn -o csn-time=T -S 1 -w`
#   copy         `mdb_copy` of the provider's database
# then a bounded change load on the provider(s) (dirload-gen --changes
# modify=N through ldapmodify, at most --change-seconds). Recorded per
# consumer: the seeding time, the time from the consumers' start until each
# is in sync (its contextCSN the provider's), the entries it received (its
# slapd -d sync log: search entries and, delta-syncrepl, log messages),
# the provider's CPU seconds until all were in sync, the time until the
# change load reached each, the contextCSN of every node, the content
# digests, and `dirload compare` of the consumer against the provider (both
# stopped).
#
#   bench/run_replica_seed.sh [--entries N] [--consumers K]
#       [--mode refresh|export|independent|copy[,...]] [--delta] [--multiprovider]
#       [--changes N] [--change-seconds S] [--timeout S] [--build DIR] [--dir DIR]
#       [--out DIR]
# Defaults: 50000 entries, 2 consumers, every mode, 1000 changes within 120 s,
# 1800 s to converge. --multiprovider: two providers with serverIDs 1 and 2,
# each a syncrepl consumer of the other (multiprovider on), seeded as the
# consumers are (refresh: the second one refreshes from the first), the
# change load split between them; the consumers replicate from the first.
# Writes OUT/replica-seed.csv (one line per mode and consumer), OUT/replica-
# seed.md (the table), OUT/replica-seed.png (gnuplot) and each consumer's
# compare report (OUT/compare-MODE-NODE.txt), and prints the table.
# Consumers run as slapd does by default: every write synced.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench_common.sh
source "$root/bench/bench_common.sh"  # for generate_ldif
build="$root/build"
work=/tmp/dirload-replica-seed
out=""
entries=50000
consumers=2
modes="refresh,export,independent,copy"
delta=0
multiprovider=0
changes=1000
change_seconds=120
timeout=1800
while (($#)); do
  case "$1" in
    --entries) entries=$2; shift 2 ;;
    --consumers) consumers=$2; shift 2 ;;
    --mode) modes=$2; shift 2 ;;
    --delta) delta=1; shift ;;
    --multiprovider) multiprovider=1; shift ;;
    --changes) changes=$2; shift 2 ;;
    --change-seconds) change_seconds=$2; shift 2 ;;
    --timeout) timeout=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --dir) work=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
for m in ${modes//,/ }; do
  case $m in refresh | export | independent | copy) ;; *) echo "unknown mode $m" >&2; exit 2 ;; esac
done
dirload="$build/tools/dirload"
gen="$build/bench/dirload-gen"
for p in "$dirload" "$gen"; do
  [[ -x $p ]] || { echo "build first: cmake --build $build ($p)" >&2; exit 2; }
done
for p in slapd ldapsearch ldapmodify mdb_copy gnuplot; do
  command -v "$p" > /dev/null ||
    { echo "$p missing: apt-get install slapd ldap-utils lmdb-utils gnuplot-nox" >&2; exit 2; }
done
[[ -e /usr/lib/ldap/syncprov.la ]] || { echo "slapd's syncprov module is missing" >&2; exit 2; }
variant=""
((delta)) && variant+="-delta"
((multiprovider)) && variant+="-multiprovider"
[[ -n $out ]] || out="$root/bench/results/replica-seed-$entries$variant"
mkdir -p "$work" "$out"
work=$(cd "$work" && pwd)

suffix="dc=example,dc=com"
rootdn="cn=admin,$suffix"
csn_time="20260101000000Z"
ldif="$work/people-$entries.ldif"
generate_ldif "$gen" "$entries" "$ldif"
change_file="$work/changes-$entries-$changes.ldif"
generate_ldif "$gen" "$entries" "$change_file" --changes "modify=$changes"

base_port=$((20000 + RANDOM % 20000))
providers=1
((multiprovider)) && providers=2
port_of() { echo $((base_port + $1)); }  # node 0.. providers-1, then the consumers
url_of() { echo "ldap://127.0.0.1:$(port_of "$1")/"; }
name_of() { if (($1 < providers)); then echo "provider$(($1 + 1))"; else echo "consumer$(($1 - providers + 1))"; fi; }
nodes=$((providers + consumers))

# The syncrepl line of a node that replicates from node $2 with rid $1.
syncrepl_line() {
  local line="syncrepl rid=$1 provider=$(url_of "$2") bindmethod=simple binddn=\"$rootdn\""
  line+=" credentials=secret searchbase=\"$suffix\" type=refreshAndPersist retry=\"1 +\""
  line+=" timeout=5 network-timeout=5"
  if ((delta)); then
    line+=" logbase=\"cn=accesslog\" logfilter=\"(&(objectClass=auditWriteObject)(reqResult=0))\""
    line+=" syncdata=accesslog"
  fi
  echo "$line"
}

conf() {  # conf NODE: that node's slapd.conf on stdout
  local node=$1 dir="$work/$(name_of "$1")" i
  cat << EOF
include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/inetorgperson.schema
include /etc/ldap/schema/nis.schema
modulepath /usr/lib/ldap
moduleload back_mdb
moduleload syncprov
EOF
  ((delta)) && echo "moduleload accesslog"
  # The providers' server IDs, each with its URL (slapd finds its own by -h).
  if ((multiprovider && node < providers)); then
    for ((i = 0; i < providers; i++)); do echo "serverID $((i + 1)) $(url_of "$i")"; done
  fi
  echo "sizelimit unlimited"
  if ((delta && node < providers)); then
    cat << EOF
database mdb
suffix "cn=accesslog"
rootdn "cn=accesslog"
directory $dir/accesslog
maxsize 4294967296
index default eq
index entryCSN,objectClass,reqEnd,reqResult,reqStart,reqDN
overlay syncprov
syncprov-nopresent TRUE
syncprov-reloadhint TRUE
EOF
  fi
  cat << EOF
database mdb
suffix "$suffix"
rootdn "$rootdn"
rootpw secret
directory $dir/db
maxsize 8589934592
index entryCSN,entryUUID eq
index objectClass eq
index uid eq
index mail eq,sub
index cn eq,sub
index sn eq,sub
index givenName eq,sub
index telephoneNumber eq
index departmentNumber eq
EOF
  if ((node < providers)); then
    echo "overlay syncprov"
    echo "syncprov-checkpoint 100 10"
    if ((delta)); then
      printf 'overlay accesslog\nlogdb cn=accesslog\nlogops writes\nlogsuccess TRUE\n'
    fi
    if ((multiprovider)); then
      for ((i = 0; i < providers; i++)); do
        ((i == node)) || syncrepl_line "$((100 + i + 1))" "$i"
      done
      echo "multiprovider on"
    fi
  else
    syncrepl_line "$(printf '%03d' $((node - providers + 1)))" 0
  fi
}

declare -A pid_of
start_node() {  # start_node NODE: slapd, its sync log in NAME.log
  local name
  name=$(name_of "$1")
  slapd -h "$(url_of "$1")" -f "$work/$name.conf" -d sync > /dev/null 2> "$work/$name.log" &
  pid_of[$1]=$!
  for _ in $(seq 200); do
    ldapsearch -x -LLL -H "$(url_of "$1")" -b "" -s base 1.1 > /dev/null 2>&1 && return
    sleep 0.05
  done
  echo "slapd $name did not start: $(tail -5 "$work/$name.log")" >&2
  exit 1
}
stop_node() {
  [[ -n ${pid_of[$1]-} ]] || return 0
  kill "${pid_of[$1]}" 2> /dev/null || true
  wait "${pid_of[$1]}" 2> /dev/null || true
  unset "pid_of[$1]"
}
stop_all() { local n; for n in "${!pid_of[@]}"; do stop_node "$n"; done; }
trap stop_all EXIT

cpu_seconds() {  # utime + stime of a process, in seconds
  awk -v hz="$(getconf CLK_TCK)" '{ print ($14 + $15) / hz }' "/proc/$1/stat"
}
context_csn() {  # the suffix's contextCSN values of a running node, sorted, joined by ' '
  ldapsearch -x -LLL -o ldif-wrap=no -H "$(url_of "$1")" -D "$rootdn" -w secret -b "$suffix" \
    -s base contextCSN 2> /dev/null | sed -n 's/^contextCSN: //p' | sort | paste -sd' ' -
}
received() {  # entries and log messages a node's syncrepl received so far
  local log
  log="$work/$(name_of "$1").log"
  echo $(($(grep -c 'LDAP_RES_SEARCH_ENTRY(LDAP_SYNC_' "$log" || true) +
    $(grep -cE 'syncrepl_message_to_op: rid=[0-9]+ tid' "$log" || true)))
}
now() { date +%s.%N; }
elapsed() { echo "$1 $2" | awk '{ printf "%.2f", $2 - $1 }'; }

# Waits until every node's contextCSN is the first provider's (all of them:
# the providers' too), and records when each got there in done_at[NODE].
declare -A done_at
wait_in_sync() {  # wait_in_sync START
  local start=$1 n want left deadline
  deadline=$(echo "$start + $timeout" | bc)
  done_at=()
  while :; do
    want=$(context_csn 0)
    left=0
    for ((n = 1; n < nodes; n++)); do
      [[ -n ${done_at[$n]-} ]] && continue
      if [[ -n $want && $(context_csn "$n") == "$want" ]]; then
        done_at[$n]=$(now)
      else
        left=1
      fi
    done
    ((left)) || return 0
    if (($(echo "$(now) > $deadline" | bc))); then
      echo "not in sync after $timeout s" >&2
      return 1
    fi
    sleep 0.2
  done
}

# The provider's database as loaded, kept aside: every mode starts from it.
pristine="$work/pristine"
rm -rf "$pristine"
mkdir -p "$pristine"
for ((n = 0; n < nodes; n++)); do conf "$n" > "$work/$(name_of "$n").conf"; done
mkdir -p "$work/provider1/db"
rm -rf "$work/provider1/db"/*
"$dirload" add -f "$work/provider1.conf" -b "$suffix" -l "$ldif" -S 1 -w -o uuid=dn \
  -o "csn-time=$csn_time" --progress never
cp "$work/provider1/db/data.mdb" "$pristine/"
"$dirload" cat -f "$work/provider1.conf" -b "$suffix" -l "$work/export.ldif"

csv="$out/replica-seed.csv"
echo "mode,delta,multiprovider,entries,node,seed_s,in_sync_s,received,provider_cpu_s,changes,changes_in_sync_s,received_after_changes,context_csn,content_equal,compare" > "$csv"

for mode in ${modes//,/ }; do
  echo "== $mode" >&2
  stop_all
  # Every node's directories afresh; the providers hold the pristine load.
  for ((n = 0; n < nodes; n++)); do
    d="$work/$(name_of "$n")"
    rm -rf "$d/db" "$d/accesslog"
    mkdir -p "$d/db"
    ((delta && n < providers)) && mkdir -p "$d/accesslog"
  done
  cp "$pristine/data.mdb" "$work/provider1/db/"
  declare -A seed_s=()
  for ((n = 1; n < nodes; n++)); do
    name=$(name_of "$n")
    t0=$(now)
    case $mode in
      refresh) ;;
      export)
        # A second provider's load names its own server ID (its CSNs).
        sid=()
        ((n < providers)) && sid=(-S "$((n + 1))")
        "$dirload" add -f "$work/$name.conf" -b "$suffix" -l "$work/export.ldif" -w "${sid[@]}" \
          --progress never 2> "$work/$name.seed.err" ;;
      independent)
        "$dirload" add -f "$work/$name.conf" -b "$suffix" -l "$ldif" -S 1 -w -o uuid=dn \
          -o "csn-time=$csn_time" --progress never 2> "$work/$name.seed.err" ;;
      copy)
        mdb_copy "$work/provider1/db" "$work/$name/db" ;;
    esac
    seed_s[$n]=$(elapsed "$t0" "$(now)")
  done

  start_node 0
  cpu0=$(cpu_seconds "${pid_of[0]}")
  t0=$(now)
  for ((n = 1; n < nodes; n++)); do start_node "$n"; done
  wait_in_sync "$t0"
  cpu1=$(cpu_seconds "${pid_of[0]}")
  declare -A in_sync_s=() got=()
  for ((n = 1; n < nodes; n++)); do
    in_sync_s[$n]=$(elapsed "$t0" "${done_at[$n]}")
    got[$n]=$(received "$n")
  done
  provider_cpu=$(echo "$cpu0 $cpu1" | awk '{ printf "%.2f", $2 - $1 }')

  # The change load: split between the providers, bounded in time.
  t1=$(now)
  if ((multiprovider)); then
    awk 'BEGIN { RS = ""; ORS = "\n\n" } NR % 2 == 1' "$change_file" > "$work/changes.1"
    awk 'BEGIN { RS = ""; ORS = "\n\n" } NR % 2 == 0' "$change_file" > "$work/changes.2"
    writers=()
    for ((p = 0; p < providers; p++)); do
      timeout "$change_seconds" ldapmodify -x -c -H "$(url_of "$p")" -D "$rootdn" -w secret \
        -f "$work/changes.$((p + 1))" > /dev/null 2> "$work/changes.$((p + 1)).err" &
      writers+=($!)
    done
    for w in "${writers[@]}"; do wait "$w" || true; done
  else
    timeout "$change_seconds" ldapmodify -x -c -H "$(url_of 0)" -D "$rootdn" -w secret \
      -f "$change_file" > /dev/null 2> "$work/changes.err" || true
  fi
  wait_in_sync "$t1"
  declare -A changes_s=() csn=()
  for ((n = 1; n < nodes; n++)); do changes_s[$n]=$(elapsed "$t1" "${done_at[$n]}"); done
  for ((n = 0; n < nodes; n++)); do csn[$n]=$(context_csn "$n"); done
  stop_all

  provider_digest=$("$dirload" stat --digest --db "$work/provider1/db" |
    sed -n 's/^content: \([0-9a-f]*\).*/\1/p')
  for ((n = 1; n < nodes; n++)); do
    name=$(name_of "$n")
    digest=$("$dirload" stat --digest --db "$work/$name/db" |
      sed -n 's/^content: \([0-9a-f]*\).*/\1/p')
    set +e
    "$dirload" compare -f "$work/$name.conf" -b "$suffix" --with-config "$work/provider1.conf" \
      --with-suffix "$suffix" --examples 3 > "$out/compare-$mode-$name.txt" 2>&1
    rc=$?
    set -e
    case $rc in 0) verdict=equal ;; 1) verdict=different ;; *) verdict="error-$rc" ;; esac
    same=no
    [[ $digest == "$provider_digest" ]] && same=yes
    echo "$mode,$delta,$multiprovider,$entries,$name,${seed_s[$n]},${in_sync_s[$n]},${got[$n]},$provider_cpu,$changes,${changes_s[$n]},$(($(received "$n") - got[$n])),${csn[$n]},$same,$verdict" >> "$csv"
  done
  echo "provider1 contextCSN: ${csn[0]}" >> "$out/context-csn.txt"
done

# The table, and the figure: time until in sync and provider CPU per mode.
md="$out/replica-seed.md"
python3 - "$csv" > "$md" << 'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
cols = ["mode", "node", "seed_s", "in_sync_s", "received", "provider_cpu_s",
        "changes", "changes_in_sync_s", "received_after_changes", "content_equal", "compare"]
print("| " + " | ".join(cols) + " |")
print("|" + "---|" * len(cols))
for r in rows:
    print("| " + " | ".join(r[c] for c in cols) + " |")
print()
print("contextCSN after the changes:")
print()
for r in rows:
    print("- %s %s: %s" % (r["mode"], r["node"], r["context_csn"]))
EOF
python3 - "$csv" > "$work/plot.dat" << 'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
modes = []
for r in rows:
    if r["mode"] not in modes:
        modes.append(r["mode"])
for m in modes:
    rs = [r for r in rows if r["mode"] == m]
    worst = max(float(r["seed_s"]) + float(r["in_sync_s"]) for r in rs)
    print('"%s" %.2f %s %.2f' % (m, worst, rs[0]["provider_cpu_s"],
                                 max(float(r["changes_in_sync_s"]) for r in rs)))
EOF
gnuplot << EOF
set terminal pngcairo size 900,500 noenhanced
set output "$out/replica-seed.png"
set title "Seeding $consumers consumer(s) of $entries entries$variant: slowest consumer"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set ylabel "seconds"
set logscale y
set yrange [0.01:*]
set key top right
plot "$work/plot.dat" using 2:xtic(1) title "seed + in sync", \
     "" using 3 title "provider CPU during it", \
     "" using 4 title "changes in sync"
EOF
cat "$md"
echo "wrote $csv $md $out/replica-seed.png" >&2
