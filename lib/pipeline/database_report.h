// DatabaseReport: what `dirload stat` shows about a database, gathered
// offline from a store opened read-only: the meta figures, counts and sizes
// of every table, and for each index table how many keys it holds (per index
// kind), how many IDs they list, and how long the lists are; plus what the
// engine runs with and its cache figures.
//
// Index tables are walked list by list with ForEachIdList (lib/idl), the same
// decoder the search uses, so a malformed list is reported as Corruption
// rather than miscounted.
//
// Thread safety: BuildDatabaseReport uses the Store from the calling thread
// only (as Store requires); the report is a plain value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lib/pipeline/database_meta.h"
#include "lib/store/store.h"
#include "lib/util/status.h"

namespace dirload {

// The kinds of index key (lib/index/index_keys.h), in the order reported.
// A hashed key counts under the kind it stands for.
enum class IndexKeyKind { kPresence, kEquality, kSubInitial, kSubAny, kSubFinal, kOther };
inline constexpr size_t kIndexKeyKinds = 6;

// "pres", "eq", "subinitial", "subany", "subfinal", "other".
std::string_view IndexKeyKindName(IndexKeyKind kind);
// The kind of a (non-empty) index key, from its tag byte.
IndexKeyKind KindOfIndexKey(std::string_view index_key);

// Lists of length n fall in bucket floor(log2(n)): 1, 2-3, 4-7, 8-15, ...
// REQUIRES: length >= 1.
size_t IdlHistogramBucket(uint64_t length);
// Smallest and largest length of bucket `b`: 2^b and 2^(b+1) - 1.
uint64_t IdlHistogramBucketMin(size_t bucket);
uint64_t IdlHistogramBucketMax(size_t bucket);

struct IndexKindReport {
  uint64_t keys = 0;
  uint64_t ids = 0;
};

// What meta says about an index table (lib/pipeline/indexer.h).
enum class IndexRecord {
  kBuilt,       // "index.<table>" holds the configuration line it was built with
  kBuilding,    // "building": a build did not finish; the table is stale
  kUnrecorded,  // no "index.<table>": a table no build recorded
};
std::string_view IndexRecordName(IndexRecord record);  // "built", "building", "unrecorded"

struct IndexReport {
  std::string table;      // "idx.cn"
  std::string attribute;  // "cn" (the table name without "idx.")
  IndexRecord record = IndexRecord::kUnrecorded;
  std::string config_line;    // the recorded line when kBuilt ("cn eq,sub")
  bool table_exists = false;  // false: recorded, but no key was ever written
  uint64_t keys = 0;          // distinct index keys (lists)
  uint64_t ids = 0;           // IDs over all lists
  uint64_t longest = 0;       // IDs in the longest list
  std::string longest_key;    // DescribeKey() of that list's key, non-printable bytes as \xNN
  uint64_t hashed_keys = 0;   // keys stored as a digest (longer than kMaxIndexKeySize)
  IndexKindReport kinds[kIndexKeyKinds];
  // histogram[b]: lists whose length falls in bucket b (IdlHistogramBucket);
  // as long as the longest list's bucket needs, empty when there are no keys.
  std::vector<uint64_t> histogram;

  double average() const { return keys == 0 ? 0 : static_cast<double>(ids) / keys; }
};

struct DatabaseReport {
  Backend backend = Backend::kLmdb;
  std::string path;
  DatabaseMeta meta;
  std::string schema_fingerprint;  // as recorded by the last index build; may be empty
  // The engine's cache figures taken first, before anything is read (on
  // Berkeley DB every read moves them), and again at the end, after the table
  // and index walks, so the difference shows what reading everything cost.
  // LMDB: not available.
  CacheStats cache_before;
  CacheStats cache_after;
  // Per-table counts and sizes. On Berkeley DB each table's `cache` figures
  // are those of when Statistics() began: files it opened itself show none.
  StoreStats stats;
  EngineSettings settings;           // read back from the engine, after every table is opened
  std::vector<IndexReport> indexes;  // sorted by table name
};

// Gathers the report. The database must be ready: otherwise the error of
// RequireReady (NotFound for no database, Corruption for an unfinished load).
// Corruption when an index table holds a malformed list; engine errors as the
// store reports them.
// REQUIRES: store != nullptr; opened read-only by the caller, ideally, since
// nothing here writes.
[[nodiscard]] Result<DatabaseReport> BuildDatabaseReport(Store* store);

// The report as one JSON object (UTF-8 text, trailing newline). Layout:
//   {"backend", "path", "state", "suffix", "entries", "next_id",
//    "schema_fingerprint", "file_bytes",
//    "tables": [{"name", "entries", "page_size", "depth", "branch_pages",
//                "leaf_pages", "overflow_pages", "free_pages", "bytes",
//                "file_bytes"[, "cache": {...}]}],
//    "indexes": [{"table", "attribute", "record", "config", "keys", "ids",
//                 "longest", "longest_key", "average", "hashed_keys",
//                 "kinds": {"eq": {"keys", "ids"}, ...}   (kinds present only)
//                 "histogram": [{"min", "max", "lists"}, ...]}],
//    "engine": {...settings..., "cache_before": {...}, "cache_after": {...}}}
std::string DatabaseReportToJson(const DatabaseReport& report);

}  // namespace dirload
