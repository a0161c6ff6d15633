#!/usr/bin/env bash
# Runs OpenLDAP's own regression suite (tests/scripts and the ITS regression
# scripts of the source of the installed slapd) against the installed slapd,
# once with slapadd loading the databases and once with dirload standing in
# for it (and, with --tools add,cat,index, for slapcat and slapindex too),
# then writes a table of both results per script.
#
# OpenLDAP's source is fetched at run time with `apt-get source` (Debian's
# source package of the installed slapd version); nothing of it is kept in
# this repository. Only the client tools and the test programs are built;
# slapd itself and its modules are the installed ones (/usr/sbin/slapd,
# /usr/lib/ldap).
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: scripts/openldap-suite.sh [OPTIONS]

Runs OpenLDAP's test scripts against the installed slapd, with slapadd and
with dirload standing in for slapadd, and writes a table of the results.

Options:
  --tools LIST      the slapd tools dirload stands in for: add (default) or
                    add,cat,index (any comma-separated subset of add,cat,index)
  --only PATTERN    run only the scripts whose name matches this extended
                    regular expression (e.g. 'test00[1-5]|its8521')
  --dirload PATH    the dirload binary (default: build/tools/dirload of this
                    repository, else dirload on PATH)
  --work DIR        where OpenLDAP's source is fetched and built, and where
                    logs and results go (default /var/tmp/dirload-openldap-suite)
  --jobs N          parallel jobs for building OpenLDAP's test programs
                    (default 2); the scripts themselves run one at a time
  --modes LIST      which runs to make: slapadd,dirload (default), or one of them
  --timeout SECS    time limit for one script run (default 1800)
  --baseport N      first of the seven TCP ports the scripts use, plus one
                    (default 19010: ports 19011-19017)
  --reuse-slapadd   take a script's slapadd result from an earlier run (in
                    WORK/logs) instead of running it again: slapadd's results
                    depend on the installed slapd only
  --no-build-deps   do not install OpenLDAP's build dependencies
  --out DIR         where the table goes (default WORK/results): suite.md,
                    suite.csv
  -h, --help        this help

Needs root the first time: it adds a deb-src line for the installed
distribution (/etc/apt/sources.list.d/dirload-src.sources) when apt has none,
runs apt-get update, apt-get source openldap=VERSION and apt-get build-dep.

Results: pass, FAIL(rc), skip (the script says it skipped itself) or
timeout. A failing run's test directory is kept under WORK/runs/SCRIPT.MODE
and its output under WORK/logs/SCRIPT.MODE.out; what the tools printed (and
the command lines) under WORK/logs/SCRIPT.MODE.tools.
EOF
}

die() {
  echo "openldap-suite: $*" >&2
  exit 1
}
note() { echo "openldap-suite: $*" >&2; }

root=$(cd "$(dirname "$0")/.." && pwd)
tools=add
only=
dirload=
work=/var/tmp/dirload-openldap-suite
jobs=2
modes=slapadd,dirload
timeout_secs=1800
baseport=19010
build_deps=yes
reuse_slapadd=no
out=

while (($#)); do
  case "$1" in
    --tools) tools=${2:?--tools needs a value}; shift 2 ;;
    --only) only=${2:?--only needs a pattern}; shift 2 ;;
    --dirload) dirload=${2:?--dirload needs a path}; shift 2 ;;
    --work) work=${2:?--work needs a directory}; shift 2 ;;
    --jobs) jobs=${2:?--jobs needs a number}; shift 2 ;;
    --modes) modes=${2:?--modes needs a value}; shift 2 ;;
    --timeout) timeout_secs=${2:?--timeout needs seconds}; shift 2 ;;
    --baseport) baseport=${2:?--baseport needs a number}; shift 2 ;;
    --no-build-deps) build_deps=no; shift ;;
    --reuse-slapadd) reuse_slapadd=yes; shift ;;
    --out) out=${2:?--out needs a directory}; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument '$1'" ;;
  esac
done

IFS=, read -r -a tool_list <<<"$tools"
((${#tool_list[@]})) || die "--tools: empty list"
for t in "${tool_list[@]}"; do
  case "$t" in add | cat | index) ;; *) die "--tools: '$t' is not one of add, cat, index" ;; esac
done
IFS=, read -r -a mode_list <<<"$modes"
for m in "${mode_list[@]}"; do
  case "$m" in slapadd | dirload) ;; *) die "--modes: '$m' is not slapadd or dirload" ;; esac
done
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "--jobs: '$jobs' is not a positive number"
[[ $timeout_secs =~ ^[1-9][0-9]*$ ]] || die "--timeout: '$timeout_secs' is not a positive number"
[[ $baseport =~ ^[1-9][0-9]*$ ]] || die "--baseport: '$baseport' is not a port number"

if [[ -z $dirload ]]; then
  if [[ -x $root/build/tools/dirload ]]; then
    dirload=$root/build/tools/dirload
  else
    dirload=$(command -v dirload) || die "no dirload binary: build it (build/tools/dirload) or give --dirload PATH"
  fi
fi
[[ -x $dirload ]] || die "--dirload: '$dirload' is not an executable file"
dirload=$(cd "$(dirname "$dirload")" && pwd)/$(basename "$dirload")

slapd_bin=/usr/sbin/slapd
modules_dir=/usr/lib/ldap
[[ -x $slapd_bin ]] || die "$slapd_bin is missing: install slapd (apt-get install slapd)"
[[ -d $modules_dir ]] || die "$modules_dir is missing: slapd's modules are not installed"
version=$(dpkg-query -W -f='${Version}' slapd 2>/dev/null) || die "the slapd package is not installed"
[[ -n $version ]] || die "the slapd package is not installed"
note "installed slapd: $version"

mkdir -p "$work"
work=$(cd "$work" && pwd)
out=${out:-$work/results}
mkdir -p "$out" "$work/logs" "$work/runs"

# apt has a deb-src entry when some source list names deb-src.
have_deb_src() {
  grep -rqsE '^[[:space:]]*(deb-src[[:space:]]|Types:.*deb-src)' \
    /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null
}

ensure_deb_src() {
  have_deb_src && return 0
  ((EUID == 0)) || die "apt has no deb-src entry: run as root once, so this script can add one"
  local codename
  codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
  [[ -n $codename ]] || die "cannot tell the distribution's code name from /etc/os-release"
  local list=/etc/apt/sources.list.d/dirload-src.sources
  note "adding $list (deb-src for $codename main) and running apt-get update"
  cat >"$list" <<EOF
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: $codename $codename-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  apt-get update -q >"$work/logs/apt-get-update.log" 2>&1 ||
    die "apt-get update failed: see $work/logs/apt-get-update.log"
}

# The unpacked source of the installed version: WORK/openldap-UPSTREAM.
upstream=${version#*:}
upstream=${upstream%-*}
src=$work/openldap-$upstream
if [[ ! -f $src/configure ]]; then
  ensure_deb_src
  note "fetching OpenLDAP's source: apt-get source openldap=$version"
  (cd "$work" && apt-get source -q "openldap=$version") >"$work/logs/apt-get-source.log" 2>&1 ||
    die "apt-get source openldap=$version failed: see $work/logs/apt-get-source.log"
  [[ -f $src/configure ]] || die "apt-get source did not unpack $src"
fi
tests=$src/tests

if [[ ! -f $src/config.status ]]; then
  if [[ $build_deps == yes ]]; then
    ((EUID == 0)) || die "installing the build dependencies needs root (or give --no-build-deps)"
    ensure_deb_src
    note "installing OpenLDAP's build dependencies: apt-get build-dep openldap=$version"
    DEBIAN_FRONTEND=noninteractive apt-get build-dep -y -q "openldap=$version" \
      >"$work/logs/apt-get-build-dep.log" 2>&1 ||
      die "apt-get build-dep failed: see $work/logs/apt-get-build-dep.log"
  fi
  # Debian's own configure options, so the suite sees the features of the
  # installed slapd (backends and overlays as modules, SASL, GnuTLS).
  [[ -f $src/debian/configure.options ]] || die "$src/debian/configure.options is missing"
  note "configuring OpenLDAP with Debian's options"
  (
    cd "$src"
    eval "set -- $(grep -v '^#' debian/configure.options | tr '\n' ' ')"
    ./configure "$@" --prefix=/usr --sysconfdir=/etc --localstatedir=/var
  ) >"$work/logs/configure.log" 2>&1 || die "configure failed: see $work/logs/configure.log"
fi

if [[ ! -x $tests/progs/slapd-tester || ! -x $src/clients/tools/ldapsearch ]]; then
  note "building the client tools and test programs (make -j$jobs)"
  {
    make -C "$src/include" &&
      make -C "$src/libraries" -j"$jobs" &&
      make -C "$src/clients/tools" -j"$jobs" &&
      make -C "$tests/progs" -j"$jobs"
  } >"$work/logs/make.log" 2>&1 || die "building failed: see $work/logs/make.log"
fi

# Debian's source package leaves the schema files derived from RFCs out of
# servers/slapd/schema (they are in debian/schema): put them back where the
# scripts look for them (tests/schema links there).
for f in "$src"/debian/schema/*.schema "$src"/debian/schema/*.ldif; do
  [[ -f $f && ! -e $src/servers/slapd/schema/$(basename "$f") ]] || continue
  cp "$f" "$src/servers/slapd/schema/"
done

# slapd as the scripts call it (../servers/slapd/slapd): the installed one,
# or dirload for the tool modes dirload stands in for.
install_slapd_wrapper() {
  local wrapper=$src/servers/slapd/slapd
  rm -f "$wrapper"
  cat >"$wrapper" <<EOF
#!/usr/bin/env bash
# The slapd the test scripts run: $slapd_bin, except for the tool modes
# named in DIRLOAD_SUITE_TOOLS, which run dirload. Written by
# openldap-suite.sh; tool invocations are logged to DIRLOAD_SUITE_LOG.
slapd=$slapd_bin
dirload=$dirload
log=\${DIRLOAD_SUITE_LOG:-/dev/null}
case "\${1-}" in
  -Ta | -Tadd | -Tslapadd) cmd=add ;;
  -Tc | -Tcat | -Tslapcat) cmd=cat ;;
  -Ti | -Tindex | -Tslapindex) cmd=index ;;
  -T*) cmd=other ;;
  *) exec "\$slapd" "\$@" ;;
esac
if [[ \$cmd != other && ",\${DIRLOAD_SUITE_TOOLS-}," == *",\$cmd,"* ]]; then
  shift
  echo "+ dirload \$cmd \$*" >>"\$log"
  "\$dirload" "\$cmd" "\$@" 2> >(tee -a "\$log" >&2)
else
  echo "+ slapd \$*" >>"\$log"
  "\$slapd" "\$@" 2> >(tee -a "\$log" >&2)
fi
rc=\$?
echo "= exit \$rc" >>"\$log"
exit \$rc
EOF
  chmod 755 "$wrapper"
  # The configuration templates load modules from the build tree's module
  # directories (modulepath ../servers/slapd/back-mdb/ and the like): link
  # the installed modules there.
  local d
  for d in "$src"/servers/slapd/back-* "$src/servers/slapd/overlays" "$src/servers/slapd/pwmods"; do
    [[ -d $d ]] || continue
    ln -sf "$modules_dir"/*.la "$d"/
  done
}
install_slapd_wrapper

# The scripts to run: tests/scripts/test* and the ITS regression scripts.
scripts=()
for f in "$tests"/scripts/test*; do
  name=$(basename "$f")
  case "$name" in *.py | *~ | *.bak | *.orig | *.sav) continue ;; esac
  scripts+=("$name")
done
for f in "$tests"/data/regressions/its*/its*; do
  [[ -f $f && $(basename "$f") == "$(basename "$(dirname "$f")")" ]] && scripts+=("$(basename "$f")")
done
if [[ -n $only ]]; then
  selected=()
  for s in "${scripts[@]}"; do
    [[ $s =~ $only ]] && selected+=("$s")
  done
  scripts=("${selected[@]}")
fi
((${#scripts[@]})) || die "no script matches --only '$only'"

# Why a run failed: the tool's error when a stand-in tool failed, else the
# last lines the script printed.
failure_reason() {
  local output=$1 toollog=$2 reason=
  if [[ -f $toollog ]]; then
    # The failing command and the last line it printed that is no note.
    reason=$(awk '/^\+ /{cmd=$0; last=""; next} /^= exit [1-9]/{print cmd ": " last; exit}
                  !/^= exit/ && !/note:|^phase [0-9]/ {last=$0}' "$toollog")
  fi
  if [[ -z $reason ]]; then
    reason=$(grep -v '^>>>>>' "$output" | grep -v '^[[:space:]]*$' | tail -n 3 | paste -sd '/' -)
  fi
  reason=${reason//|/\\|}
  printf '%s' "${reason:0:300}"
}

# A script that failed or timed out may leave its servers running: stop the
# slapd processes working in the tests directory.
stop_leftover_servers() {
  local p
  for p in /proc/[0-9]*; do
    [[ $(readlink "$p/exe" 2>/dev/null) == "$slapd_bin" &&
      $(readlink "$p/cwd" 2>/dev/null) == "$tests" ]] || continue
    kill "${p#/proc/}" 2>/dev/null || true
  done
}

# Runs one script in one mode; prints its result.
run_one() {
  local script=$1 mode=$2 key=$1.$2
  local output=$work/logs/$key.out toollog=$work/logs/$key.tools
  rm -rf "$tests/testrun" "$work/runs/$key"
  : >"$toollog"
  local suite_tools=
  [[ $mode == dirload ]] && suite_tools=$tools
  local rc=0
  (
    cd "$tests"
    DIRLOAD_SUITE_TOOLS=$suite_tools DIRLOAD_SUITE_LOG=$toollog SLAPD_BASEPORT=$baseport \
      timeout --kill-after=30 "$timeout_secs" ./run -b mdb "$script"
  ) >"$output" 2>&1 || rc=$?
  local result
  if ((rc == 124 || rc == 137)); then
    result=timeout
  elif ((rc != 0)); then
    result="FAIL($rc)"
  elif ! grep -q '>>>>> Test succeeded' "$output" &&
    grep -qiE 'test skipped|skipping test|skip(ped)?[.]?$' "$output"; then
    # A script that skips itself ends before its last line; its8444 says
    # "skipped" in its description and then succeeds.
    result=skip
  else
    result=pass
  fi
  if [[ $result != pass && $result != skip && -d $tests/testrun ]]; then
    mv "$tests/testrun" "$work/runs/$key"
  fi
  stop_leftover_servers
  echo "$result" >"$work/logs/$key.result"
  echo "$result"
}

csv=$out/suite.csv
md=$out/suite.md
echo "script,slapadd,dirload,reason" >"$csv"
{
  echo "| script | slapadd | dirload ($tools) | reason for a difference |"
  echo "|---|---|---|---|"
} >"$md"

same=0
differ=0
for script in "${scripts[@]}"; do
  ra=- rd=- reason=
  for m in "${mode_list[@]}"; do
    if [[ $m == slapadd && $reuse_slapadd == yes && -s $work/logs/$script.slapadd.result ]]; then
      r=$(<"$work/logs/$script.slapadd.result")
    else
      note "$script with $m ..."
      r=$(run_one "$script" "$m")
    fi
    if [[ $m == slapadd ]]; then ra=$r; else rd=$r; fi
  done
  if [[ $ra != - && $rd != - && $ra != "$rd" ]]; then
    if [[ $rd != pass && $rd != skip ]]; then
      reason=$(failure_reason "$work/logs/$script.dirload.out" "$work/logs/$script.dirload.tools")
    else
      reason="slapadd: $(failure_reason "$work/logs/$script.slapadd.out" "$work/logs/$script.slapadd.tools")"
    fi
    differ=$((differ + 1))
  else
    same=$((same + 1))
  fi
  note "$script: slapadd $ra, dirload $rd${reason:+ ($reason)}"
  printf '| %s | %s | %s | %s |\n' "$script" "$ra" "$rd" "$reason" >>"$md"
  printf '%s,%s,%s,"%s"\n' "$script" "$ra" "$rd" "${reason//\"/\"\"}" >>"$csv"
done

note "${#scripts[@]} scripts: $same alike, $differ differ; table in $md and $csv"
