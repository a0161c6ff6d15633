// Search planning: turning a filter into a set of candidate entry IDs with
// the configured indexes. Candidates are always a superset of the entries the
// filter matches (the search checks each one exactly, evaluate.h), and either
// an exact ID list or "all entries" (a scan).
//
// Per filter node:
//   AND       the intersection of its children's lists; children that cannot
//             use an index are left out (the set stays a superset); all
//             entries only when no child narrows. Children are read in an
//             order that puts the likely short lists first (equality, then
//             substrings, nested filters, presence and objectClass), and
//             reading stops once kFewCandidates or fewer IDs remain.
//   OR        the union of its children; one child needing all entries makes
//             the OR all entries.
//   NOT       all entries.
//   present   the presence key, if the index has pres.
//   =         the equality key, if the index has eq. objectClass: the union
//             over the asserted class and every subclass of it, since
//             (objectClass=person) holds for entries listing only
//             inetOrgPerson while the index holds the classes as listed.
//   ~=        on a type with slapd's approximate rule (approx_match.h): the
//             intersection of the approx keys of the assertion's words that
//             have a phonetic code, if the index has approx (an eq index
//             cannot help: "smyth" finds "Smith"); as = on other types.
//   substrings  the intersection of the fragment keys (index_keys.h), if the
//             index has the substring kinds and a fragment is long enough.
//   >= <=     all entries: there are no ordering keys.
// The index used for an attribute is IndexConfig::ForSearch (its own, or a
// supertype's). Keys are made with the index type's rule, so an index is only
// used when every subtype of the filter's type compares with that same rule
// (otherwise a value could match under its own rule with another key).
// Items that are Undefined for every entry (an undefined attribute type, no
// matching rule for the kind, an undefined object class) have no candidates.
//
// Thread safety: a Planner is used by one thread at a time (the lookup
// function usually reads a Store); the Schema and IndexConfig are only read
// and must outlive it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/idl/id_list.h"
#include "lib/index/index_spec.h"
#include "lib/schema/schema.h"
#include "lib/search/filter.h"
#include "lib/util/status.h"

namespace dirload {

// An AND whose intersection is down to this many IDs reads no more lists.
inline constexpr size_t kFewCandidates = 16;

// A candidate set: every entry, or exactly `ids`.
struct Candidates {
  bool all = true;
  IdList ids;  // meaningful when !all

  static Candidates All() { return {}; }
  static Candidates Of(IdList ids) { return {false, std::move(ids)}; }
};

// How one filter node got its candidates, for --explain.
struct PlanNode {
  std::string filter;    // the node's RFC 4515 form
  std::string how;       // "idx.sn eq:smith", "not indexed: no ordering keys", ...
  bool all = true;       // the node's candidates are all entries
  uint64_t ids = 0;      // otherwise their number
  uint64_t lookups = 0;  // index keys read for this node itself
  bool skipped = false;  // not planned: the parent had few enough candidates
  std::vector<PlanNode> children;

  // An indented tree, one node per line:
  //   (&(objectClass=person)(sn=smith)) and: intersection -> 12 IDs
  //     (objectClass=person) idx.objectclass eq, 3 classes -> 20000 IDs
  //     (sn=smith) idx.sn eq:smith -> 12 IDs
  std::string ToString() const;
};

// The candidates of one item (a node that is not AND, OR or NOT) from a
// format's own index keys.
using PlanItemFn = std::function<Result<Candidates>(const Filter& item, PlanNode* plan)>;

// The AND, OR and NOT nodes of `f` planned as the header says, their items
// by `item`; *plan receives the explanation. Shared by the native Planner
// below and the search executor (search.h), whose items come from each
// format's SearchSource.
Result<Candidates> PlanFilterTree(const Filter& f, PlanNode* plan, const PlanItemFn& item);

// What every format decides about a filter item before it reads a key: the
// item's attribute type and the index configured for it, or, when no key
// can help, its candidates already (`decided`: none for an item that is
// never true, all for one no index answers), with plan->how saying why.
struct ItemIndex {
  const AttributeType* type = nullptr;
  const IndexSpec* spec = nullptr;
  std::optional<Candidates> decided;
};
// REQUIRES: plan is not null; `item` is not AND, OR or NOT.
ItemIndex FindItemIndex(const Schema& schema, const IndexConfig& indexes, const Filter& item,
                        PlanNode* plan);

// The intersection of the ID lists of `keys` (not empty), each read by
// `read` in order; reading stops at the first empty list, which empties the
// intersection anyway. Substring and approx items use it: every matching
// value has all of the assertion's keys.
using KeyReadFn = std::function<Result<IdList>(const std::string& key)>;
Result<Candidates> IntersectKeyLists(const std::vector<std::string>& keys, const KeyReadFn& read);

// True when every subtype of `type` (itself included) that has a rule of
// kind `kind` has `rule`: only then may an index made with `rule` answer
// for `type`.
bool SubtypesShareRule(const Schema& schema, const AttributeType* type, FilterKind kind,
                       const MatchingRule* rule);

// Reads the ID list of `key` in index table `table` (index_reader.h Lookup
// over a Store; tests pass a fake). An absent key is an empty list.
using IndexLookupFn = std::function<Result<IdList>(std::string_view table, std::string_view key)>;

class Planner {
 public:
  // REQUIRES: schema and indexes outlive the planner.
  Planner(const Schema& schema, const IndexConfig& indexes, IndexLookupFn lookup);

  // Candidates for `filter`; *plan (if not null) receives the explanation.
  // Errors come only from the lookup function (storage, corruption).
  Result<Candidates> Plan(const Filter& filter, PlanNode* plan = nullptr);
  // The candidates of one item (not AND, OR or NOT): a PlanItemFn, which is
  // how the native format's SearchSource plans (native_search_source.h).
  // REQUIRES: plan is not null.
  Result<Candidates> PlanItem(const Filter& f, PlanNode* plan);

 private:
  Result<Candidates> PlanApprox(const Filter& f, const AttributeType* type, const IndexSpec& spec,
                                PlanNode* plan);
  // IntersectKeyLists over `table`, plan->how naming the keys.
  Result<Candidates> ReadIntersection(const std::string& table,
                                      const std::vector<std::string>& keys, PlanNode* plan);
  Result<IdList> Read(const std::string& table, const std::string& key, PlanNode* plan);
  const Schema& schema_;
  const IndexConfig& indexes_;
  IndexLookupFn lookup_;
};

}  // namespace dirload
