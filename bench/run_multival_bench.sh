#!/usr/bin/env bash
# back-mdb's `multival`, side by side with OpenLDAP in one run: the
# workload's generated directory (285,000 entries by default) followed by
# big groups (20 of 50,000 members by default: half groupOfNames with
# `member`, half groupOfUniqueNames with `uniqueMember`, each a window of
# the generated people), loaded with `multival member,uniqueMember 100,10`,
# the 15 workload indexes and `uniqueMember eq`, by the same slapd.conf
# (only the directory differs):
#   slapadd -q -f  vs  dirload add -f (slapd's format)
# Every timed command is followed by `sync -f` on its database directory;
# database sizes are blocks in use (LMDB maps its file sparsely). After the
# runs the two databases are checked: the benchmark of a wrong load proves
# nothing.
#
# usage: bench/run_multival_bench.sh [--entries N] [--runs R] [--groups G]
#          [--members M] [--dir WORKDIR] [--build BUILD]
set -euo pipefail
# shellcheck source=bench_common.sh
source "$(dirname "$0")/bench_common.sh"
# shellcheck source=workload_indexes.sh
source "$(dirname "$0")/workload_indexes.sh"
groups=20
members=50000
rest=()
while (($#)); do
  case "$1" in
    --groups) groups=$2; shift 2 ;;
    --members) members=$2; shift 2 ;;
    *) rest+=("$1"); shift ;;
  esac
done
bench_setup "${rest[@]}"

# The big groups, outside the timed region: people's DNs from the LDIF,
# each group a window of $members of them starting at a different place.
input="$work/multival-$entries-$groups-$members.ldif"
if [[ ! -s $input ]]; then
  grep '^dn: uid=' "$ldif" | cut -c5- > "$work/people.dns"
  people=$(wc -l < "$work/people.dns")
  ((members <= people)) || { echo "--members $members: only $people people" >&2; exit 2; }
  {
    cat "$ldif"
    echo
    awk -v groups="$groups" -v members="$members" -v n="$people" -v suffix="$suffix" '
      { dn[NR - 1] = $0 }
      END {
        for (g = 0; g < groups; g++) {
          unique = g % 2
          printf "dn: cn=big%d,ou=Groups,%s\n", g, suffix
          printf "objectClass: %s\n", unique ? "groupOfUniqueNames" : "groupOfNames"
          printf "cn: big%d\n", g
          start = (g * 7919) % n
          for (k = 0; k < members; k++) {
            printf "%s: %s\n", unique ? "uniqueMember" : "member", dn[(start + k) % n]
          }
          printf "\n"
        }
      }' "$work/people.dns"
  } > "$input"
fi
cat "$input" > /dev/null

maxsize=17179869184
lines="$WORKLOAD_INDEX_LINES
index uniqueMember eq
multival member,uniqueMember 100,10"
slapd_conf "$work/mv-slapadd" $maxsize "$lines" > "$work/mv-slapadd.conf"
slapd_conf "$work/mv-dirload" $maxsize "$lines" > "$work/mv-dirload.conf"

results="$work/multival-results.txt"
: > "$results"
run() { timed_run "$results" "$@"; }
for ((i = 1; i <= runs; i++)); do
  run add:slapadd-q "$work/mv-slapadd" 1 slapadd -q -f "$work/mv-slapadd.conf" -l "$input"
  run add:dirload-mdb "$work/mv-dirload" 1 "$dirload" add --progress never \
    -f "$work/mv-dirload.conf" -l "$input"
done

ldif=$input report "$results" "add=add:slapadd-q"
# The same entries, and the big groups' values in id2v as slapadd put them.
strip() {
  slapcat -f "$1" | grep -v -e '^entryUUID:' -e '^entryCSN:' -e '^createTimestamp:' \
    -e '^modifyTimestamp:'
}
if ! cmp -s <(strip "$work/mv-slapadd.conf") <(strip "$work/mv-dirload.conf"); then
  echo "slapcat of the two loads differs beyond generated values" >&2
  exit 1
fi
if ! cmp -s <(mdb_dump -s id2v "$work/mv-slapadd") <(mdb_dump -s id2v "$work/mv-dirload"); then
  echo "id2v differs" >&2
  exit 1
fi
values=$(mdb_stat -s id2v "$work/mv-dirload" | awk '/Entries/ {print $2}')
((values >= groups * members)) || { echo "id2v holds $values values" >&2; exit 1; }
for db in $(mdb_dump -l "$work/mv-slapadd"); do
  [[ $db == id2e ]] && continue
  a=$(mdb_stat -s "$db" "$work/mv-slapadd" | awk '/Entries/ {print $2}')
  b=$(mdb_stat -s "$db" "$work/mv-dirload" | awk '/Entries/ {print $2}')
  [[ $a == "$b" ]] || { echo "$db: $a records from slapadd, $b from dirload" >&2; exit 1; }
done
echo "checked: slapcat equal (generated values aside), id2v equal ($values values)," \
  "every sub-database has the same record count"
