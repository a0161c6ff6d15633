#include "lib/format/native/native_search_source.h"

#include <utility>
#include <vector>

#include "lib/index/index_reader.h"
#include "lib/schema/dn.h"
#include "lib/store/tables.h"
#include "lib/util/coding.h"

namespace dirload {
namespace {

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

// One level below the root: the entries whose parent is not stored (the
// suffix entry). Each such entry's descendants follow its key and share the
// prefix key + 0x00, so seeking to key + 0x01 (a byte no normalised DN holds)
// skips them all. An entry reached that way has no stored ancestor. Keys of
// 480 bytes and more do not allow the skip (dn.h): for those the parent is
// looked up.
Result<IdList> TopLevelIds(Store* store) {
  std::vector<EntryId> ids;
  std::unique_ptr<Cursor> c = store->NewCursor(kDn2IdTable);
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
  return IdList::FromUnsorted(std::move(ids));
}

}  // namespace

std::string NativeSearchSource::EntryName(EntryId id) const {
  return "id2entry: ID " + std::to_string(id);
}

Result<std::optional<EntryId>> NativeSearchSource::FindEntry(std::string_view ndn) {
  return LookupId(store_, DnSortKey(ndn));
}

// The first key is the base's and the last one lies in its descendant range
// (then so does every key between them, in bytewise order). Only answered for
// keys whose descendants follow them; for the others, false (walk the
// subtree).
Result<bool> NativeSearchSource::SubtreeHoldsEverything(const SearchBase& base) {
  const std::string key = DnSortKey(base.ndn);
  if (!Dn2IdDescendantsFollow(key)) return false;
  std::unique_ptr<Cursor> c = store_->NewCursor(kDn2IdTable);
  c->SeekToFirst();
  DIRLOAD_RETURN_IF_ERROR(c->status());
  if (!c->valid() || c->key() != key) return false;
  c->SeekToLast();
  DIRLOAD_RETURN_IF_ERROR(c->status());
  return c->valid() && (c->key() == key || c->key().starts_with(DnDescendantPrefix(key)));
}

Result<IdList> NativeSearchSource::ScopeIds(const SearchBase& base, SearchScope scope) {
  if (scope == SearchScope::kBase) {
    IdList one;
    if (!base.root()) one.Append(base.id);
    return one;
  }
  if (base.root()) return TopLevelIds(store_);
  std::vector<EntryId> ids;
  std::unique_ptr<Cursor> c = store_->NewCursor(kDn2IdTable);
  const std::string key = DnSortKey(base.ndn);
  const std::string prefix = DnDescendantPrefix(key);
  // Long keys of the subtree sort under the cut prefix: the range may then
  // hold other entries, told apart by the full key each record carries.
  const std::string_view scan = Dn2IdScanPrefix(prefix);
  const bool exact = Dn2IdScanIsExact(prefix);
  if (scope == SearchScope::kSub) ids.push_back(base.id);
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
  return IdList::FromUnsorted(std::move(ids));
}

Result<std::optional<IdList>> NativeSearchSource::FilterByAncestry(const IdList&, const SearchBase&,
                                                                   SearchScope) {
  return std::optional<IdList>();
}

Result<Candidates> NativeSearchSource::ItemCandidates(const IndexConfig& indexes,
                                                      const Filter& item, PlanNode* plan) {
  Planner planner(schema_, indexes, [this](std::string_view table, std::string_view key) {
    return Lookup(store_, table, key);
  });
  return planner.PlanItem(item, plan);
}

Result<const EntryView*> NativeSearchSource::Read(EntryId id) {
  if (id2entry_ == nullptr) id2entry_ = store_->NewCursor(kId2EntryTable);
  Cursor& c = *id2entry_;
  key_.clear();
  PutBigEndian64(id, &key_);
  // IDs are ascending and often dense: try the next entry before seeking.
  if (c.valid() && c.key() < std::string_view(key_)) c.Next();
  if (!c.valid() || c.key() != std::string_view(key_)) c.Seek(key_);
  DIRLOAD_RETURN_IF_ERROR(c.status());
  if (!c.valid() || c.key() != std::string_view(key_)) {
    return Status::Corruption("id2entry holds no entry " + std::to_string(id) +
                              ", which dn2id or an index lists");
  }
  Status st = DecodeEntry(c.value(), &view_);
  if (!st.ok()) return st.WithPrefix(EntryName(id) + ": ");
  return &view_;
}

Status NativeSearchSource::Scan(const ScanTest& test, const ScanTake& take) {
  std::unique_ptr<Cursor> c = store_->NewCursor(kId2EntryTable);
  EntryView view;
  for (c->SeekToFirst(); c->valid(); c->Next()) {
    if (c->key().size() != 8) {
      return Status::Corruption("id2entry: a key of " + std::to_string(c->key().size()) +
                                " bytes, not an 8-byte ID");
    }
    const EntryId id = GetBigEndian64(c->key());
    Status st = DecodeEntry(c->value(), &view);
    if (!st.ok()) return st.WithPrefix(EntryName(id) + ": ");
    DIRLOAD_ASSIGN_OR_RETURN(bool keep, test(id, view));
    if (keep) DIRLOAD_RETURN_IF_ERROR(take(id, view));
  }
  return c->status();
}

}  // namespace dirload
