#!/usr/bin/env bash
# `cmake --install BUILD --prefix P` installs what an operator runs and reads,
# and nothing else: the three programs (dirload-searchrate where libldap was
# found), the manual pages, gzip-compressed, and the bash completion; no test
# binary, static library or header. The installed dirload runs.
#
# usage: install_test.sh BUILD_DIR CMAKE VERSION
set -euo pipefail
build=$1
cmake=$2
version=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/dirload-install-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

prefix=$work/prefix
"$cmake" --install "$build" --prefix "$prefix" >"$work/log" 2>&1 ||
  { cat "$work/log" >&2; fail "cmake --install failed"; }

expected=(bin/dirload bin/dirload-gen share/bash-completion/completions/dirload)
for page in dirload dirload-add dirload-cat dirload-compare dirload-index dirload-modify dirload-recover \
  dirload-schema-check dirload-search dirload-stat dirload-verify; do
  expected+=("share/man/man8/$page.8.gz")
done
expected+=(share/man/man1/dirload-gen.1.gz)
if [[ -x $build/bench/dirload-searchrate ]]; then
  expected+=(bin/dirload-searchrate share/man/man1/dirload-searchrate.1.gz)
fi
want=$(printf '%s\n' "${expected[@]}" | sort)
got=$(cd "$prefix" && find . ! -type d | sed 's|^\./||' | sort)
[[ $got == "$want" ]] || fail "installed files differ from the expected ones:
$(diff <(echo "$want") <(echo "$got") || true)"

for f in bin/dirload bin/dirload-gen; do
  [[ -x $prefix/$f ]] || fail "$f is not executable"
done
for f in "$prefix"/share/man/man*/*.gz; do
  gzip -t "$f" || fail "$f is not gzip"
done
"$prefix/bin/dirload" --version >"$work/version" || fail "installed dirload --version failed"
[[ $(head -n 1 "$work/version") == "dirload $version" ]] ||
  fail "dirload --version starts '$(head -n 1 "$work/version")', not 'dirload $version'"
echo "installed: ${#expected[@]} files"
