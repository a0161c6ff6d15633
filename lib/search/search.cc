#include "lib/search/search.h"

#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "lib/index/index_reader.h"
#include "lib/schema/dn.h"
#include "lib/search/evaluate.h"
#include "lib/store/tables.h"
#include "lib/util/ascii.h"
#include "lib/util/coding.h"

namespace dirload {
namespace {

// The scope as a set of IDs, or every entry.
struct Scope {
  bool all = false;
  IdList ids;
};

static_assert(kDn2IdMaxPlainKey == kMaxKeySize, "dn2id keys are plain up to the store's limit");

Result<Dn2IdRecord> DecodeRecord(std::string_view key, std::string_view value) {
  Dn2IdRecord r;
  if (!DecodeDn2IdRecord(key, value, &r)) {
    return Status::Corruption("dn2id: a key of " + std::to_string(key.size()) +
                              " bytes holds a value of " + std::to_string(value.size()) +
                              " bytes, not an 8-byte ID (and the DN's key, for a long key)");
  }
  return r;
}

// The entry with dn2id sort key `key`: its ID, or nullopt when no entry has
// that DN (including when another DN holds the same long key, which the loader
// never stores).
Result<std::optional<EntryId>> LookupId(Store* store, std::string_view key) {
  std::string buffer, value;
  DIRLOAD_ASSIGN_OR_RETURN(bool found, store->Get(kDn2IdTable, Dn2IdKey(key, &buffer), &value));
  if (!found) return std::optional<EntryId>();
  DIRLOAD_ASSIGN_OR_RETURN(Dn2IdRecord r, DecodeRecord(Dn2IdKey(key, &buffer), value));
  if (r.sort_key != key) return std::optional<EntryId>();
  return std::optional<EntryId>(r.id);
}

// True when the subtree of the entry with dn2id key `key` holds every entry:
// the first key is `key` and the last one lies in its descendant range (then
// so does every key between them, in bytewise order). Only answered for keys
// whose descendants follow them; for the others, false (walk the subtree).
Result<bool> SubtreeIsEverything(Store* store, const std::string& key) {
  if (!Dn2IdDescendantsFollow(key)) return false;
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
    // DN holds) skips them all. An entry reached that way has no stored
    // ancestor. Keys of 480 bytes and more do not allow the skip (dn.h): for
    // those the parent is looked up.
    for (c->SeekToFirst(); c->valid();) {
      DIRLOAD_ASSIGN_OR_RETURN(Dn2IdRecord r, DecodeRecord(c->key(), c->value()));
      if (Dn2IdDescendantsFollow(r.sort_key)) {
        ids.push_back(r.id);
        std::string next(c->key());
        next.push_back('\x01');
        c->Seek(next);
        continue;
      }
      const EntryId id = r.id;
      const std::string parent(DnSortKeyParent(r.sort_key));
      bool top = parent.empty();
      if (!top) {
        DIRLOAD_ASSIGN_OR_RETURN(std::optional<EntryId> p, LookupId(store, parent));
        top = !p.has_value();
      }
      if (top) ids.push_back(id);
      c->Next();
    }
    DIRLOAD_RETURN_IF_ERROR(c->status());
    s.ids = IdList::FromUnsorted(std::move(ids));
    return s;
  }
  const std::string key = DnSortKey(nbase);
  const std::string prefix = DnDescendantPrefix(key);
  // Long keys of the subtree sort under the cut prefix: the range may then
  // hold other entries, told apart by the full key each record carries.
  const std::string_view scan = Dn2IdScanPrefix(prefix);
  const bool exact = Dn2IdScanIsExact(prefix);
  if (scope == SearchScope::kSub) ids.push_back(base_id);
  for (c->Seek(scan); c->valid() && c->key().starts_with(scan);) {
    DIRLOAD_ASSIGN_OR_RETURN(Dn2IdRecord r, DecodeRecord(c->key(), c->value()));
    if (!exact && !r.sort_key.starts_with(prefix)) {
      c->Next();
      continue;
    }
    if (scope == SearchScope::kOne &&
        r.sort_key.find('\0', prefix.size()) != std::string_view::npos) {
      c->Next();  // below a child that is not stored: not one level down
      continue;
    }
    ids.push_back(r.id);
    if (scope == SearchScope::kOne && Dn2IdDescendantsFollow(r.sort_key)) {
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
    DIRLOAD_ASSIGN_OR_RETURN(std::optional<EntryId> found, LookupId(store, DnSortKey(nbase)));
    if (!found.has_value()) {
      return Status::NotFound("search base '" + request.base + "' does not exist");
    }
    base_id = *found;
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
