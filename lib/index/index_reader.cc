#include "lib/index/index_reader.h"

#include <algorithm>

#include "lib/idl/idl_store.h"

namespace dirload {

Result<IdList> Lookup(Store* store, std::string_view attr_table, std::string_view key) {
  return ReadIdList(store, attr_table, key);
}

Result<uint64_t> LookupCount(Store* store, std::string_view attr_table, std::string_view key) {
  return CountIds(store, attr_table, key);
}

Result<IdList> LookupPresence(Store* store, const IndexSpec& spec) {
  if (!spec.Has(kIndexPresence)) {
    return Status::InvalidArgument("index on '" + std::string(spec.name()) +
                                   "' has no presence keys");
  }
  return Lookup(store, spec.table(), PresenceKey());
}

Result<IdList> LookupEquality(Store* store, const Schema& schema, const IndexSpec& spec,
                              std::string_view value) {
  if (!spec.Has(kIndexEquality)) {
    return Status::InvalidArgument("index on '" + std::string(spec.name()) +
                                   "' has no equality keys");
  }
  DIRLOAD_ASSIGN_OR_RETURN(std::string key, EqualityKey(schema, *spec.type, value));
  return Lookup(store, spec.table(), key);
}

Result<IdList> LookupSubstring(Store* store, const Schema& schema, const IndexSpec& spec,
                               const SubstringAssertion& assertion, bool* narrowed) {
  *narrowed = false;
  DIRLOAD_ASSIGN_OR_RETURN(std::vector<std::string> keys,
                           SubstringAssertionKeys(schema, *spec.type, assertion, spec.mask));
  if (keys.empty()) return IdList();
  *narrowed = true;
  std::string table = spec.table();
  // Read the shortest lists first: once the intersection is empty the rest
  // need not be read at all.
  std::vector<std::pair<uint64_t, size_t>> order;
  for (size_t i = 0; i < keys.size(); ++i) {
    DIRLOAD_ASSIGN_OR_RETURN(uint64_t n, CountIds(store, table, keys[i]));
    if (n == 0) return IdList();
    order.emplace_back(n, i);
  }
  std::sort(order.begin(), order.end());
  IdList acc;
  bool first = true;
  for (const auto& [n, i] : order) {
    DIRLOAD_ASSIGN_OR_RETURN(IdList ids, ReadIdList(store, table, keys[i]));
    acc = first ? std::move(ids) : IdList::Intersect(acc, ids);
    first = false;
    if (acc.empty()) break;
  }
  return acc;
}

}  // namespace dirload
