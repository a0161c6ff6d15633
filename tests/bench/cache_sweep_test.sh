#!/usr/bin/env bash
# The cache sweep's --quick grid, end to end: it runs on a small input and
# writes its CSV, markdown table and plots, and the figures in them show that
# the options reached the engine.
#
# usage: cache_sweep_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1
build=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/dirload-sweep-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

bash "$src/bench/run_cache_sweep.sh" --quick --entries 1500 --build "$build" --dir "$work" \
  --out "$work/out" > "$work/log" 2>&1 || { cat "$work/log" >&2; fail "the sweep failed"; }

out=$work/out
for f in sweep.csv sweep.md wall.png pages_read.png pages_written.png; do
  [[ -s $out/$f ]] || fail "$f missing or empty"
done
for f in wall.png pages_read.png pages_written.png; do
  [[ $(head -c 8 "$out/$f" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] ||
    fail "$f is not a PNG"
done

# field VARIANT SIZE COLUMN: that run's value from the CSV.
field() {
  awk -F, -v v="\"$1\"" -v s="\"$2\"" -v c="$3" '
    NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    $1 == v && $3 == s { x = $col[c]; gsub(/"/, "", x); print x }' "$out/sweep.csv"
}

# 8 variants: 6 at all three sizes, IDL-cache-off at two, add-no-index at three.
rows=$(($(wc -l < "$out/sweep.csv") - 1))
((rows == 23)) || fail "expected 23 runs in sweep.csv, found $rows"
for v in add-no-index add-cache-idl add-cache-idl-lowprio add-sort index-cache-idl-off \
  index-cache-idl index-cache-idl-mmap index-sort; do
  grep -q "^| $v | 256K |" "$out/sweep.md" || fail "sweep.md lacks $v at 256K"
done

grep -q "^Wall seconds (medians), by variant and cache size:" "$out/sweep.md" ||
  fail "sweep.md lacks the wall-time table"
grep -q "^| index-sort | [0-9.]* | [0-9.]* | [0-9.]* |$" "$out/sweep.md" ||
  fail "sweep.md's tables lack a row of three sizes for index-sort"

# The cache size reached the engine (read back with get_cachesize) and grows
# with the option.
small=$(field index-cache-idl 256K cache_bytes)
large=$(field index-cache-idl 16M cache_bytes)
((small >= 262144 && small < 1048576)) || fail "256K cache read back as $small bytes"
((large >= 16777216)) || fail "16M cache read back as $large bytes"

# A pool far smaller than the index data thrashes: pages go out and come back.
for v in index-cache-idl-off index-cache-idl add-cache-idl; do
  rd_small=$(field "$v" 256K pages_read)
  rd_large=$(field "$v" 16M pages_read)
  ev_small=$(field "$v" 256K dirty_evictions)
  ((rd_small > 10 * (rd_large + 1))) || fail "$v: pages read $rd_small at 256K vs $rd_large at 16M"
  ((ev_small > 1000)) || fail "$v: only $ev_small dirty evictions at 256K"
done
# ... while the sort method appends in key order and barely reads at any size.
sort_read=$(field index-sort 256K pages_read)
idl_read=$(field index-cache-idl 256K pages_read)
((sort_read * 10 < idl_read)) || fail "sort read $sort_read pages at 256K, cache $idl_read"

# Priority is read back from the engine, per variant.
[[ $(field add-cache-idl-lowprio 1M id2entry_priority) == very_low ]] ||
  fail "id2entry priority not very_low in the lowprio variant"
[[ $(field add-cache-idl 1M id2entry_priority) == default ]] ||
  fail "id2entry priority not default in add-cache-idl"
# --mmap raised the mapping limit (read back with get_mp_mmapsize).
mm=$(field index-cache-idl-mmap 1M mmap_size)
((mm >= 1 << 30)) || fail "--mmap read back as mmap size $mm"
# IDL cache off means no list was kept: every ID went straight to its table
# (a flush each), and nothing was evicted.
off_miss=$(field index-cache-idl-off 256K idl_misses)
((off_miss > 0 && off_miss == $(field index-cache-idl-off 256K idl_flushes))) ||
  fail "IDL cache off: $off_miss misses but not one flush each"
(($(field index-cache-idl-off 256K idl_evictions) == 0)) || fail "IDL cache off evicted"
(($(field index-cache-idl 256K idl_evictions) > 0)) || fail "a 200-list IDL cache never evicted"
echo "cache sweep --quick: all checks passed"
