// `dirload stat --digest`: hashes that say whether two databases hold the
// same directory without copying either.
//
//   content  SHA-1 over "dirload-content-1", the entry count (8 bytes,
//            big-endian) and the sum modulo 2^160 of every entry's
//            EntryHash (lib/compare/canonical_entry.h): the entries'
//            logical content (normalized DN, canonical descriptions, value
//            sets; contextCSN with the suffix entry), independent of entry
//            IDs, of the order of values, of the format and of the engine.
//   indexes  SHA-1 over "dirload-indexes-1" and, for each index table in
//            name order and each key in the table's order, the table name,
//            the key and its IDs, as stored (8-byte big-endian lengths and
//            IDs): equal for byte-identical databases and for a back-mdb
//            database and its slapadd twin; it depends on the entry IDs and
//            on the format's key encoding.
//   digest   SHA-1 over "dirload-digest-1", content and indexes.
//
// Thread safety: one thread (the Database's).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lib/db/database.h"
#include "lib/util/sha1.h"
#include "lib/util/status.h"

namespace dirload {

struct DatabaseDigest {
  uint64_t entries = 0;
  uint64_t index_tables = 0;
  uint64_t index_keys = 0;
  Sha1::Digest content{};
  Sha1::Digest indexes{};
  Sha1::Digest digest{};
  std::vector<std::string> context_csn;  // the suffix entry's, as stored
};

// REQUIRES: `db` opened for reading (Access::kRead or kReport).
Result<DatabaseDigest> DigestDatabase(Database* db);

}  // namespace dirload
