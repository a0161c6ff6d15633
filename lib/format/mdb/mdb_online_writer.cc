#include "lib/format/mdb/mdb_online_writer.h"

#include <algorithm>
#include <chrono>

#include "lib/format/mdb/mdb_dn_node.h"
#include "lib/format/mdb/mdb_entry_codec.h"
#include "lib/format/mdb/mdb_id2v.h"
#include "lib/format/mdb/mdb_reader.h"
#include "lib/format/mdb/mdb_tree_updates.h"
#include "lib/schema/schema.h"

namespace dirload::mdb {
namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

Status UsageError(std::string msg) {
  return Status::InvalidArgument(std::move(msg)).WithOrigin(ErrorOrigin::kUsage);
}

}  // namespace

Result<std::unique_ptr<MdbOnlineWriter>> MdbOnlineWriter::Open(const Schema& schema,
                                                               const std::string& dir,
                                                               MdbOnlineOptions options) {
  std::unique_ptr<MdbOnlineWriter> w(new MdbOnlineWriter(schema, std::move(options)));
  DIRLOAD_RETURN_IF_ERROR(w->encoder_.SetValueRules(w->options_.values));
  MdbEnvOptions eo;
  // The map keeps the size slapd gave it: a second process that resized it
  // would make slapd's next transaction fail (MDB_MAP_RESIZED).
  eo.map_size = 0;
  for (const IndexSpec& spec : w->options_.indexes) eo.index_names.emplace_back(spec.name());
  DIRLOAD_ASSIGN_OR_RETURN(w->env_, MdbEnv::Open(dir, eo));
  DIRLOAD_ASSIGN_OR_RETURN(
      MdbEntryKeys keys,
      MdbEntryKeys::Create(schema, w->env_.get(), w->options_.indexes, w->options_.keys));
  w->keys_.emplace(std::move(keys));
  DIRLOAD_RETURN_IF_ERROR(w->EnsureBatch());
  w->first_load_id_ = w->last_stored_ + 1;
  w->last_load_id_ = w->last_stored_;
  // Nothing written yet: the next batch begins afresh.
  w->txn_->Abort();
  w->txn_.reset();
  return w;
}

MdbOnlineWriter::~MdbOnlineWriter() = default;

Status MdbOnlineWriter::EnsureBatch() {
  if (txn_) return Status::Ok();
  DIRLOAD_ASSIGN_OR_RETURN(MdbTxn t, env_->Begin(true));
  txn_.emplace(std::move(t));
  batch_started_ = Now();
  batch_entries_ = 0;
  // What other writers committed since the last batch.
  DIRLOAD_RETURN_IF_ERROR(ad2i_.ReadNew(&*txn_, env_.get()));
  std::string_view key, value;
  Status st = txn_->Last(env_->id2e(), &key, &value);
  if (st.ok()) {
    const uint64_t last = MdbDecodeId(key);
    if (last_stored_ != 0 && last > last_stored_) stats_.foreign_ids += last - last_stored_;
    last_stored_ = last;
  } else if (st.code() != StatusCode::kNotFound) {
    return st;
  }
  return Status::Ok();
}

Status MdbOnlineWriter::CommitBatch() {
  for (const auto& [parent, count] : added_below_)
    DIRLOAD_RETURN_IF_ERROR(RaiseNsubs(parent, count));
  added_below_.clear();
  DIRLOAD_RETURN_IF_ERROR(txn_->Commit());
  txn_.reset();
  stats_.max_batch_seconds = std::max(stats_.max_batch_seconds, Now() - batch_started_);
  if (batch_entries_ == 0) return Status::Ok();
  ++stats_.batches;
  batch_entries_ = 0;
  if (options_.committed) return options_.committed(last_load_id_, stats_.entries);
  return Status::Ok();
}

Status MdbOnlineWriter::Finish() {
  if (finished_) return UsageError("MdbOnlineWriter: Finish called twice");
  finished_ = true;
  if (!txn_) return Status::Ok();
  return CommitBatch();
}

Result<uint32_t> MdbOnlineWriter::Ad2iNumber(const std::string& description) {
  return ad2i_.Number(&*txn_, env_.get(), description);
}

std::optional<uint64_t> MdbOnlineWriter::ToStored(uint64_t id) const {
  if ((id & kForeignId) != 0) return id & ~kForeignId;
  if (id < first_load_id_) return id;
  auto it = std::upper_bound(runs_.begin(), runs_.end(), id,
                             [](uint64_t v, const Run& r) { return v < r.first_load; });
  if (it == runs_.begin()) return std::nullopt;
  --it;
  if (id - it->first_load >= it->count) return std::nullopt;
  return it->first_stored + (id - it->first_load);
}

uint64_t MdbOnlineWriter::ToLoad(uint64_t stored) const {
  if (stored < first_load_id_) return stored;
  auto it = std::upper_bound(runs_.begin(), runs_.end(), stored,
                             [](uint64_t v, const Run& r) { return v < r.first_stored; });
  if (it != runs_.begin()) {
    --it;
    if (stored - it->first_stored < it->count) return it->first_load + (stored - it->first_stored);
  }
  return stored | kForeignId;
}

Status MdbOnlineWriter::AddEntry(uint64_t id, uint64_t parent_id, std::string_view nrdn,
                                 std::string_view rdn, std::span<const MdbValue> values) {
  if (finished_) return UsageError("MdbOnlineWriter: AddEntry after Finish");
  if (id <= last_load_id_ || (id & kForeignId) != 0) {
    return UsageError("entry ID " + std::to_string(id) + " is not above the last ID " +
                      std::to_string(last_load_id_));
  }
  DIRLOAD_RETURN_IF_ERROR(CheckMdbNrdnLength(id, nrdn));
  DIRLOAD_RETURN_IF_ERROR(EnsureBatch());
  uint64_t parent = 0;
  if (parent_id != 0) {
    std::optional<uint64_t> p = ToStored(parent_id);
    if (!p.has_value()) {
      return UsageError("entry ID " + std::to_string(id) + ": parent ID " +
                        std::to_string(parent_id) + " was not added");
    }
    parent = *p;
    // slapd may have deleted it since the load found it.
    Result<std::string_view> self = txn_->Get(env_->dn2i(), MdbIdBytes(parent));
    if (!self.ok()) {
      if (self.status().code() != StatusCode::kNotFound) return self.status();
      return Status::InvalidArgument("entry ID " + std::to_string(id) + ": its parent (stored ID " +
                                     std::to_string(parent) +
                                     ") was deleted by another writer while this load ran")
          .WithOrigin(ErrorOrigin::kInput);
    }
  }
  const uint64_t stored = last_stored_ + 1;  // mdb_next_id
  DIRLOAD_RETURN_IF_ERROR(
      encoder_.Layout(stored, values, [this](const std::string& d) { return Ad2iNumber(d); }));
  DIRLOAD_ASSIGN_OR_RETURN(char* space, txn_->Reserve(env_->id2e(), MdbIdBytes(stored),
                                                      encoder_.size(), MdbPutMode::kAppend));
  DIRLOAD_RETURN_IF_ERROR(StoreValues(stored, values, space));

  if (parent == 0) {
    // Key 0's dummy root node, once (mdb_dn2id_add puts it for every entry
    // under the root, and a second put fails harmlessly).
    Status dummy =
        txn_->Put(env_->dn2i(), MdbIdBytes(0), MdbDummyRootNode(), MdbPutMode::kNoOverwrite);
    if (!dummy.ok() && dummy.code() != StatusCode::kAlreadyExists) return dummy;
  }
  MdbDnNode node{true, std::string(nrdn), std::string(rdn), stored, 1};
  node_.clear();
  DIRLOAD_RETURN_IF_ERROR(EncodeMdbDnNode(node, &node_));
  Status child = txn_->Put(env_->dn2i(), MdbIdBytes(parent), node_, MdbPutMode::kNoOverwrite);
  if (child.code() == StatusCode::kAlreadyExists) {
    return Status::AlreadyExists("entry ID " + std::to_string(id) + ": " + std::string(rdn) +
                                 " was added by another writer while this load ran")
        .WithOrigin(ErrorOrigin::kInput);
  }
  DIRLOAD_RETURN_IF_ERROR(child);
  node.child = false;
  node.id = parent;
  node.nsubs = 0;
  node_.clear();
  DIRLOAD_RETURN_IF_ERROR(EncodeMdbDnNode(node, &node_));
  DIRLOAD_RETURN_IF_ERROR(txn_->Put(env_->dn2i(), MdbIdBytes(stored), node_, MdbPutMode::kAppend));
  if (parent != 0) ++added_below_[parent];

  if (runs_.empty() || runs_.back().first_load + runs_.back().count != id ||
      runs_.back().first_stored + runs_.back().count != stored) {
    runs_.push_back(Run{id, stored, 0});
  }
  ++runs_.back().count;
  last_stored_ = stored;
  last_load_id_ = id;
  ++stats_.entries;
  if (++batch_entries_ >= options_.batch_entries) return CommitBatch();
  return Status::Ok();
}

Status MdbOnlineWriter::StoreValues(uint64_t stored_id, std::span<const MdbValue> values,
                                    char* space) {
  encoder_.Write(values, space);
  if (!encoder_.has_id2v()) {
    // The keys come from the record as stored (its normalized copies), read
    // before the next write moves the page.
    return AddIndexKeys(stored_id, std::string_view(space, encoder_.size()));
  }
  // The id2v puts may move the page: the keys are made from a copy, with
  // the values read back from id2v.
  const std::string record(space, encoder_.size());
  DIRLOAD_RETURN_IF_ERROR(PutId2v(stored_id, values));
  const MdbEntryKeys::Id2vSource id2v{&*txn_, env_->id2v(), stored_id};
  DIRLOAD_RETURN_IF_ERROR(keys_->Keys(record, ad2i_.names(), &entry_keys_, nullptr, &id2v));
  for (const auto& [t, key] : entry_keys_) {
    DIRLOAD_RETURN_IF_ERROR(InsertId(keys_->db(t), key, stored_id));
  }
  return Status::Ok();
}

Status MdbOnlineWriter::PutId2v(uint64_t stored_id, std::span<const MdbValue> values) {
  if (!encoder_.has_id2v()) return Status::Ok();
  return encoder_.ForEachId2vRecord(
      values, [&](uint32_t adx, MdbValueOrder order, std::span<const std::string> dups) -> Status {
        const std::string key = MdbId2vKey(stored_id, adx);
        Status gone = txn_->DeleteKey(env_->id2v(), key);
        if (!gone.ok() && gone.code() != StatusCode::kNotFound) return gone;
        // In id2v's order already: each is appended after the one before.
        MdbId2vOrderScope scope(order);
        for (const std::string& dup : dups) {
          DIRLOAD_RETURN_IF_ERROR(txn_->Put(env_->id2v(), key, dup, MdbPutMode::kAppendDup));
        }
        return Status::Ok();
      });
}

Status MdbOnlineWriter::AddIndexKeys(uint64_t stored_id, std::string_view encoded) {
  DIRLOAD_RETURN_IF_ERROR(keys_->Keys(encoded, ad2i_.names(), &entry_keys_));
  for (const auto& [t, key] : entry_keys_) {
    DIRLOAD_RETURN_IF_ERROR(InsertId(keys_->db(t), key, stored_id));
  }
  return Status::Ok();
}

Status MdbOnlineWriter::InsertId(MdbDb db, std::string_view key, uint64_t id) {
  ++stats_.index_ids;
  bool made_range = false;
  DIRLOAD_RETURN_IF_ERROR(
      InsertIndexId(&*txn_, db, key, id, options_.keys.max_ids_per_key(), &made_range));
  if (made_range) ++stats_.ranges;
  return Status::Ok();
}

Status MdbOnlineWriter::RaiseNsubs(uint64_t parent, uint64_t count) {
  return AddToSubtreeCounts(&*txn_, env_.get(), parent, static_cast<int64_t>(count));
}

Result<std::optional<uint64_t>> MdbOnlineWriter::FindChild(uint64_t parent_id,
                                                           std::string_view nrdn) {
  if (finished_) return UsageError("MdbOnlineWriter: FindChild after Finish");
  if (nrdn.size() > kMdbMaxNrdnLength) return std::optional<uint64_t>();
  std::optional<uint64_t> parent = ToStored(parent_id);
  if (!parent.has_value()) return std::optional<uint64_t>();
  // Asked in the batch the entry will be written in: what slapd added
  // before it is seen, and nothing can come between.
  DIRLOAD_RETURN_IF_ERROR(EnsureBatch());
  node_.clear();
  DIRLOAD_RETURN_IF_ERROR(EncodeMdbDnNode(MdbDnNode{true, std::string(nrdn), {}, 0, 0}, &node_));
  DIRLOAD_ASSIGN_OR_RETURN(std::optional<std::string_view> got,
                           txn_->FindDup(env_->dn2i(), MdbIdBytes(*parent), node_));
  if (!got.has_value()) return std::optional<uint64_t>();
  DIRLOAD_ASSIGN_OR_RETURN(MdbDnNode found, DecodeMdbDnNode(*got));
  if (!found.child) {
    return Status::Corruption(env_->path() + ": dn2i: a self node among the children of ID " +
                              std::to_string(*parent))
        .WithOrigin(ErrorOrigin::kDatabase);
  }
  return std::optional<uint64_t>(ToLoad(found.id));
}

Status MdbOnlineWriter::ReplaceEntry(uint64_t id, std::span<const MdbValue> values) {
  if (finished_) return UsageError("MdbOnlineWriter: ReplaceEntry after Finish");
  std::optional<uint64_t> stored = ToStored(id);
  if (!stored.has_value()) return UsageError("entry ID " + std::to_string(id) + " is not stored");
  DIRLOAD_RETURN_IF_ERROR(EnsureBatch());
  DIRLOAD_RETURN_IF_ERROR(
      encoder_.Layout(*stored, values, [this](const std::string& d) { return Ad2iNumber(d); }));
  std::string encoded(encoder_.size(), '\0');
  encoder_.Write(values, encoded.data());
  DIRLOAD_RETURN_IF_ERROR(
      txn_->Put(env_->id2e(), MdbIdBytes(*stored), encoded, MdbPutMode::kOverwrite));
  // The new values' keys (slapadd -w's contextCSN); keys of values the
  // record no longer has are left, as the record's were before.
  DIRLOAD_RETURN_IF_ERROR(PutId2v(*stored, values));
  const MdbEntryKeys::Id2vSource id2v{&*txn_, env_->id2v(), *stored};
  DIRLOAD_RETURN_IF_ERROR(keys_->Keys(encoded, ad2i_.names(), &entry_keys_, nullptr, &id2v));
  for (const auto& [t, key] : entry_keys_) {
    DIRLOAD_RETURN_IF_ERROR(InsertId(keys_->db(t), key, *stored));
  }
  return Status::Ok();
}

Result<std::optional<std::string_view>> MdbOnlineWriter::StoredEntry(uint64_t id) {
  if (finished_) return UsageError("MdbOnlineWriter: StoredEntry after Finish");
  std::optional<uint64_t> stored = ToStored(id);
  if (!stored.has_value()) return std::optional<std::string_view>();
  DIRLOAD_RETURN_IF_ERROR(EnsureBatch());
  Result<std::string_view> got = txn_->Get(env_->id2e(), MdbIdBytes(*stored));
  if (!got.ok() && got.status().code() == StatusCode::kNotFound) {
    return std::optional<std::string_view>();
  }
  DIRLOAD_RETURN_IF_ERROR(got.status());
  return std::optional<std::string_view>(*got);
}

Result<uint64_t> MdbOnlineWriter::StoredEntries() {
  // In the batch: one thread has one transaction at a time.
  DIRLOAD_RETURN_IF_ERROR(EnsureBatch());
  MdbDbStat id2e;  // one pair per entry
  DIRLOAD_RETURN_IF_ERROR(txn_->Stat(env_->id2e(), &id2e));
  return id2e.entries;
}

}  // namespace dirload::mdb
