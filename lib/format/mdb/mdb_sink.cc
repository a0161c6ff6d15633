#include "lib/format/mdb/mdb_sink.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "lib/format/mdb/mdb_entry_codec.h"
#include "lib/format/mdb/mdb_normalized.h"
#include "lib/format/mdb/mdb_writer.h"
#include "lib/schema/attribute_type.h"
#include "lib/schema/dn.h"
#include "lib/schema/matching_rule.h"
#include "lib/util/ascii.h"
#include "lib/util/coding.h"
#include "lib/util/sequence_lookup.h"
#include "lib/util/string_map.h"

namespace dirload {
namespace {

// `dn` as slapd stores an entry's DN (dnPretty, what slapcat and slapd show):
// each type by its canonical name, options dropped; the AVAs of an RDN
// sorted by that name; in a value, , + " \ < > ; = NUL, a leading '#' or
// space and a trailing space written as \XX (upper-case hex), every other
// byte (UTF-8, control characters) as it is. Dn::ToString writes "\," where
// slapd writes "\2C": an export of slapcat's would not load back to the same
// bytes. (slapd also folds runs of spaces in directory strings; an export
// has none left.) `dn` was parsed by the loader; one that does not parse
// again is kept as it is.
std::string SlapdPrettyDn(const Schema& schema, std::string_view dn) {
  // Most RDNs are one plain AVA with the type as the schema names it
  // ("uid=jdoe"): already slapd's form, kept without parsing (this runs on
  // the writing thread, per entry).
  std::string_view type, value;
  if (IsPlainAva(dn, &type, &value)) {
    const AttributeType* t = schema.FindAttribute(type);
    if (t != nullptr && t->name() == type) return std::string(dn);
  }
  Result<Dn> parsed = ParseDn(dn);
  if (!parsed.ok()) return std::string(dn);
  std::string out;
  std::vector<std::pair<std::string_view, const Ava*>> avas;
  for (size_t r = 0; r < parsed->rdns.size(); ++r) {
    if (r > 0) out.push_back(',');
    avas.clear();
    for (const Ava& ava : parsed->rdns[r]) {
      const AttributeType* type = schema.FindAttribute(ava.type);
      if (type == nullptr || ava.ber) return std::string(dn);
      avas.emplace_back(type->name(), &ava);
    }
    std::stable_sort(avas.begin(), avas.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (size_t a = 0; a < avas.size(); ++a) {
      if (a > 0) out.push_back('+');
      out.append(avas[a].first);
      out.push_back('=');
      const std::string& v = avas[a].second->value;
      for (size_t i = 0; i < v.size(); ++i) {
        const auto c = static_cast<unsigned char>(v[i]);
        const bool hex = c == 0 || c == ',' || c == '+' || c == '"' || c == '\\' || c == '<' ||
                         c == '>' || c == ';' || c == '=' || (i == 0 && (c == '#' || c == ' ')) ||
                         (i + 1 == v.size() && c == ' ');
        if (hex) {
          out.push_back('\\');
          AppendHexByte(c, &out, kUpperHexDigits);
        } else {
          out.push_back(static_cast<char>(c));
        }
      }
    }
  }
  return out;
}

}  // namespace

MdbSink::MdbSink(mdb::MdbEntryWriter* writer, const Schema* schema)
    : writer_(writer), schema_(schema), written_(writer->last_id()) {}

namespace {

// slapd's normalized copies, per checking worker, with what it learnt of
// each description.
class MdbPreparer final : public EntrySink::Preparer {
 public:
  explicit MdbPreparer(const Schema* schema) : schema_(schema) {}

  Status Prepare(std::string_view, std::span<const EntrySink::ValuePair> values,
                 std::span<const std::string* const> equalities,
                 EntrySink::Prepared* out) override {
    out->beside.resize(values.size());
    out->has_beside.assign(values.size(), 0);
    sequence_.Start();
    for (size_t i = 0; i < values.size(); ++i) {
      bool stored = false;
      const std::string* equality = i < equalities.size() ? equalities[i] : nullptr;
      const Type& type =
          *sequence_.Next(values[i].first, [this](std::string_view d) { return &TypeOf(d); });
      DIRLOAD_RETURN_IF_ERROR(
          Normalize(type, values[i].second, equality, &out->beside[i], &stored));
      out->has_beside[i] = 1;
      if (!stored) out->beside[i].clear();
    }
    return Status::Ok();
  }

 private:
  struct Type {
    const AttributeType* type = nullptr;  // null: no normalized copy
    bool dn = false;                      // distinguishedNameMatch
    bool reuse = false;                   // the checks' equality normalization is slapd's copy
    std::string written;                  // the description as written (its key in types_)
    SequenceLookup<Type>::Link next;      // for sequence_
  };

  Type& TypeOf(std::string_view description) {
    if (Type* known = types_.Find(description)) return *known;
    Result<AttributeDescription> d = schema_->ParseAttributeDescription(description);
    Type t;
    t.written = std::string(description);
    t.type = d.ok() && mdb::MdbStoresNormalized(*d->type) ? d->type : nullptr;
    t.dn = t.type != nullptr && t.type->equality->normalizer == Normalizer::kDistinguishedName;
    // slapd's copy is the equality normalization, except UUIDs (16 bytes).
    t.reuse = t.type != nullptr && t.type->equality->normalizer != Normalizer::kUuid;
    return *types_.Insert(description, t).first;
  }

  Status Normalize(const Type& t, std::string_view value, const std::string* equality,
                   std::string* out, bool* stored) {
    *stored = t.type != nullptr;
    if (!*stored) return Status::Ok();
    if (equality != nullptr && t.reuse) {
      out->assign(*equality);
      return Status::Ok();
    }
    if (!t.dn) return mdb::MdbNormalizedValue(*schema_, *t.type, value, out);
    // DN values (member, manager, seeAlso) name the same few entries over
    // and over, and a DN costs the most to normalize.
    if (const std::string* hit = dns_.Find(value)) {
      out->assign(*hit);
      return Status::Ok();
    }
    DIRLOAD_RETURN_IF_ERROR(mdb::MdbNormalizedValue(*schema_, *t.type, value, out));
    if (dns_.size() >= kMaxDns) dns_ = StringMap<std::string>();
    dns_.Insert(value, *out);
    return Status::Ok();
  }

  // Bounds the DN memo (a few MB per worker).
  static constexpr size_t kMaxDns = 32768;

  const Schema* schema_;
  // Looked up once per value: the load's fast map, not std's.
  StringMap<Type> types_;
  SequenceLookup<Type> sequence_;  // most lookups of types_, without hashing
  StringMap<std::string> dns_;
};

}  // namespace

std::unique_ptr<EntrySink::Preparer> MdbSink::NewPreparer() {
  return std::make_unique<MdbPreparer>(schema_);
}

Result<EntrySink::Start> MdbSink::Stored() {
  Start start;
  DIRLOAD_ASSIGN_OR_RETURN(start.entries, writer_->StoredEntries());
  start.next_id = writer_->last_id() + 1;
  return start;
}

Status MdbSink::Begin(std::string_view, std::string_view nsuffix) {
  nsuffix_.assign(nsuffix);
  return Status::Ok();
}

void MdbSink::Owned::Assign(std::span<const mdb::MdbValue> in) {
  descriptions.clear();
  values.clear();
  normalized.clear();
  generated.clear();
  has_normalized.clear();
  for (const mdb::MdbValue& v : in) {
    descriptions.emplace_back(v.description);
    values.emplace_back(v.value);
    normalized.emplace_back(v.normalized);
    generated.push_back(v.generated);
    has_normalized.push_back(v.has_normalized);
  }
}

std::vector<mdb::MdbValue> MdbSink::Owned::View() const {
  std::vector<mdb::MdbValue> out;
  out.reserve(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    out.push_back({descriptions[i], values[i], generated[i], normalized[i], has_normalized[i]});
  }
  return out;
}

Status MdbSink::WriteView(EntryId id, EntryId parent, std::string_view nrdn, std::string_view rdn,
                          std::span<const mdb::MdbValue> values) {
  DIRLOAD_RETURN_IF_ERROR(writer_->AddEntry(id, parent, nrdn, rdn, values));
  written_ = id;
  return Status::Ok();
}

Status MdbSink::Write(EntryId id, const Owned& e) {
  std::vector<mdb::MdbValue> view = e.View();
  return WriteView(id, e.parent, e.nrdn, e.rdn, view);
}

std::string MdbSink::NameKey(EntryId parent, std::string_view nrdn) {
  std::string key;
  PutBigEndian64(parent, &key);
  key.append(nrdn);
  return key;
}

void MdbSink::ErasePending(std::map<EntryId, Owned>::iterator it) {
  pending_names_.erase(NameKey(it->second.parent, it->second.nrdn));
  pending_.erase(it);
}

Status MdbSink::Drain() {
  while (!pending_.empty() && pending_.begin()->first == written_ + 1) {
    auto it = pending_.begin();
    DIRLOAD_RETURN_IF_ERROR(Write(it->first, it->second));
    ErasePending(it);
  }
  return Status::Ok();
}

void MdbSink::Reserve(EntryId id, DnName name) { reserved_.emplace(name, id); }

Result<std::optional<EntryId>> MdbSink::ParentId(std::string_view parent_ndn) {
  if (!reserved_.empty()) {
    if (auto it = reserved_.find(MakeDnName(parent_ndn)); it != reserved_.end()) {
      return std::optional<EntryId>(it->second);
    }
  }
  if (auto it = parent_ids_.find(parent_ndn); it != parent_ids_.end()) {
    return std::optional<EntryId>(it->second);
  }
  DIRLOAD_ASSIGN_OR_RETURN(std::optional<EntryId> id, Find(parent_ndn, nullptr));
  // An entry keeps its ID until the end, when only entries below reserved
  // IDs that never came are removed.
  if (id.has_value()) {
    if (parent_ids_.size() >= kParentIds) parent_ids_.clear();
    parent_ids_.emplace(parent_ndn, *id);
  }
  return id;
}

Result<std::optional<EntryId>> MdbSink::Find(std::string_view ndn, const Prepared*) {
  // The tree files an entry under its parent's ID; under the empty suffix
  // the top entries hang from the root, ID 0.
  EntryId parent = 0;
  if (ndn != nsuffix_) {
    const std::string_view parent_ndn = ParentDn(ndn);
    if (!parent_ndn.empty()) {
      DIRLOAD_ASSIGN_OR_RETURN(std::optional<EntryId> p, ParentId(parent_ndn));
      if (!p.has_value()) return std::optional<EntryId>();
      parent = *p;
    }
  }
  return FindChild(parent, ndn);
}

Result<std::optional<EntryId>> MdbSink::FindChild(EntryId parent, std::string_view ndn) {
  std::string_view nrdn = parent == 0 ? ndn : mdb::MdbLeftmostRdn(ndn);
  if (!pending_names_.empty()) {
    if (auto it = pending_names_.find(NameKey(parent, nrdn)); it != pending_names_.end()) {
      return std::optional<EntryId>(it->second);
    }
  }
  return writer_->FindChild(parent, nrdn);
}

Status MdbSink::Add(const NewEntry& e) {
  if (!reserved_.empty()) {
    if (auto it = reserved_.find(MakeDnName(e.ndn)); it != reserved_.end()) reserved_.erase(it);
  }
  EntryId parent = 0;
  const std::string_view parent_ndn = e.is_suffix ? std::string_view() : ParentDn(e.ndn);
  if (!parent_ndn.empty()) {
    DIRLOAD_ASSIGN_OR_RETURN(std::optional<EntryId> found, ParentId(parent_ndn));
    if (!found.has_value()) {
      return Status::Internal("entry " + std::to_string(e.id) + ": its parent is not stored");
    }
    parent = *found;
  }
  // The entry's own values in the order the workers saw them, then the
  // operational values this load made.
  values_.clear();
  for (size_t i = 0; i < e.values.size(); ++i) {
    mdb::MdbValue v{e.values[i].first, e.values[i].second, false, {}, false};
    if (e.prepared != nullptr && i < e.prepared->has_beside.size() && e.prepared->has_beside[i]) {
      v.normalized = e.prepared->beside[i];
      v.has_normalized = true;
    }
    values_.push_back(v);
  }
  for (const Value& a : e.added)
    values_.push_back({a.description, a.value, a.generated, {}, false});
  // back-mdb keeps each entry's own RDN (normalised and as given) under its
  // parent; the suffix entry's "RDN" is the whole suffix DN.
  std::string_view nrdn = parent == 0 ? e.ndn : mdb::MdbLeftmostRdn(e.ndn);
  const std::string pretty =
      SlapdPrettyDn(*schema_, parent == 0 ? e.dn : mdb::MdbLeftmostRdn(e.dn));
  std::string_view rdn = pretty;
  if (parent == 0) {
    suffix_id_ = e.id;
    suffix_.parent = 0;
    suffix_.nrdn.assign(nrdn);
    suffix_.rdn.assign(rdn);
    suffix_.Assign(values_);
  }
  if (e.id == written_ + 1 && pending_.empty()) return WriteView(e.id, parent, nrdn, rdn, values_);
  // A reserved ID below this one is still to come: wait for it.
  DIRLOAD_RETURN_IF_ERROR(writer_->NumberDescriptions(e.id, values_));
  Owned& o = pending_[e.id];
  o.parent = parent;
  o.nrdn.assign(nrdn);
  o.rdn.assign(rdn);
  o.Assign(values_);
  pending_names_[NameKey(parent, nrdn)] = e.id;
  return Drain();
}

Status MdbSink::Remove(EntryId id, std::string_view) {
  if (auto it = pending_.find(id); it != pending_.end()) {
    ErasePending(it);
    return Status::Ok();
  }
  // An entry below a parent that never came always waits behind the
  // parent's reserved ID, so it cannot have been written.
  return Status::Internal("entry " + std::to_string(id) + " was written before its parent");
}

Result<EntrySink::StoredEntry> MdbSink::Read(EntryId id) {
  const Owned* o = nullptr;
  if (id == suffix_id_ && suffix_id_ != 0) {
    o = &suffix_;
  } else if (auto it = pending_.find(id); it != pending_.end()) {
    o = &it->second;
  } else {
    DIRLOAD_RETURN_IF_ERROR(ReadStored(id, &read_owned_));
    o = &read_owned_;
  }
  StoredEntry out;
  for (size_t i = 0; i < o->values.size(); ++i) {
    out.values.push_back({o->descriptions[i], o->values[i], static_cast<bool>(o->generated[i])});
  }
  return out;
}

Status MdbSink::ReadStored(EntryId id, Owned* out) {
  DIRLOAD_ASSIGN_OR_RETURN(std::optional<std::string_view> stored, writer_->StoredEntry(id));
  if (!stored.has_value())
    return Status::NotFound("entry " + std::to_string(id) + " is not stored");
  Result<mdb::MdbEntry> entry = mdb::DecodeMdbEntry(*stored);
  if (!entry.ok()) {
    return Status::Corruption("id2e: entry " + std::to_string(id) + ": " + entry.status().message())
        .WithOrigin(ErrorOrigin::kDatabase);
  }
  std::unordered_map<uint32_t, std::string_view> names;
  for (const auto& [name, number] : writer_->ad2i()) names.emplace(number, name);
  out->descriptions.clear();
  out->values.clear();
  out->normalized.clear();
  out->generated.clear();
  out->has_normalized.clear();
  for (const mdb::MdbAttribute& a : entry->attributes) {
    auto name = names.find(a.adx);
    if (name == names.end()) {
      return Status::Corruption("id2e: entry " + std::to_string(id) + " names ad2i number " +
                                std::to_string(a.adx) + ", which ad2i does not hold")
          .WithOrigin(ErrorOrigin::kDatabase);
    }
    // A sorted record is sorted again as it is written back.
    if (a.multival) {
      return Status::InvalidArgument("entry " + std::to_string(id) + ": its " +
                                     std::string(name->second) +
                                     " values are kept in id2v (multival): -w cannot update it")
          .WithOrigin(ErrorOrigin::kDatabase);
    }
    for (size_t i = 0; i < a.values.size(); ++i) {
      out->descriptions.emplace_back(name->second);
      out->values.push_back(a.values[i]);
      out->normalized.push_back(a.normalized ? (*a.normalized)[i] : std::string());
      // A record stored without normalized copies (slapd's own timestamps
      // and CSNs) is written again without them.
      out->generated.push_back(!a.normalized.has_value());
      out->has_normalized.push_back(a.normalized.has_value());
    }
  }
  return Status::Ok();
}

Status MdbSink::Replace(EntryId id, std::span<const Value> values) {
  std::vector<mdb::MdbValue> out;
  for (const Value& v : values) out.push_back({v.description, v.value, v.generated, {}, false});
  if (auto it = pending_.find(id); it != pending_.end()) {
    it->second.Assign(out);
    return Status::Ok();
  }
  return writer_->ReplaceEntry(id, out);
}

Status MdbSink::Finish(const Start&) {
  for (auto& [id, e] : pending_) DIRLOAD_RETURN_IF_ERROR(Write(id, e));
  pending_.clear();
  pending_names_.clear();
  return Status::Ok();
}

}  // namespace dirload
