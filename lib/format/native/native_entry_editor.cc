#include "lib/format/native/native_entry_editor.h"

#include <algorithm>

#include "lib/format/native/native_indexer.h"
#include "lib/idl/idl_store.h"
#include "lib/schema/dn.h"
#include "lib/schema/schema.h"
#include "lib/store/tables.h"
#include "lib/util/coding.h"
#include "lib/util/run_stats.h"

namespace dirload {
namespace {

std::string IdKey(EntryId id) {
  std::string k;
  PutBigEndian64(id, &k);
  return k;
}

Status Corrupt(const std::string& what) {
  return Status::Corruption(what).WithOrigin(ErrorOrigin::kDatabase);
}

}  // namespace

Result<std::unique_ptr<NativeEntryEditor>> NativeEntryEditor::Open(const Schema& schema,
                                                                   std::unique_ptr<Store> store,
                                                                   std::string nsuffix) {
  std::unique_ptr<NativeEntryEditor> e(
      new NativeEntryEditor(schema, std::move(store), std::move(nsuffix)));
  DIRLOAD_ASSIGN_OR_RETURN(e->meta_, ReadMeta(e->store_.get(), &e->dictionary_));
  DIRLOAD_RETURN_IF_ERROR(RequireReady(e->meta_, e->store_->path()));
  e->dictionary_saved_ = e->dictionary_.size();
  // The indexes the database has are the ones it recorded.
  DIRLOAD_ASSIGN_OR_RETURN(std::vector<IndexConfig::Line> lines,
                           RecordedIndexLines(e->store_.get()));
  DIRLOAD_ASSIGN_OR_RETURN(IndexConfig config, IndexConfig::Parse(schema, lines));
  e->specs_ = config.specs();
  e->keys_.emplace(e->specs_, schema);
  return e;
}

Result<std::optional<EntryId>> NativeEntryEditor::Lookup(std::string_view key) {
  const std::string_view stored_key = Dn2IdKey(key, &buffer_);
  std::string value;
  DIRLOAD_ASSIGN_OR_RETURN(bool found, store_->Get(kDn2IdTable, stored_key, &value));
  if (!found) return std::optional<EntryId>();
  Dn2IdRecord r;
  if (!DecodeDn2IdRecord(stored_key, value, &r)) return Corrupt("dn2id: a malformed record");
  if (r.sort_key != key) return std::optional<EntryId>();
  return std::optional<EntryId>(r.id);
}

Result<std::optional<EntryId>> NativeEntryEditor::Find(std::string_view ndn) {
  if (!IsUnder(ndn, nsuffix_)) return std::optional<EntryId>();
  std::string key = DnSortKey(ndn);
  DIRLOAD_ASSIGN_OR_RETURN(std::optional<EntryId> id, Lookup(key));
  if (id.has_value()) sort_keys_[*id] = std::move(key);
  return id;
}

Result<std::string> NativeEntryEditor::SortKeyOf(EntryId id) const {
  auto it = sort_keys_.find(id);
  if (it == sort_keys_.end()) {
    return Status::Internal("entry " + std::to_string(id) + " was not found by name first");
  }
  return it->second;
}

Result<std::vector<std::pair<std::string, EntryId>>> NativeEntryEditor::Below(
    std::string_view key) {
  const std::string descendants = DnDescendantPrefix(key);
  const std::string scan(Dn2IdScanPrefix(descendants));
  std::vector<std::pair<std::string, EntryId>> out;
  std::unique_ptr<Cursor> c = store_->NewCursor(kDn2IdTable);
  for (c->Seek(scan); c->valid() && c->key().substr(0, scan.size()) == scan; c->Next()) {
    Dn2IdRecord r;
    if (!DecodeDn2IdRecord(c->key(), c->value(), &r)) return Corrupt("dn2id: a malformed record");
    if (r.sort_key.substr(0, descendants.size()) == descendants) {
      out.emplace_back(std::string(r.sort_key), r.id);
    }
  }
  DIRLOAD_RETURN_IF_ERROR(c->status());
  return out;
}

Result<std::string> NativeEntryEditor::ReadRecord(EntryId id) {
  std::string record;
  DIRLOAD_ASSIGN_OR_RETURN(bool has, store_->Get(kId2EntryTable, IdKey(id), &record));
  if (!has) return Corrupt("id2entry: no entry " + std::to_string(id));
  return record;
}

Result<EntryEditor::Entry> NativeEntryEditor::Read(EntryId id) {
  DIRLOAD_ASSIGN_OR_RETURN(std::string record, ReadRecord(id));
  EntryView view;
  DIRLOAD_RETURN_IF_ERROR(DecodeEntry(record, &view).WithOrigin(ErrorOrigin::kDatabase));
  Entry e;
  e.id = id;
  for (const ValueRef& v : view.values) {
    if (v.description >= dictionary_.size()) {
      return Corrupt("id2entry: entry " + std::to_string(id) +
                     " names a description the dictionary lacks");
    }
    Value out;
    out.description = std::string(dictionary_.Name(v.description));
    out.value = std::string(v.value);
    e.values.push_back(std::move(out));
  }
  return e;
}

Result<std::vector<EntryId>> NativeEntryEditor::Children(EntryId id) {
  DIRLOAD_ASSIGN_OR_RETURN(std::string key, SortKeyOf(id));
  DIRLOAD_ASSIGN_OR_RETURN(auto below, Below(key));
  const size_t depth = DnDescendantPrefix(key).size();
  std::vector<EntryId> out;
  for (auto& [k, child] : below) {
    if (k.find('\0', depth) != std::string::npos) continue;
    out.push_back(child);
    sort_keys_[child] = std::move(k);
  }
  return out;
}

void NativeEntryEditor::Encode(std::string_view dn, std::span<const Value> values) {
  std::vector<ValueRef> refs;
  refs.reserve(values.size());
  for (const Value& v : values) refs.push_back({dictionary_.Intern(v.description), v.value});
  encoded_.clear();
  EncodeEntry(dn, refs, &encoded_);
}

Status NativeEntryEditor::Keys(EntryId id, std::string_view record,
                               std::vector<std::pair<uint32_t, std::string>>* out) {
  out->clear();
  if (specs_.empty()) return Status::Ok();
  EntryView view;
  DIRLOAD_RETURN_IF_ERROR(DecodeEntry(record, &view).WithOrigin(ErrorOrigin::kDatabase));
  keys_->ForgetPresence();
  for (const ValueRef& v : view.values) {
    if (v.description >= routes_.size()) routes_.resize(v.description + 1);
    std::optional<std::vector<uint32_t>>& route = routes_[v.description];
    if (!route) {
      route.emplace();
      Result<AttributeDescription> d =
          schema_.ParseAttributeDescription(dictionary_.Name(v.description));
      if (d.ok()) {
        for (const IndexSpec* s : IndexTargets(specs_, d->type)) {
          route->push_back(static_cast<uint32_t>(s - specs_.data()));
        }
      }
    }
    for (uint32_t s : *route) keys_->Value(id, s, v.value);
  }
  keys_->End();
  const auto views = keys_->key_views();
  const auto tables = keys_->tables();
  for (size_t i = 0; i < views.size(); ++i) out->emplace_back(tables[i], std::string(views[i]));
  keys_->Clear();
  std::sort(out->begin(), out->end());
  out->erase(std::unique(out->begin(), out->end()), out->end());
  return Status::Ok();
}

Status NativeEntryEditor::OweKeys(EntryId id, std::string_view old_record,
                                  std::string_view new_record) {
  if (specs_.empty()) return Status::Ok();
  old_keys_.clear();
  new_keys_.clear();
  if (!old_record.empty()) DIRLOAD_RETURN_IF_ERROR(Keys(id, old_record, &old_keys_));
  if (!new_record.empty()) DIRLOAD_RETURN_IF_ERROR(Keys(id, new_record, &new_keys_));
  auto views = [](const std::vector<std::pair<uint32_t, std::string>>& keys) {
    std::vector<OwedKeys::Key> out;
    out.reserve(keys.size());
    for (const auto& [t, k] : keys) out.emplace_back(t, k);
    return out;
  };
  owed_.Record(id, views(old_keys_), views(new_keys_));
  return owed_.full() ? SettleOwedKeys() : Status::Ok();
}

Status NativeEntryEditor::PutDn2Id(std::string_view key, EntryId id) {
  std::string value;
  AppendDn2IdValue(id, key, &value);
  return store_->Put(kDn2IdTable, Dn2IdKey(key, &buffer_), value);
}

Status NativeEntryEditor::DeleteDn2Id(std::string_view key) {
  return store_->Delete(kDn2IdTable, Dn2IdKey(key, &buffer_));
}

Result<EntryId> NativeEntryEditor::Add(EntryId parent, std::string_view nrdn, std::string_view rdn,
                                       std::span<const Value> values) {
  std::string key, dn;
  if (parent == 0) {
    key = DnSortKey(nrdn);
    dn = std::string(rdn);
  } else {
    DIRLOAD_ASSIGN_OR_RETURN(std::string parent_key, SortKeyOf(parent));
    key = DnDescendantPrefix(parent_key) + std::string(nrdn);
    DIRLOAD_ASSIGN_OR_RETURN(std::string parent_record, ReadRecord(parent));
    EntryView pv;
    DIRLOAD_RETURN_IF_ERROR(DecodeEntry(parent_record, &pv).WithOrigin(ErrorOrigin::kDatabase));
    dn = std::string(rdn) + "," + std::string(pv.dn);
  }
  const EntryId id = meta_.next_id++;
  ++meta_.entries;
  Encode(dn, values);
  DIRLOAD_RETURN_IF_ERROR(store_->Put(kId2EntryTable, IdKey(id), encoded_));
  DIRLOAD_RETURN_IF_ERROR(PutDn2Id(key, id));
  DIRLOAD_RETURN_IF_ERROR(OweKeys(id, {}, encoded_));
  sort_keys_[id] = std::move(key);
  return id;
}

Status NativeEntryEditor::Replace(EntryId id, std::span<const Value> values) {
  DIRLOAD_ASSIGN_OR_RETURN(std::string old, ReadRecord(id));
  EntryView view;
  DIRLOAD_RETURN_IF_ERROR(DecodeEntry(old, &view).WithOrigin(ErrorOrigin::kDatabase));
  const std::string dn(view.dn);
  Encode(dn, values);
  DIRLOAD_RETURN_IF_ERROR(store_->Put(kId2EntryTable, IdKey(id), encoded_));
  return OweKeys(id, old, encoded_);
}

Status NativeEntryEditor::Delete(EntryId id) {
  DIRLOAD_ASSIGN_OR_RETURN(std::string key, SortKeyOf(id));
  DIRLOAD_ASSIGN_OR_RETURN(auto below, Below(key));
  if (!below.empty()) {
    return Status::InvalidArgument("entry " + std::to_string(id) + " is not a leaf")
        .WithOrigin(ErrorOrigin::kInput);
  }
  DIRLOAD_ASSIGN_OR_RETURN(std::string old, ReadRecord(id));
  DIRLOAD_RETURN_IF_ERROR(OweKeys(id, old, {}));
  DIRLOAD_RETURN_IF_ERROR(store_->Delete(kId2EntryTable, IdKey(id)));
  DIRLOAD_RETURN_IF_ERROR(DeleteDn2Id(key));
  --meta_.entries;
  sort_keys_.erase(id);
  return Status::Ok();
}

Status NativeEntryEditor::Move(EntryId id, EntryId new_parent, std::string_view nrdn,
                               std::string_view rdn) {
  DIRLOAD_ASSIGN_OR_RETURN(std::string old_key, SortKeyOf(id));
  DIRLOAD_ASSIGN_OR_RETURN(std::string parent_key, SortKeyOf(new_parent));
  const std::string new_key = DnDescendantPrefix(parent_key) + std::string(nrdn);
  DIRLOAD_ASSIGN_OR_RETURN(std::string parent_record, ReadRecord(new_parent));
  EntryView view;
  DIRLOAD_RETURN_IF_ERROR(DecodeEntry(parent_record, &view).WithOrigin(ErrorOrigin::kDatabase));
  const std::string new_dn = std::string(rdn) + "," + std::string(view.dn);
  DIRLOAD_ASSIGN_OR_RETURN(std::string record, ReadRecord(id));
  DIRLOAD_RETURN_IF_ERROR(DecodeEntry(record, &view).WithOrigin(ErrorOrigin::kDatabase));
  const std::string old_dn(view.dn);
  // Taken before anything moves: the old keys name the subtree.
  DIRLOAD_ASSIGN_OR_RETURN(auto below, Below(old_key));
  below.emplace_back(old_key, id);
  for (const auto& [key, each] : below) {
    const std::string moved = new_key + key.substr(old_key.size());
    DIRLOAD_RETURN_IF_ERROR(DeleteDn2Id(key));
    DIRLOAD_RETURN_IF_ERROR(PutDn2Id(moved, each));
    DIRLOAD_ASSIGN_OR_RETURN(std::string r, ReadRecord(each));
    DIRLOAD_RETURN_IF_ERROR(DecodeEntry(r, &view).WithOrigin(ErrorOrigin::kDatabase));
    if (view.dn.size() < old_dn.size() ||
        view.dn.substr(view.dn.size() - old_dn.size()) != old_dn) {
      return Corrupt("id2entry: entry " + std::to_string(each) + " is stored as '" +
                     std::string(view.dn) + "', not below '" + old_dn + "'");
    }
    const std::string dn = std::string(view.dn.substr(0, view.dn.size() - old_dn.size())) + new_dn;
    encoded_.clear();
    EncodeEntry(dn, view.values, &encoded_);
    DIRLOAD_RETURN_IF_ERROR(store_->Put(kId2EntryTable, IdKey(each), encoded_));
    sort_keys_[each] = moved;
  }
  return Status::Ok();
}

Status NativeEntryEditor::SettleOwedKeys() {
  const PhaseClock settle;
  std::vector<EntryId> list;
  std::vector<std::pair<EntryId, bool>> changes;
  DIRLOAD_RETURN_IF_ERROR(owed_.Settle([&](std::span<const OwedKeys::Change> owed) -> Status {
    const std::string table = specs_[owed.front().index].table();
    DIRLOAD_ASSIGN_OR_RETURN(IdList stored, ReadIdList(store_.get(), table, owed.front().key));
    // Per ID, the last change decides (the run's order within the key); then
    // one merge of the stored list with the IDs that come and go.
    changes.clear();
    for (const OwedKeys::Change& o : owed) changes.emplace_back(o.id, o.add);
    std::stable_sort(changes.begin(), changes.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    list.clear();
    size_t at = 0;
    const std::vector<EntryId>& was = stored.vector();
    for (size_t k = 0; k < changes.size(); ++k) {
      if (k + 1 < changes.size() && changes[k + 1].first == changes[k].first) continue;
      const auto [id, add] = changes[k];
      while (at < was.size() && was[at] < id) list.push_back(was[at++]);
      if (at < was.size() && was[at] == id) ++at;
      if (add) list.push_back(id);
    }
    list.insert(list.end(), was.begin() + static_cast<std::ptrdiff_t>(at), was.end());
    for (const OwedKeys::Change& o : owed) {
      ++(o.add ? stats_.index_ids_added : stats_.index_ids_removed);
    }
    return ReplaceIdList(store_.get(), table, owed.front().key, list);
  }));
  stats_.index_seconds += settle.wall_seconds();
  return Status::Ok();
}

Status NativeEntryEditor::Commit() {
  DIRLOAD_RETURN_IF_ERROR(SettleOwedKeys());
  const PhaseClock commit;
  if (dictionary_.size() != dictionary_saved_) {
    DIRLOAD_RETURN_IF_ERROR(WriteDictionary(store_.get(), dictionary_));
    dictionary_saved_ = dictionary_.size();
  }
  DIRLOAD_RETURN_IF_ERROR(WriteMeta(store_.get(), meta_));
  DIRLOAD_RETURN_IF_ERROR(store_->Sync());
  stats_.commit_seconds = commit.wall_seconds();
  return Status::Ok();
}

}  // namespace dirload
