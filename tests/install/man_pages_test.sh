#!/usr/bin/env bash
# The manual pages against the programs they describe: every command
# `dirload --help` lists has its page, man/dirload-COMMAND.8; every option a
# program's --help lists is described in its page's OPTIONS (named in the tag
# of a .TP paragraph there); each page has slapadd(8)'s sections; and man
# renders each page with no warning.
#
# usage: man_pages_test.sh MAN_DIR DIRLOAD DIRLOAD_GEN [DIRLOAD_SEARCHRATE]
set -euo pipefail
man_dir=$1
dirload=$2
gen=$3
searchrate=${4-}
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
command -v man >/dev/null ||
  { echo "FAIL: man is not installed (apt-get install man-db groff-base)" >&2; exit 1; }

# The options a --help text lists, one a line: the names before the type on
# each line that starts with two spaces and a dash.
options_of() {
  "$@" --help | sed -n 's/^  \(-[^ ]*\).*/\1/p' | tr ',' '\n'
}

# The commands `dirload --help` lists.
commands=$("$dirload" --help | awk '/^Subcommands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
[[ -n $commands ]] || fail "dirload --help lists no command"

# check_page PAGE SECTIONS PROGRAM...: PROGRAM's --help options are in PAGE,
# PAGE has SECTIONS (a |-separated list), and man renders it without warnings.
check_page() {
  local page=$1 sections=$2 option pattern text
  shift 2
  if [[ ! -f $page ]]; then
    fail "$page: no such page"
    return
  fi
  # The tags of the .TP paragraphs of OPTIONS, with the font changes taken
  # out, so that \fB\-l\fR reads \-l.
  text=$(awk '/^\.SH/ { on = ($0 ~ /^\.SH "?OPTIONS"?$/) } on && tag { print } { tag = /^\.TP/ }' \
    "$page" | sed 's/\\f[BIRP]//g; s/\\f(..//g')
  while IFS= read -r option; do
    # -l in roff is \-l: neither part of a longer option (\-\-ldif, \-lx)
    # nor of a word (foo\-l).
    pattern="(^|[^A-Za-z0-9_-])${option//-/\\\\-}(\$|[^A-Za-z0-9_\\\\]|\\\\[^-])"
    grep -Eq -- "$pattern" <<<"$text" ||
      fail "$page: OPTIONS does not describe $option (from $* --help)"
  done < <(options_of "$@")
  local IFS='|'
  for section in $sections; do
    grep -q "^\.SH \"\?$section\"\?\$" "$page" || fail "$page: no section $section"
  done
  local err
  err=$(MANWIDTH=80 MAN_DISABLE_SECCOMP=1 man --warnings -l "$page" 2>&1 >/dev/null) ||
    fail "$page: man failed"
  [[ -z $err ]] || fail "$page: man warns: $err"
}

eight='NAME|SYNOPSIS|DESCRIPTION|OPTIONS|EXIT STATUS|FILES|EXAMPLES|SEE ALSO'
one='NAME|SYNOPSIS|DESCRIPTION|OPTIONS|EXIT STATUS|EXAMPLES|SEE ALSO'
check_page "$man_dir/dirload.8" "$eight" "$dirload"
for command in $commands; do
  check_page "$man_dir/dirload-$command.8" "$eight" "$dirload" "$command"
  grep -q "^\.BR dirload\\\\-${command//-/\\\\-} (8)" "$man_dir/dirload.8" ||
    fail "dirload.8 does not name dirload-$command(8)"
done
check_page "$man_dir/dirload-gen.1" "$one" "$gen"
if [[ -n $searchrate ]]; then
  check_page "$man_dir/dirload-searchrate.1" "$one" "$searchrate"
fi

# A page for a command dirload no longer has would mislead.
for page in "$man_dir"/dirload-*.8; do
  command=${page##*/dirload-}
  command=${command%.8}
  grep -qx -- "$command" <<<"$commands" || fail "$page: dirload has no command '$command'"
done

if ((failures)); then
  echo "$failures problems" >&2
  exit 1
fi
echo "every page holds every option and renders without warnings"
