// MdbSearch: an offline search of slapd 2.5's back-mdb database, the engine
// of `dirload search` on that format. Results are exact whatever the index
// databases hold: they only propose candidates, and every candidate in scope
// is decoded from id2e and checked with the filter's real matching rules
// (lib/search/evaluate.h), so a search with indexes and a full scan
// (use_indexes false) return the same entries.
//
// Scope, through dn2i (mdb_dn_node.h): the base DN is found by walking from
// key 0 (whose child node holds the whole normalized suffix) down one
// normalized RDN at a time; the children of an entry are the child nodes
// under its ID. base is the base's ID; one its child nodes; sub the base and,
// level by level, its descendants, or every entry when the base is the only
// suffix entry. A few candidates (up to kCheckScopePerEntry) are checked by
// walking up their self nodes instead of walking the subtree down. The empty
// base DN is the root above the database, as for the native format
// (search.h).
//
// Candidates, per filter node, from the index databases named in the
// request's IndexConfig (the caller passes only indexes whose databases
// exist; slapd records no index configuration, so whether a configured index
// is current cannot be known):
//   AND       intersection of the children that narrow; OR union (all when
//             a child needs all); NOT all entries.
//   present   the presence key (4 zero bytes) if the index has pres.
//   =, ~=     the equality key if the index has eq: the assertion normalized
//             as id2e stores values (MdbNormalizedValue: NormalizeEquality,
//             entryUUID's 16 raw bytes) and hashed with MdbKeyHasher exactly
//             as MdbIndexBuilder hashes stored values; integerMatch through
//             MdbIntegerKey; objectClass the asserted class's own key (slapd
//             keys every entry by its classes and all their superclasses).
//   substrings  the initial, final and any keys the index kinds allow
//             (fragments normalized with the SUBSTR rule at their position,
//             cut in bytes as slapd cuts them), intersected.
//   >=, <=    all entries (ordered keys are not read).
// A key stored as the range {0, lo, hi} stands for every ID from lo to hi.
// An index is used for a type only when every subtype compares with the
// index type's rule, as in lib/search/planner.h. Unindexed parts fall back to
// a scan.
//
// Entries are visited in ascending ID order (slapcat's order); the empty
// placeholders slapadd leaves for missing ancestors are skipped.
//
// Thread safety: one thread; the reader is borrowed for the call.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "lib/entry/entry_codec.h"
#include "lib/format/mdb/mdb_env.h"
#include "lib/format/mdb/mdb_index_keys.h"
#include "lib/format/mdb/mdb_reader.h"
#include "lib/index/index_spec.h"
#include "lib/schema/schema.h"
#include "lib/search/filter.h"
#include "lib/search/search.h"
#include "lib/util/status.h"

namespace dirload::mdb {

struct MdbSearchRequest {
  std::string base;  // a DN as written; "" for the root above the database
  SearchScope scope = SearchScope::kSub;
  Filter filter;
  // The indexes to use (each with an index database in the environment);
  // nullptr or use_indexes false: a scan.
  const IndexConfig* indexes = nullptr;
  bool use_indexes = true;
  bool explain = false;  // fill SearchResult::plan
  MdbKeyOptions keys;    // slapd.conf's index_* settings the keys were made with
};

using MdbSearchCallback = std::function<Status(uint64_t id, const EntryView& entry)>;

// Runs `request`. Errors: InvalidArgument (kUsage) for a base DN that does
// not normalize, NotFound for a base entry that does not exist, storage and
// corruption errors. `entry` in the callback is valid during the call only.
Result<SearchResult> MdbSearch(MdbReader* reader, const Schema& schema,
                               const MdbSearchRequest& request, const MdbSearchCallback& callback);

// The configured indexes a search can use: those whose index database
// exists, and is not empty while id2e holds entries (an index configured
// after the load and never built). The others are named in *unusable with
// the reason ("cn: no index database").
Result<IndexConfig> MdbUsableIndexes(MdbEnv& env, const Schema& schema,
                                     const IndexConfig& configured,
                                     std::vector<std::string>* unusable);

}  // namespace dirload::mdb
