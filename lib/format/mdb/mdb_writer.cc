#include "lib/format/mdb/mdb_writer.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "lib/format/mdb/mdb_dn_node.h"
#include "lib/format/mdb/mdb_entry_codec.h"
#include "lib/format/mdb/mdb_index_keys.h"
#include "lib/format/mdb/mdb_normalized.h"
#include "lib/format/mdb/mdb_reader.h"
#include "lib/schema/schema.h"

namespace dirload::mdb {
namespace {

constexpr std::string_view kObjectClassOid = "2.5.4.0";

std::string Ad2iKey(uint32_t n) {
  std::string k(4, '\0');
  for (int i = 0; i < 4; ++i) k[i] = static_cast<char>(n >> (8 * i));
  return k;
}

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
  MdbEnvOptions eo;
  eo.map_size = options.map_size;
  eo.quick = options.quick;
  eo.index_names = options.index_names;
  DIRLOAD_ASSIGN_OR_RETURN(w->env_, MdbEnv::Open(dir, eo));
  DIRLOAD_RETURN_IF_ERROR(w->ReadExisting());
  if (!existing && w->last_id_ != 0) {
    return Status::AlreadyExists(dir + ": the database already holds entries")
        .WithOrigin(ErrorOrigin::kDatabase);
  }
  return w;
}

MdbLoadWriter::~MdbLoadWriter() = default;

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
  }
  if (!txn_) {
    DIRLOAD_ASSIGN_OR_RETURN(MdbTxn t, env_->Begin(true));
    txn_.emplace(std::move(t));
    txn_entries_ = 0;
  }
  return Status::Ok();
}

Result<uint32_t> MdbLoadWriter::Ad2iNumber(const std::string& description) {
  auto it = ad2i_.find(description);
  if (it != ad2i_.end()) return it->second;
  uint32_t n = static_cast<uint32_t>(ad2i_.size()) + 1;
  DIRLOAD_RETURN_IF_ERROR(txn_->Put(env_->ad2i(), Ad2iKey(n), description, MdbPutMode::kAppend));
  ad2i_.emplace(description, n);
  return n;
}

int64_t MdbLoadWriter::NodeIndex(uint64_t id) const {
  auto it = std::lower_bound(nodes_.begin(), nodes_.end(), id,
                             [](const Node& n, uint64_t x) { return n.id < x; });
  if (it == nodes_.end() || it->id != id) return -1;
  return it - nodes_.begin();
}

Status MdbLoadWriter::Encode(uint64_t id, std::span<const MdbValue> values) {
  // One record per canonical description, in the order of first use
  // (mdb_entry_codec.h has the layout); WriteEncoded then writes the bytes.
  // This runs once per entry on the writing thread.
  records_.clear();
  record_of_.resize(values.size());
  classes_.clear();
  for (size_t i = 0; i < values.size(); ++i) {
    const MdbValue& v = values[i];
    auto it = descriptions_.find(v.description);
    if (it == descriptions_.end()) {
      Description d;
      Result<AttributeDescription> desc = schema_.ParseAttributeDescription(v.description);
      // An undefined type reaches here only from a load without schema
      // checks (slapadd -s stores those too): kept as written, with no
      // normalized copy.
      d.name = desc.ok() ? desc->ToString() : std::string(v.description);
      d.type = desc.ok() ? desc->type : nullptr;
      d.normalized = d.type != nullptr && MdbStoresNormalized(*d.type);
      d.object_class = d.type != nullptr && d.type->oid == kObjectClassOid;
      it = descriptions_.emplace(std::string(v.description), std::move(d)).first;
    }
    Description* d = &it->second;
    size_t r = 0;
    while (r < records_.size() && records_[r].d != d && records_[r].d->name != d->name) ++r;
    if (r == records_.size()) {
      Record rec;
      rec.d = d;
      rec.generated = v.generated;
      rec.normalized = !v.generated && d->normalized;
      records_.push_back(rec);
    }
    Record& rec = records_[r];
    ++rec.count;
    if (!v.has_normalized) rec.all_given = false;
    record_of_[i] = static_cast<uint32_t>(r);
    if (d->object_class) classes_.push_back(v.value);
  }
  if (records_.size() > 0x7fffffffu)
    return Status::InvalidArgument("mdb entry: too many attributes");
  // Value indexes grouped by record, each record's values in input order.
  {
    uint32_t at = 0;
    for (Record& rec : records_) {
      rec.first = at;
      at += rec.count;
      rec.count = 0;
    }
    order_.resize(values.size());
    for (size_t i = 0; i < values.size(); ++i) {
      Record& rec = records_[record_of_[i]];
      order_[rec.first + rec.count++] = static_cast<uint32_t>(i);
    }
  }
  // ad2i numbers in the order of first use, then the normalized copies this
  // thread still has to make.
  if (computed_.size() < values.size()) computed_.resize(values.size());
  uint64_t table_words = 0, data_bytes = 0, nvals = 0;
  for (Record& rec : records_) {
    if (rec.d->adx == 0) {
      DIRLOAD_ASSIGN_OR_RETURN(rec.d->adx, Ad2iNumber(rec.d->name));
      if (rec.d->adx > 0x3fffffffu) {
        return Status::InvalidArgument("mdb entry: more attribute descriptions than ad2i numbers");
      }
    }
    const uint64_t copies = rec.normalized ? 2 : 1;
    table_words += 2 + rec.count * copies;
    nvals += (uint64_t{rec.count} + 1) * copies;
    for (uint32_t k = rec.first; k < rec.first + rec.count; ++k) {
      const MdbValue& v = values[order_[k]];
      data_bytes += v.value.size() + 1;
      if (v.value.size() > UINT32_MAX) return Status::InvalidArgument("mdb entry: value too long");
      if (!rec.normalized) continue;
      if (rec.all_given) {
        data_bytes += v.normalized.size() + 1;
        continue;
      }
      std::string& out = computed_[order_[k]];
      // What this thread normalizes are mostly the operational values the
      // load adds: creatorsName and modifiersName repeat one DN.
      Description& d = *rec.d;
      if (d.has_last && d.last_value == v.value) {
        out = d.last_normalized;
      } else {
        Status st = MdbNormalizedValue(schema_, *d.type, v.value, &out);
        if (!st.ok()) return st.WithPrefix("entry ID " + std::to_string(id) + ": ");
        d.last_value.assign(v.value);
        d.last_normalized = out;
        d.has_last = true;
      }
      data_bytes += out.size() + 1;
    }
  }
  if (nvals > UINT32_MAX || table_words > UINT32_MAX) {
    return Status::InvalidArgument("mdb entry: too many values");
  }
  table_words_ = table_words;
  nvals_ = nvals;
  encoded_size_ = (16 + 4 * table_words + data_bytes + 7) & ~uint64_t{7};
  return Status::Ok();
}

void MdbLoadWriter::WriteEncoded(std::span<const MdbValue> values, char* base) const {
  const uint64_t table_words = table_words_;
  const uint64_t nvals = nvals_;
  std::memset(base, 0, encoded_size_);
  auto put_word = [](uint32_t w, char* p) {
    for (int i = 0; i < 4; ++i) p[i] = static_cast<char>(w >> (8 * i));
  };
  put_word(static_cast<uint32_t>(records_.size()), base);
  put_word(static_cast<uint32_t>(nvals), base + 4);
  put_word(MdbEntryOcFlags(schema_, classes_), base + 8);
  put_word(static_cast<uint32_t>(table_words), base + 12);
  char* word = base + 16;
  char* data = base + 16 + 4 * table_words;
  auto put_value = [&](std::string_view v) {
    put_word(static_cast<uint32_t>(v.size()), word);
    word += 4;
    std::memcpy(data, v.data(), v.size());
    data += v.size() + 1;  // the NUL is already there
  };
  for (const Record& rec : records_) {
    put_word(rec.d->adx, word);
    put_word(rec.count | (rec.normalized ? kMdbNumvalsNormalized : 0), word + 4);
    word += 8;
    for (uint32_t k = rec.first; k < rec.first + rec.count; ++k) put_value(values[order_[k]].value);
    if (!rec.normalized) continue;
    for (uint32_t k = rec.first; k < rec.first + rec.count; ++k) {
      put_value(rec.all_given ? values[order_[k]].normalized
                              : std::string_view(computed_[order_[k]]));
    }
  }
}

Status MdbLoadWriter::ReplaceEntry(uint64_t id, std::span<const MdbValue> values) {
  if (finished_) return UsageError("MdbLoadWriter: ReplaceEntry after Finish");
  if (NodeIndex(id) < 0) {
    return UsageError("entry ID " + std::to_string(id) + " was not added by this load");
  }
  DIRLOAD_RETURN_IF_ERROR(EnsureTxn());
  DIRLOAD_RETURN_IF_ERROR(Encode(id, values));
  std::string encoded(encoded_size_, '\0');
  WriteEncoded(values, encoded.data());
  return txn_->Put(env_->id2e(), MdbIdBytes(id), encoded, MdbPutMode::kOverwrite);
}

Status MdbLoadWriter::AddEntry(uint64_t id, uint64_t parent_id, std::string_view nrdn,
                               std::string_view rdn, std::span<const MdbValue> values) {
  if (finished_) return UsageError("MdbLoadWriter: AddEntry after Finish");
  if (id <= last_id_) {
    return UsageError("entry ID " + std::to_string(id) + " is not above the last ID " +
                      std::to_string(last_id_));
  }
  if (parent_id != 0 && parent_id > first_new_id_ && NodeIndex(parent_id) < 0) {
    return UsageError("entry ID " + std::to_string(id) + ": parent ID " +
                      std::to_string(parent_id) + " was not added");
  }
  if (nrdn.size() > kMdbMaxNrdnLength) {
    return Status::InvalidArgument("entry ID " + std::to_string(id) +
                                   ": normalized RDN longer than back-mdb allows")
        .WithOrigin(ErrorOrigin::kInput);
  }
  DIRLOAD_RETURN_IF_ERROR(EnsureTxn());
  DIRLOAD_RETURN_IF_ERROR(Encode(id, values));
  // Written in place in LMDB's page: no copy of the entry is made.
  DIRLOAD_ASSIGN_OR_RETURN(
      char* space, txn_->Reserve(env_->id2e(), MdbIdBytes(id), encoded_size_, MdbPutMode::kAppend));
  WriteEncoded(values, space);

  Node n{id, parent_id, arena_.size(), static_cast<uint32_t>(nrdn.size()),
         static_cast<uint32_t>(rdn.size())};
  arena_.append(nrdn);
  arena_.append(rdn);
  nodes_.push_back(n);
  last_id_ = id;
  ++txn_entries_;
  return Status::Ok();
}

Status MdbLoadWriter::UpdateStoredAncestors(uint64_t stored_parent, uint64_t added) {
  uint64_t cur = stored_parent;
  while (cur != 0) {
    DIRLOAD_ASSIGN_OR_RETURN(std::string_view self_bytes, txn_->Get(env_->dn2i(), MdbIdBytes(cur)));
    DIRLOAD_ASSIGN_OR_RETURN(MdbDnNode self, DecodeMdbDnNode(self_bytes));
    if (self.child) {
      return Status::Corruption(env_->path() + ": dn2i: no self node for ID " + std::to_string(cur))
          .WithOrigin(ErrorOrigin::kDatabase);
    }
    MdbDnNode probe{true, self.nrdn, self.rdn, cur, 0};
    DIRLOAD_ASSIGN_OR_RETURN(std::string probe_bytes, EncodeMdbDnNode(probe));
    std::string key = MdbIdBytes(self.id);
    DIRLOAD_ASSIGN_OR_RETURN(std::string_view child_bytes,
                             txn_->GetDup(env_->dn2i(), key, probe_bytes));
    DIRLOAD_ASSIGN_OR_RETURN(MdbDnNode child, DecodeMdbDnNode(child_bytes));
    child.nsubs += added;
    DIRLOAD_ASSIGN_OR_RETURN(std::string updated, EncodeMdbDnNode(child));
    DIRLOAD_RETURN_IF_ERROR(txn_->ReplaceDup(env_->dn2i(), key, updated));
    cur = self.id;
  }
  return Status::Ok();
}

Status MdbLoadWriter::WriteDn2i() {
  const size_t n = nodes_.size();
  std::vector<uint64_t> nsubs(n, 1);
  std::vector<int64_t> parent(n);
  for (size_t i = 0; i < n; ++i) parent[i] = NodeIndex(nodes_[i].parent);
  // Parents precede children: one backward pass sums every subtree.
  for (size_t i = n; i-- > 0;) {
    if (parent[i] >= 0) nsubs[parent[i]] += nsubs[i];
  }
  // Children grouped by parent: new parents by index (CSR), key 0 and stored
  // parents by ID.
  std::vector<uint32_t> first(n + 1, 0);
  std::map<uint64_t, std::vector<uint32_t>> outside;  // parent ID -> children
  for (size_t i = 0; i < n; ++i) {
    if (parent[i] >= 0) {
      ++first[parent[i] + 1];
    } else {
      outside[nodes_[i].parent].push_back(static_cast<uint32_t>(i));
    }
  }
  for (size_t i = 0; i < n; ++i) first[i + 1] += first[i];
  std::vector<uint32_t> kids(first[n]);
  {
    std::vector<uint32_t> fill(first.begin(), first.end() - 1);
    for (size_t i = 0; i < n; ++i) {
      if (parent[i] >= 0) kids[fill[parent[i]]++] = static_cast<uint32_t>(i);
    }
  }
  // slapd's dup order among child nodes: nrdn length, then the bytes.
  auto by_dup_order = [&](uint32_t a, uint32_t b) {
    const Node& x = nodes_[a];
    const Node& y = nodes_[b];
    if (x.nrdn_len != y.nrdn_len) return x.nrdn_len < y.nrdn_len;
    return Nrdn(x) < Nrdn(y);
  };
  std::string buf;
  auto child_node = [&](uint32_t i) -> Status {
    buf.clear();
    const Node& c = nodes_[i];
    return EncodeMdbDnNode(
        MdbDnNode{true, std::string(Nrdn(c)), std::string(Rdn(c)), c.id, nsubs[i]}, &buf);
  };
  uint64_t puts = 0;
  auto put = [&](uint64_t key, std::string_view value, MdbPutMode mode) -> Status {
    if (++puts % (uint64_t{4} * options_.entries_per_txn) == 0) {
      DIRLOAD_RETURN_IF_ERROR(txn_->Commit());
      txn_.reset();
      DIRLOAD_ASSIGN_OR_RETURN(MdbTxn t, env_->Begin(true));
      txn_.emplace(std::move(t));
    }
    return txn_->Put(env_->dn2i(), MdbIdBytes(key), value, mode);
  };

  // Keys that exist already (key 0 and stored parents), or key 0 of a new
  // database.
  const bool fresh = first_new_id_ == 0;
  if (fresh) DIRLOAD_RETURN_IF_ERROR(put(0, MdbDummyRootNode(), MdbPutMode::kAppend));
  for (auto& [pid, list] : outside) {
    std::sort(list.begin(), list.end(), by_dup_order);
    uint64_t added = 0;
    for (uint32_t i : list) {
      DIRLOAD_RETURN_IF_ERROR(child_node(i));
      // Under a stored key the node goes between existing duplicates.
      DIRLOAD_RETURN_IF_ERROR(
          put(pid, buf, fresh ? MdbPutMode::kAppendDup : MdbPutMode::kNoOverwrite));
      added += nsubs[i];
    }
    if (!fresh && pid != 0) DIRLOAD_RETURN_IF_ERROR(UpdateStoredAncestors(pid, added));
  }
  // New keys, ascending: the self node, then the children in dup order.
  for (size_t i = 0; i < n; ++i) {
    const Node& e = nodes_[i];
    buf.clear();
    DIRLOAD_RETURN_IF_ERROR(EncodeMdbDnNode(
        MdbDnNode{false, std::string(Nrdn(e)), std::string(Rdn(e)), e.parent, 0}, &buf));
    DIRLOAD_RETURN_IF_ERROR(put(e.id, buf, MdbPutMode::kAppend));
    std::sort(kids.begin() + first[i], kids.begin() + first[i + 1], by_dup_order);
    for (uint32_t k = first[i]; k < first[i + 1]; ++k) {
      DIRLOAD_RETURN_IF_ERROR(child_node(kids[k]));
      DIRLOAD_RETURN_IF_ERROR(put(e.id, buf, MdbPutMode::kAppendDup));
    }
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
  DIRLOAD_RETURN_IF_ERROR(WriteDn2i());
  DIRLOAD_RETURN_IF_ERROR(txn_->Commit());
  txn_.reset();
  return Status::Ok();
}

}  // namespace dirload::mdb
