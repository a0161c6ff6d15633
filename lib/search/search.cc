#include "lib/search/search.h"

#include <memory>
#include <utility>
#include <vector>

#include "lib/index/index_reader.h"
#include "lib/schema/ascii.h"
#include "lib/schema/dn.h"
#include "lib/search/evaluate.h"
#include "lib/store/tables.h"
#include "lib/util/coding.h"

namespace dirload {
namespace {

// The scope as a set of IDs, or every entry.
struct Scope {
  bool all = false;
  IdList ids;
};

Result<EntryId> DecodeId(std::string_view key, std::string_view value) {
  if (value.size() != 8) {
    return Status::Corruption("dn2id: the value of a key of " + std::to_string(key.size()) +
                              " bytes is " + std::to_string(value.size()) +
                              " bytes, not an 8-byte ID");
  }
  return GetBigEndian64(value);
}

// True when the subtree of the entry with dn2id key `key` holds every entry:
// the first key is `key` and the last one lies in its descendant range (then
// so does every key between them, in bytewise order).
Result<bool> SubtreeIsEverything(Store* store, const std::string& key) {
  std::unique_ptr<Cursor> c = store->NewCursor(kDn2IdTable);
  c->SeekToFirst();
  DIRLOAD_RETURN_IF_ERROR(c->status());
  if (!c->valid() || c->key() != key) return false;
  c->SeekToLast();
  DIRLOAD_RETURN_IF_ERROR(c->status());
  return c->valid() && (c->key() == key || c->key().starts_with(DnDescendantPrefix(key)));
}

Result<Scope> ScopeIds(Store* store, const std::string& nbase, EntryId base_id, SearchScope scope) {
  Scope s;
  if (scope == SearchScope::kBase) {
    if (!nbase.empty()) s.ids.Append(base_id);
    return s;
  }
  if (nbase.empty() && scope == SearchScope::kSub) {
    s.all = true;
    return s;
  }
  std::vector<EntryId> ids;
  std::unique_ptr<Cursor> c = store->NewCursor(kDn2IdTable);
  if (nbase.empty()) {
    // One level below the root: the entries whose parent is not stored (the
    // suffix entry). Each such entry's descendants follow its key and share
    // the prefix key + 0x00, so seeking to key + 0x01 (a byte no normalised
    // DN holds) skips them all.
    for (c->SeekToFirst(); c->valid();) {
      DIRLOAD_ASSIGN_OR_RETURN(EntryId id, DecodeId(c->key(), c->value()));
      ids.push_back(id);
      std::string next(c->key());
      next.push_back('\x01');
      c->Seek(next);
    }
    DIRLOAD_RETURN_IF_ERROR(c->status());
    s.ids = IdList::FromUnsorted(std::move(ids));
    return s;
  }
  const std::string key = DnSortKey(nbase);
  const std::string prefix = DnDescendantPrefix(key);
  if (scope == SearchScope::kSub) ids.push_back(base_id);
  for (c->Seek(prefix); c->valid() && c->key().starts_with(prefix);) {
    if (scope == SearchScope::kOne &&
        c->key().find('\0', prefix.size()) != std::string_view::npos) {
      c->Next();  // below a child that is not stored: not one level down
      continue;
    }
    DIRLOAD_ASSIGN_OR_RETURN(EntryId id, DecodeId(c->key(), c->value()));
    ids.push_back(id);
    if (scope == SearchScope::kOne) {
      // A child: its descendants are skipped by seeking past the child's
      // key + 0x00 range.
      std::string next(c->key());
      next.push_back('\x01');
      c->Seek(next);
    } else {
      c->Next();
    }
  }
  DIRLOAD_RETURN_IF_ERROR(c->status());
  s.ids = IdList::FromUnsorted(std::move(ids));
  return s;
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
  }
  return "?";
}

Result<SearchScope> ParseSearchScope(std::string_view name) {
  using schema_internal::EqualsIgnoreCase;
  if (EqualsIgnoreCase(name, "base")) return SearchScope::kBase;
  if (EqualsIgnoreCase(name, "one") || EqualsIgnoreCase(name, "onelevel")) {
    return SearchScope::kOne;
  }
  if (EqualsIgnoreCase(name, "sub") || EqualsIgnoreCase(name, "subtree")) {
    return SearchScope::kSub;
  }
  return Status::InvalidArgument("unknown search scope '" + std::string(name) +
                                 "' (expected base, one or sub)");
}

Result<SearchResult> Search(Store* store, const Schema& schema,
                            const AttributeDictionary& dictionary, const SearchRequest& request,
                            const SearchCallback& callback) {
  SearchResult result;

  // The base entry.
  std::string nbase;
  EntryId base_id = 0;
  if (!request.base.empty()) {
    Result<std::string> n = NormalizeDn(schema, request.base);
    if (!n.ok()) {
      return Status::InvalidArgument("search base '" + request.base + "': " + n.status().message());
    }
    nbase = std::move(*n);
    std::string value;
    DIRLOAD_ASSIGN_OR_RETURN(bool found, store->Get(kDn2IdTable, DnSortKey(nbase), &value));
    if (!found) {
      return Status::NotFound("search base '" + request.base + "' does not exist");
    }
    DIRLOAD_ASSIGN_OR_RETURN(base_id, DecodeId(DnSortKey(nbase), value));
  }

  // Candidates from the indexes.
  Candidates candidates = Candidates::All();
  if (request.use_indexes && request.indexes != nullptr) {
    Planner planner(schema, *request.indexes,
                    [store](std::string_view table, std::string_view key) {
                      return Lookup(store, table, key);
                    });
    PlanNode* plan = request.explain ? &result.plan : nullptr;
    DIRLOAD_ASSIGN_OR_RETURN(candidates, planner.Plan(request.filter, plan));
  } else if (request.explain) {
    result.plan.filter = request.filter.ToString();
    result.plan.how = request.use_indexes ? "no indexes configured" : "indexes not used";
  }
  result.scanned = candidates.all;
  result.candidates = candidates.all ? 0 : candidates.ids.size();

  // The scope: every entry, an ID set from dn2id, or (for a few candidates
  // below a real base) a check of each candidate's DN, which costs less than
  // walking a large subtree of dn2id.
  Scope scope;
  bool check_dn = false;
  if (request.scope == SearchScope::kSub && !nbase.empty()) {
    DIRLOAD_ASSIGN_OR_RETURN(scope.all, SubtreeIsEverything(store, DnSortKey(nbase)));
  }
  if (!scope.all) {
    if (request.scope != SearchScope::kBase && !nbase.empty() && !candidates.all &&
        candidates.ids.size() <= request.check_scope_per_entry) {
      check_dn = true;
      scope.all = true;
    } else {
      DIRLOAD_ASSIGN_OR_RETURN(scope, ScopeIds(store, nbase, base_id, request.scope));
    }
  }

  // What to read: the candidates in scope, or every entry.
  const bool read_all = candidates.all && scope.all;
  IdList ids;
  if (!read_all) {
    if (candidates.all) {
      ids = std::move(scope.ids);
    } else if (scope.all) {
      ids = std::move(candidates.ids);
    } else {
      ids = IdList::Intersect(candidates.ids, scope.ids);
    }
  }

  const DescriptionTable descriptions(dictionary, schema);
  const FilterMatcher matcher(request.filter, schema);
  EntryView view;
  std::string ndn;
  auto check = [&](EntryId id, std::string_view bytes) -> Status {
    ++result.examined;
    Status st = DecodeEntry(bytes, &view);
    if (!st.ok()) return st.WithPrefix("id2entry: ID " + std::to_string(id) + ": ");
    if (check_dn) {
      st = NormalizeDn(schema, view.dn, &ndn);
      if (!st.ok()) return st.WithPrefix("id2entry: ID " + std::to_string(id) + ": DN: ");
      const bool in = request.scope == SearchScope::kSub ? IsUnder(ndn, nbase)
                                                         : !ndn.empty() && ParentDn(ndn) == nbase;
      if (!in) return Status::Ok();
    }
    Result<bool> hit = matcher.Matches(view, descriptions);
    if (!hit.ok()) return hit.status().WithPrefix("id2entry: ID " + std::to_string(id) + ": ");
    if (!*hit) return Status::Ok();
    ++result.matched;
    return callback(id, view);
  };

  std::unique_ptr<Cursor> c = store->NewCursor(kId2EntryTable);
  if (read_all) {
    for (c->SeekToFirst(); c->valid(); c->Next()) {
      if (c->key().size() != 8) {
        return Status::Corruption("id2entry: a key of " + std::to_string(c->key().size()) +
                                  " bytes, not an 8-byte ID");
      }
      DIRLOAD_RETURN_IF_ERROR(check(GetBigEndian64(c->key()), c->value()));
    }
    DIRLOAD_RETURN_IF_ERROR(c->status());
    return result;
  }
  std::string key;
  for (EntryId id : ids) {
    key.clear();
    PutBigEndian64(id, &key);
    // IDs are ascending and often dense: try the next entry before seeking.
    if (c->valid() && c->key() < std::string_view(key)) c->Next();
    if (!c->valid() || c->key() != std::string_view(key)) c->Seek(key);
    DIRLOAD_RETURN_IF_ERROR(c->status());
    if (!c->valid() || c->key() != std::string_view(key)) {
      return Status::Corruption("id2entry holds no entry " + std::to_string(id) + ", which " +
                                (candidates.all ? "dn2id" : "an index") + " lists");
    }
    DIRLOAD_RETURN_IF_ERROR(check(id, c->value()));
  }
  return result;
}

}  // namespace dirload
