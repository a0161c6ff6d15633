#include "lib/format/mdb/mdb_key_maker.h"

#include <algorithm>
#include <array>
#include <optional>

#include "lib/schema/approx_match.h"
#include "lib/schema/matching_rule.h"
#include "lib/schema/schema.h"
#include "lib/schema/syntax.h"

namespace dirload::mdb {
namespace {

constexpr std::string_view kObjectClassOid = "2.5.4.0";
constexpr std::string_view kCsnMatchOid = "1.3.6.1.4.1.4203.666.11.2.2";

Status ConfigError(const IndexSpec& spec, std::string what) {
  return Status::Unsupported("index " + std::string(spec.name()) + ": " + what +
                             " keys of back-mdb are not supported")
      .WithOrigin(ErrorOrigin::kConfiguration);
}

}  // namespace

MdbKeyMaker::MdbKeyMaker(const Schema& schema, const IndexSpec& spec, const MdbKeyOptions& options)
    : schema_(&schema), spec_(&spec), options_(options) {}

Result<MdbKeyMaker> MdbKeyMaker::Create(const Schema& schema, const IndexSpec& spec,
                                        const MdbKeyOptions& options) {
  const AttributeType& t = *spec.type;
  MdbKeyMaker x(schema, spec, options);
  x.presence_ = spec.Has(kIndexPresence);
  if (spec.Has(kIndexApprox)) {
    if (!HasApproxRule(t.equality)) return ConfigError(spec, "approx (no approximate rule)");
    x.approx_ = true;
  }
  if (spec.Has(kIndexSubstr)) {
    if ((spec.mask & kIndexSubstr) != kIndexSubstr) return ConfigError(spec, "partial substring");
    if (t.substr == nullptr) return ConfigError(spec, "substring (no SUBSTR rule)");
    x.substrings_ = true;
    x.initial_hash_ =
        MdbKeyHasher(options, t.name(), kMdbSubstrInitialPrefix, t.syntax->oid, t.substr->oid);
    x.any_hash_ =
        MdbKeyHasher(options, t.name(), kMdbSubstrAnyPrefix, t.syntax->oid, t.substr->oid);
    x.final_hash_ =
        MdbKeyHasher(options, t.name(), kMdbSubstrFinalPrefix, t.syntax->oid, t.substr->oid);
  }
  if (spec.Has(kIndexEquality)) {
    if (t.equality == nullptr) return ConfigError(spec, "equality (no EQUALITY rule)");
    if (t.oid == kObjectClassOid) {
      x.equality_ = Equality::kObjectClass;
      x.equality_hash_ = MdbObjectClassHasher(options);
    } else if (t.equality->normalizer == Normalizer::kInteger) {
      x.equality_ = Equality::kInteger;
    } else if (t.equality->normalizer == Normalizer::kGeneralizedTime ||
               t.equality->oid == kCsnMatchOid) {
      // generalizedTimeIndexer, which CSNMatch uses too: no hash prefix.
      x.equality_ = Equality::kTime;
    } else if (t.equality->normalizer == Normalizer::kUniqueMember) {
      x.equality_ = Equality::kUniqueMember;
      x.equality_hash_ = MdbKeyHasher(options, t.name(), 0, t.syntax->oid, t.equality->oid);
    } else {
      x.equality_ = Equality::kHashed;
      x.equality_hash_ = MdbKeyHasher(options, t.name(), 0, t.syntax->oid, t.equality->oid);
    }
  }
  return x;
}

void MdbKeyMaker::AddObjectClassKeys(std::span<const std::string_view> values, MdbKeyList* out) {
  bool same = values.size() == last_classes_.size();
  for (size_t i = 0; same && i < values.size(); ++i) same = values[i] == last_classes_[i];
  if (!same) {
    last_classes_.assign(values.begin(), values.end());
    last_class_keys_.clear();
    const size_t n = equality_hash_.size();
    for (const std::string& name : ExpandObjectClasses(*schema_, values)) {
      last_class_keys_.AddHash(equality_hash_.Hash(name), n);
    }
  }
  for (size_t i = 0; i < last_class_keys_.size(); ++i) out->Add(last_class_keys_[i]);
}

void MdbKeyMaker::AddKeys(std::span<const std::string_view> values, MdbKeyList* out) {
  if (presence_) out->Add(std::string_view("\0\0\0\0", 4));
  switch (equality_) {
    case Equality::kNone:
      break;
    case Equality::kHashed: {
      const size_t n = equality_hash_.size();
      for (std::string_view v : values) out->AddHash(equality_hash_.Hash(v), n);
      break;
    }
    case Equality::kObjectClass:
      AddObjectClassKeys(values, out);
      break;
    case Equality::kInteger:
      for (std::string_view v : values) {
        // slapd stores no key for a value integerIndexer cannot read.
        Result<std::string> key = MdbIntegerKey(options_, v);
        if (key.ok()) out->Add(*key);
      }
      break;
    case Equality::kTime:
      for (std::string_view v : values) {
        // As for integers: no key for a value the time parser refuses.
        std::optional<std::array<char, kMdbTimeKeySize>> key = MdbTimeKey(v);
        if (key) out->Add(std::string_view(key->data(), key->size()));
      }
      break;
    case Equality::kUniqueMember: {
      const size_t n = equality_hash_.size();
      for (std::string_view v : values) {
        out->AddHash(equality_hash_.Hash(MdbUniqueMemberKeyPart(v)), n);
      }
      break;
    }
  }
  if (approx_) {
    for (std::string_view v : values) {
      // approxIndexer leaves out what it cannot read, as the other indexers.
      if (!ApproxIndexCodes(v, &approx_codes_).ok()) continue;
      for (const std::string& code : approx_codes_) out->Add(code);
    }
  }
  if (!substrings_) return;
  const size_t n = any_hash_.size();
  const size_t any_len = options_.substr_any_len;
  const size_t minlen = options_.substr_if_minlen;
  for (std::string_view s : values) {
    if (any_len > 0 && s.size() >= any_len) {
      for (size_t j = 0; j + any_len <= s.size(); ++j) {
        out->AddHash(any_hash_.Hash(s.substr(j, any_len)), n);
      }
    }
    if (s.size() < minlen) continue;
    const size_t max = std::min<size_t>(options_.substr_if_maxlen, s.size());
    // Each initial fragment is the one before and one more byte.
    uint64_t initial = initial_hash_.Hash(s.substr(0, minlen));
    for (size_t j = minlen; j <= max; ++j) {
      if (j > minlen) initial = initial_hash_.Extend(initial, s.substr(j - 1, 1));
      out->AddHash(initial, n);
      out->AddHash(final_hash_.Hash(s.substr(s.size() - j)), n);
    }
  }
}

}  // namespace dirload::mdb
