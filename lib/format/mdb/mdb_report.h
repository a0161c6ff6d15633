// What a slapd 2.5 back-mdb database holds, for `dirload stat`: per
// sub-database the LMDB figures mdb_stat prints (entries, depth, branch,
// leaf and overflow pages), the entry count, and per index database its
// keys, stored IDs and longest ID lists. The text layout is the command's;
// this module gathers the figures and writes the JSON.
//
// Index ID lists: a key's duplicates are its IDs, except the range form
// {0, lo, hi} (mdb_index_keys.h), which counts as hi - lo + 1 IDs and is
// shown as "lo..hi".
//
// Thread safety: pure functions (BuildMdbReport reads the database through
// its own read-only environment).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lib/format/mdb/mdb_env.h"
#include "lib/util/status.h"

namespace dirload::mdb {

struct MdbSubDbReport {
  std::string name;
  MdbDbStat stat;     // entries = stored pairs, duplicates included
  uint64_t keys = 0;  // distinct keys
};

struct MdbIdList {
  std::string key;  // raw key bytes
  uint64_t ids = 0;
  bool range = false;  // {0, lo, hi}
  uint64_t lo = 0, hi = 0;
};

struct MdbIndexReport {
  std::string name;  // the attribute type's canonical name, as slapd names the database
  uint64_t keys = 0;
  uint64_t pairs = 0;              // stored duplicates (mdb_stat's entries)
  uint64_t ids = 0;                // IDs the lists cover, ranges counted in full
  uint64_t ranges = 0;             // keys stored as a range
  std::vector<MdbIdList> longest;  // longest first, at most kMdbReportLongest
};

inline constexpr size_t kMdbReportLongest = 5;

struct MdbDatabaseReport {
  std::string path;
  uint64_t file_bytes = 0;              // data.mdb
  uint64_t entries = 0;                 // id2e pairs
  uint64_t max_id = 0;                  // the highest entry ID
  uint64_t descriptions = 0;            // ad2i
  std::vector<MdbSubDbReport> subdbs;   // ad2i, dn2i, id2e, id2v, then the indexes by name
  std::vector<MdbIndexReport> indexes;  // by name
};

Result<MdbDatabaseReport> BuildMdbReport(const std::string& dir);

// "lo..hi" for a range, else the count of IDs.
std::string MdbIdListText(const MdbIdList& list);
// The key as hex digits.
std::string MdbKeyHex(std::string_view key);

std::string MdbReportToJson(const MdbDatabaseReport& report);

}  // namespace dirload::mdb
