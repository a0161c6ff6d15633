#include "lib/format/mdb/mdb_entry_editor.h"

#include <algorithm>

#include "lib/format/mdb/mdb_entry_codec.h"
#include "lib/format/mdb/mdb_index_keys.h"
#include "lib/format/mdb/mdb_normalized.h"
#include "lib/format/mdb/mdb_reader.h"
#include "lib/format/mdb/mdb_tree_updates.h"
#include "lib/schema/dn.h"
#include "lib/schema/schema.h"
#include "lib/util/run_stats.h"

namespace dirload::mdb {
namespace {

Status Gone(const std::string& what) {
  return Status::Corruption(what).WithOrigin(ErrorOrigin::kDatabase);
}

}  // namespace

Result<std::unique_ptr<MdbEntryEditor>> MdbEntryEditor::Open(const Schema& schema,
                                                             MdbEditorOptions options) {
  std::unique_ptr<MdbEntryEditor> e(new MdbEntryEditor(schema, std::move(options)));
  MdbEnvOptions eo;
  eo.map_size = e->options_.map_size;
  for (const IndexSpec& spec : e->options_.indexes) eo.index_names.emplace_back(spec.name());
  DIRLOAD_ASSIGN_OR_RETURN(e->env_, MdbEnv::Open(e->options_.dir, eo));
  DIRLOAD_ASSIGN_OR_RETURN(
      MdbEntryKeys keys,
      MdbEntryKeys::Create(schema, e->env_.get(), e->options_.indexes, e->options_.keys));
  e->keys_.emplace(std::move(keys));
  DIRLOAD_ASSIGN_OR_RETURN(MdbTxn txn, e->env_->Begin(true));
  e->txn_.emplace(std::move(txn));
  DIRLOAD_RETURN_IF_ERROR(e->ad2i_.ReadNew(&*e->txn_, e->env_.get()));
  std::string_view key, value;
  Status last = e->txn_->Last(e->env_->id2e(), &key, &value);
  if (last.ok()) {
    e->last_id_ = MdbDecodeId(key);
  } else if (last.code() != StatusCode::kNotFound) {
    return last;
  }
  return e;
}

MdbEntryEditor::~MdbEntryEditor() {
  if (txn_) txn_->Abort();
}

Result<uint32_t> MdbEntryEditor::Ad2iNumber(const std::string& description) {
  return ad2i_.Number(&*txn_, env_.get(), description);
}

Result<std::optional<EntryId>> MdbEntryEditor::Find(std::string_view ndn) {
  const std::string_view suffix = options_.nsuffix;
  std::string_view below;
  if (ndn != suffix) {
    if (ndn.size() <= suffix.size() + 1 || ndn.substr(ndn.size() - suffix.size()) != suffix ||
        ndn[ndn.size() - suffix.size() - 1] != ',') {
      return std::optional<EntryId>();
    }
    below = ndn.substr(0, ndn.size() - suffix.size() - 1);
  }
  // From the root down: the suffix under 0, then each RDN, rightmost first.
  std::vector<std::string_view> rdns;
  while (!below.empty()) {
    const std::string_view parent = ParentDn(below);
    rdns.push_back(parent.empty() ? below : below.substr(0, below.size() - parent.size() - 1));
    below = parent;
  }
  uint64_t cur = 0;
  std::string probe;
  auto step = [&](std::string_view nrdn) -> Result<bool> {
    if (nrdn.size() > kMdbMaxNrdnLength) return false;
    probe.clear();
    DIRLOAD_RETURN_IF_ERROR(EncodeMdbDnNode(MdbDnNode{true, std::string(nrdn), {}, 0, 0}, &probe));
    DIRLOAD_ASSIGN_OR_RETURN(std::optional<std::string_view> got,
                             txn_->FindDup(env_->dn2i(), MdbIdBytes(cur), probe));
    if (!got.has_value()) return false;
    DIRLOAD_ASSIGN_OR_RETURN(MdbDnNode node, DecodeMdbDnNode(*got));
    if (!node.child) return false;
    cur = node.id;
    return true;
  };
  DIRLOAD_ASSIGN_OR_RETURN(bool found, step(suffix));
  for (auto it = rdns.rbegin(); found && it != rdns.rend(); ++it) {
    DIRLOAD_ASSIGN_OR_RETURN(found, step(*it));
  }
  if (!found) return std::optional<EntryId>();
  return std::optional<EntryId>(cur);
}

Result<MdbDnNode> MdbEntryEditor::SelfNode(EntryId id) {
  Result<std::string_view> bytes = txn_->Get(env_->dn2i(), MdbIdBytes(id));
  if (!bytes.ok()) {
    if (bytes.status().code() == StatusCode::kNotFound) {
      return Gone(env_->path() + ": dn2i: no node for ID " + std::to_string(id));
    }
    return bytes.status();
  }
  DIRLOAD_ASSIGN_OR_RETURN(MdbDnNode self, DecodeMdbDnNode(*bytes));
  if (self.child) return Gone(env_->path() + ": dn2i: no self node for ID " + std::to_string(id));
  return self;
}

Result<std::string> MdbEntryEditor::ChildNode(EntryId parent, const MdbDnNode& self, EntryId id) {
  DIRLOAD_ASSIGN_OR_RETURN(std::string probe,
                           EncodeMdbDnNode(MdbDnNode{true, self.nrdn, self.rdn, id, 0}));
  DIRLOAD_ASSIGN_OR_RETURN(std::string_view got,
                           txn_->GetDup(env_->dn2i(), MdbIdBytes(parent), probe));
  return std::string(got);
}

bool MdbEntryEditor::StoresNormalized(uint32_t adx) {
  if (stores_normalized_.size() <= adx) stores_normalized_.resize(adx + 1, -1);
  if (stores_normalized_[adx] < 0) {
    const std::string& description = ad2i_.names()[adx];
    const AttributeType* type =
        schema_.FindAttribute(std::string_view(description).substr(0, description.find(';')));
    stores_normalized_[adx] = type != nullptr && MdbStoresNormalized(*type) ? 1 : 0;
  }
  return stores_normalized_[adx] == 1;
}

Result<EntryEditor::Entry> MdbEntryEditor::Read(EntryId id) {
  Result<std::string_view> record = txn_->Get(env_->id2e(), MdbIdBytes(id));
  if (!record.ok()) {
    if (record.status().code() == StatusCode::kNotFound) {
      return Gone(env_->path() + ": id2e: no entry " + std::to_string(id));
    }
    return record.status();
  }
  DIRLOAD_RETURN_IF_ERROR(DecodeMdbEntryView(*record, &view_, MdbEntryChecks::kFull));
  Entry e;
  e.id = id;
  for (const MdbAttributeView& a : view_.attributes) {
    if (a.adx == 0 || a.adx >= ad2i_.names().size()) {
      return Gone(env_->path() + ": id2e: entry " + std::to_string(id) + " names attribute " +
                  std::to_string(a.adx) + ", which ad2i lacks");
    }
    if (a.multival) {
      return Status::Unsupported(env_->path() + ": id2e: the values of '" + ad2i_.names()[a.adx] +
                                 "' are kept in id2v (multival), which dirload modify does "
                                 "not change: modify it through slapd");
    }
    const std::string& description = ad2i_.names()[a.adx];
    const bool stores = StoresNormalized(a.adx);
    const auto values = view_.Values(a);
    for (size_t i = 0; i < values.size(); ++i) {
      Value v;
      v.description = description;
      v.value = std::string(values[i]);
      if (a.has_normalized) {
        v.beside = std::string(view_.Normalized(a)[i]);
      } else {
        // Stored without a copy though its type has one: a value slapd made
        // itself, kept so.
        v.generated = stores;
      }
      e.values.push_back(std::move(v));
    }
  }
  return e;
}

Result<std::vector<EntryId>> MdbEntryEditor::Children(EntryId id) {
  std::vector<EntryId> out;
  DIRLOAD_RETURN_IF_ERROR(txn_->ForEachDup(env_->dn2i(), MdbIdBytes(id), [&](std::string_view v) {
    Result<MdbDnNode> node = DecodeMdbDnNode(v);
    if (!node.ok()) return node.status();
    if (node->child) out.push_back(node->id);
    return Status::Ok();
  }));
  return out;
}

Status MdbEntryEditor::Encode(EntryId id, std::span<const Value> values) {
  mdb_values_.clear();
  for (const Value& v : values) {
    MdbValue m;
    m.description = v.description;
    m.value = v.value;
    m.generated = v.generated;
    if (v.beside.has_value()) {
      m.normalized = *v.beside;
      m.has_normalized = true;
    }
    mdb_values_.push_back(m);
  }
  DIRLOAD_RETURN_IF_ERROR(
      encoder_.Layout(id, mdb_values_, [this](const std::string& d) { return Ad2iNumber(d); }));
  encoded_.assign(encoder_.size(), '\0');
  encoder_.Write(mdb_values_, encoded_.data());
  return Status::Ok();
}

Status MdbEntryEditor::OweKeys(EntryId id, std::string_view old_record,
                               std::string_view new_record) {
  if (keys_->empty()) return Status::Ok();
  // A rewritten entry: only its changed attributes' keys can differ.
  const std::vector<uint8_t>* only = nullptr;
  if (!old_record.empty() && !new_record.empty()) {
    DIRLOAD_RETURN_IF_ERROR(MdbEntryKeys::ChangedAttributes(old_record, new_record, &changed_));
    only = &changed_;
  }
  // The old keys are copied: the next Keys() call reuses their buffer.
  old_owned_.clear();
  if (!old_record.empty()) {
    DIRLOAD_RETURN_IF_ERROR(keys_->Keys(old_record, ad2i_.names(), &old_keys_, only));
    for (const auto& [t, k] : old_keys_) old_owned_.emplace_back(t, std::string(k));
  }
  old_keys_.clear();
  for (const auto& [t, k] : old_owned_) old_keys_.emplace_back(t, k);
  new_keys_.clear();
  if (!new_record.empty()) {
    DIRLOAD_RETURN_IF_ERROR(keys_->Keys(new_record, ad2i_.names(), &new_keys_, only));
  }
  owed_.Record(id, old_keys_, new_keys_);
  return owed_.full() ? SettleOwedKeys() : Status::Ok();
}

Result<EntryId> MdbEntryEditor::Add(EntryId parent, std::string_view nrdn, std::string_view rdn,
                                    std::span<const Value> values) {
  const EntryId id = last_id_ + 1;  // mdb_next_id
  DIRLOAD_RETURN_IF_ERROR(CheckMdbNrdnLength(id, nrdn));
  DIRLOAD_RETURN_IF_ERROR(Encode(id, values));
  DIRLOAD_RETURN_IF_ERROR(
      txn_->Put(env_->id2e(), MdbIdBytes(id), encoded_, MdbPutMode::kNoOverwrite));
  DIRLOAD_RETURN_IF_ERROR(OweKeys(id, {}, encoded_));
  if (parent == 0) {
    Status dummy =
        txn_->Put(env_->dn2i(), MdbIdBytes(0), MdbDummyRootNode(), MdbPutMode::kNoOverwrite);
    if (!dummy.ok() && dummy.code() != StatusCode::kAlreadyExists) return dummy;
  }
  DIRLOAD_ASSIGN_OR_RETURN(std::string child, EncodeMdbDnNode(MdbDnNode{true, std::string(nrdn),
                                                                        std::string(rdn), id, 1}));
  DIRLOAD_RETURN_IF_ERROR(
      txn_->Put(env_->dn2i(), MdbIdBytes(parent), child, MdbPutMode::kNoOverwrite));
  DIRLOAD_ASSIGN_OR_RETURN(
      std::string self,
      EncodeMdbDnNode(MdbDnNode{false, std::string(nrdn), std::string(rdn), parent, 0}));
  DIRLOAD_RETURN_IF_ERROR(txn_->Put(env_->dn2i(), MdbIdBytes(id), self, MdbPutMode::kOverwrite));
  if (parent != 0) DIRLOAD_RETURN_IF_ERROR(AddToSubtreeCounts(&*txn_, env_.get(), parent, 1));
  last_id_ = id;
  return id;
}

Status MdbEntryEditor::Replace(EntryId id, std::span<const Value> values) {
  DIRLOAD_ASSIGN_OR_RETURN(std::string_view old, txn_->Get(env_->id2e(), MdbIdBytes(id)));
  old_record_.assign(old);
  DIRLOAD_RETURN_IF_ERROR(Encode(id, values));
  DIRLOAD_RETURN_IF_ERROR(
      txn_->Put(env_->id2e(), MdbIdBytes(id), encoded_, MdbPutMode::kOverwrite));
  return OweKeys(id, old_record_, encoded_);
}

Status MdbEntryEditor::Delete(EntryId id) {
  DIRLOAD_ASSIGN_OR_RETURN(std::vector<EntryId> children, Children(id));
  if (!children.empty()) {
    return Status::InvalidArgument("entry " + std::to_string(id) + " is not a leaf")
        .WithOrigin(ErrorOrigin::kInput);
  }
  DIRLOAD_ASSIGN_OR_RETURN(MdbDnNode self, SelfNode(id));
  DIRLOAD_ASSIGN_OR_RETURN(std::string_view old, txn_->Get(env_->id2e(), MdbIdBytes(id)));
  old_record_.assign(old);
  DIRLOAD_RETURN_IF_ERROR(OweKeys(id, old_record_, {}));
  DIRLOAD_ASSIGN_OR_RETURN(std::string child, ChildNode(self.id, self, id));
  DIRLOAD_RETURN_IF_ERROR(txn_->DeleteDup(env_->dn2i(), MdbIdBytes(self.id), child));
  DIRLOAD_RETURN_IF_ERROR(txn_->DeleteKey(env_->dn2i(), MdbIdBytes(id)));
  if (self.id != 0) DIRLOAD_RETURN_IF_ERROR(AddToSubtreeCounts(&*txn_, env_.get(), self.id, -1));
  return txn_->DeleteKey(env_->id2e(), MdbIdBytes(id));
}

Status MdbEntryEditor::Move(EntryId id, EntryId new_parent, std::string_view nrdn,
                            std::string_view rdn) {
  DIRLOAD_RETURN_IF_ERROR(CheckMdbNrdnLength(id, nrdn));
  DIRLOAD_ASSIGN_OR_RETURN(MdbDnNode self, SelfNode(id));
  const EntryId old_parent = self.id;
  DIRLOAD_ASSIGN_OR_RETURN(std::string old_child, ChildNode(old_parent, self, id));
  DIRLOAD_ASSIGN_OR_RETURN(MdbDnNode child, DecodeMdbDnNode(old_child));
  const uint64_t nsubs = child.nsubs;
  DIRLOAD_RETURN_IF_ERROR(txn_->DeleteDup(env_->dn2i(), MdbIdBytes(old_parent), old_child));
  DIRLOAD_ASSIGN_OR_RETURN(std::string old_self, EncodeMdbDnNode(self));
  DIRLOAD_RETURN_IF_ERROR(txn_->DeleteDup(env_->dn2i(), MdbIdBytes(id), old_self));
  DIRLOAD_ASSIGN_OR_RETURN(
      std::string new_child,
      EncodeMdbDnNode(MdbDnNode{true, std::string(nrdn), std::string(rdn), id, nsubs}));
  Status put = txn_->Put(env_->dn2i(), MdbIdBytes(new_parent), new_child, MdbPutMode::kNoOverwrite);
  if (put.code() == StatusCode::kAlreadyExists) {
    return Status::AlreadyExists("the new name is taken").WithOrigin(ErrorOrigin::kInput);
  }
  DIRLOAD_RETURN_IF_ERROR(put);
  DIRLOAD_ASSIGN_OR_RETURN(
      std::string new_self,
      EncodeMdbDnNode(MdbDnNode{false, std::string(nrdn), std::string(rdn), new_parent, 0}));
  DIRLOAD_RETURN_IF_ERROR(
      txn_->Put(env_->dn2i(), MdbIdBytes(id), new_self, MdbPutMode::kOverwrite));
  const auto count = static_cast<int64_t>(nsubs);
  if (old_parent != 0) {
    DIRLOAD_RETURN_IF_ERROR(AddToSubtreeCounts(&*txn_, env_.get(), old_parent, -count));
  }
  if (new_parent != 0) {
    DIRLOAD_RETURN_IF_ERROR(AddToSubtreeCounts(&*txn_, env_.get(), new_parent, count));
  }
  return Status::Ok();
}

Status MdbEntryEditor::SettleOwedKeys() {
  const PhaseClock settle;
  DIRLOAD_RETURN_IF_ERROR(owed_.Settle([&](std::span<const OwedKeys::Change> changes) -> Status {
    const std::string& key = changes.front().key;
    const MdbDb db = keys_->db(changes.front().index);
    const auto adds = static_cast<uint64_t>(std::count_if(
        changes.begin(), changes.end(), [](const OwedKeys::Change& c) { return c.add; }));
    DIRLOAD_ASSIGN_OR_RETURN(MdbTxn::DupRange have, txn_->Dups(db, key));
    // A list that stays one whatever the order (it cannot reach the range
    // threshold) takes its IDs and gives them up directly; a range, or a
    // list that may become one, follows back-mdb's rules change by change.
    const bool stays_list = (have.count == 0 || MdbDecodeId(have.first) != 0) &&
                            have.count + adds <= options_.keys.max_ids_per_key();
    for (const OwedKeys::Change& o : changes) {
      if (stays_list) {
        Status s = o.add ? txn_->Put(db, key, MdbIdBytes(o.id), MdbPutMode::kNoOverwrite)
                         : txn_->DeleteDup(db, key, MdbIdBytes(o.id));
        if (!s.ok() && s.code() != StatusCode::kAlreadyExists &&
            s.code() != StatusCode::kNotFound) {
          return s;
        }
      } else if (o.add) {
        DIRLOAD_RETURN_IF_ERROR(
            InsertIndexId(&*txn_, db, key, o.id, options_.keys.max_ids_per_key()));
      } else {
        DIRLOAD_RETURN_IF_ERROR(DeleteIndexId(&*txn_, db, key, o.id));
      }
      ++(o.add ? stats_.index_ids_added : stats_.index_ids_removed);
    }
    return Status::Ok();
  }));
  stats_.index_seconds += settle.wall_seconds();
  return Status::Ok();
}

Status MdbEntryEditor::Commit() {
  DIRLOAD_RETURN_IF_ERROR(SettleOwedKeys());
  const PhaseClock commit;
  DIRLOAD_RETURN_IF_ERROR(txn_->Commit());
  txn_.reset();
  stats_.commit_seconds = commit.wall_seconds();
  return Status::Ok();
}

}  // namespace dirload::mdb
