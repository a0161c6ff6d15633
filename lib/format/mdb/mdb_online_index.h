// `dirload index --online`: the index databases of slapd's back-mdb format
// rebuilt in the live environment slapd serves, one attribute at a time,
// each inside one LMDB write transaction: the entries are read in that
// transaction (so no add, modify or delete of slapd's can slip between the
// read and the write), the attribute's database is emptied and its keys
// written, then the transaction commits. slapd's readers see the old index
// until the commit and the whole new one after it, never a half index;
// slapd's writers wait for the one attribute being rebuilt (the measured
// cost is in bench/README.md). A kill leaves every attribute finished
// before it rebuilt and the others as they were.
//
// Keys are made as a bulk rebuild makes them (mdb_key_maker.h) and held in
// memory per attribute, sorted, and appended key by key ({0, lo, hi} past
// max_ids_per_key() IDs (65,535 unless idlexp says otherwise)), so the result is the offline
// rebuild's, byte for byte.
//
// Index databases are never deleted here: slapd holds handles on them.
//
// Thread safety: one thread; the Schema must outlive the call.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/format/mdb/mdb_index_keys.h"
#include "lib/index/index_spec.h"
#include "lib/util/status.h"

namespace dirload {
class Schema;
}

namespace dirload::mdb {

struct MdbOnlineIndexStats {
  uint64_t indexes = 0;
  uint64_t entries = 0;  // entries read, all indexes
  uint64_t keys = 0;
  uint64_t ids = 0;            // (key, ID) pairs before the range form
  uint64_t ranges = 0;         // keys stored as {0, lo, hi}
  double max_txn_seconds = 0;  // the longest transaction: what slapd's writers may wait
};

// Rebuilds the index database of each of `specs` in `dir` (created when
// missing). `done`, when set, hears of each attribute as it commits.
Result<MdbOnlineIndexStats> RebuildMdbIndexesOnline(
    const std::string& dir, const Schema& schema, const std::vector<IndexSpec>& specs,
    const MdbKeyOptions& keys,
    const std::function<void(std::string_view name, double seconds)>& done);

}  // namespace dirload::mdb
