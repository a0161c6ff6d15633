#!/usr/bin/env bash
# Applying change records to slapd's database: the generated workload loaded
# once by `dirload add` (slapd's format, the 15 workload indexes; not timed)
# and copied to one twin per job before each job (cp -a, not timed); then, in
# turn in each round:
#   modify:slapmodify        slapmodify without -q, offline; it cannot rename,
#                            so it gets the change file without its modrdn
#                            records
#   modify:slapmodify-q      slapmodify -q on the same file; where -q dies on
#                            the second delete of a run (OpenLDAP 2.5.13 here:
#                            a probe on a copy tells), on the modify records
#                            alone
#   modify:ldapmodify-1      slapd on the twin, one ldapmodify -c client
#   modify:ldapmodify-4      slapd on the twin, four ldapmodify -c clients,
#                            each a quarter of the records (whole records,
#                            dealt round-robin; no two records touch the same
#                            entry, so any part applies in any order)
#   modify:dirload           dirload modify, offline
#   modify:dirload-no-modrdn dirload modify on slapmodify's file
# The dirload jobs are skipped, with a message, when the build's dirload has
# no modify command. The change file comes from `dirload-gen --changes`
# (bench/change_generator.h): modify records (title replaced, a mail alias
# added, a telephoneNumber value deleted), modrdn records moving people to
# another department and delete records of people, each on its own entry.
#
# Wall time runs from the start of the tool (the clients, for the slapd jobs:
# slapd is started before and stopped after, untimed, and syncs every
# commit) to the end of a `sync -f` of the database directory. For the slapd
# jobs, CPU is slapd's and the clients' together and peak RSS is slapd's.
# After every job the twin is read back with slapcat (not timed) and must
# show every record applied: the entries left, the aliases added, the people
# moved. In the first round, `dirload verify` checks each twin's indexes
# against its entries (slapmodify updates no index for a modify record on
# back-mdb: its twins come out with stale mail, telephoneNumber and title
# indexes), and the contents of the jobs that applied the same file are
# compared (without the operational attributes a change sets; for
# slapmodify's file without those of creation too, which slapmodify rewrites).
# Printed: the table of medians, speed-ups against modify:slapmodify (the
# same records as dirload-no-modrdn), then each job's records, records/s and
# index verdict, and the content comparisons.
#
# A job whose command fails, or that leaves a record unapplied, is named as
# failed in the table and left out of the later rounds and of the medians;
# the others go on, and the driver exits 1 at the end.
#
# usage: bench/run_modify_bench.sh [--entries N] [--changes modify=N,modrdn=N,delete=N]
#                                  [--dbnosync] [--runs R] [--dir WORKDIR] [--build BUILD]
# Defaults: 285000 entries, modify=100000,modrdn=10000,delete=10000, 3 runs.
# --dbnosync: `dbnosync` in every twin's slapd.conf, so that slapd (and
# slapmodify without -q) commit without a sync each time, as slapmodify -q
# does; the sync that ends the timed region then makes the writes durable.
set -euo pipefail
# shellcheck source=bench_common.sh
source "$(dirname "$0")/bench_common.sh"

spec=modify=100000,modrdn=10000,delete=10000
dbnosync=
setup_args=()
while (($#)); do
  case "$1" in
    --changes) spec=$2; shift 2 ;;
    --dbnosync) dbnosync=dbnosync; shift ;;
    *) setup_args+=("$1"); shift ;;
  esac
done
bench_setup "${setup_args[@]}"
for p in slapd slapmodify slapcat ldapmodify ldapsearch; do
  command -v "$p" > /dev/null ||
    { echo "$p missing: apt-get install slapd ldap-utils" >&2; exit 2; }
done
# shellcheck source=workload_indexes.sh
source "$root/bench/workload_indexes.sh"
rootdn="cn=admin,$suffix"
count_of() {  # count_of KIND: the count --changes gives KIND (0 when absent)
  local n
  n=$(tr ',' '\n' <<< "$spec" | sed -n "s/^$1=//p")
  echo "${n:-0}"
}
n_modify=$(count_of modify)
n_modrdn=$(count_of modrdn)
n_delete=$(count_of delete)

# The inputs, outside the timed region.
changes="$work/changes-$entries-$n_modify-$n_modrdn-$n_delete.ldif"
no_modrdn="${changes%.ldif}-no-modrdn.ldif"
modify_only="${changes%.ldif}-modify-only.ldif"
"$gen" --entries "$entries" --seed 1 --changes "$spec" -o "$changes"
only() {  # only KINDS FILE: the records of FILE whose changetype matches KINDS
  awk -v kinds="$1" 'BEGIN { RS = ""; ORS = "\n\n" }
    { t = $0; sub(/^.*\nchangetype: /, "", t); sub(/\n.*$/, "", t) }
    t ~ ("^(" kinds ")$")' "$2"
}
only "modify|delete" "$changes" > "$no_modrdn"
only "modify" "$changes" > "$modify_only"
clients=4
parts=()
for ((c = 0; c < clients; c++)); do parts+=("$changes.part$c"); done
awk -v n="$clients" -v out="$changes.part" 'BEGIN { RS = ""; ORS = "\n\n" }
  { print > (out ((NR - 1) % n)) }' "$changes"
records() { grep -c '^dn:' "$1" || true; }
[[ $(records "$changes") == $((n_modify + n_modrdn + n_delete)) &&
  $(records "$no_modrdn") == $((n_modify + n_delete)) &&
  $(records "$modify_only") == "$n_modify" &&
  $(cat "${parts[@]}" | records -) == $((n_modify + n_modrdn + n_delete)) ]] ||
  { echo "$changes: $(records "$changes") records, not $((n_modify + n_modrdn + n_delete))" >&2; exit 1; }
cat "$changes" "$no_modrdn" "$modify_only" "${parts[@]}" > /dev/null

conf() {  # conf DBDIR: slapd.conf of a database, with the workload indexes
  slapd_conf "$1" 17179869184 "rootdn \"$rootdn\"
rootpw secret
sizelimit unlimited
$dbnosync
$WORKLOAD_INDEX_LINES"
}

base="$work/modify-base"
rm -rf "$base" && mkdir -p "$base"
conf "$base" > "$base.conf"
"$dirload" add --progress never -f "$base.conf" -l "$ldif" > /dev/null

# slapmodify -q on a copy, on the first two delete records: whether it
# survives a second delete (file of the slapmodify-q job accordingly).
q_file=$no_modrdn
if ((n_delete >= 2)); then
  probe="$work/modify-probe"
  rm -rf "$probe" && cp -a "$base" "$probe"
  conf "$probe" > "$probe.conf"
  only "delete" "$changes" | awk 'BEGIN { RS = ""; ORS = "\n\n" } NR <= 2' > "$probe.ldif"
  q_status=0
  slapmodify -q -f "$probe.conf" -l "$probe.ldif" > "$probe.out" 2>&1 || q_status=$?
  if ((q_status != 0)); then
    echo "slapmodify -q: exit status $q_status on two delete records (on a copy):" \
      "the slapmodify-q job gets the modify records alone" >&2
    q_file=$modify_only
  fi
  rm -rf "$probe"
fi

jobs=(slapmodify slapmodify-q ldapmodify-1 ldapmodify-4)
# A dirload without the command answers `modify --help` with its general
# help (status 0), so the usage line is what tells.
modify_help=$("$dirload" modify --help 2>&1 || true)
if grep -Eq '^Usage: .* modify( |$)' <<< "$modify_help"; then
  jobs+=(dirload dirload-no-modrdn)
else
  echo "dirload modify: not in $dirload ('dirload modify --help' shows no modify usage):" \
    "its jobs are skipped" >&2
fi
declare -A file_of=([slapmodify]=$no_modrdn [slapmodify-q]=$q_file [ldapmodify-1]=$changes
  [ldapmodify-4]=$changes [dirload]=$changes [dirload-no-modrdn]=$no_modrdn)

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
  stop_slapd
  exit 1
}
stop_slapd() {
  [[ -n $slapd_pid ]] || return 0
  kill "$slapd_pid"
  wait "$slapd_pid" 2> /dev/null || true
  slapd_pid=
}
trap stop_slapd EXIT

# apply_clients PART...: one ldapmodify -c per part, side by side; fails
# when any record failed (client N's errors in $work/client-N.err).
apply_clients() {
  local n p pids=() failed=0
  for ((n = 1; n <= $#; n++)); do
    ldapmodify -c -x -H "ldap://127.0.0.1:$port" -D "$rootdn" -w secret -f "${!n}" \
      > /dev/null 2> "$work/client-$n.err" &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || failed=1; done
  for ((n = 1; n <= $#; n++)); do
    if [[ -s $work/client-$n.err ]]; then
      echo "${!n}: $(grep -c '^ldap_' "$work/client-$n.err") records failed, first:" \
        "$(head -3 "$work/client-$n.err")" >&2
      failed=1
    fi
  done
  return "$failed"
}
export -f apply_clients
export port rootdn work

cpu_ticks() { awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"; }
ticks_per_s=$(getconf CLK_TCK)

# slapd_run RESULTS NAME DBDIR PART...: slapd on DBDIR, the clients timed as
# timed_run times a command; appends "NAME wall rss_kb disk_bytes cpu_s".
slapd_run() {
  local results=$1 name=$2 db=$3
  shift 3
  start_slapd "$db.conf"
  local c0 c1 t0 t1 rss user sys size
  sync
  c0=$(cpu_ticks "$slapd_pid")
  t0=$(date +%s.%N)
  /usr/bin/time -f "%M %U %S" -o "$work/time.out" bash -c 'apply_clients "$@"' clients "$@" \
    > "$work/cmd.out" 2>&1 || { cat "$work/cmd.out" >&2; echo "$name failed" >&2; stop_slapd; exit 1; }
  sync -f "$db"
  t1=$(date +%s.%N)
  c1=$(cpu_ticks "$slapd_pid")
  rss=$(awk '/^VmHWM:/ { print $2 }' "/proc/$slapd_pid/status")
  stop_slapd
  read -r _ user sys < <(tail -n1 "$work/time.out")
  size=$(($(du -sk "$db" | cut -f1) * 1024))
  printf '%s %.3f %s %s %.2f\n' "$name" "$(echo "$t1 - $t0" | bc -l)" "$rss" "$size" \
    "$(echo "$user + $sys + ($c1 - $c0) / $ticks_per_s" | bc -l)" | tee -a "$results"
}

# applied DBDIR: "ENTRIES ALIASES MOVED" read back from the database: the
# entries, the mail aliases the modify records added, and the people whose
# DN names another department than their ou attribute (moved by modrdn).
applied() {
  slapcat -f "$1.conf" -o ldif-wrap=no 2> /dev/null | awk 'BEGIN { RS = ""; FS = "\n" }
    { dn = ""; ou = ""
      for (i = 1; i <= NF; i++) {
        if ($i ~ /^dn: /) dn = substr($i, 5)
        else if ($i ~ /^ou: /) ou = substr($i, 5)
        else if ($i ~ /^mail: alias-/) aliases++
      }
      n++
      if (dn ~ /^uid=/) { split(dn, rdns, ","); d = substr(rdns[2], 4); if (d != ou) moved++ }
    }
    END { print n + 0, aliases + 0, moved + 0 }'
}
# content DBDIR SKIP: a digest of the entries, independent of entry and value
# order, without the attributes SKIP matches (a regular expression).
content() {
  slapcat -f "$1.conf" -o ldif-wrap=no 2> /dev/null |
    awk -v skip="^($2):" 'BEGIN { RS = ""; FS = "\n" }
      { for (i = 2; i <= NF; i++) if ($i !~ skip) print $1 "\t" $i }' |
    LC_ALL=C sort | md5sum | cut -d' ' -f1
}
# What a change sets; slapmodify (2.5.13 here) also gives every entry it
# modifies a new entryUUID and createTimestamp, so its group leaves out those
# of creation too.
changed_attrs="entryCSN|modifyTimestamp|modifiersName"
created_attrs="entryUUID|createTimestamp|creatorsName"

# expected FILE: "ENTRIES ALIASES MOVED" once FILE is applied.
expected() {
  local deletes moves
  deletes=$(grep -c '^changetype: delete$' "$1" || true)
  moves=$(grep -c '^changetype: modrdn$' "$1" || true)
  echo "$((entries - deletes)) $(grep -c '^changetype: modify$' "$1" || true) $moves"
}
# indexes DBDIR: dirload verify's verdict on the twin's indexes.
indexes() {
  { "$dirload" verify -f "$1.conf" 2>&1 || true; } | sed -n 's/^verdict: \(problems found: \)\{0,1\}//p' | tail -n1
}

# run_job JOB DBDIR FILE: the timed command of JOB; exits (it runs in a
# subshell) when the command fails.
run_job() {
  local job=$1 db=$2 file=$3
  case $job in
    slapmodify) timed_run "$results" "modify:$job" "$db" 0 slapmodify -f "$db.conf" -l "$file" ;;
    slapmodify-q) timed_run "$results" "modify:$job" "$db" 0 slapmodify -q -f "$db.conf" -l "$file" ;;
    ldapmodify-1) slapd_run "$results" "modify:$job" "$db" "$file" ;;
    ldapmodify-4) slapd_run "$results" "modify:$job" "$db" "${parts[@]}" ;;
    dirload*) timed_run "$results" "modify:$job" "$db" 0 "$dirload" modify -f "$db.conf" -l "$file" ;;
  esac
}

results="$work/modify-results.txt"
: > "$results"
declare -A digest=() verdict=() failed=()
for ((i = 1; i <= runs; i++)); do
  for job in "${jobs[@]}"; do
    [[ -z ${failed[$job]:-} ]] || continue
    db="$work/modify-$job"
    file=${file_of[$job]}
    rm -rf "$db" && cp -a "$base" "$db"
    conf "$db" > "$db.conf"
    if ! (run_job "$job" "$db" "$file"); then
      failed[$job]="FAILED in round $i (its output above)"
    else
      got=$(applied "$db" || echo "(slapcat failed)")
      if [[ $got != "$(expected "$file")" ]]; then
        failed[$job]="FAILED in round $i: entries, aliases, moved $got, expected $(expected "$file")"
        echo "modify:$job: ${failed[$job]}" >&2
      elif ((i == 1)); then
        skip=$changed_attrs
        [[ $job == slapmodify* || $job == dirload-no-modrdn ]] && skip="$changed_attrs|$created_attrs"
        digest[$job]=$(content "$db" "$skip")
        verdict[$job]=$(indexes "$db")
      fi
    fi
    rm -rf "$db"
  done
done
for job in "${!failed[@]}"; do
  awk -v job="modify:$job" '$1 != job' "$results" > "$results.kept"
  mv "$results.kept" "$results"
done

report "$results" "modify=modify:slapmodify"
echo
echo "changes: $spec (file: $(du -b "$changes" | cut -f1) bytes)${dbnosync:+, with dbnosync};"
echo "every record of the jobs listed with a speed applied (entries, aliases and moves"
echo "read back); indexes: dirload verify after round 1"
printf "%-26s %8s %10s  %s\n" "job" "records" "records/s" "indexes"
for job in "${jobs[@]}"; do
  if [[ -n ${failed[$job]:-} ]]; then
    printf "%-26s %8d %10s  %s\n" "modify:$job" "$(records "${file_of[$job]}")" - "${failed[$job]}"
    continue
  fi
  awk -v job="modify:$job" '$1 == job { print $2 }' "$results" | sort -g |
    awk -v job="modify:$job" -v n="$(records "${file_of[$job]}")" -v v="${verdict[$job]}" \
      '{ w[NR] = $1 }
      END { m = (NR % 2) ? w[(NR + 1) / 2] : (w[NR / 2] + w[NR / 2 + 1]) / 2
            printf "%-26s %8d %10.0f  %s\n", job, n, n / m, v }'
done
same() {  # same JOB...: whether those of the jobs that ran on one file left equal contents
  local j ran=()
  for j in "$@"; do [[ -n ${digest[$j]:-} && ${file_of[$j]} == "${file_of[$1]}" ]] && ran+=("$j"); done
  ((${#ran[@]} > 1)) || return 0
  for j in "${ran[@]}"; do
    if [[ ${digest[$j]} != "${digest[${ran[0]}]}" ]]; then
      echo "content DIFFERS between ${ran[*]} (round 1)"
      return 0
    fi
  done
  echo "content equal: ${ran[*]} (round 1)"
}
same ldapmodify-1 ldapmodify-4 dirload
same slapmodify slapmodify-q dirload-no-modrdn
((${#failed[@]} == 0))
