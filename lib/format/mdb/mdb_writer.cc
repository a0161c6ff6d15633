#include "lib/format/mdb/mdb_writer.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "lib/format/mdb/mdb_ad2i.h"
#include "lib/format/mdb/mdb_dn_node.h"
#include "lib/format/mdb/mdb_entry_codec.h"
#include "lib/format/mdb/mdb_id2v.h"
#include "lib/format/mdb/mdb_index_keys.h"
#include "lib/format/mdb/mdb_normalized.h"
#include "lib/format/mdb/mdb_reader.h"
#include "lib/schema/schema.h"
#include "lib/util/coding.h"

namespace dirload::mdb {
namespace {

Status UsageError(std::string msg) {
  return Status::InvalidArgument(std::move(msg)).WithOrigin(ErrorOrigin::kUsage);
}

}  // namespace

std::string_view MdbLeftmostRdn(std::string_view dn) {
  for (size_t i = 0; i < dn.size(); ++i) {
    if (dn[i] == '\\') {
      ++i;
    } else if (dn[i] == ',') {
      return dn.substr(0, i);
    }
  }
  return dn;
}

Result<std::unique_ptr<MdbLoadWriter>> MdbLoadWriter::Create(const Schema& schema,
                                                             const std::string& dir,
                                                             const MdbWriterOptions& options) {
  return Open(schema, dir, options, false);
}

Result<std::unique_ptr<MdbLoadWriter>> MdbLoadWriter::OpenExisting(
    const Schema& schema, const std::string& dir, const MdbWriterOptions& options) {
  return Open(schema, dir, options, true);
}

Result<std::unique_ptr<MdbLoadWriter>> MdbLoadWriter::Open(const Schema& schema,
                                                           const std::string& dir,
                                                           const MdbWriterOptions& options,
                                                           bool existing) {
  std::unique_ptr<MdbLoadWriter> w(new MdbLoadWriter(schema, options));
  DIRLOAD_RETURN_IF_ERROR(w->encoder_.SetValueRules(options.values));
  w->dir_ = dir;
  DIRLOAD_ASSIGN_OR_RETURN(w->env_, MdbEnv::Open(dir, w->EnvOptions(false)));
  DIRLOAD_RETURN_IF_ERROR(w->ReadExisting());
  if (!existing && w->last_id_ != 0) {
    return Status::AlreadyExists(dir + ": the database already holds entries")
        .WithOrigin(ErrorOrigin::kDatabase);
  }
  // Below a parent this load added, only this load's children can be.
  w->append_children_ = w->last_id_ == 0;
  return w;
}

MdbLoadWriter::~MdbLoadWriter() = default;

MdbEnvOptions MdbLoadWriter::EnvOptions(bool write_map) const {
  MdbEnvOptions eo;
  eo.map_size = options_.map_size;
  eo.quick = options_.quick;
  eo.write_map = write_map;
  eo.index_names = options_.index_names;
  return eo;
}

Status MdbLoadWriter::ReopenForIndexes() {
  if (!finished_) return UsageError("MdbLoadWriter: ReopenForIndexes before Finish");
  // LMDB allows one environment per file in a process: the old one goes
  // first, once its background flush has said how it went.
  DIRLOAD_RETURN_IF_ERROR(env_->FinishWriteback());
  env_.reset();
  DIRLOAD_ASSIGN_OR_RETURN(env_, MdbEnv::Open(dir_, EnvOptions(true)));
  return Status::Ok();
}

Status MdbLoadWriter::ReadExisting() {
  DIRLOAD_ASSIGN_OR_RETURN(MdbTxn txn, env_->Begin(false));
  DIRLOAD_RETURN_IF_ERROR(txn.Scan(env_->ad2i(), [&](std::string_view k, std::string_view v) {
    if (k.size() != 4) {
      return Status::Corruption(env_->path() + ": ad2i key of " + std::to_string(k.size()) +
                                " bytes")
          .WithOrigin(ErrorOrigin::kDatabase);
    }
    ad2i_[std::string(v)] = static_cast<uint32_t>(MdbDecodeId(k));
    return Status::Ok();
  }));
  std::string_view key, value;
  Status st = txn.Last(env_->id2e(), &key, &value);
  if (st.ok()) {
    last_id_ = MdbDecodeId(key);
  } else if (st.code() != StatusCode::kNotFound) {
    return st;
  }
  first_new_id_ = last_id_;
  return Status::Ok();
}

Status MdbLoadWriter::EnsureTxn() {
  if (txn_ && txn_entries_ >= options_.entries_per_txn) {
    DIRLOAD_RETURN_IF_ERROR(txn_->Commit());
    txn_.reset();
    env_->StartWriteback();
  }
  if (!txn_) {
    DIRLOAD_ASSIGN_OR_RETURN(MdbTxn t, env_->Begin(true));
    txn_.emplace(std::move(t));
    txn_entries_ = 0;
  }
  return Status::Ok();
}

Status MdbLoadWriter::CommitAndBegin() {
  DIRLOAD_RETURN_IF_ERROR(txn_->Commit());
  txn_.reset();
  env_->StartWriteback();
  DIRLOAD_ASSIGN_OR_RETURN(MdbTxn t, env_->Begin(true));
  txn_.emplace(std::move(t));
  txn_entries_ = 0;
  return Status::Ok();
}

const std::string& MdbLoadWriter::HeldKey(uint64_t parent_id, std::string_view node) {
  held_key_.clear();
  PutBigEndian64(parent_id, &held_key_);
  held_key_.append(MdbChildNodeOrderBytes(node));
  return held_key_;
}

Status MdbLoadWriter::WriteHeldChildren() {
  if (held_children_.empty()) return Status::Ok();
  DIRLOAD_RETURN_IF_ERROR(EnsureTxn());
  // Each parent's children sort after its self node, which is stored: on a
  // new database's first flush they are all here, and appended.
  const MdbPutMode mode = append_children_ ? MdbPutMode::kAppendDup : MdbPutMode::kNoOverwrite;
  std::string with_nsubs;
  uint64_t puts = 0;
  DIRLOAD_RETURN_IF_ERROR(
      held_children_.ForEachSorted([&](std::string_view key, std::string_view node) -> Status {
        // In key order each leaf page is touched once anyway: transactions of
        // a few entries' worth bound the dirty page list only.
        if (++puts % (uint64_t{4} * options_.entries_per_txn) == 0) {
          DIRLOAD_RETURN_IF_ERROR(CommitAndBegin());
        }
        std::string_view value = node;
        if (auto it = parents_.find(MdbChildNodeId(node)); it != parents_.end()) {
          with_nsubs.assign(node);
          SetMdbChildNodeNsubs(it->second.nsubs, &with_nsubs);
          it->second.nsubs_written = it->second.nsubs;
          value = with_nsubs;
        }
        return txn_->Put(env_->dn2i(), MdbIdBytes(GetBigEndian64(key.substr(0, 8))), value, mode);
      }));
  held_children_.Clear();
  append_children_ = false;
  return Status::Ok();
}

Result<uint32_t> MdbLoadWriter::Ad2iNumber(const std::string& description) {
  auto it = ad2i_.find(description);
  if (it != ad2i_.end()) return it->second;
  uint32_t n = static_cast<uint32_t>(ad2i_.size()) + 1;
  DIRLOAD_RETURN_IF_ERROR(txn_->Put(env_->ad2i(), MdbAd2iKey(n), description, MdbPutMode::kAppend));
  ad2i_.emplace(description, n);
  return n;
}

Status MdbLoadWriter::Encode(uint64_t id, std::span<const MdbValue> values) {
  return encoder_.Layout(
      id, values, [this](const std::string& description) { return Ad2iNumber(description); });
}

Status MdbLoadWriter::NumberDescriptions(uint64_t id, std::span<const MdbValue> values) {
  if (finished_) return UsageError("MdbLoadWriter: NumberDescriptions after Finish");
  DIRLOAD_RETURN_IF_ERROR(EnsureTxn());
  return Encode(id, values);
}

Status MdbLoadWriter::PutId2v(uint64_t id, std::span<const MdbValue> values, bool replace) {
  if (!encoder_.has_id2v()) return Status::Ok();
  return encoder_.ForEachId2vRecord(
      values, [&](uint32_t adx, MdbValueOrder order, std::span<const std::string> dups) -> Status {
        const std::string key = MdbId2vKey(id, adx);
        if (replace) {
          Status st = txn_->DeleteKey(env_->id2v(), key);
          if (!st.ok() && st.code() != StatusCode::kNotFound) return st;
        }
        // In id2v's order already: each is appended after the one before.
        MdbId2vOrderScope scope(order);
        for (const std::string& dup : dups) {
          DIRLOAD_RETURN_IF_ERROR(txn_->Put(env_->id2v(), key, dup, MdbPutMode::kAppendDup));
        }
        return Status::Ok();
      });
}

Status MdbLoadWriter::ReplaceEntry(uint64_t id, std::span<const MdbValue> values) {
  if (finished_) return UsageError("MdbLoadWriter: ReplaceEntry after Finish");
  if (id == 0 || id > last_id_) {
    return UsageError("entry ID " + std::to_string(id) + " is not stored");
  }
  DIRLOAD_RETURN_IF_ERROR(EnsureTxn());
  DIRLOAD_RETURN_IF_ERROR(Encode(id, values));
  std::string encoded(encoder_.size(), '\0');
  encoder_.Write(values, encoded.data());
  DIRLOAD_RETURN_IF_ERROR(PutId2v(id, values, /*replace=*/true));
  return txn_->Put(env_->id2e(), MdbIdBytes(id), encoded, MdbPutMode::kOverwrite);
}

Result<std::optional<std::string_view>> MdbLoadWriter::StoredEntry(uint64_t id) {
  if (finished_) return UsageError("MdbLoadWriter: StoredEntry after Finish");
  DIRLOAD_RETURN_IF_ERROR(EnsureTxn());
  Result<std::string_view> got = txn_->Get(env_->id2e(), MdbIdBytes(id));
  if (!got.ok() && got.status().code() == StatusCode::kNotFound) {
    return std::optional<std::string_view>();
  }
  DIRLOAD_RETURN_IF_ERROR(got.status());
  return std::optional<std::string_view>(*got);
}

Status MdbLoadWriter::AddEntry(uint64_t id, uint64_t parent_id, std::string_view nrdn,
                               std::string_view rdn, std::span<const MdbValue> values) {
  if (finished_) return UsageError("MdbLoadWriter: AddEntry after Finish");
  if (id <= last_id_) {
    return UsageError("entry ID " + std::to_string(id) + " is not above the last ID " +
                      std::to_string(last_id_));
  }
  DIRLOAD_RETURN_IF_ERROR(CheckMdbNrdnLength(id, nrdn));
  DIRLOAD_RETURN_IF_ERROR(EnsureTxn());
  if (first_new_id_ == 0 && entries_added_ == 0) {
    // A new database: key 0's dummy root node comes before the suffix's
    // child node.
    DIRLOAD_RETURN_IF_ERROR(
        txn_->Put(env_->dn2i(), MdbIdBytes(0), MdbDummyRootNode(), MdbPutMode::kAppend));
  }
  DIRLOAD_RETURN_IF_ERROR(NoteChild(id, parent_id));
  DIRLOAD_RETURN_IF_ERROR(Encode(id, values));
  // Written in place in LMDB's page: no copy of the entry is made.
  DIRLOAD_ASSIGN_OR_RETURN(char* space, txn_->Reserve(env_->id2e(), MdbIdBytes(id), encoder_.size(),
                                                      MdbPutMode::kAppend));
  encoder_.Write(values, space);
  DIRLOAD_RETURN_IF_ERROR(PutId2v(id, values, /*replace=*/false));

  // dn2i at once: the self node is an append (IDs ascend); the child node
  // goes among its parent's, in dup order, with nsubs 1, which Finish()
  // corrects for the entries that got children.
  // One node, encoded twice: the self node names the parent, the child node
  // the entry.
  MdbDnNode node{false, std::string(nrdn), std::string(rdn), parent_id, 0};
  node_.clear();
  DIRLOAD_RETURN_IF_ERROR(EncodeMdbDnNode(node, &node_));
  DIRLOAD_RETURN_IF_ERROR(txn_->Put(env_->dn2i(), MdbIdBytes(id), node_, MdbPutMode::kAppend));
  node.child = true;
  node.id = id;
  node.nsubs = 1;
  node_.clear();
  DIRLOAD_RETURN_IF_ERROR(EncodeMdbDnNode(node, &node_));
  if (parent_id == 0 || options_.held_child_bytes == 0) {
    DIRLOAD_RETURN_IF_ERROR(
        txn_->Put(env_->dn2i(), MdbIdBytes(parent_id), node_, MdbPutMode::kNoOverwrite));
  } else {
    const std::string& key = HeldKey(parent_id, node_);
    const uint64_t hash = HeldRecords::Hash(key);
    if (held_children_.Find(key, hash).has_value()) {
      // What the put into dn2i would have refused.
      return Status::AlreadyExists("entry ID " + std::to_string(id) + ": parent ID " +
                                   std::to_string(parent_id) + " already has a child " +
                                   std::string(nrdn))
          .WithOrigin(ErrorOrigin::kInput);
    }
    held_children_.Add(key, hash, node_);
    if (held_children_.full()) DIRLOAD_RETURN_IF_ERROR(WriteHeldChildren());
  }
  last_id_ = id;
  ++entries_added_;
  ++txn_entries_;
  return Status::Ok();
}

Result<uint64_t> MdbLoadWriter::StoredEntries() {
  MdbDbStat id2e;  // one pair per entry
  DIRLOAD_ASSIGN_OR_RETURN(MdbTxn txn, env_->Begin(false));
  DIRLOAD_RETURN_IF_ERROR(txn.Stat(env_->id2e(), &id2e));
  return id2e.entries;
}

Result<std::optional<uint64_t>> MdbLoadWriter::FindChild(uint64_t parent_id,
                                                         std::string_view nrdn) {
  if (finished_) return UsageError("MdbLoadWriter: FindChild after Finish");
  if (nrdn.size() > kMdbMaxNrdnLength) return std::optional<uint64_t>();  // cannot be stored
  if (!txn_) {
    DIRLOAD_ASSIGN_OR_RETURN(MdbTxn t, env_->Begin(true));
    txn_.emplace(std::move(t));
    txn_entries_ = 0;
  }
  // The duplicate order looks at the normalized RDN alone: a child node
  // with nothing else filled in finds the stored one.
  node_.clear();
  DIRLOAD_RETURN_IF_ERROR(EncodeMdbDnNode(MdbDnNode{true, std::string(nrdn), {}, 0, 0}, &node_));
  if (!held_children_.empty()) {
    if (std::optional<std::string_view> held = held_children_.Find(HeldKey(parent_id, node_))) {
      return std::optional<uint64_t>(MdbChildNodeId(*held));
    }
  }
  DIRLOAD_ASSIGN_OR_RETURN(std::optional<std::string_view> got,
                           txn_->FindDup(env_->dn2i(), MdbIdBytes(parent_id), node_));
  if (!got.has_value()) return std::optional<uint64_t>();
  DIRLOAD_ASSIGN_OR_RETURN(MdbDnNode found, DecodeMdbDnNode(*got));
  if (!found.child) {
    // The self node has the ID's parent, never an RDN equal to a child's.
    return Status::Corruption(env_->path() + ": dn2i: a self node among the children of ID " +
                              std::to_string(parent_id))
        .WithOrigin(ErrorOrigin::kDatabase);
  }
  return std::optional<uint64_t>(found.id);
}

Status MdbLoadWriter::NoteChild(uint64_t id, uint64_t parent_id) {
  if (parent_id == 0) return Status::Ok();
  if (parent_id > last_id_) {
    return UsageError("entry ID " + std::to_string(id) + ": parent ID " +
                      std::to_string(parent_id) + " was not added");
  }
  if (parent_id > first_new_id_ && !parents_.contains(parent_id)) {
    // The parent's first child: its own parent is in its self node. A
    // parent this load did not add is a stored one, whose nsubs Finish()
    // raises with UpdateStoredAncestors.
    Result<std::string_view> self = txn_->Get(env_->dn2i(), MdbIdBytes(parent_id));
    if (!self.ok()) {
      if (self.status().code() == StatusCode::kNotFound) {
        return UsageError("entry ID " + std::to_string(id) + ": parent ID " +
                          std::to_string(parent_id) + " was not added");
      }
      return self.status();
    }
    DIRLOAD_ASSIGN_OR_RETURN(MdbDnNode node, DecodeMdbDnNode(*self));
    if (node.child) {
      return Status::Corruption(env_->path() + ": dn2i: no self node for ID " +
                                std::to_string(parent_id))
          .WithOrigin(ErrorOrigin::kDatabase);
    }
    parents_.emplace(parent_id, Parent{node.id, 1});
  }
  // One more below every ancestor: those this load added are all in
  // parents_ (each got a child before), up to a stored one or the root.
  uint64_t cur = parent_id;
  while (cur != 0 && cur > first_new_id_) {
    Parent& p = parents_.at(cur);
    ++p.nsubs;
    cur = p.parent;
  }
  if (cur != 0) ++stored_added_[cur];
  return Status::Ok();
}

Status MdbLoadWriter::SetChildNsubs(uint64_t id, uint64_t nsubs, bool add, uint64_t* parent) {
  DIRLOAD_ASSIGN_OR_RETURN(std::string_view self_bytes, txn_->Get(env_->dn2i(), MdbIdBytes(id)));
  DIRLOAD_ASSIGN_OR_RETURN(MdbDnNode self, DecodeMdbDnNode(self_bytes));
  if (self.child) {
    return Status::Corruption(env_->path() + ": dn2i: no self node for ID " + std::to_string(id))
        .WithOrigin(ErrorOrigin::kDatabase);
  }
  MdbDnNode probe{true, self.nrdn, self.rdn, id, 0};
  DIRLOAD_ASSIGN_OR_RETURN(std::string probe_bytes, EncodeMdbDnNode(probe));
  std::string key = MdbIdBytes(self.id);
  DIRLOAD_ASSIGN_OR_RETURN(std::string_view child_bytes,
                           txn_->GetDup(env_->dn2i(), key, probe_bytes));
  DIRLOAD_ASSIGN_OR_RETURN(MdbDnNode child, DecodeMdbDnNode(child_bytes));
  child.nsubs = add ? child.nsubs + nsubs : nsubs;
  DIRLOAD_ASSIGN_OR_RETURN(std::string updated, EncodeMdbDnNode(child));
  DIRLOAD_RETURN_IF_ERROR(txn_->ReplaceDup(env_->dn2i(), key, updated));
  if (parent != nullptr) *parent = self.id;
  return Status::Ok();
}

Status MdbLoadWriter::UpdateStoredAncestors(uint64_t stored_parent, uint64_t added) {
  for (uint64_t cur = stored_parent; cur != 0;) {
    DIRLOAD_RETURN_IF_ERROR(SetChildNsubs(cur, added, /*add=*/true, &cur));
  }
  return Status::Ok();
}

Status MdbLoadWriter::WriteDn2i() {
  // The child node of each entry that got children and was written before
  // its count was final, with its real nsubs (ascending IDs, so the
  // rewrites walk dn2i in key order).
  std::vector<std::pair<uint64_t, uint64_t>> fixes;
  for (const auto& [id, p] : parents_) {
    if (p.nsubs != p.nsubs_written) fixes.emplace_back(id, p.nsubs);
  }
  std::sort(fixes.begin(), fixes.end());
  uint64_t done = 0;
  for (const auto& [id, nsubs] : fixes) {
    if (++done % (uint64_t{4} * options_.entries_per_txn) == 0) {
      DIRLOAD_RETURN_IF_ERROR(CommitAndBegin());
    }
    DIRLOAD_RETURN_IF_ERROR(SetChildNsubs(id, nsubs, /*add=*/false));
  }
  for (const auto& [pid, added] : stored_added_) {
    DIRLOAD_RETURN_IF_ERROR(UpdateStoredAncestors(pid, added));
  }
  return Status::Ok();
}

Status MdbLoadWriter::Finish() {
  if (finished_) return UsageError("MdbLoadWriter: Finish called twice");
  finished_ = true;
  if (!txn_) {
    DIRLOAD_ASSIGN_OR_RETURN(MdbTxn t, env_->Begin(true));
    txn_.emplace(std::move(t));
  }
  DIRLOAD_RETURN_IF_ERROR(WriteHeldChildren());
  DIRLOAD_RETURN_IF_ERROR(WriteDn2i());
  DIRLOAD_RETURN_IF_ERROR(txn_->Commit());
  txn_.reset();
  return Status::Ok();
}

}  // namespace dirload::mdb
