// Offline search: the engine of `dirload search` and `dirload cat -a/-s/-H`
// on both database formats, run over the format's SearchSource
// (search_source.h). Candidates come from the indexes (PlanFilterTree over
// the source's item candidates) or from a scan; the scope from the source;
// every candidate in scope is read and checked with the filter's real
// matching rules (evaluate.h), so the result is exact whatever the indexes
// say, and a search with indexes returns what a scan returns.
//
// The scope: base is the base entry alone; one level and subtree are the
// source's IDs, intersected with the candidates. A subtree that holds every
// entry (the suffix's, the root's) is recognised by the source without
// walking it. With at most check_scope_per_entry candidates below a stored
// base, each candidate is checked instead of walking the scope: by its
// recorded ancestry when the format keeps one (slapd's dn2i), else by its own
// DN as it is read. The empty base DN stands for the root above the
// database: its subtree is every entry, its one level the entries whose
// parent is not stored (the suffix entry), and base scope on it finds
// nothing. (slapcat reads an empty base as the suffix; a tool wanting that
// passes the suffix.)
//
// Entries are visited in ascending ID order (the order slapcat prints).
//
// The caller passes the indexes a search may trust (the format's reader
// sorts them out from its meta or configuration).
//
// Thread safety: Search() keeps no state; a source serves one search at a
// time, so concurrent searches need a source (and its read session) each.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "lib/entry/entry_codec.h"
#include "lib/index/index_spec.h"
#include "lib/schema/schema.h"
#include "lib/search/filter.h"
#include "lib/search/planner.h"
#include "lib/search/search_source.h"
#include "lib/store/store.h"
#include "lib/util/status.h"

namespace dirload {

// Up to this many index candidates are scope-checked one by one (by their
// ancestry or their DN) rather than by walking the scope.
inline constexpr uint64_t kCheckScopePerEntry = 1000;

// "base", "one", "sub", "children"
std::string_view SearchScopeName(SearchScope scope);
// "base", "one" ("onelevel"), "sub" ("subtree"), "children" ("subordinate",
// "subord", as OpenLDAP spells it in URLs), any case; InvalidArgument otherwise.
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
  // At most this many candidates are scope-checked one by one (0: always
  // walk the scope).
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

// Runs `request` on `source`. Errors: InvalidArgument (kUsage) for a base DN
// that does not parse or normalise, NotFound for a base entry that does not
// exist (LDAP's noSuchObject), the callback's error, and the source's storage
// or corruption errors.
Result<SearchResult> Search(SearchSource& source, const Schema& schema,
                            const SearchRequest& request, const SearchCallback& callback);

// The base `base` (a DN as written) names: the root for "", else the stored
// entry's normalized DN and ID; nullopt when no entry has that DN.
// InvalidArgument (kUsage) when it does not normalise.
Result<std::optional<SearchBase>> FindSearchBase(SearchSource& source, const Schema& schema,
                                                 const std::string& base);

}  // namespace dirload
