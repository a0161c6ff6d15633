// Offline search over a dirload database: the engine of `dirload search` and
// `dirload cat -a`. Candidates come from the indexes (planner.h) or from a
// scan; the scope comes from dn2id; every candidate in scope is decoded and
// checked with the filter's real matching rules (evaluate.h), so the result
// is exact whatever the indexes say.
//
// Scope through dn2id (keys are DnSortKey(normalised DN) -> 8-byte
// big-endian ID; keys over 511 bytes are cut and hashed, dn.h): base is one
// Get; the subtree of X is X's key plus the key range starting with
// DnDescendantPrefix(key of X) (for long keys, the cut range filtered by the
// full key each record holds); one level is that range without the keys
// holding another 0x00 after the prefix. A
// subtree that holds every entry (the suffix's) costs two cursor moves to
// recognise and is not walked; with at most kCheckScopePerEntry candidates
// each candidate's DN is checked instead of walking dn2id. The
// empty base DN stands for the root above the database: its subtree is every
// entry, its one level the entries whose parent is not stored (the suffix
// entry), and base scope on it finds nothing. (slapcat reads an empty base
// as the suffix; a tool wanting that passes the suffix.)
//
// Entries are visited in ascending ID order (the order slapcat prints).
//
// The caller reads the database's meta (attribute dictionary, index
// configuration and whether the indexes are current) and passes it in: this
// module only reads id2entry, dn2id and the index tables.
//
// Thread safety: as Store, one thread per store. Search() keeps no state;
// concurrent searches need a store (or a read transaction) each.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "lib/entry/entry_codec.h"
#include "lib/index/index_spec.h"
#include "lib/schema/schema.h"
#include "lib/search/filter.h"
#include "lib/search/planner.h"
#include "lib/store/store.h"
#include "lib/util/status.h"

namespace dirload {

enum class SearchScope { kBase, kOne, kSub };

// Up to this many index candidates are scope-checked by their own DN rather
// than by walking the scope's range of dn2id.
inline constexpr uint64_t kCheckScopePerEntry = 1000;

std::string_view SearchScopeName(SearchScope scope);  // "base", "one", "sub"
// "base", "one" ("onelevel"), "sub" ("subtree"), any case; InvalidArgument otherwise.
Result<SearchScope> ParseSearchScope(std::string_view name);

struct SearchRequest {
  std::string base;  // a DN as written (normalised here); "" for the root
  SearchScope scope = SearchScope::kSub;
  Filter filter;
  // The indexes to use; nullptr (or use_indexes false) scans.
  const IndexConfig* indexes = nullptr;
  bool use_indexes = true;
  // Fill SearchResult::plan (costs one string per filter node).
  bool explain = false;
  // At most this many candidates are scope-checked by their DN (0: always
  // walk dn2id).
  uint64_t check_scope_per_entry = kCheckScopePerEntry;
};

struct SearchResult {
  bool scanned = false;     // no index narrowed the search
  uint64_t candidates = 0;  // from the indexes (0 when scanned)
  uint64_t examined = 0;    // entries read from id2entry and checked
  uint64_t matched = 0;     // entries passed to the callback
  PlanNode plan;            // when explain; with use_indexes off, one node saying so
};

// Called for each matching entry, in ID order. `entry` points into a buffer
// that is reused for the next entry: copy what must outlive the call. A non-OK
// status stops the search and is returned.
using SearchCallback = std::function<Status(EntryId id, const EntryView& entry)>;

// Runs `request` on `store`. Errors: InvalidArgument for a base DN that does
// not parse or normalise, NotFound for a base entry that does not exist
// (LDAP's noSuchObject), and storage or corruption errors.
// REQUIRES: `dictionary` is the database's attribute dictionary (meta).
Result<SearchResult> Search(Store* store, const Schema& schema,
                            const AttributeDictionary& dictionary, const SearchRequest& request,
                            const SearchCallback& callback);

}  // namespace dirload
