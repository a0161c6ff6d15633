// Which database format a directory holds: dirload's own tables (on LMDB or
// Berkeley DB) or slapd 2.5's back-mdb. Commands that read a database detect
// the format first and then take the matching path.
//
// The rules, from what the directory holds:
//   data.mdb whose main database lists back-mdb's sub-databases (ad2i, dn2i,
//     id2e, id2v)                                        -> kMdb
//   data.mdb listing dirload's tables (meta, id2entry, dn2id, idx.*)
//                                                        -> kNative
//   *.bdb files (dirload's tables on Berkeley DB)        -> kNative
//   data.mdb listing both kinds, or tables of neither    -> refused
//   a missing directory, or one with neither data.mdb nor *.bdb -> NotFound
// Every error is marked ErrorOrigin::kDatabase (kStorage when the engine
// fails) and says what the directory holds.
//
// Detection never writes: LMDB is opened read-only, and without its lock
// file when lock.mdb does not exist (opening with the lock would create it)
// or cannot be written. A read transaction with the lock file is what
// mdb_dump does, safe while slapd runs; without the lock file no running
// writer can be excluded, which only matters when lock.mdb exists but is
// not writable (slapd's files belong to another user).
//
// Thread safety: pure function (reads the file system).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "lib/util/status.h"

namespace dirload {

enum class DatabaseFormat { kNative, kMdb };

std::string_view DatabaseFormatName(DatabaseFormat format);  // "native", "mdb"
// The format DatabaseFormatName names; InvalidArgument for another name.
Result<DatabaseFormat> ParseDatabaseFormat(std::string_view name);

Result<DatabaseFormat> DetectDatabaseFormat(const std::string& dir);

// The decision on a list of LMDB sub-database names alone (data.mdb's main
// database), for tests and for callers that already hold the names.
Result<DatabaseFormat> ClassifyLmdbTables(const std::string& dir,
                                          const std::vector<std::string>& names);

}  // namespace dirload
