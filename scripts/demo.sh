#!/usr/bin/env bash
# Installs what is missing, builds dirload (Release), generates a small sample
# LDIF and loads it, with the 15 indexes of the DESIGN workload, into a fresh
# LMDB database, printing the summary; then one indexed search.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/install-deps.sh"
build="$root/build"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DDIRLOAD_TESTS=OFF
cmake --build "$build" -j"$(nproc)"
sample="$root/sample"
mkdir -p "$sample"
"$build/bench/dirload-gen" --entries "${DIRLOAD_SAMPLE_ENTRIES:-20000}" --seed 1 -o "$sample/sample.ldif"
rm -rf "$sample/db"
# shellcheck source=../bench/workload_indexes.sh
source "$root/bench/workload_indexes.sh"
"$build/tools/dirload" add --db "$sample/db" --suffix dc=example,dc=com -l "$sample/sample.ldif" \
  "${WORKLOAD_INDEXES[@]}" --stats "$sample/stats.json"
echo "database: $sample/db   measurements: $sample/stats.json"
"$build/tools/dirload" search --db "$sample/db" --explain --count '(&(objectClass=inetOrgPerson)(sn=Sm*))'
