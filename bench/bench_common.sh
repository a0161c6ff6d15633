# Shared by the benchmark drivers (sourced, not run): options, the generated
# input, the timed run and the table of medians.
#
# After `bench_setup "$@"`: $entries $runs $work $build $dirload $gen $ldif
# $suffix $root $tool_threads are set and the LDIF is generated and in the
# page cache. --tool-threads N sets slapd.conf's tool-threads (default 2).
# Set need_slapd=0 first when the driver does not run OpenLDAP.

# generate_ldif GEN ENTRIES FILE [ARGS...]: FILE holds dirload-gen's output
# for ENTRIES entries (seed 1, and ARGS, e.g. --changes), made unless it is
# there. The generator writes FILE.part, renamed when it is done: a
# generation that was stopped leaves no FILE that a later run would take for
# the whole input.
generate_ldif() {
  local gen=$1 n=$2 file=$3
  shift 3
  [[ -s $file ]] && return 0
  "$gen" --entries "$n" --seed 1 "$@" -o "$file.part"
  mv "$file.part" "$file"
}

bench_setup() {
  entries=285000
  runs=3
  work=/tmp/dirload-bench
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  build="$root/build"
  tool_threads=2
  while (($#)); do
    case "$1" in
      --entries) entries=$2; shift 2 ;;
      --runs) runs=$2; shift 2 ;;
      --dir) work=$2; shift 2 ;;
      --build) build=$2; shift 2 ;;
      --tool-threads) tool_threads=$2; shift 2 ;;
      *) echo "unknown option $1" >&2; exit 2 ;;
    esac
  done
  dirload="$build/tools/dirload"
  gen="$build/bench/dirload-gen"
  [[ -x $dirload && -x $gen ]] || { echo "build first: cmake --build $build" >&2; exit 2; }
  if [[ ${need_slapd:-1} == 1 ]] && ! command -v slapadd >/dev/null; then
    echo "slapadd missing: apt-get install slapd" >&2
    exit 2
  fi
  [[ -x /usr/bin/time ]] || { echo "/usr/bin/time missing: apt-get install time" >&2; exit 2; }
  mkdir -p "$work"
  ldif="$work/people-$entries.ldif"
  generate_ldif "$gen" "$entries" "$ldif"
  suffix="dc=example,dc=com"
  cat "$ldif" > /dev/null  # into the page cache, outside the timed region
  warm_memory
}

# Touches the free memory once (bench/warm_memory.cc says why), if the
# build has the tool.
warm_memory() {
  local tool="${build:-}/bench/dirload-warm-memory"
  if [[ -x $tool ]]; then "$tool" >&2 || true; fi
}

# ab_setup "$@": the options of the drivers that run two builds in turn
# (--before BUILD --after BUILD [--entries N] [--runs R] [--formats F]
# [--dir WORKDIR]); the caller sets the defaults of $entries $runs $formats
# $work first. Sets $before $after $suffix $ldif, generates the LDIF with
# the "after" build's dirload-gen and touches the free memory once.
ab_setup() {
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
  local b
  for b in "$before" "$after"; do
    [[ -n $b && -x $b/tools/dirload ]] ||
      { echo "--before and --after: builds with tools/dirload" >&2; exit 2; }
  done
  local gen="$after/bench/dirload-gen"
  [[ -x $gen ]] || { echo "no $gen: build dirload-gen in $after" >&2; exit 2; }
  [[ -x /usr/bin/time ]] || { echo "/usr/bin/time missing: apt-get install time" >&2; exit 2; }
  mkdir -p "$work"
  suffix="dc=example,dc=com"
  ldif="$work/people-$entries.ldif"
  generate_ldif "$gen" "$entries" "$ldif"
  cat "$ldif" > /dev/null
  build=$after warm_memory
}

# slapd_conf DBDIR MAXSIZE [EXTRA LINES]: a back-mdb slapd.conf on stdout.
slapd_conf() {
  cat <<CONF
include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/inetorgperson.schema
include /etc/ldap/schema/nis.schema
modulepath /usr/lib/ldap
moduleload back_mdb
tool-threads ${tool_threads:-2}
database mdb
suffix "$suffix"
directory $1
maxsize $2
${3:-}
CONF
}

# timed_run RESULTS NAME DBDIR FRESH COMMAND...: times COMMAND plus a sync of
# DBDIR (FRESH=1 empties DBDIR first) and appends
# "NAME wall rss_kb disk_bytes cpu_s" to RESULTS.
timed_run() {
  local results=$1 name=$2 db=$3 fresh=$4
  shift 4
  if [[ $fresh == 1 ]]; then rm -rf "$db" && mkdir -p "$db"; fi
  sync
  local t0 t1 rss user sys size
  t0=$(date +%s.%N)
  /usr/bin/time -f "%M %U %S" -o "$work/time.out" "$@" > "$work/cmd.out" 2>&1 ||
    { cat "$work/cmd.out" >&2; echo "$name failed" >&2; exit 1; }
  sync -f "$db"
  t1=$(date +%s.%N)
  read -r rss user sys < <(tail -n1 "$work/time.out")
  # Blocks in use, not apparent size: LMDB files are sparse up to the map size.
  size=$(($(du -sk "$db" | cut -f1) * 1024))
  printf '%s %.3f %s %s %.2f\n' "$name" "$(echo "$t1 - $t0" | bc -l)" "$rss" "$size" \
    "$(echo "$user + $sys" | bc -l)" | tee -a "$results"
}

# report RESULTS BASELINES: the table of medians. BASELINES maps a job's
# prefix (before ':') to its OpenLDAP job, e.g. "add=add:slapadd-q"; "=NAME"
# is the baseline of jobs without a prefix.
report() {
  echo
  echo "entries: $entries   LDIF: $(du -b "$ldif" | cut -f1) bytes   runs: $runs (medians)"
  printf "%-26s %8s %8s %12s %12s %9s\n" "job" "wall s" "CPU s" "peak RSS MB" "database MB" \
    "speed-up"
  awk -v baselines="$2" '
    { wall[$1] = wall[$1] " " $2; cpu[$1] = cpu[$1] " " $5; rss[$1] = $3; size[$1] = $4 }
    function median(list,   n, a, i, j, t) {
      n = split(list, a, " ")
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
      return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    END {
      n = split(baselines, pairs, ",")
      for (i = 1; i <= n; i++) { split(pairs[i], kv, "="); base_of[kv[1]] = kv[2] }
      for (k in wall) {
        prefix = index(k, ":") ? substr(k, 1, index(k, ":") - 1) : ""
        base = median(wall[base_of[prefix]])
        m = median(wall[k])
        printf "%-26s %8.2f %8.2f %12.1f %12.1f %8.1fx\n", k, m, median(cpu[k]), rss[k] / 1024, size[k] / 1e6, base / m | "sort"
      }
    }' "$1"
}
