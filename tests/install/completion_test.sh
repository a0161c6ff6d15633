#!/usr/bin/env bash
# The bash completion (completion/dirload.bash), sourced as bash-completion
# sources it and called as bash calls it: COMP_WORDS split where bash splits
# them (at blanks, and at '=' and ':'), COMP_CWORD, COMP_LINE and COMP_POINT
# set, and the function given the command, the word and the word before.
#
# usage: completion_test.sh COMPLETION_SCRIPT DIRLOAD
set -euo pipefail
script=$1
dirload=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/dirload-completion-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# shellcheck source=../../completion/dirload.bash
source "$script"
complete -p dirload >/dev/null || fail "the script does not register a completion for dirload"

# complete_line LINE: runs the completion with the cursor at the end of LINE and
# sets `got` to the replies, sorted, one per line.
complete_line() {
  local line=$1 part rest head
  local -a parts
  COMP_LINE=$line
  COMP_POINT=${#line}
  COMP_WORDS=()
  read -ra parts <<<"$line"
  for part in "${parts[@]}"; do
    while [[ $part == *[=:]* ]]; do
      head=${part%%[=:]*}
      [[ -n $head ]] && COMP_WORDS+=("$head")
      rest=${part#"$head"}
      COMP_WORDS+=("${rest:0:1}")
      part=${rest:1}
    done
    [[ -n $part ]] && COMP_WORDS+=("$part")
  done
  [[ $line == *" " ]] && COMP_WORDS+=("")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  # As bash runs it: errexit does not apply inside a completion function.
  set +e
  _dirload "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]-}"
  set -e
  got=$(printf '%s\n' "${COMPREPLY[@]}" | sort)
}

# expect LINE REPLY...: the completion of LINE is exactly the REPLYs.
expect() {
  local line=$1 want
  shift
  complete_line "$line"
  want=$(printf '%s\n' "$@" | sort)
  [[ $got == "$want" ]] || fail "'$line': got [${got//$'\n'/ }], want [${want//$'\n'/ }]"
}

# expect_has LINE REPLY...: the completion of LINE includes the REPLYs.
expect_has() {
  local line=$1 reply
  shift
  complete_line "$line"
  for reply in "$@"; do
    grep -qx -- "$reply" <<<"$got" || fail "'$line': no '$reply' among [${got//$'\n'/ }]"
  done
}

d=$dirload
# The commands, as dirload --help lists them.
commands=$("$d" --help | awk '/^Subcommands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
# shellcheck disable=SC2086
expect "$d " $commands
expect "$d s" schema-check search stat
expect "$d --v" --version

# Options of one command, and only that command's.
expect "$d add --ld" --ldif
expect "$d add --one" --one-pass
expect "$d cat --gz" --gzip
expect "$d stat --sch"
expect_has "$d verify --" --fix --json --jobs --examples --db --config

# Fixed sets of values, after the option or after --option=.
expect "$d add --backend " bdb lmdb
expect "$d add --format n" native
expect "$d add --backend=b" bdb
expect "$d search -b dc=x -s " base one sub children

# Files and directories.
mkdir "$work/dir.d"
touch "$work/data.ldif" "$work/slapd.conf"
expect "$d add -l $work/da" "$work/data.ldif"
expect "$d add -f $work/sl" "$work/slapd.conf"
expect "$d add --db $work/d" "$work/dir.d"
expect "$d cat -F $work/" "$work/dir.d"

# A flag takes no value: after it come options again, not files.
expect "$d modify --stats "
expect "$d add -q --qu" --quick

# Suffixes of the configuration named with -f: bash gives the word after
# its last '=' to replace, so the replies are what follows it.
cat >"$work/slapd.conf" <<'CONF'
include /etc/ldap/schema/core.schema
database mdb
suffix "dc=example,dc=com"
directory /var/lib/ldap
database mdb
SUFFIX dc=example,dc=org
database mdb
suffix "o=Example Corp,c=US"
CONF
expect "$d add -f $work/slapd.conf -b " "dc=example,dc=com" "dc=example,dc=org" \
  'o=Example\ Corp,c=US'
expect "$d add -f $work/slapd.conf -b dc=example,dc=c" "com"
expect "$d index --config=$work/slapd.conf --suffix o" 'o=Example\ Corp,c=US'
expect "$d add -b dc=ex"

# And of a cn=config directory named with -F.
mkdir -p "$work/slapd.d/cn=config"
printf 'dn: olcDatabase={1}mdb,cn=config\nolcSuffix: dc=config,dc=test\n' \
  >"$work/slapd.d/cn=config/olcDatabase={1}mdb.ldif"
expect "$d cat -F $work/slapd.d -b dc=con" "config,dc=test"

# compare's B side: its own files, directories and suffixes.
expect "$d compare --with-c" --with-config --with-config-dir
expect "$d compare --with-ldif $work/da" "$work/data.ldif"
expect "$d compare --with-db $work/d" "$work/dir.d"
expect "$d compare -F $work/slapd.d --with-config $work/slapd.conf --with-suffix dc=example,dc=o" \
  "org"
expect "$d compare -f $work/slapd.conf --with-config-dir $work/slapd.d --with-suffix dc=" \
  "config,dc=test"

if ((failures)); then
  echo "$failures problems" >&2
  exit 1
fi
echo "completions as expected"
