#include "lib/search/search.h"

#include <utility>

#include "lib/schema/dn.h"
#include "lib/search/evaluate.h"
#include "lib/util/ascii.h"

namespace dirload {
namespace {

// True when `ndn`, the normalised DN of an entry, lies in `scope` (kOne or
// kSub) of the stored base `base`.
bool DnInScope(std::string_view ndn, const SearchBase& base, SearchScope scope) {
  return scope == SearchScope::kSub ? IsUnder(ndn, base.ndn)
                                    : !ndn.empty() && ParentDn(ndn) == base.ndn;
}

}  // namespace

std::string_view SearchScopeName(SearchScope scope) {
  switch (scope) {
    case SearchScope::kBase:
      return "base";
    case SearchScope::kOne:
      return "one";
    case SearchScope::kSub:
      return "sub";
    case SearchScope::kChildren:
      return "children";
  }
  return "?";
}

Result<SearchScope> ParseSearchScope(std::string_view name) {
  if (EqualsIgnoreCase(name, "base")) return SearchScope::kBase;
  if (EqualsIgnoreCase(name, "one") || EqualsIgnoreCase(name, "onelevel")) {
    return SearchScope::kOne;
  }
  if (EqualsIgnoreCase(name, "sub") || EqualsIgnoreCase(name, "subtree")) {
    return SearchScope::kSub;
  }
  if (EqualsIgnoreCase(name, "children") || EqualsIgnoreCase(name, "subordinate") ||
      EqualsIgnoreCase(name, "subord")) {
    return SearchScope::kChildren;
  }
  return Status::InvalidArgument("unknown search scope '" + std::string(name) +
                                 "' (expected base, one, sub or children)");
}

Result<std::optional<SearchBase>> FindSearchBase(SearchSource& source, const Schema& schema,
                                                 const std::string& base) {
  SearchBase found;
  if (base.empty()) return std::optional<SearchBase>(std::move(found));
  Result<std::string> n = NormalizeDn(schema, base);
  if (!n.ok()) {
    return Status::InvalidArgument("search base '" + base + "': " + n.status().message())
        .WithOrigin(ErrorOrigin::kUsage);
  }
  found.ndn = std::move(*n);
  DIRLOAD_ASSIGN_OR_RETURN(std::optional<EntryId> id, source.FindEntry(found.ndn));
  if (!id.has_value()) return std::optional<SearchBase>();
  found.id = *id;
  return std::optional<SearchBase>(std::move(found));
}

Result<SearchResult> Search(SearchSource& source, const Schema& schema,
                            const SearchRequest& request, const SearchCallback& callback) {
  SearchResult result;

  DIRLOAD_ASSIGN_OR_RETURN(std::optional<SearchBase> found,
                           FindSearchBase(source, schema, request.base));
  if (!found.has_value()) {
    return Status::NotFound("search base '" + request.base + "' does not exist");
  }
  const SearchBase& base = *found;

  // Candidates from the indexes.
  Candidates candidates = Candidates::All();
  if (request.use_indexes && request.indexes != nullptr) {
    const IndexConfig& indexes = *request.indexes;
    PlanNode scratch;
    DIRLOAD_ASSIGN_OR_RETURN(
        candidates, PlanFilterTree(request.filter, request.explain ? &result.plan : &scratch,
                                   [&](const Filter& item, PlanNode* plan) {
                                     return source.ItemCandidates(indexes, item, plan);
                                   }));
  } else if (request.explain) {
    result.plan.filter = request.filter.ToString();
    result.plan.how = request.use_indexes ? "no indexes configured" : "indexes not used";
  }
  result.scanned = candidates.all;
  result.candidates = candidates.all ? 0 : candidates.ids.size();

  // The scope: every entry, an ID set from the source, or (for a few
  // candidates below a stored base) a check of each candidate, which costs
  // less than walking a large scope.
  bool scope_all = false;
  bool check_dn = false;
  IdList scope_ids;
  // The children scope is the subtree without its base: sources are asked
  // for the subtree and the base is dropped as it comes.
  const SearchScope scope =
      request.scope == SearchScope::kChildren ? SearchScope::kSub : request.scope;
  const bool drop_base = request.scope == SearchScope::kChildren && !base.root();
  if (scope == SearchScope::kSub) {
    scope_all = base.root();
    if (!scope_all) {
      DIRLOAD_ASSIGN_OR_RETURN(scope_all, source.SubtreeHoldsEverything(base));
    }
  }
  if (!scope_all) {
    if (scope == SearchScope::kBase) {
      if (!base.root()) scope_ids.Append(base.id);
    } else if (!base.root() && !candidates.all &&
               candidates.ids.size() <= request.check_scope_per_entry) {
      DIRLOAD_ASSIGN_OR_RETURN(std::optional<IdList> in,
                               source.FilterByAncestry(candidates.ids, base, scope));
      if (in.has_value()) {
        candidates.ids = std::move(*in);
      } else {
        check_dn = true;
      }
      scope_all = true;
    } else {
      DIRLOAD_ASSIGN_OR_RETURN(scope_ids, source.ScopeIds(base, scope));
    }
  }

  const DescriptionTable descriptions(source.dictionary(), schema);
  const FilterMatcher matcher(request.filter, schema);
  std::string ndn;
  auto test = [&](EntryId id, const EntryView& entry) -> Result<bool> {
    if (drop_base && id == base.id) return false;
    ++result.examined;
    if (check_dn) {
      Status st = NormalizeDn(schema, entry.dn, &ndn);
      if (!st.ok()) return st.WithPrefix(source.EntryName(id) + ": DN: ");
      if (!DnInScope(ndn, base, scope)) return false;
    }
    Result<bool> hit = matcher.Matches(entry, descriptions);
    if (!hit.ok()) return hit.status().WithPrefix(source.EntryName(id) + ": ");
    return hit;
  };
  auto take = [&](EntryId id, const EntryView& entry) -> Status {
    ++result.matched;
    return callback(id, entry);
  };

  // What to read: every entry, or the candidates in scope.
  if (candidates.all && scope_all) {
    DIRLOAD_RETURN_IF_ERROR(source.Scan(test, take));
    return result;
  }
  IdList ids;
  if (candidates.all) {
    ids = std::move(scope_ids);
  } else if (scope_all) {
    ids = std::move(candidates.ids);
  } else {
    ids = IdList::Intersect(candidates.ids, scope_ids);
  }
  for (EntryId id : ids) {
    DIRLOAD_ASSIGN_OR_RETURN(const EntryView* entry, source.Read(id));
    if (entry == nullptr) continue;
    DIRLOAD_ASSIGN_OR_RETURN(bool hit, test(id, *entry));
    if (hit) DIRLOAD_RETURN_IF_ERROR(take(id, *entry));
  }
  return result;
}

}  // namespace dirload
