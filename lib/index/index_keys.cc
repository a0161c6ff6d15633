#include "lib/index/index_keys.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "lib/idl/idl_format.h"
#include "lib/schema/approx_match.h"
#include "lib/schema/normalize.h"
#include "lib/util/ascii.h"

namespace dirload {
namespace {

// Byte offsets where the characters of `s` start, plus s.size() at the end.
// Code points when `unicode` (a character starts at every byte that is not
// a UTF-8 continuation byte), else bytes.
void CharStarts(std::string_view s, bool unicode, std::vector<uint32_t>* starts) {
  starts->clear();
  if (!unicode) {
    starts->reserve(s.size() + 1);
    for (uint32_t i = 0; i <= s.size(); ++i) starts->push_back(i);
    return;
  }
  for (uint32_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) starts->push_back(i);
  }
  starts->push_back(static_cast<uint32_t>(s.size()));
}

uint64_t Finalize(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

void PutBe64(uint64_t v, uint8_t* out) {
  for (int i = 7; i >= 0; --i) {
    out[i] = static_cast<uint8_t>(v);
    v >>= 8;
  }
}

// Substring keys of one fragment of an assertion (already normalised).
struct FragmentKeys {
  std::string_view s;
  std::vector<uint32_t> starts;
  size_t n = 0;  // characters
  FragmentKeys(std::string_view text, bool unicode) : s(text) {
    CharStarts(s, unicode, &starts);
    n = starts.size() - 1;
  }
  std::string_view Chars(size_t from, size_t count) const {
    return s.substr(starts[from], starts[from + count] - starts[from]);
  }
};

void AddAnyKeys(const FragmentKeys& f, size_t first, KeyList* keys) {
  if (f.n < kSubstrAnyLen) return;
  for (size_t j = first; j + kSubstrAnyLen <= f.n; j += kSubstrAnyStep) {
    keys->Add(kSubAnyKeyTag, f.Chars(j, kSubstrAnyLen));
  }
}

}  // namespace

void KeyDigest(std::string_view bytes, uint8_t out[kKeyDigestBytes]) {
  // Two FNV-1a lanes (forward and backward, different bases), each passed
  // through a 64-bit finaliser. Format 1: this must never change.
  uint64_t a = 0xCBF29CE484222325ull;
  uint64_t b = 0x84222325CBF29CE4ull ^ bytes.size();
  for (size_t i = 0; i < bytes.size(); ++i) {
    a = (a ^ static_cast<unsigned char>(bytes[i])) * 0x100000001B3ull;
    b = (b ^ static_cast<unsigned char>(bytes[bytes.size() - 1 - i])) * 0x100000001B3ull;
  }
  PutBe64(Finalize(a ^ bytes.size()), out);
  PutBe64(Finalize(b + 0x9E3779B97F4A7C15ull), out + 8);
}

KeyList& KeyList::operator=(const KeyList& other) {
  if (this == &other) return *this;
  size_ = 0;
  if (other.size_ > capacity_) Grow(other.size_);
  if (other.size_ > 0) std::memcpy(bytes_.get(), other.bytes_.get(), other.size_);
  size_ = other.size_;
  ends_ = other.ends_;
  return *this;
}

KeyList& KeyList::operator=(KeyList&& other) noexcept {
  if (this == &other) return *this;
  bytes_ = std::move(other.bytes_);
  size_ = std::exchange(other.size_, 0);
  capacity_ = std::exchange(other.capacity_, 0);
  ends_ = std::move(other.ends_);
  other.ends_.clear();
  return *this;
}

void KeyList::Grow(size_t need) {
  const size_t capacity = std::max({need, 2 * capacity_, size_t{256}});
  std::unique_ptr<char[]> bytes(new char[capacity]);
  if (size_ > 0) std::memcpy(bytes.get(), bytes_.get(), size_);
  bytes_ = std::move(bytes);
  capacity_ = capacity;
}

void KeyList::AddHashed(char tag, std::string_view body) {
  std::string plain;
  plain.reserve(1 + body.size());
  plain.push_back(tag);
  plain.append(body);
  uint8_t digest[kKeyDigestBytes];
  KeyDigest(plain, digest);
  char* p = Extend(2 + kKeyDigestBytes);
  p[0] = kHashedKeyTag;
  p[1] = tag;
  std::memcpy(p + 2, digest, kKeyDigestBytes);
}

std::vector<std::string> KeyList::ToVector() const {
  std::vector<std::string> out;
  out.reserve(size());
  for (size_t i = 0; i < size(); ++i) out.emplace_back((*this)[i]);
  return out;
}

std::string PresenceKey() { return std::string(1, kPresenceKeyTag); }

std::string EqualityKeyFromNormalized(std::string_view normalized) {
  KeyList k;
  k.Add(kEqualityKeyTag, normalized);
  return std::string(k[0]);
}

Result<std::string> EqualityKey(const Schema& schema, const AttributeType& index_type,
                                std::string_view value) {
  std::string normalized;
  DIRLOAD_RETURN_IF_ERROR(NormalizeEquality(schema, index_type, value, &normalized));
  return EqualityKeyFromNormalized(normalized);
}

Result<std::vector<std::string>> ApproxAssertionKeys(const Schema& schema,
                                                     const AttributeType& index_type,
                                                     std::string_view value) {
  std::string normalized;
  DIRLOAD_RETURN_IF_ERROR(NormalizeEquality(schema, index_type, value, &normalized));
  std::vector<std::string> codes;
  DIRLOAD_RETURN_IF_ERROR(ApproxLookupCodes(normalized, &codes));
  KeyList keys;
  for (const std::string& code : codes) keys.Add(kApproxKeyTag, code);
  return keys.ToVector();
}

bool UnicodeSubstrings(const AttributeType& type) {
  if (type.substr == nullptr) return false;
  switch (type.substr->normalizer) {
    case Normalizer::kCaseIgnore:
    case Normalizer::kCaseExact:
    case Normalizer::kCaseIgnoreList:
      return true;
    default:
      return false;
  }
}

void AddSubstringValueKeys(std::string_view s, bool unicode, IndexMask mask, KeyList* keys) {
  if ((mask & kIndexSubstr) == 0) return;
  if (!unicode || IsAllAscii(s)) {
    // One byte per character: no offset table needed.
    size_t n = s.size();
    if ((mask & kIndexSubAny) && n >= kSubstrAnyLen) {
      for (size_t j = 0; j + kSubstrAnyLen <= n; ++j) {
        keys->Add(kSubAnyKeyTag, s.substr(j, kSubstrAnyLen));
      }
    }
    if (n >= kSubstrIfMinLen) {
      size_t max = std::min(n, kSubstrIfMaxLen);
      for (size_t k = kSubstrIfMinLen; k <= max; ++k) {
        if (mask & kIndexSubInitial) keys->Add(kSubInitialKeyTag, s.substr(0, k));
        if (mask & kIndexSubFinal) keys->Add(kSubFinalKeyTag, s.substr(n - k));
      }
    }
    return;
  }
  FragmentKeys f(s, true);
  size_t n = f.n;
  if ((mask & kIndexSubAny) && n >= kSubstrAnyLen) {
    for (size_t j = 0; j + kSubstrAnyLen <= n; ++j) {
      keys->Add(kSubAnyKeyTag, f.Chars(j, kSubstrAnyLen));
    }
  }
  if (n >= kSubstrIfMinLen) {
    size_t max = std::min(n, kSubstrIfMaxLen);
    for (size_t k = kSubstrIfMinLen; k <= max; ++k) {
      if (mask & kIndexSubInitial) keys->Add(kSubInitialKeyTag, f.Chars(0, k));
      if (mask & kIndexSubFinal) keys->Add(kSubFinalKeyTag, f.Chars(n - k, k));
    }
  }
}

Result<std::vector<std::string>> SubstringAssertionKeys(const Schema& schema,
                                                        const AttributeType& index_type,
                                                        const SubstringAssertion& assertion,
                                                        IndexMask mask) {
  if (index_type.substr == nullptr) {
    return Status::InvalidArgument("attribute type '" + std::string(index_type.name()) +
                                   "' has no substrings matching rule");
  }
  bool unicode = UnicodeSubstrings(index_type);
  KeyList keys;
  std::string norm;
  if (assertion.has_initial && (mask & (kIndexSubInitial | kIndexSubAny))) {
    DIRLOAD_RETURN_IF_ERROR(NormalizeSubstring(schema, index_type, assertion.initial,
                                               SubstringPosition::kInitial, &norm));
    FragmentKeys f(norm, unicode);
    bool initial_key = (mask & kIndexSubInitial) && f.n >= kSubstrIfMinLen;
    if (initial_key) keys.Add(kSubInitialKeyTag, f.Chars(0, std::min(f.n, kSubstrIfMaxLen)));
    if (mask & kIndexSubAny) {
      // With an initial key covering the first 4 characters, any keys cover
      // the rest (from position 3, as OpenLDAP does); without one, all of it.
      if (!initial_key) {
        AddAnyKeys(f, 0, &keys);
      } else if (f.n > kSubstrIfMaxLen) {
        AddAnyKeys(f, kSubstrIfMaxLen - 1, &keys);
      }
    }
  }
  if (mask & kIndexSubAny) {
    for (const std::string& any : assertion.any) {
      DIRLOAD_RETURN_IF_ERROR(
          NormalizeSubstring(schema, index_type, any, SubstringPosition::kAny, &norm));
      AddAnyKeys(FragmentKeys(norm, unicode), 0, &keys);
    }
  }
  if (assertion.has_final && (mask & (kIndexSubFinal | kIndexSubAny))) {
    DIRLOAD_RETURN_IF_ERROR(
        NormalizeSubstring(schema, index_type, assertion.final, SubstringPosition::kFinal, &norm));
    FragmentKeys f(norm, unicode);
    bool final_key = (mask & kIndexSubFinal) && f.n >= kSubstrIfMinLen;
    if (final_key) {
      size_t k = std::min(f.n, kSubstrIfMaxLen);
      keys.Add(kSubFinalKeyTag, f.Chars(f.n - k, k));
    }
    if ((mask & kIndexSubAny) && (!final_key || f.n > kSubstrIfMaxLen)) AddAnyKeys(f, 0, &keys);
  }
  std::vector<std::string> out = keys.ToVector();
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Status AddValueKeys(const Schema& schema, const IndexSpec& spec, std::string_view value,
                    KeyList* keys, std::string* scratch, DnNormalizer* dns) {
  const AttributeType& type = *spec.type;
  const bool eq = spec.Has(kIndexEquality) && type.equality != nullptr;
  const bool approx = spec.Has(kIndexApprox) && HasApproxRule(type.equality);
  const bool sub = (spec.mask & kIndexSubstr) && type.substr != nullptr;
  if (!eq && !approx && !sub) return Status::Ok();
  const bool normalized = eq || approx;
  if (normalized && dns != nullptr && type.equality->normalizer == Normalizer::kDistinguishedName) {
    DIRLOAD_RETURN_IF_ERROR(dns->Normalize(value, scratch));
  } else if (normalized) {
    DIRLOAD_RETURN_IF_ERROR(NormalizeEquality(schema, type, value, scratch));
  }
  std::string sub_norm;
  const bool sub_apart =
      sub && (!normalized || type.substr->normalizer != type.equality->normalizer);
  if (sub_apart) {
    // The substring rule folds differently: normalise again with it.
    DIRLOAD_RETURN_IF_ERROR(
        NormalizeSubstring(schema, type, value, SubstringPosition::kWhole, &sub_norm));
  }
  std::vector<std::string> codes;
  if (approx) DIRLOAD_RETURN_IF_ERROR(ApproxIndexCodes(*scratch, &codes));
  if (eq) keys->Add(kEqualityKeyTag, *scratch);
  for (const std::string& code : codes) keys->Add(kApproxKeyTag, code);
  if (sub)
    AddSubstringValueKeys(sub_apart ? sub_norm : *scratch, UnicodeSubstrings(type), spec.mask,
                          keys);
  return Status::Ok();
}

std::string DescribeKey(std::string_view key) {
  auto kind = [](char tag) -> std::string {
    switch (tag) {
      case kPresenceKeyTag:
        return "pres";
      case kEqualityKeyTag:
        return "eq";
      case kApproxKeyTag:
        return "approx";
      case kSubInitialKeyTag:
        return "sub^";
      case kSubAnyKeyTag:
        return "sub*";
      case kSubFinalKeyTag:
        return "sub$";
      default:
        return "?";
    }
  };
  if (key.empty()) return "(empty)";
  if (key[0] == kPresenceKeyTag) return "pres";
  if (key[0] == kHashedKeyTag && key.size() >= 2) {
    std::string out(1, '#');
    out.append(kind(key[1]));
    out.push_back(':');
    out += HexEncode(key.substr(2));
    return out;
  }
  std::string out = kind(key[0]);
  out.push_back(':');
  out.append(key.substr(1));
  return out;
}

}  // namespace dirload
