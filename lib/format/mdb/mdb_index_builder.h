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
// with more than max_ids_per_key() IDs (65,535 unless idlexp says otherwise) is stored as the range
// {0, lo, hi}.
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
// (by default) take tasks in turn: write the next scanned group when no write is under
// way (LMDB has one writer; each write task commits before it ends, as a
// write transaction belongs to its thread), else scan the next group. So
// one group's writes overlap the next one's scan and both cores stay busy.
// The first group is scanned in two halves of the IDs, one per thread, each
// half sorting its own pairs, and its writes merge the halves' keys: the
// writes, one after another, are most of the phase, and they start after
// half a scan. Each group may hold a quarter of the budget before it spills
// (each half of the first, an eighth): two groups are scanned while a third
// is written, and a radix sort needs a second array as large as the
// group's largest index. Each scan reads a few dozen
// entries ahead of its decoding and asks the processor for their first
// bytes early.
//
// A first build's file layout is the same whatever the threads' timing:
// which pages LMDB reuses in a write transaction depends on the oldest read
// transaction open, and the scans open theirs while groups are written. So
// Build, unless it rebuilds, holds one read transaction from before the
// first write to the end: no page freed during the build is reused by it
// (few are: the pages each commit copies, a tenth of a percent of the file),
// and the same entries and options give the same data.mdb, byte for byte
// (what `dirload add -o csn-time` promises). A rebuild goes without: the
// lists it dropped would be kept from reuse, as many pages again as the
// indexes take.
//
// The sort method's keys go to an MdbKeySink: Build's writes them into the
// index databases; Stream hands them to the caller's (a verification
// compares them with what the databases hold, mdb_verify.h).
//
// MdbIndexOptions::method kCache builds the same databases another way:
// one scan of id2e inside the write transaction feeds an IdlCache, and each
// list leaving the cache is merged into its key (BuildCached in the .cc).
//
// Thread safety: Build and Stream are called by one thread and start
// MdbIndexOptions::threads - 1 more (the sort method); the MdbEnv must not
// see other writers meanwhile, and the Schema must not change.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lib/format/mdb/mdb_env.h"
#include "lib/format/mdb/mdb_index_keys.h"
#include "lib/index/index_builder.h"
#include "lib/index/index_spec.h"
#include "lib/util/cpu_ledger.h"
#include "lib/util/status.h"

namespace dirload {
class Schema;
}

namespace dirload::mdb {

struct MdbIndexOptions {
  MdbKeyOptions keys;  // slapd.conf's index_* settings
  // --stats: the sort method's CPU time by stage ("keys": entries decoded
  // and keys made; "sort"; "write") and its threads (role "index"). May be
  // null.
  CpuLedger* ledger = nullptr;
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
  // Threads taking the sort method's tasks (scan a group or half of the
  // first, hand a scanned group's keys on), 1 to the number of groups (at
  // least 2); one hands keys on at a time.
  unsigned threads = 2;
  // Stream only: entries, by ascending ID, whose keys are not made (records
  // a verification found undecodable).
  std::vector<uint64_t> skip;
};

// Where the sort method's keys go. Keys come group after group, never two
// groups at once; a group's keys come from one thread, which may differ
// from one group to the next: each of the group's indexes in turn, its keys
// in memcmp order (the index databases' key order), each key once with its
// distinct IDs ascending.
class MdbKeySink {
 public:
  virtual ~MdbKeySink() = default;
  // One key of specs[index].
  virtual Status Add(size_t index, std::string_view key, std::span<const uint64_t> ids) = 0;
  // The group's keys are all given; on the thread that gave them.
  virtual Status EndGroup() = 0;
  // The group stopped part-way; on the thread that gave its keys.
  virtual void AbortGroup() = 0;
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

  // The keys the sort method would write for `specs`, from id2e as it is,
  // into `sink` instead; nothing is written (`env` may be read-only).
  // options.method and options.rebuild are not used. Errors: an entry that
  // does not decode or names a description ad2i lacks (Corruption, kDatabase;
  // options.skip lists the entries to pass over), the sink's, the engine's.
  static Result<MdbIndexStats> Stream(MdbEnv& env, const Schema& schema,
                                      const std::vector<IndexSpec>& specs,
                                      const MdbIndexOptions& options, MdbKeySink* sink);
};

}  // namespace dirload::mdb
