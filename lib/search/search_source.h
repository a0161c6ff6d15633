// SearchSource: what a database format offers a search, and nothing more.
// The executor (search.h) runs every search the same way on each format:
// it normalizes the base and finds it here, plans AND/OR/NOT with
// PlanFilterTree (planner.h) over this source's candidates for each filter
// item, narrows to the scope, reads the entries, checks each with the
// filter's real matching rules (evaluate.h) and calls back in ascending ID
// order. A format provides only what its tables make different: how a DN
// becomes an ID, how a scope becomes IDs, how a filter item becomes index
// keys, and how an ID becomes an entry.
//
// Thread safety: a source serves one search at a time, on one thread. It
// borrows its database handles, which must outlive it.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "lib/entry/entry_codec.h"
#include "lib/idl/id_list.h"
#include "lib/index/index_spec.h"
#include "lib/search/filter.h"
#include "lib/search/planner.h"
#include "lib/util/status.h"

namespace dirload {

// kChildren is LDAP's subordinate subtree (OpenLDAP's `children`): every
// entry below the base, not the base. The executor (search.h) asks sources
// only for kBase, kOne and kSub, and takes the base out of kSub itself.
enum class SearchScope { kBase, kOne, kSub, kChildren };

// The entry a search starts from: its normalized DN and ID, or the root
// above the database (empty DN, ID 0), whose subtree is every entry and whose
// one level is the entries without a stored parent.
struct SearchBase {
  std::string ndn;
  EntryId id = 0;

  bool root() const { return ndn.empty(); }
};

class SearchSource {
 public:
  // Scan's two steps. `test` sees every entry, possibly before its DN is
  // filled in (a format may build DNs only for the entries kept), and says
  // whether `take` gets it, DN filled in. Either one's error stops the scan.
  using ScanTest = std::function<Result<bool>(EntryId id, const EntryView& entry)>;
  using ScanTake = std::function<Status(EntryId id, const EntryView& entry)>;

  virtual ~SearchSource() = default;

  // Resolves the descriptions of the entries Read and Scan hand out.
  virtual const AttributeDictionary& dictionary() const = 0;

  // How errors name entry `id` ("id2entry: ID 7").
  virtual std::string EntryName(EntryId id) const = 0;

  // The ID of the entry whose normalized DN is `ndn` (not empty); nullopt
  // when no entry has that DN.
  virtual Result<std::optional<EntryId>> FindEntry(std::string_view ndn) = 0;

  // True when the subtree of `base` (a stored entry, not the root) holds
  // every entry and that is cheap to tell; false otherwise, and the executor
  // then asks for the scope's IDs.
  virtual Result<bool> SubtreeHoldsEverything(const SearchBase& base) = 0;

  // The IDs in `scope` of `base`, in any order: for kSub the base and every
  // descendant, for kOne the children. Of the root only kOne is asked.
  virtual Result<IdList> ScopeIds(const SearchBase& base, SearchScope scope) = 0;

  // Of `candidates` (a few, ascending), those in `scope` (kOne or kSub) of
  // `base` (not the root), told from each one's recorded ancestry without
  // reading the entry. nullopt when only an entry's own DN can tell: the
  // executor then checks the DN of each candidate as it reads it.
  virtual Result<std::optional<IdList>> FilterByAncestry(const IdList& candidates,
                                                         const SearchBase& base,
                                                         SearchScope scope) = 0;

  // The candidates of one filter item (not AND, OR or NOT) from `indexes`,
  // keyed as this format keys values; plan->how says how they were found
  // and plan->lookups counts the keys read. Errors: storage and corruption.
  virtual Result<Candidates> ItemCandidates(const IndexConfig& indexes, const Filter& item,
                                            PlanNode* plan) = 0;

  // Entry `id`, valid until the next Read or Scan; nullptr when `id` holds
  // nothing a search returns (slapadd's placeholders for missing ancestors).
  // IDs are asked in ascending order.
  virtual Result<const EntryView*> Read(EntryId id) = 0;

  // Every entry, in ascending ID order, through `test` and `take` (above).
  virtual Status Scan(const ScanTest& test, const ScanTake& take) = 0;
};

}  // namespace dirload
