#!/usr/bin/env bash
# Installs, with apt-get, the Debian 12 packages dirload builds and tests with.
# Does nothing when they are all present. Run as root.
set -euo pipefail
packages=(build-essential cmake pkg-config zlib1g-dev liblmdb-dev libdb5.3-dev libcli11-dev
          doctest-dev libutf8proc-dev)
if [[ "${1:-}" == "--test" ]]; then
  # OpenLDAP's tools are the oracle of the comparison tests; gnuplot draws the
  # cache-sweep plots; man renders the manual pages the tests check.
  packages+=(slapd ldap-utils lmdb-utils libldap-dev gnuplot-nox jq time bc man-db groff-base)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "dirload: installing ${missing[*]}" >&2
  if [[ $(id -u) -ne 0 ]]; then
    echo "dirload: need root to install packages (run as root, or install them yourself)" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
