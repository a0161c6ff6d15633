// Index keys: the byte strings an index table maps to ID lists, made from
// attribute values when building and from filter assertions when searching,
// by the same code, so that every key an assertion asks for is a key of every
// value that matches it.
//
// Layout (format 1; the stored form adds chunking, lib/idl/idl_format.h):
//   presence     '+'                           one key per entry having the
//                                              attribute (or a subtype)
//   equality     '=' normalised value          NormalizeEquality with the
//                                              index type's EQUALITY rule
//   approx       '~' phonetic code             one per word of the value
//                                              normalised with the EQUALITY
//                                              rule, for the words with a
//                                              code (slapd's approxIndexer,
//                                              lib/schema/approx_match.h)
//   sub initial  '^' first k characters        k = 2..min(4, L)
//   sub any      '*' 4 characters              at every position 0..L-4
//   sub final    '$' last k characters         k = 2..min(4, L)
//   hashed       '#' kind byte, 16-byte digest  any key whose plain form
//                                              exceeds kMaxIndexKeySize (250)
//                                              bytes; the digest is
//                                              KeyDigest(plain key). A
//                                              collision only adds candidates,
//                                              which the search's exact check
//                                              removes.
// L is the length in characters of the value normalised with the index
// type's SUBSTR rule as a whole value (NormalizeSubstring, kWhole).
// "Character" means a UTF-8 code point for the Unicode string rules
// (caseIgnore, caseExact, caseIgnoreList normalisers, whose output is valid
// UTF-8), and a byte for every other rule (IA5, numeric, telephone, octet),
// which compare bytewise.
//
// The lengths are OpenLDAP 2.5's defaults (index_substr_if_minlen 2,
// index_substr_if_maxlen 4, index_substr_any_len 4, index_substr_any_step 2)
// and the fragments are the ones its octetStringSubstringsIndexer and
// octetStringSubstringsFilter make, counted in characters instead of bytes.
// For an assertion (each fragment normalised with NormalizeSubstring at its
// position):
//   initial of n >= 2 chars   '^' its first min(4, n) chars; if n > 4 and
//                             subany is indexed, '*' keys of 4 chars at
//                             positions 3, 5, 7, ... <= n-4
//   any of n >= 4 chars       '*' keys at positions 0, 2, 4, ... <= n-4
//   final of n >= 2 chars     '$' its last min(4, n) chars; if n > 4 and
//                             subany is indexed, '*' keys at positions
//                             0, 2, 4, ... <= n-4
// When subinitial (subfinal) is not indexed but subany is, an initial (final)
// fragment of n >= 4 chars gives '*' keys at 0, 2, 4, ... <= n-4 instead
// (OpenLDAP gives none there).
// Shorter fragments give no keys (the search must fall back to another index
// or a scan). Every key is one that a value containing the fragment at that
// place also has, provided "matches" means: each normalised fragment occurs
// in the normalised value, initial at the start, final at the end.
//
// Values that the rule cannot normalise (malformed UTF-8, an integer that is
// not one) give no equality or substring keys; the caller counts them.
//
// Thread safety: pure functions; the Schema is only read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/idl/idl_format.h"
#include "lib/index/index_spec.h"
#include "lib/schema/dn_normalizer.h"
#include "lib/schema/schema.h"
#include "lib/util/status.h"

namespace dirload {

inline constexpr char kPresenceKeyTag = '+';
inline constexpr char kEqualityKeyTag = '=';
inline constexpr char kApproxKeyTag = '~';
inline constexpr char kSubInitialKeyTag = '^';
inline constexpr char kSubAnyKeyTag = '*';
inline constexpr char kSubFinalKeyTag = '$';
inline constexpr char kHashedKeyTag = '#';
inline constexpr size_t kKeyDigestBytes = 16;

inline constexpr size_t kSubstrIfMinLen = 2;
inline constexpr size_t kSubstrIfMaxLen = 4;
inline constexpr size_t kSubstrAnyLen = 4;
inline constexpr size_t kSubstrAnyStep = 2;

// Keys stored back to back in one buffer: generating the keys of a value
// allocates nothing once the buffers have grown. Keys may repeat (the same
// fragment twice in a value); the builders drop repeats per entry.
class KeyList {
 public:
  KeyList() = default;
  KeyList(const KeyList& other) { *this = other; }
  KeyList& operator=(const KeyList& other);
  // A moved-from list is empty and usable.
  KeyList(KeyList&& other) noexcept { *this = std::move(other); }
  KeyList& operator=(KeyList&& other) noexcept;

  void Clear() {
    size_ = 0;
    ends_.clear();
  }
  size_t size() const { return ends_.size(); }
  bool empty() const { return ends_.empty(); }
  // The bytes the keys take (their text and their ends).
  size_t bytes() const { return size_ + ends_.size() * sizeof(uint32_t); }
  std::string_view operator[](size_t i) const {
    size_t begin = i == 0 ? 0 : ends_[i - 1];
    return std::string_view(bytes_.get() + begin, ends_[i] - begin);
  }
  // Adds tag + body, hashing when longer than kMaxIndexKeySize. Inline, and
  // written straight into the buffer: a native rebuild adds some 90 keys an
  // entry, mostly 5-byte substring keys, and std::string's two appends a
  // key were 6 % of its instructions.
  void Add(char tag, std::string_view body) {
    if (1 + body.size() > kMaxIndexKeySize) return AddHashed(tag, body);
    char* p = Extend(1 + body.size());
    *p = tag;
    if (!body.empty()) std::memcpy(p + 1, body.data(), body.size());
  }
  // Adds a key another KeyList made (tag and hashing done), as it is.
  void AddMade(std::string_view key) {
    char* p = Extend(key.size());
    if (!key.empty()) std::memcpy(p, key.data(), key.size());
  }
  std::vector<std::string> ToVector() const;

 private:
  // Room for one more key of n bytes, its end recorded: where to write it.
  char* Extend(size_t n) {
    if (size_ + n > capacity_) Grow(size_ + n);
    char* p = bytes_.get() + size_;
    size_ += n;
    ends_.push_back(static_cast<uint32_t>(size_));
    return p;
  }
  void Grow(size_t need);
  void AddHashed(char tag, std::string_view body);

  std::unique_ptr<char[]> bytes_;
  size_t size_ = 0, capacity_ = 0;
  std::vector<uint32_t> ends_;
};

// The presence key, "+".
std::string PresenceKey();

// The equality key of a value or assertion under the index type's EQUALITY
// rule. InvalidArgument when the type has no EQUALITY rule
// or the value cannot be normalised.
Result<std::string> EqualityKey(const Schema& schema, const AttributeType& index_type,
                                std::string_view value);
// The same from an already normalised value: tag + normalised, or its hashed
// form.
std::string EqualityKeyFromNormalized(std::string_view normalized);

// The approx keys to look up for an assertion on an index of `index_type`
// (which has an approximate rule, approx_match.h): one per word of the
// assertion that has a phonetic code, in order, repeats removed. Empty when
// no word has one: the index cannot narrow the search. InvalidArgument when
// the assertion cannot be normalised.
Result<std::vector<std::string>> ApproxAssertionKeys(const Schema& schema,
                                                     const AttributeType& index_type,
                                                     std::string_view value);

// A substring assertion as it appears in a filter (unescaped, not
// normalised): any of the parts may be absent.
struct SubstringAssertion {
  bool has_initial = false;
  std::string initial;
  std::vector<std::string> any;
  bool has_final = false;
  std::string final;
};

// Keys to look up for `assertion` on an index with `mask` (only the substring
// kinds in it matter). Empty when no fragment is long enough: the index
// cannot narrow the search. InvalidArgument when the type has no SUBSTR rule
// or a fragment cannot be normalised.
Result<std::vector<std::string>> SubstringAssertionKeys(const Schema& schema,
                                                        const AttributeType& index_type,
                                                        const SubstringAssertion& assertion,
                                                        IndexMask mask);

// Appends the substring keys of one whole value, already normalised with the
// type's SUBSTR rule (kWhole), for the substring kinds in `mask`.
// `unicode` selects code-point characters (UnicodeSubstrings(type)).
void AddSubstringValueKeys(std::string_view normalized, bool unicode, IndexMask mask,
                           KeyList* keys);
// True when the type's SUBSTR rule counts characters as code points.
bool UnicodeSubstrings(const AttributeType& type);

// Everything `spec` indexes for one value of an entry, except presence
// (which is per entry, not per value): equality keys if eq, approx keys if
// approx, substring keys if sub*. Appends to *keys. InvalidArgument when the value cannot be
// normalised (nothing appended). `scratch` is reused across calls. With
// `dns`, DN values are normalised through it (the same bytes, with its
// cache of parents' names).
Status AddValueKeys(const Schema& schema, const IndexSpec& spec, std::string_view value,
                    KeyList* keys, std::string* scratch, DnNormalizer* dns = nullptr);

// A stable 128-bit digest of `bytes` (format 1; never changes within a
// format version), for hashed keys.
void KeyDigest(std::string_view bytes, uint8_t out[kKeyDigestBytes]);

// Human-readable form of a key for --explain and stat: "eq:smith",
// "sub*:mith", "approx:SM0", "pres", "#eq:3f2a...".
std::string DescribeKey(std::string_view key);

}  // namespace dirload
