// The meta table: what a dirload database says about itself. Values are short
// text so that an operator can read them with mdb_dump or db_dump.
//
//   key         value
//   format      "1"                  layout version of every table
//   state       "loading" | "ready"  "loading" from the first write of a load
//                                    until the load is complete and synced
//   suffix      the suffix DN as configured
//   next_id     the ID the next entry gets (decimal)
//   entries     number of entries (decimal)
//   attrdesc    the attribute dictionary (lib/entry), serialised
//
// Thread safety: functions over a Store, which is single-threaded.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "lib/entry/entry_codec.h"
#include "lib/store/store.h"
#include "lib/util/status.h"

namespace dirload {

inline constexpr int kNativeLayoutVersion = 1;

enum class DatabaseState { kEmpty, kLoading, kReady };

// "empty", "loading", "ready".
std::string_view DatabaseStateName(DatabaseState state);

struct DatabaseMeta {
  DatabaseState state = DatabaseState::kEmpty;
  std::string suffix;
  EntryId next_id = 1;
  uint64_t entries = 0;
};

// Reads meta. A store without a meta table reads as kEmpty. A format other
// than kNativeLayoutVersion is an error naming both.
Result<DatabaseMeta> ReadMeta(Store* store, AttributeDictionary* dictionary);

Status WriteMeta(Store* store, const DatabaseMeta& meta);
Status WriteState(Store* store, DatabaseState state);
Status WriteDictionary(Store* store, const AttributeDictionary& dictionary);

// OK for a ready database; otherwise the error a command shows, saying what
// happened and what to do ("... was left by a load that did not finish ...").
Status RequireReady(const DatabaseMeta& meta, const std::string& dir);

}  // namespace dirload
