// DatabaseReport: what `dirload stat` shows about a database, in one shape
// that both formats fill (native/: dirload's tables on LMDB or Berkeley DB;
// mdb/: slapd's back-mdb), so that one JSON writer (database_report_json.h)
// and one text renderer (database_report_text.h) serve both.
//
// A figure a format cannot know is absent (std::nullopt, or an empty list),
// never made up: slapd's database records no state, next ID or index build;
// its hashed index keys do not say their kind; dirload's tables do not keep
// keys and duplicates apart. Each field says which format fills it.
//
// Thread safety: plain values and pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/format/format_detect.h"
#include "lib/store/store.h"

namespace dirload {

// ID-list length histogram: lists of length n fall in bucket floor(log2(n)):
// 1, 2-3, 4-7, 8-15, ...
// REQUIRES: length >= 1.
size_t IdlHistogramBucket(uint64_t length);
// Smallest and largest length of bucket `b`: 2^b and 2^(b+1) - 1.
uint64_t IdlHistogramBucketMin(size_t bucket);
uint64_t IdlHistogramBucketMax(size_t bucket);

// One table or sub-database with the engine's page figures.
struct TableReport {
  std::string name;
  // Stored records: each duplicate (mdb) and each chunk of a long ID list
  // (native) counts once.
  uint64_t entries = 0;
  std::optional<uint64_t> keys;  // distinct keys (mdb)
  uint32_t page_size = 0;
  uint32_t depth = 0;
  uint64_t branch_pages = 0;
  uint64_t leaf_pages = 0;
  uint64_t overflow_pages = 0;          // values too large for a leaf page
  std::optional<uint64_t> free_pages;   // native: BDB's free list; LMDB 0 (shared)
  uint64_t bytes = 0;                   // (branch + leaf + overflow) * page_size
  std::optional<uint64_t> file_bytes;   // native: BDB's table file; LMDB 0 (one file)
  std::optional<FileCacheStats> cache;  // BDB: the pool's figures for this file
};

// One ID list, for the longest lists of an index.
struct IdListReport {
  std::string key;  // as the format shows keys: DescribeKey (native), hex (mdb)
  uint64_t ids = 0;
  // slapd's range form {0, lo, hi}, counted as hi - lo + 1 IDs (mdb).
  std::optional<std::pair<uint64_t, uint64_t>> range;
};

inline constexpr size_t kReportLongestLists = 5;

// Keeps the kReportLongestLists longest lists offered, longest first, the
// one offered first first among equals. WouldKeep says whether a list of
// `ids` would be kept, so that a caller builds the key's text only then.
bool WouldKeepLongest(uint64_t ids, const std::vector<IdListReport>& longest);
void OfferLongest(IdListReport list, std::vector<IdListReport>* longest);

// What dirload's meta says about an index table (lib/format/native/native_indexer.h).
enum class IndexRecord {
  kBuilt,       // "index.<table>" holds the configuration line it was built with
  kBuilding,    // "building": a build did not finish; the table is stale
  kUnrecorded,  // no "index.<table>": a table no build recorded
};
std::string_view IndexRecordName(IndexRecord record);  // "built", "building", "unrecorded"

// Keys and IDs of one kind of index key ("pres", "eq", "subinitial", ...).
struct IndexKindReport {
  std::string kind;
  uint64_t keys = 0;
  uint64_t ids = 0;
};

struct IndexReport {
  std::string table;      // where the lists are: "idx.cn" (native), "cn" (mdb sub-database)
  std::string attribute;  // "cn"
  std::optional<IndexRecord> record;  // native
  // native: the configuration line recorded when kBuilt ("cn eq,sub"), else "".
  std::optional<std::string> config;
  bool table_exists = true;             // false: recorded, but no key was ever written (native)
  uint64_t keys = 0;                    // distinct keys (lists)
  uint64_t ids = 0;                     // IDs over all lists, ranges counted in full
  std::optional<uint64_t> pairs;        // stored duplicates, mdb_stat's entries (mdb)
  std::optional<uint64_t> ranges;       // keys stored as a range (mdb)
  std::optional<uint64_t> hashed_keys;  // keys stored as a digest (native)
  // Per kind of key, in the format's order, kinds with keys only (native).
  std::optional<std::vector<IndexKindReport>> kinds;
  std::vector<IdListReport> longest;  // longest first, at most kReportLongestLists
  // histogram[b]: lists whose length falls in bucket b (IdlHistogramBucket);
  // as long as the longest list's bucket needs, empty when there are no keys.
  std::vector<uint64_t> histogram;

  uint64_t longest_ids() const { return longest.empty() ? 0 : longest.front().ids; }
  double average() const { return keys == 0 ? 0 : static_cast<double>(ids) / keys; }
};

// What the engine runs with and its cache figures (native: the Store's).
struct EngineReport {
  EngineSettings settings;           // read back from the engine, after every table is opened
  std::optional<uint64_t> map_size;  // LMDB
  std::optional<uint64_t> map_used;  // LMDB: bytes up to the highest page in use
  // The cache figures taken first, before anything is read (on Berkeley DB
  // every read moves them), and again after the table and index walks, so the
  // difference shows what reading everything cost. Not available on LMDB.
  CacheStats cache_before;
  CacheStats cache_after;
};

struct DatabaseReport {
  DatabaseFormat format = DatabaseFormat::kNative;
  Backend backend = Backend::kLmdb;  // mdb: always LMDB
  std::string path;
  std::optional<std::string> state;   // "ready" (native; a report needs a ready database)
  std::optional<std::string> suffix;  // recorded (native) or configured (mdb, when given)
  uint64_t entries = 0;
  std::optional<uint64_t> next_id;                // native
  std::optional<uint64_t> max_id;                 // the highest entry ID (mdb)
  std::optional<uint64_t> descriptions;           // attribute descriptions in ad2i (mdb)
  std::optional<std::string> schema_fingerprint;  // native, as the last index build recorded it
  uint64_t file_bytes = 0;                        // the data files (not logs or locks)
  // What the file system allocated for them (LMDB's data.mdb is sparse:
  // its apparent size is the map size it grew to); nullopt when unknown.
  std::optional<uint64_t> allocated_bytes;
  std::vector<TableReport> tables;     // as the format orders them
  std::vector<IndexReport> indexes;    // by table name
  std::optional<EngineReport> engine;  // native
};

}  // namespace dirload
