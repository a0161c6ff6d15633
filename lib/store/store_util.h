// Helpers shared by the two engines: how keys appear in error messages, and
// the few file-system operations a store needs (directory creation, sizes,
// syncing a directory). No engine headers here.
//
// Internal to lib/store. Thread safety: pure functions, or system calls on
// paths the caller owns.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lib/util/status.h"

namespace dirload::store_internal {

// A key as it reads best in a message: 'text' when printable, else 0x<hex>;
// long keys are cut short with "...".
std::string DescribeKey(std::string_view key);

// OK when 1 <= key.size() <= kMaxKeySize; else an error naming the engine,
// the operation, the table and the path.
Status CheckKey(std::string_view engine, std::string_view op, std::string_view table,
                const std::string& path, std::string_view key);

// The error for an Append whose key is not above the table's last key.
Status AppendOrderError(std::string_view engine, std::string_view table, const std::string& path,
                        std::string_view key, std::string_view last_key);

// The error for a write to a store or table open read-only.
Status ReadOnlyError(std::string_view engine, std::string_view op, std::string_view table,
                     const std::string& path, bool whole_store);

// Makes sure `dir` is a directory: creates it (one level) when `create`, else
// NotFound. `engine` prefixes messages ("lmdb", "bdb").
Status PrepareDirectory(std::string_view engine, const std::string& dir, bool create);

bool FileExists(const std::string& path);
// Size in bytes, or 0 when the file does not exist.
uint64_t FileSize(const std::string& path);
// Names of the regular files in `dir` ending in `suffix`, without it, sorted.
Result<std::vector<std::string>> ListFilesWithSuffix(std::string_view engine,
                                                     const std::string& dir,
                                                     std::string_view suffix);
// fsync of the directory itself, so that files created in it survive a crash.
Status SyncDirectory(std::string_view engine, const std::string& dir);

}  // namespace dirload::store_internal
