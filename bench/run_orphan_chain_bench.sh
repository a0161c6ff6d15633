#!/bin/bash
# The deep orphan chain: one entry N levels below the suffix whose N-1
# ancestors never come, loaded with -c (rejected at the end) and without
# (the run stops there), on both formats. Each missing ancestor gets an ID
# reserved as slapadd reserves it, and the entry is rejected once the input
# ends; the time must grow linearly with N (it once grew with N^3).
#
#   bench/run_orphan_chain_bench.sh [--build DIR] [--dir WORK] [--depths "100 1000 ..."]
#
# Prints depth, format, -c or not, wall seconds and peak RSS, and the
# slapadd time for the same input when slapadd is installed (it rejects the
# entry too). The inputs are written outside the timed region.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build"
work=/tmp/dirload-orphan-chain
depths="100 200 400 1000 2000 4000 10000"
while (($#)); do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --dir) work=$2; shift 2 ;;
    --depths) depths=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
dirload="$build/tools/dirload"
[[ -x $dirload ]] || { echo "build first: cmake --build $build" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "/usr/bin/time missing: apt-get install time" >&2; exit 2; }
mkdir -p "$work"
suffix="dc=example,dc=com"

# The suffix, the chain's bottom entry (ou=lN,...,ou=l1,suffix), and one good
# entry after it, so the run must go on past the rejection with -c.
write_input() {
  local depth=$1 out=$2
  {
    printf 'dn: %s\nobjectClass: domain\ndc: example\n\n' "$suffix"
    printf 'dn: '
    for ((i = depth; i >= 1; i--)); do printf 'ou=l%d,' "$i"; done
    printf '%s\nobjectClass: organizationalUnit\nou: l%d\n\n' "$suffix" "$depth"
    printf 'dn: ou=ok,%s\nobjectClass: organizationalUnit\nou: ok\n\n' "$suffix"
  } > "$out"
}

slapadd_conf=""
if command -v slapadd > /dev/null; then
  slapadd_conf="$work/slapd.conf"
  cat > "$slapadd_conf" <<CONF
include /etc/ldap/schema/core.schema
moduleload back_mdb
database mdb
suffix "$suffix"
directory $work/slapadd-db
maxsize 1073741824
CONF
fi

printf '%-7s %-7s %-5s %9s %10s\n' depth format mode seconds peak_kb
for depth in $depths; do
  input="$work/chain-$depth.ldif"
  write_input "$depth" "$input"
  for format in native mdb; do
    for mode in -c stop; do
      rm -rf "$work/db"
      args=(add --db "$work/db" --suffix "$suffix" --format "$format" -l "$input" --progress never)
      [[ $mode == -c ]] && args+=(-c)
      # Exit status 1 is expected: the entry is rejected.
      /usr/bin/time -f '%e %M' -o "$work/time" "$dirload" "${args[@]}" > /dev/null 2>&1 || true
      read -r seconds kb < <(tail -1 "$work/time")
      printf '%-7s %-7s %-5s %9s %10s\n' "$depth" "$format" "$mode" "$seconds" "$kb"
    done
  done
  if [[ -n $slapadd_conf ]]; then
    rm -rf "$work/slapadd-db" && mkdir -p "$work/slapadd-db"
    /usr/bin/time -f '%e %M' -o "$work/time" slapadd -q -c -f "$slapadd_conf" -l "$input" \
      > /dev/null 2>&1 || true
    read -r seconds kb < <(tail -1 "$work/time")
    printf '%-7s %-7s %-5s %9s %10s\n' "$depth" slapadd -c "$seconds" "$kb"
  fi
done
