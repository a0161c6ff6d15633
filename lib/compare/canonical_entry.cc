#include "lib/compare/canonical_entry.h"

#include <algorithm>

#include "lib/schema/dn.h"
#include "lib/util/ascii.h"

namespace dirload {
namespace {

// 'DN', for messages.
std::string Quoted(std::string_view dn) {
  std::string out;
  out.reserve(dn.size() + 2);
  out += '\'';
  out += dn;
  out += '\'';
  return out;
}

}  // namespace

const CanonicalAttribute* CanonicalEntry::Find(std::string_view description) const {
  auto it = std::lower_bound(
      attributes.begin(), attributes.end(), description,
      [](const CanonicalAttribute& a, std::string_view d) { return a.description < d; });
  if (it == attributes.end() || it->description != description) return nullptr;
  return &*it;
}

std::string_view CanonicalEntry::First(std::string_view description) const {
  const CanonicalAttribute* a = Find(description);
  return a == nullptr || a->values.empty() ? std::string_view() : std::string_view(a->values[0]);
}

EntryCanonicalizer::EntryCanonicalizer(const Schema& schema, const CanonicalOptions& options)
    : schema_(schema), options_(options) {
  for (const std::string& name : options.ignore) {
    const AttributeType* t = schema.FindAttribute(name);
    if (t == nullptr) {
      status_ = Status::InvalidArgument("--ignore " + name + ": no such attribute type");
      return;
    }
    ignored_.push_back(t);
  }
}

const EntryCanonicalizer::Description& EntryCanonicalizer::Resolve(std::string_view text) {
  auto it = descriptions_.find(std::string(text));
  if (it != descriptions_.end()) return it->second;
  Description d;
  Result<AttributeDescription> ad = schema_.ParseAttributeDescription(text);
  if (ad.ok()) {
    d.canonical = ad->ToString();
    d.skip = (options_.user_attributes_only && ad->type->operational()) ||
             std::find(ignored_.begin(), ignored_.end(), ad->type) != ignored_.end();
  } else {
    // Stored without a schema check (slapadd -s): kept, in one spelling.
    d.canonical = AsciiLowerCopy(text);
  }
  return descriptions_.emplace(std::string(text), std::move(d)).first->second;
}

Status EntryCanonicalizer::Finish(std::string_view dn, CanonicalEntry* out) {
  out->dn.assign(dn);
  Status s = NormalizeDn(schema_, dn, &out->ndn);
  if (!s.ok()) return Status::InvalidArgument(Quoted(dn) + ": " + s.message());
  // Grouped by canonical description; values keep their stored order.
  std::stable_sort(pairs_.begin(), pairs_.end(), [](const auto& a, const auto& b) {
    return a.first->canonical < b.first->canonical;
  });
  out->attributes.clear();
  for (size_t i = 0; i < pairs_.size();) {
    const Description* d = pairs_[i].first;
    CanonicalAttribute a;
    a.description = d->canonical;
    for (; i < pairs_.size() && pairs_[i].first->canonical == d->canonical; ++i) {
      a.values.emplace_back(pairs_[i].second);
    }
    a.sorted = a.values;
    std::sort(a.sorted.begin(), a.sorted.end());
    out->attributes.push_back(std::move(a));
  }
  pairs_.clear();
  return Status::Ok();
}

Status EntryCanonicalizer::FromView(const EntryView& entry, const AttributeDictionary& dictionary,
                                    CanonicalEntry* out) {
  pairs_.clear();
  for (const ValueRef& v : entry.values) {
    if (v.description >= dictionary.size()) {
      return Status::Corruption(Quoted(entry.dn) + ": attribute description id " +
                                std::to_string(v.description) + " is not in the dictionary");
    }
    const Description& d = Resolve(dictionary.Name(v.description));
    if (!d.skip) pairs_.emplace_back(&d, v.value);
  }
  return Finish(entry.dn, out);
}

Status EntryCanonicalizer::FromRecord(const ldif::Record& record, CanonicalEntry* out) {
  if (record.kind() != ldif::RecordKind::kContent) {
    return Status::InvalidArgument("line " + std::to_string(record.line()) + ": '" +
                                   std::string(record.dn()) +
                                   "': a change record, where entries were expected");
  }
  pairs_.clear();
  for (size_t i = 0; i < record.size(); ++i) {
    ldif::AttributeView a = record.attribute(i);
    const Description& d = Resolve(a.description);
    if (!d.skip) pairs_.emplace_back(&d, a.value);
  }
  return Finish(record.dn(), out);
}

Sha1::Digest EntryHash(const CanonicalEntry& entry) {
  Sha1 h;
  h.UpdateString("dirload-entry-1");
  h.UpdateString(entry.ndn);
  for (const CanonicalAttribute& a : entry.attributes) {
    h.UpdateString(a.description);
    h.UpdateU64(a.sorted.size());
    for (const std::string& v : a.sorted) h.UpdateString(v);
  }
  return h.Final();
}

uint64_t NameKey(std::string_view ndn) {
  Sha1::Digest d = Sha1::Of(ndn);
  uint64_t k = 0;
  for (int i = 0; i < 8; ++i) k = (k << 8) | d[i];
  return k;
}

void HashSum::Add(const Sha1::Digest& digest) {
  unsigned carry = 0;
  for (int i = static_cast<int>(sum_.size()) - 1; i >= 0; --i) {
    unsigned t = unsigned{sum_[i]} + unsigned{digest[i]} + carry;
    sum_[i] = static_cast<uint8_t>(t & 0xff);
    carry = t >> 8;
  }
}

std::string HexDigest(const Sha1::Digest& digest) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (uint8_t b : digest) {
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out;
}

}  // namespace dirload
