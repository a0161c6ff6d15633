// Reading index tables for search: an index key (index_keys.h) to its exact
// ID list, or just the list's length for planning (one Get, no decoding).
//
// Thread safety: as Store (one thread at a time per store).
#pragma once

#include <cstdint>
#include <string_view>

#include "lib/idl/id_list.h"
#include "lib/index/index_keys.h"
#include "lib/index/index_spec.h"
#include "lib/store/store.h"
#include "lib/util/status.h"

namespace dirload {

// The IDs `key` maps to in `attr_table` ("idx.cn"); empty when the key or
// the table is absent. Corruption when the stored list is malformed.
[[nodiscard]] Result<IdList> Lookup(Store* store, std::string_view attr_table,
                                    std::string_view key);

// The number of IDs `key` maps to (0 when absent), from the list's header.
[[nodiscard]] Result<uint64_t> LookupCount(Store* store, std::string_view attr_table,
                                           std::string_view key);

// Conveniences over Lookup for one spec:
// entries having the attribute (requires spec.Has(kIndexPresence)),
[[nodiscard]] Result<IdList> LookupPresence(Store* store, const IndexSpec& spec);
// entries with a value equal to `value` under the index type's equality rule
// (requires spec.Has(kIndexEquality)),
[[nodiscard]] Result<IdList> LookupEquality(Store* store, const Schema& schema,
                                            const IndexSpec& spec, std::string_view value);
// candidates for a substring assertion: the intersection of the lists of its
// keys. `*narrowed` is false (and the result empty) when the assertion has no
// key the index holds, so the index cannot help.
[[nodiscard]] Result<IdList> LookupSubstring(Store* store, const Schema& schema,
                                             const IndexSpec& spec,
                                             const SubstringAssertion& assertion, bool* narrowed);

}  // namespace dirload
