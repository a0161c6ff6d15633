// The JSON of `dirload stat --json`: a DatabaseReport as one object, the
// same keys for both formats; a figure the format does not know is null.
//
// Thread safety: pure function.
#pragma once

#include <string>

#include "lib/format/database_report.h"

namespace dirload {

// UTF-8 text with a trailing newline. Layout:
//   {"format", "backend", "path", "state", "suffix", "entries", "next_id",
//    "max_id", "descriptions", "schema_fingerprint", "file_bytes",
//    "tables": [{"name", "entries", "keys", "page_size", "depth",
//                "branch_pages", "leaf_pages", "overflow_pages", "free_pages",
//                "bytes", "file_bytes", "cache": {...} | null}],
//    "indexes": [{"table", "attribute", "record", "config", "table_exists",
//                 "keys", "ids", "pairs", "ranges", "longest" (IDs in the
//                 longest list), "longest_key",
//                 "longest_lists": [{"key", "ids", "range": [lo, hi] | null}],
//                 "average", "hashed_keys",
//                 "kinds": {"eq": {"keys", "ids"}, ...} | null  (kinds present only),
//                 "histogram": [{"min", "max", "lists"}, ...]}],
//    "engine": {...settings..., "cache_before": {...}, "cache_after": {...}} | null}
std::string DatabaseReportToJson(const DatabaseReport& report);

}  // namespace dirload
