#!/usr/bin/env bash
# The Debian package: `cpack -G DEB` builds it from this build directory (in
# a directory of the test's own), its control fields are dirload's, and what
# it holds, unpacked into a fresh root with dpkg -x, works there: dirload
# --version, a load of a small generated sample with --suffix, and man on the
# gzip-compressed dirload.8.
#
# usage: package_test.sh BUILD_DIR CPACK VERSION
set -euo pipefail
build=$1
cpack=$2
version=$3
for tool in dpkg-deb dpkg-shlibdeps; do
  if ! command -v "$tool" >/dev/null; then
    echo "SKIP: $tool not found (Debian's dpkg and dpkg-dev packages); no package is built"
    exit 77
  fi
done
work=$(mktemp -d "${TMPDIR:-/tmp}/dirload-package-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

"$cpack" -G DEB --config "$build/CPackConfig.cmake" -B "$work/out" >"$work/log" 2>&1 ||
  { cat "$work/log" >&2; fail "cpack failed"; }
debs=("$work"/out/dirload_*.deb)
[[ ${#debs[@]} -eq 1 && -f ${debs[0]} ]] || fail "cpack made no dirload_*.deb: $(ls "$work/out")"
deb=${debs[0]}
echo "package: ${deb##*/}, $(stat -c %s "$deb") bytes"

field() { dpkg-deb -f "$deb" "$1"; }
[[ $(field Package) == dirload ]] || fail "Package: $(field Package)"
[[ $(field Version) == "$version" ]] || fail "Version: $(field Version), not $version"
[[ $(field Recommends) == *slapd* ]] || fail "Recommends: $(field Recommends)"
[[ -n $(field Maintainer) ]] || fail "no Maintainer"
[[ -n $(field Description) ]] || fail "no Description"
depends=$(field Depends)
echo "Depends: $depends"
# dpkg-shlibdeps found the packages of the libraries the programs link.
packages=$(tr ',|' '\n\n' <<<"$depends" | sed 's/(.*//; s/[[:space:]]//g')
for lib in libc6 liblmdb0 libdb5.3 zlib1g libutf8proc2; do
  grep -qx -- "$lib" <<<"$packages" || fail "Depends names no $lib: $depends"
done

root=$work/root
dpkg -x "$deb" "$root"
for f in usr/bin/dirload usr/bin/dirload-gen usr/share/man/man8/dirload.8.gz \
  usr/share/man/man8/dirload-add.8.gz usr/share/bash-completion/completions/dirload \
  usr/share/doc/dirload/copyright usr/share/doc/dirload/changelog.gz; do
  [[ -e $root/$f ]] || fail "the package has no /$f"
done

"$root/usr/bin/dirload" --version >"$work/version" || fail "dirload --version failed"
[[ $(head -n 1 "$work/version") == "dirload $version" ]] ||
  fail "dirload --version: $(cat "$work/version")"
grep -q '^liblmdb: ' "$work/version" || fail "dirload --version names no liblmdb"

"$root/usr/bin/dirload-gen" --entries 200 -o "$work/sample.ldif" || fail "dirload-gen failed"
"$root/usr/bin/dirload" add --db "$work/db" --suffix dc=example,dc=com -l "$work/sample.ldif" \
  --index "uid eq" --progress never >"$work/add.log" 2>&1 ||
  { cat "$work/add.log" >&2; fail "dirload add failed"; }
count=$("$root/usr/bin/dirload" search --db "$work/db" --count '(objectClass=*)') ||
  fail "dirload search failed"
[[ $count == *200* ]] || fail "the loaded database holds '$count' entries, not 200"

err=$(MANWIDTH=80 MAN_DISABLE_SECCOMP=1 man --warnings -l \
  "$root/usr/share/man/man8/dirload.8.gz" 2>&1 >"$work/man.txt") || fail "man failed: $err"
[[ -z $err ]] || fail "man warns: $err"
grep -q 'DIRLOAD(8)' "$work/man.txt" || fail "man did not render dirload(8)"
echo "installed from the package: dirload $version loads, searches and has its pages"
