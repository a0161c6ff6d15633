// dirload's native tables as a SearchSource (search_source.h).
//
// Base: one Get in dn2id (keys are DnSortKey(normalised DN) -> 8-byte
// big-endian ID; keys over 511 bytes are cut and hashed, dn.h).
// Scope: the subtree of X is X's key plus the key range starting with
// DnDescendantPrefix(key of X) (for long keys, the cut range filtered by the
// full key each record holds); one level is that range without the keys
// holding another 0x00 after the prefix. A subtree that holds every entry
// costs two cursor moves to recognise: the first key is X's and the last lies
// in its range. dn2id maps no ID back to a DN, so a few candidates are
// scope-checked by the DN of the entry itself (FilterByAncestry says so).
// Candidates: the Planner's items (planner.h) over the index tables
// (index_reader.h). Entries: id2entry, read with one cursor that steps to the
// next ID before it seeks.
//
// Thread safety: as Store, one thread per store; the store and dictionary
// are borrowed and must outlive the source.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "lib/schema/schema.h"
#include "lib/search/search_source.h"
#include "lib/store/store.h"

namespace dirload {

class NativeSearchSource final : public SearchSource {
 public:
  // REQUIRES: `dictionary` is the database's attribute dictionary (meta).
  NativeSearchSource(Store* store, const Schema& schema, const AttributeDictionary& dictionary)
      : store_(store), schema_(schema), dictionary_(dictionary) {}

  const AttributeDictionary& dictionary() const override { return dictionary_; }
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
  Store* store_;
  const Schema& schema_;
  const AttributeDictionary& dictionary_;
  std::unique_ptr<Cursor> id2entry_;  // Read's, kept between calls
  std::string key_;
  EntryView view_;
};

}  // namespace dirload
