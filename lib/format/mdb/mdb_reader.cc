#include "lib/format/mdb/mdb_reader.h"

#include <cstring>
#include <vector>

#include "lib/format/mdb/mdb_dn_node.h"
#include "lib/format/mdb/mdb_id2v.h"

namespace dirload::mdb {
namespace {

std::string IdText(uint64_t id) { return "id " + std::to_string(id); }

// Joins an RDN to its parent's DN into *out; the suffix entry has no parent
// DN, and an empty parent (the root DSE as a suffix) adds no comma.
void Join(std::string_view rdn, const std::string* parent, std::string* out) {
  out->assign(rdn);
  if (parent != nullptr && !parent->empty()) {
    out->push_back(',');
    *out += *parent;
  }
}

std::string Join(std::string_view rdn, const std::string* parent) {
  std::string out;
  Join(rdn, parent, &out);
  return out;
}

}  // namespace

std::string MdbIdKey(uint64_t id) {
  std::string key(8, '\0');
  for (int i = 0; i < 8; ++i) key[i] = static_cast<char>((id >> (8 * i)) & 0xff);
  return key;
}

uint64_t MdbDecodeId(std::string_view key) {
  uint64_t v = 0;
  for (size_t i = key.size() < 8 ? key.size() : 8; i-- > 0;) {
    v = (v << 8) | static_cast<unsigned char>(key[i]);
  }
  return v;
}

Result<std::unique_ptr<MdbReader>> MdbReader::Open(const std::string& dir) {
  std::unique_ptr<MdbReader> r(new MdbReader());
  MdbEnvOptions options;
  options.read_only = true;
  DIRLOAD_ASSIGN_OR_RETURN(r->env_, MdbEnv::Open(dir, options));
  DIRLOAD_ASSIGN_OR_RETURN(MdbTxn txn, r->env_->Begin(false));
  DIRLOAD_RETURN_IF_ERROR(r->LoadDescriptions(&txn));
  return r;
}

Status MdbReader::LoadDescriptions(MdbTxn* txn) {
  dictionary_.Intern("");
  return txn->Scan(env_->ad2i(), [&](std::string_view key, std::string_view value) {
    uint32_t n = 0;
    if (key.size() == 4) {
      for (int i = 3; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(key[i]);
    }
    if (key.size() != 4 || n != dictionary_.size()) {
      return Status::Corruption(path() + ": ad2i: key " + std::to_string(n) + " (" +
                                std::to_string(key.size()) + " bytes) where " +
                                std::to_string(dictionary_.size()) + " was expected");
    }
    if (dictionary_.Intern(value) != n) {
      return Status::Corruption(path() + ": ad2i: description '" + std::string(value) +
                                "' appears twice");
    }
    return Status::Ok();
  });
}

Status MdbReader::SelfNode(MdbTxn* txn, uint64_t id, std::string* rdn, std::string* nrdn,
                           uint64_t* parent) {
  Result<std::string_view> bytes = txn->Get(env_->dn2i(), MdbIdKey(id));
  if (!bytes.ok()) {
    if (bytes.status().code() == StatusCode::kNotFound) {
      return Status::Corruption(path() + ": dn2i: " + IdText(id) + " has no DN node");
    }
    return bytes.status().WithPrefix("dn2i: " + IdText(id) + ": ");
  }
  Result<MdbDnNode> node = DecodeMdbDnNode(*bytes);
  if (!node.ok()) return node.status().WithPrefix(path() + ": dn2i: " + IdText(id) + ": ");
  if (node->child) {
    return Status::Corruption(path() + ": dn2i: " + IdText(id) +
                              ": first node is a child node, not the entry's own");
  }
  *rdn = std::move(node->rdn);
  *nrdn = std::move(node->nrdn);
  *parent = node->id;
  return Status::Ok();
}

Status MdbReader::ParentNames(MdbTxn* txn, uint64_t id, const Names** out) {
  if (auto it = parents_.find(id); it != parents_.end()) {
    *out = &it->second;
    return Status::Ok();
  }
  // Walk up to a cached ancestor or the suffix, then build downwards.
  struct Step {
    uint64_t id;
    std::string rdn, nrdn;
  };
  std::vector<Step> chain;
  const Names* above = nullptr;
  uint64_t cur = id;
  while (cur != 0) {
    if (auto it = parents_.find(cur); it != parents_.end()) {
      above = &it->second;
      break;
    }
    // A DN deeper than the number of IDs walked so far could only be a cycle.
    if (chain.size() > parents_.size() + 100000) {
      return Status::Corruption(path() + ": dn2i: " + IdText(id) +
                                ": the parent chain does not reach the suffix");
    }
    Step step{cur, {}, {}};
    uint64_t parent = 0;
    DIRLOAD_RETURN_IF_ERROR(SelfNode(txn, cur, &step.rdn, &step.nrdn, &parent));
    chain.push_back(std::move(step));
    cur = parent;
  }
  for (size_t i = chain.size(); i-- > 0;) {
    Names names{Join(chain[i].rdn, above ? &above->dn : nullptr),
                Join(chain[i].nrdn, above ? &above->ndn : nullptr)};
    above = &parents_.emplace(chain[i].id, std::move(names)).first->second;
  }
  *out = above;
  return Status::Ok();
}

Status MdbReader::FillValues(MdbTxn* txn, uint64_t id, std::string_view value, MdbReadEntry* out) {
  out->id = id;
  Status decoded = DecodeMdbEntryView(value, &out->stored, checks_);
  if (!decoded.ok()) return decoded.WithPrefix(path() + ": id2e: " + IdText(id) + ": ");
  DIRLOAD_RETURN_IF_ERROR(ResolveMdbMultival(*txn, env_->id2v(), id, &out->stored, path()));
  out->dn.clear();
  out->ndn.clear();
  out->view.dn = {};
  out->view.values.clear();
  out->view.normalized.clear();
  bool any_normalized = false;
  for (const MdbAttributeView& a : out->stored.attributes) any_normalized |= a.has_normalized;
  for (const MdbAttributeView& a : out->stored.attributes) {
    if (a.adx == 0 || a.adx >= dictionary_.size()) {
      return Status::Corruption(path() + ": id2e: " + IdText(id) + ": attribute number " +
                                std::to_string(a.adx) + " is not in ad2i");
    }
    for (std::string_view v : out->stored.Values(a)) out->view.values.push_back({a.adx, v});
    if (!any_normalized) continue;
    if (a.has_normalized) {
      for (std::string_view n : out->stored.Normalized(a)) out->view.normalized.push_back(n);
    } else {
      out->view.normalized.resize(out->view.values.size());
    }
  }
  return Status::Ok();
}

Status MdbReader::FillDn(MdbTxn* txn, MdbReadEntry* out) {
  uint64_t parent = 0;
  DIRLOAD_RETURN_IF_ERROR(SelfNode(txn, out->id, &rdn_, &nrdn_, &parent));
  const Names* above = nullptr;
  if (parent != 0) DIRLOAD_RETURN_IF_ERROR(ParentNames(txn, parent, &above));
  Join(rdn_, above ? &above->dn : nullptr, &out->dn);
  Join(nrdn_, above ? &above->ndn : nullptr, &out->ndn);
  out->view.dn = out->dn;
  return Status::Ok();
}

Status MdbReader::ForEach(const std::function<Status(const MdbReadEntry&)>& fn,
                          const std::function<Result<bool>(const MdbReadEntry&)>& wanted,
                          const std::function<Status()>& finish) {
  DIRLOAD_ASSIGN_OR_RETURN(MdbTxn txn, env_->Begin(false));
  MdbReadEntry entry;
  DIRLOAD_RETURN_IF_ERROR(txn.Scan(env_->id2e(), [&](std::string_view key, std::string_view value) {
    if (key.size() != 8) {
      return Status::Corruption(path() + ": id2e: a key of " + std::to_string(key.size()) +
                                " bytes, not an 8-byte ID");
    }
    if (value.empty()) return Status::Ok();  // a placeholder (see the header)
    DIRLOAD_RETURN_IF_ERROR(FillValues(&txn, MdbDecodeId(key), value, &entry));
    if (wanted) {
      DIRLOAD_ASSIGN_OR_RETURN(bool keep, wanted(entry));
      if (!keep) return Status::Ok();
    }
    DIRLOAD_RETURN_IF_ERROR(FillDn(&txn, &entry));
    return fn(entry);
  }));
  return finish ? finish() : Status::Ok();
}

Status MdbReader::Get(uint64_t id, MdbReadEntry* out) {
  DIRLOAD_ASSIGN_OR_RETURN(MdbTxn txn, env_->Begin(false));
  Result<std::string_view> value = txn.Get(env_->id2e(), MdbIdKey(id));
  if (!value.ok()) {
    if (value.status().code() == StatusCode::kNotFound) {
      return Status::NotFound(path() + ": id2e: no " + IdText(id));
    }
    return value.status().WithPrefix("id2e: " + IdText(id) + ": ");
  }
  if (value->empty()) {
    return Status::NotFound(path() + ": id2e: " + IdText(id) +
                            " is an empty placeholder for a missing ancestor, not an entry");
  }
  out->bytes.assign(*value);
  DIRLOAD_RETURN_IF_ERROR(FillValues(&txn, id, out->bytes, out));
  return FillDn(&txn, out);
}

}  // namespace dirload::mdb
