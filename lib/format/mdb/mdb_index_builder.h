// MdbIndexBuilder: phase 2 of a bulk load into slapd 2.5's back-mdb format,
// and slapindex's rebuild: fills the index databases from id2e.
//
// One scan of id2e in ID order decodes every entry and makes, per attribute
// record, the keys of every configured index that receives it: the index on
// the record's type and those on its supertypes (an index on `name` gets cn
// and sn values, cn;lang-de goes to cn's index), as back-mdb's index.c does.
// Keys hash the INDEXED type's canonical name, syntax and rules, and are
// made from the stored normalized copies (the values when there are none).
// The (key, ID) pairs of each index are sorted by key in memcmp order (LMDB's
// default key order, which the index databases use) and written key by key,
// all of a key's IDs in one MDB_MULTIPLE | MDB_APPEND | MDB_APPENDDUP put
// (every page is filled once, and APPENDDUP spares LMDB a search of the
// key's duplicates for each ID: the write stage took 30% less). A key
// with more than kMdbMaxIdsPerKey IDs is stored as the range {0, lo, hi}.
//
// The keys of each index come from its MdbKeyMaker (mdb_key_maker.h), which
// says which kinds are supported (partial substring kinds are not);
// entries are decoded as views (DecodeMdbEntryView, bounds checked only: the
// values not indexed are never touched): no allocation per value.
//
// Memory: pairs are held as one word each: the key itself while every key
// of the index has 4 bytes (the default hashes, presence, 4-byte integer
// keys), sorted by a radix sort; otherwise (an approx index's phonetic codes
// of 1 to 4 bytes, hash64) a key number, plus one copy of each distinct key. IDs have 32 bits
// (entry IDs beyond 2^32 - 1 are Unsupported). When a group's pairs exceed its share of
// MdbIndexOptions::memory_budget (below), those gathered so far are sorted
// into a run file (lib/index/sorted_runs.h) and
// the runs are merged at the end; with a budget of 0 everything stays in
// memory.
//
// The index databases are shared out into a few groups of about equal
// weight, each built by its own scan of id2e and then written. Two threads
// take tasks in turn: write the next scanned group when no write is under
// way (LMDB has one writer; each write task commits before it ends, as a
// write transaction belongs to its thread), else scan the next group. So
// one group's writes overlap the next one's scan and both cores stay busy.
// Each group may hold a quarter of the budget before it spills: two groups
// are scanned while a third is written, and a radix sort needs a second
// array as large as the group's largest index. Each scan reads a few dozen
// entries ahead of its decoding and asks the processor for their first
// bytes early.
//
// MdbIndexOptions::method kCache builds the same databases another way:
// one scan of id2e inside the write transaction feeds an IdlCache, and each
// list leaving the cache is merged into its key (BuildCached in the .cc).
//
// Thread safety: Build is called by one thread and starts one more; the
// MdbEnv must not see other writers meanwhile, and the Schema must not
// change.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lib/format/mdb/mdb_env.h"
#include "lib/format/mdb/mdb_index_keys.h"
#include "lib/index/index_builder.h"
#include "lib/index/index_spec.h"
#include "lib/util/status.h"

namespace dirload {
class Schema;
}

namespace dirload::mdb {

struct MdbIndexOptions {
  MdbKeyOptions keys;  // slapd.conf's index_* settings
  // Empty each index database first (slapindex); otherwise they must be empty.
  bool rebuild = false;
  // Puts per write transaction (bounds LMDB's dirty page list).
  uint32_t puts_per_txn = 200000;
  // Bytes the pairs and their sorting may take in all (each group spills a
  // sorted run past a quarter of it); 0: no limit.
  size_t memory_budget = size_t{1} << 30;
  // Where run files go (a private directory under it); empty: $TMPDIR or /tmp.
  std::string temp_dir;
  // kSort (above) or kCache: ID lists held in an IdlCache of
  // `idl_cache_size` lists and merged into their keys as they leave it.
  IndexMethod method = IndexMethod::kSort;
  uint64_t idl_cache_size = 1u << 20;
  // Sync the environment at the end; a load that syncs once when it
  // installs the database (MdbStagedLoad) turns this off.
  bool sync = true;
};

struct MdbIndexStats {
  uint64_t entries = 0;  // entries scanned
  uint64_t keys = 0;     // distinct keys written, all indexes
  uint64_t ids = 0;      // (key, ID) pairs before the range form
  uint64_t ranges = 0;   // keys stored as {0, lo, hi}
  uint64_t runs = 0;     // sorted run files spilled (0: all in memory)
};

class MdbIndexBuilder {
 public:
  // Builds the index databases of `specs` (one per spec, named by the type's
  // canonical name, open in `env`: MdbEnvOptions::index_names) from id2e,
  // then syncs. InvalidArgument (kDatabase) when a database is not empty
  // and !options.rebuild; NotFound when one is not open.
  static Result<MdbIndexStats> Build(MdbEnv& env, const Schema& schema,
                                     const std::vector<IndexSpec>& specs,
                                     const MdbIndexOptions& options);
};

}  // namespace dirload::mdb
