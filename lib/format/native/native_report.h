// The native format's half of `dirload stat`: fills the DatabaseReport of
// lib/format from a store opened read-only: the meta figures, counts and
// sizes of every table, and for each index table how many keys it holds (per
// index kind), how many IDs they list, and how long the lists are; plus what
// the engine runs with and its cache figures.
//
// Index tables are walked list by list with ForEachIdList (lib/idl), the same
// decoder the search uses, so a malformed list is reported as Corruption
// rather than miscounted.
//
// Thread safety: BuildNativeReport uses the Store from the calling thread
// only (as Store requires); the report is a plain value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "lib/format/database_report.h"
#include "lib/store/store.h"
#include "lib/util/status.h"

namespace dirload {

// The kinds of index key (lib/index/index_keys.h), in the order reported.
// A hashed key counts under the kind it stands for.
enum class IndexKeyKind { kPresence, kEquality, kApprox, kSubInitial, kSubAny, kSubFinal, kOther };
inline constexpr size_t kIndexKeyKinds = 7;

// "pres", "eq", "approx", "subinitial", "subany", "subfinal", "other".
std::string_view IndexKeyKindName(IndexKeyKind kind);
// The kind of a (non-empty) index key, from its tag byte.
IndexKeyKind KindOfIndexKey(std::string_view index_key);

// Gathers the report of a native database (DatabaseReport, lib/format): the
// meta figures, every table's counts and sizes, each index table walked list
// by list, and the engine's settings and cache figures. The database must be
// ready: otherwise the error of RequireReady (NotFound for no database,
// Corruption for an unfinished load). Corruption when an index table holds a
// malformed list; engine errors as the store reports them.
// REQUIRES: store != nullptr; opened read-only by the caller, ideally, since
// nothing here writes.
[[nodiscard]] Result<DatabaseReport> BuildNativeReport(Store* store);

}  // namespace dirload
