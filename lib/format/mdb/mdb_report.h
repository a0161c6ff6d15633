// slapd 2.5 back-mdb's half of `dirload stat`: fills the DatabaseReport of
// lib/format from the database: per sub-database the LMDB figures mdb_stat
// prints (entries, depth, branch, leaf and overflow pages) and its distinct
// keys, the entry count and highest ID, and per index database its keys,
// stored IDs, longest ID lists and list-length histogram. slapd records no
// state, next ID or index build, and its engine runs with slapd's settings,
// not this command's: those parts of the report stay absent.
//
// Index ID lists: a key's duplicates are its IDs, except the range form
// {0, lo, hi} (mdb_index_keys.h), which counts as hi - lo + 1 IDs. Keys are
// hashes or ordered binary keys, so they are shown in hex.
//
// Thread safety: BuildMdbReport reads the database through its own
// read-only environment.
#pragma once

#include <optional>
#include <string>

#include "lib/format/database_report.h"
#include "lib/util/status.h"

namespace dirload::mdb {

// `suffix`: the configured suffix, when one was given (slapd's database does
// not record it).
[[nodiscard]] Result<DatabaseReport> BuildMdbReport(const std::string& dir,
                                                    std::optional<std::string> suffix);

}  // namespace dirload::mdb
