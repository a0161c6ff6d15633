// MdbSearchSource: slapd 2.5's back-mdb database as a SearchSource
// (lib/search/search_source.h), which the search executor (search.h) runs
// `dirload search` and `dirload cat -a/-s/-H` over.
//
// Base and scope, through dn2i (mdb_dn_node.h): the base DN is found by
// walking from key 0 (whose child node holds the whole normalized suffix)
// down one normalized RDN at a time; the children of an entry are the child
// nodes under its ID. one is the base's child nodes; sub the base and, level
// by level, its descendants, or every entry when the base is the only suffix
// entry. A few candidates are checked by walking up their self nodes
// (FilterByAncestry) instead of walking the subtree down.
//
// Candidates, per filter item, from the index databases named in the
// IndexConfig (the caller passes only indexes whose databases exist; slapd
// records no index configuration, so whether a configured index is current
// cannot be known):
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
//   >=, <=    all entries (no ordering keys are read).
// A key stored as the range {0, lo, hi} stands for every ID from lo to hi.
// An index is used for a type only when every subtype compares with the
// index type's rule, as in lib/search/planner.h.
//
// Entries: through the MdbReader, with the entry checks it is set to; the
// empty placeholders slapadd leaves for missing ancestors are skipped. The
// filter needs the values only, so a scan tests each entry before the reader
// builds its DN, and only the entries taken get one.
//
// Thread safety: one thread; the reader is borrowed and must outlive the
// source. The source keeps a read transaction for dn2i and the index
// databases, and ends it before the reader reads (LMDB allows one read
// transaction per thread).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "lib/entry/entry_codec.h"
#include "lib/format/mdb/mdb_dn_node.h"
#include "lib/format/mdb/mdb_env.h"
#include "lib/format/mdb/mdb_index_keys.h"
#include "lib/format/mdb/mdb_reader.h"
#include "lib/index/index_spec.h"
#include "lib/schema/schema.h"
#include "lib/search/filter.h"
#include "lib/search/search_source.h"
#include "lib/util/status.h"

namespace dirload::mdb {

class MdbSearchSource final : public SearchSource {
 public:
  // `keys`: slapd.conf's index_* settings the stored keys were made with.
  MdbSearchSource(MdbReader* reader, const Schema& schema, const MdbKeyOptions& keys)
      : reader_(reader), schema_(schema), keys_(keys) {}

  const AttributeDictionary& dictionary() const override { return reader_->dictionary(); }
  std::string EntryName(EntryId id) const override;
  Result<std::optional<EntryId>> FindEntry(std::string_view ndn) override;
  Result<bool> SubtreeHoldsEverything(const SearchBase& base) override;
  Result<IdList> ScopeIds(const SearchBase& base, SearchScope scope) override;
  Result<std::optional<IdList>> FilterByAncestry(const IdList& candidates, const SearchBase& base,
                                                 SearchScope scope) override;
  Result<Candidates> ItemCandidates(const IndexConfig& indexes, const Filter& item,
                                    PlanNode* plan) override;
  Result<const EntryView*> Read(EntryId id) override;
  Status Scan(const ScanTest& test, const ScanTake& take) override;

 private:
  // The read transaction of dn2i and the index databases, begun on demand.
  Result<MdbTxn*> Txn();
  // The child nodes under `id` (key 0: the suffix entries).
  Result<std::vector<MdbDnNode>> Children(uint64_t id);
  // The parent of `id` (0 for a suffix entry), from its self node; cached.
  Result<uint64_t> Parent(uint64_t id);

  MdbReader* reader_;
  const Schema& schema_;
  MdbKeyOptions keys_;
  std::optional<MdbTxn> txn_;
  std::unordered_map<uint64_t, uint64_t> parents_;
  MdbReadEntry entry_;  // Read's
};

// The configured indexes a search can use: those whose index database
// exists, and is not empty while id2e holds entries (an index configured
// after the load and never built). The others are named in *unusable with
// the reason ("cn: no index database").
Result<IndexConfig> MdbUsableIndexes(MdbEnv& env, const Schema& schema,
                                     const IndexConfig& configured,
                                     std::vector<std::string>* unusable);

}  // namespace dirload::mdb
