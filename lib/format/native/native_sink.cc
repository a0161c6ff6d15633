#include "lib/format/native/native_sink.h"

#include <algorithm>

#include "lib/format/native/database_meta.h"
#include "lib/schema/dn.h"
#include "lib/store/tables.h"
#include "lib/util/coding.h"

namespace dirload {
namespace {

static_assert(kDn2IdMaxPlainKey == kMaxKeySize, "dn2id keys are plain up to the store's limit");

Status Dn2IdCorruption(std::string_view key) {
  return Status::Corruption("dn2id: the record of a key of " + std::to_string(key.size()) +
                            " bytes is not an ID (and, for a long key, the DN's key)")
      .WithOrigin(ErrorOrigin::kDatabase);
}

}  // namespace

// Interns descriptions in the shared dictionary and encodes the values with
// their ids, on a checking worker.
class NativeSink::NativePreparer final : public EntrySink::Preparer {
 public:
  explicit NativePreparer(NativeSink* sink) : sink_(sink) {}

  Status Prepare(std::string_view ndn, std::span<const ValuePair> values,
                 std::span<const std::string* const>, Prepared* out) override {
    DnSortKey(ndn, &out->name_key);  // any length: dn.h's long keys
    // Looked up in this worker's table, which is filled from the shared
    // dictionary the first time each description shows up.
    refs_.clear();
    for (const auto& [description, value] : values) {
      auto it = ids_.find(description.data());
      if (it == ids_.end()) {
        std::lock_guard<std::mutex> lock(sink_->dictionary_mu_);
        it = ids_.emplace(description.data(), sink_->dictionary_.Intern(description)).first;
      }
      refs_.push_back({it->second, value});
    }
    out->encoded.clear();
    EncodeValues(refs_, &out->encoded);
    return Status::Ok();
  }

 private:
  NativeSink* sink_;
  // By the description's address: the checks hand out canonical names
  // from their own tables, the same few pointers again and again.
  std::unordered_map<const char*, uint32_t> ids_;
  std::vector<ValueRef> refs_;
};

NativeSink::NativeSink(Store* store, NativeSinkOptions options)
    : store_(store), options_(options), held_dn2id_(options.dn2id_buffer_bytes) {
  if (options_.commit_every == 0) options_.commit_every = 1;
}

std::unique_ptr<EntrySink::Preparer> NativeSink::NewPreparer() {
  return std::make_unique<NativePreparer>(this);
}

Result<EntrySink::Start> NativeSink::Stored() {
  DIRLOAD_ASSIGN_OR_RETURN(DatabaseMeta meta, ReadMeta(store_, &dictionary_));
  if (meta.state == DatabaseState::kLoading) return RequireReady(meta, store_->path());
  dictionary_saved_ = dictionary_.size();
  Start start;
  start.where = store_->path();
  if (meta.state == DatabaseState::kReady) {
    start.next_id = meta.next_id;
    start.entries = meta.entries;
    start.suffix = meta.suffix;
  }
  stored_ = start;
  return start;
}

Status NativeSink::Begin(std::string_view suffix, std::string_view) {
  suffix_.assign(suffix);
  DatabaseMeta meta;
  meta.state = DatabaseState::kLoading;
  meta.suffix = suffix_;
  meta.next_id = stored_.next_id;
  meta.entries = stored_.entries;
  DIRLOAD_RETURN_IF_ERROR(WriteMeta(store_, meta));
  // The loading mark is committed before any entry: whatever a crash leaves
  // says it is incomplete. No sync: the engine writes commits in order, and
  // one sync at the end is what makes the load durable (as slapadd -q does).
  return store_->Commit();
}

// A record of another DN under the same long key (dn.h) is an AlreadyExists
// error naming both: the database cannot hold the two.
Result<std::optional<EntryId>> NativeSink::LookupDn2Id(std::string_view sort_key) {
  std::string buffer;
  const std::string_view key = Dn2IdKey(sort_key, &buffer);
  std::string_view stored;
  if (std::optional<std::string_view> held = held_dn2id_.Find(key)) {
    stored = *held;
  } else {
    DIRLOAD_ASSIGN_OR_RETURN(bool found, store_->Get(kDn2IdTable, key, &value_));
    if (!found) return std::optional<EntryId>();
    stored = value_;
  }
  Dn2IdRecord r;
  if (!DecodeDn2IdRecord(key, stored, &r)) return Dn2IdCorruption(key);
  if (r.sort_key != sort_key) {
    return Status::AlreadyExists(
        "the DN's dn2id key (its first " + std::to_string(kDn2IdKeyPrefix) +
        " bytes and a 64-bit hash) is already taken by entry " + std::to_string(r.id) +
        ", whose DN differs: the database cannot hold both");
  }
  return std::optional<EntryId>(r.id);
}

Result<std::optional<EntryId>> NativeSink::Find(std::string_view ndn, const Prepared* prepared) {
  if (prepared != nullptr) return LookupDn2Id(prepared->name_key);
  return LookupDn2Id(DnSortKey(ndn));
}

Status NativeSink::WriteHeldDn2Id() {
  if (held_dn2id_.empty()) return Status::Ok();
  // Into an empty table the records are appended, every page filled; else
  // put in key order, each leaf page touched once.
  bool append = false;
  {
    std::unique_ptr<Cursor> c = store_->NewCursor(kDn2IdTable);
    c->SeekToFirst();
    DIRLOAD_RETURN_IF_ERROR(c->status());
    append = !c->valid();
  }
  uint64_t since_commit = 0;
  DIRLOAD_RETURN_IF_ERROR(
      held_dn2id_.ForEachSorted([&](std::string_view key, std::string_view value) -> Status {
        DIRLOAD_RETURN_IF_ERROR(append ? store_->Append(kDn2IdTable, key, value)
                                       : store_->Put(kDn2IdTable, key, value));
        // Transactions of the usual size: in key order they touch each page once anyway.
        if (++since_commit >= options_.commit_every) {
          since_commit = 0;
          DIRLOAD_RETURN_IF_ERROR(store_->Commit());
        }
        return Status::Ok();
      }));
  held_dn2id_.Clear();
  return store_->Commit();
}

Result<const std::string*> NativeSink::StoredDn(std::string_view ndn) {
  if (ndn == last_parent_ndn_) return &last_parent_dn_;
  // Entries come in no order of their parents: most calls find the parent
  // here, and copy its DN into the memory the last one used.
  if (auto it = parent_dns_.find(ndn); it != parent_dns_.end()) {
    last_parent_ndn_.assign(ndn);
    last_parent_dn_.assign(it->second);
    return &last_parent_dn_;
  }
  std::string dn;
  DIRLOAD_ASSIGN_OR_RETURN(std::optional<EntryId> id, LookupDn2Id(DnSortKey(ndn)));
  if (!id.has_value()) {
    // A reserved ancestor, not stored yet: its children keep their own
    // spelling, and it is asked for again once it is stored.
    last_parent_ndn_.clear();
    last_parent_dn_.clear();
    return &last_parent_dn_;
  }
  std::string entry, id_key;
  PutBigEndian64(*id, &id_key);
  DIRLOAD_ASSIGN_OR_RETURN(bool has, store_->Get(kId2EntryTable, id_key, &entry));
  EntryView view;
  if (has && DecodeEntry(entry, &view).ok()) dn = std::string(view.dn);
  // Parents are few and looked up again and again.
  if (parent_dns_.size() >= kParentDns) parent_dns_.clear();
  parent_dns_.emplace(ndn, dn);
  last_parent_ndn_.assign(ndn);
  last_parent_dn_ = std::move(dn);
  return &last_parent_dn_;
}

void NativeSink::EncodeAdded(std::span<const Value> values, std::string* out) {
  added_refs_.clear();
  for (const Value& v : values) {
    auto it = added_ids_.find(v.description);
    if (it == added_ids_.end()) {
      std::lock_guard<std::mutex> lock(dictionary_mu_);
      it = added_ids_.emplace(std::string(v.description), dictionary_.Intern(v.description)).first;
    }
    added_refs_.push_back({it->second, v.value});
  }
  EncodeValues(added_refs_, out);
}

Status NativeSink::Put(EntryId id, std::string_view value) {
  key_.clear();
  PutBigEndian64(id, &key_);
  if (id >= append_floor_) {
    DIRLOAD_RETURN_IF_ERROR(store_->Append(kId2EntryTable, key_, value));
    append_floor_ = id + 1;
    return Status::Ok();
  }
  // A reserved ID, below entries already appended.
  return store_->Put(kId2EntryTable, key_, value);
}

Status NativeSink::Add(const NewEntry& e) {
  std::string_view stored_dn = e.dn;
  if (!e.is_suffix) {
    const std::string_view parent = ParentDn(e.ndn);
    if (!parent.empty()) {
      DIRLOAD_ASSIGN_OR_RETURN(const std::string* parent_dn, StoredDn(parent));
      if (!parent_dn->empty()) {
        stored_dn_.assign(e.rdn).append(",").append(*parent_dn);
        stored_dn = stored_dn_;
      }
    }
  }
  value_.clear();
  if (e.added.empty()) {
    EncodeEntryFromValues(stored_dn, e.prepared->encoded, &value_);
  } else {
    // The added attributes are new runs after the entry's own, each a
    // description the entry does not have.
    added_runs_.clear();
    EncodeAdded(e.added, &added_runs_);
    if (!EncodeEntryFromValues(stored_dn, e.prepared->encoded, added_runs_, &value_)) {
      return Status::Internal("entry " + std::to_string(e.id) +
                              ": its values and the operational ones do not encode together");
    }
  }
  DIRLOAD_RETURN_IF_ERROR(Put(e.id, value_));
  if (options_.index_feed != nullptr) {
    // The checking workers may be adding descriptions to the dictionary.
    std::lock_guard<std::mutex> lock(dictionary_mu_);
    DIRLOAD_RETURN_IF_ERROR(options_.index_feed->Add(e.id, value_, dictionary_));
  }
  std::string dn2id_key, dn2id_value;  // no allocation unless the key is long
  const std::string& sort_key = e.prepared->name_key;
  AppendDn2IdValue(e.id, sort_key, &dn2id_value);
  const std::string_view dn2id = Dn2IdKey(sort_key, &dn2id_key);
  if (options_.dn2id_buffer_bytes == 0) {
    DIRLOAD_RETURN_IF_ERROR(store_->Put(kDn2IdTable, dn2id, dn2id_value));
  } else {
    held_dn2id_.Add(dn2id, dn2id_value);
    if (held_dn2id_.full()) DIRLOAD_RETURN_IF_ERROR(WriteHeldDn2Id());
  }
  if (++since_commit_ >= options_.commit_every) {
    since_commit_ = 0;
    std::lock_guard<std::mutex> lock(dictionary_mu_);
    if (dictionary_.size() != dictionary_saved_) {
      DIRLOAD_RETURN_IF_ERROR(WriteDictionary(store_, dictionary_));
      dictionary_saved_ = dictionary_.size();
    }
    DIRLOAD_RETURN_IF_ERROR(store_->Commit());
  }
  return Status::Ok();
}

Result<EntrySink::StoredEntry> NativeSink::Read(EntryId id) {
  key_.clear();
  PutBigEndian64(id, &key_);
  DIRLOAD_ASSIGN_OR_RETURN(bool has, store_->Get(kId2EntryTable, key_, &read_buffer_));
  if (!has) return Status::NotFound("entry " + std::to_string(id) + " is not stored");
  EntryView view;
  DIRLOAD_RETURN_IF_ERROR(DecodeEntry(read_buffer_, &view).WithOrigin(ErrorOrigin::kDatabase));
  // Copies: the dictionary's strings move when it grows.
  read_names_.clear();
  read_names_.reserve(view.values.size());
  StoredEntry out;
  out.dn = view.dn;
  std::lock_guard<std::mutex> lock(dictionary_mu_);
  for (const ValueRef& v : view.values) {
    if (v.description >= dictionary_.size()) {
      return Status::Corruption("entry " + std::to_string(id) + ": attribute id " +
                                std::to_string(v.description) + " is not in the dictionary")
          .WithOrigin(ErrorOrigin::kDatabase);
    }
    read_names_.emplace_back(dictionary_.Name(v.description));
  }
  for (size_t i = 0; i < view.values.size(); ++i) {
    out.values.push_back({read_names_[i], view.values[i].value, false});
  }
  return out;
}

Status NativeSink::Remove(EntryId id, std::string_view ndn) {
  // The entry's dn2id record may still be held.
  DIRLOAD_RETURN_IF_ERROR(WriteHeldDn2Id());
  if (options_.index_feed != nullptr) {
    options_.index_feed->Abandon("-c removed entries after they were indexed");
  }
  key_.clear();
  PutBigEndian64(id, &key_);
  DIRLOAD_RETURN_IF_ERROR(store_->Delete(kId2EntryTable, key_));
  std::string buffer;
  const std::string sort_key = DnSortKey(ndn);
  return store_->Delete(kDn2IdTable, Dn2IdKey(sort_key, &buffer));
}

Status NativeSink::Replace(EntryId id, std::span<const Value> values) {
  // Read apart: `values` may point into what Read() left.
  key_.clear();
  PutBigEndian64(id, &key_);
  std::string stored;
  DIRLOAD_ASSIGN_OR_RETURN(bool has, store_->Get(kId2EntryTable, key_, &stored));
  if (!has) return Status::NotFound("entry " + std::to_string(id) + " is not stored");
  EntryView view;
  DIRLOAD_RETURN_IF_ERROR(DecodeEntry(stored, &view).WithOrigin(ErrorOrigin::kDatabase));
  std::vector<ValueRef> refs;
  {
    std::lock_guard<std::mutex> lock(dictionary_mu_);
    for (const Value& v : values) refs.push_back({dictionary_.Intern(v.description), v.value});
  }
  std::string encoded;
  EncodeEntry(view.dn, refs, &encoded);
  if (options_.index_feed != nullptr) {
    options_.index_feed->Abandon("-w changed the suffix entry after it was indexed");
  }
  return store_->Put(kId2EntryTable, key_, encoded);
}

Status NativeSink::Finish(const Start& end) {
  DIRLOAD_RETURN_IF_ERROR(WriteHeldDn2Id());
  DIRLOAD_RETURN_IF_ERROR(WriteDictionary(store_, dictionary_));  // the workers are gone
  DatabaseMeta meta;
  meta.state = DatabaseState::kLoading;
  meta.suffix = suffix_;
  meta.next_id = end.next_id;
  meta.entries = end.entries;
  DIRLOAD_RETURN_IF_ERROR(WriteMeta(store_, meta));
  // Everything on disk first, then the mark that says so.
  DIRLOAD_RETURN_IF_ERROR(store_->Sync());
  DIRLOAD_RETURN_IF_ERROR(WriteState(store_, DatabaseState::kReady));
  return store_->Sync();
}

}  // namespace dirload
