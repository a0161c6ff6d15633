// Index keys of slapd 2.5's back-mdb: what each indexed attribute's
// sub-database is keyed by, and how an ID list is stored under a key.
//
// Keys are made from normalized values (the copies stored in id2e, or the
// values themselves for rules without a normalizer):
//   presence    4 zero bytes (also with hash64)
//   equality    hash(T, S, M, value)
//   substrings  hash(T, P, S, M', fragment) with P = '^' for an initial
//               fragment, '*' for an "any" fragment, '$' for a final one
//   integer     ordered key of index_intlen bytes (MdbIntegerKey below)
//   time        ordered key of 5 bytes for generalizedTimeMatch and CSNMatch
//               (MdbTimeKey below)
//   approx      the phonetic code of each word of the value, its 1 to 4
//               bytes as they are (no hash, no prefix; ApproxIndexCodes in
//               lib/schema/approx_match.h), so they sort among the hashes by
//               LMDB's byte order
// where T is the canonical name of the indexed type (cn for cn;lang-de and,
// for a supertype's index, the supertype's name), S its syntax OID, M its
// equality rule OID and M' its substrings rule OID, all as text without
// separators. hash is 32-bit FNV-1 (offset 0x811c9dc5, per byte multiply by
// 16777619 then xor) written as 4 little-endian bytes, or with
// `index_hash64 on` 64-bit FNV-1a (offset 0xcbf29ce484222325, per byte xor
// then multiply by 0x100000001b3) written as 8 little-endian bytes.
//
// Substring fragments of a normalized value of n bytes (lengths in bytes,
// not characters): "any" fragments of any_len bytes at every offset (n >=
// any_len; any_step only thins out search-time lookups, never the stored
// keys); initial and final fragments of every length from if_minlen to
// min(if_maxlen, n).
//
// objectClass keys hash the canonical names of the listed classes and of all
// their superclasses (ExpandObjectClasses), with T = objectClass, S = the OID
// syntax and M = objectIdentifierMatch.
//
// ID lists: each key's duplicates are 8-byte little-endian IDs in ascending
// order. A list that would exceed max_ids_per_key() IDs is stored as exactly
// three duplicates {0, lo, hi}: every ID from lo to hi may match.
//
// Thread safety: pure functions; a Schema is only read.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lib/util/status.h"

namespace dirload {
class Schema;
}

namespace dirload::mdb {

// slapd.conf's index_* settings that change stored keys.
struct MdbKeyOptions {
  bool hash64 = false;            // index_hash64
  uint32_t substr_if_minlen = 2;  // index_substr_if_minlen
  uint32_t substr_if_maxlen = 4;  // index_substr_if_maxlen
  uint32_t substr_any_len = 4;    // index_substr_any_len
  uint32_t substr_any_step = 2;   // index_substr_any_step (search side only)
  uint32_t intlen = 4;            // index_intlen, 4..255
  uint32_t idl_exponent = 16;     // idlexp, 16..30

  size_t hash_bytes() const { return hash64 ? 8 : 4; }
  // The most IDs a key holds as a list; one more turns the key into a
  // range (back-mdb's MDB_idl_db_max).
  size_t max_ids_per_key() const { return (size_t{1} << idl_exponent) - 1; }
};

inline constexpr char kMdbSubstrInitialPrefix = '^';
inline constexpr char kMdbSubstrAnyPrefix = '*';
inline constexpr char kMdbSubstrFinalPrefix = '$';

// A hash already fed with T, an optional prefix byte, S and M: each value's
// key is then one more pass over the value's bytes.
class MdbKeyHasher {
 public:
  MdbKeyHasher() = default;
  // `prefix` 0 means none (equality keys).
  MdbKeyHasher(const MdbKeyOptions& options, std::string_view type_name, char prefix,
               std::string_view syntax_oid, std::string_view rule_oid);

  std::string Key(std::string_view value) const;
  // The key's bytes are the low size() bytes of Hash(value), little-endian.
  uint64_t Hash(std::string_view value) const;
  // Hash(a + b) is Extend(Hash(a), b): the hash reads bytes in order.
  uint64_t Extend(uint64_t hash, std::string_view more) const;
  size_t size() const { return hash64_ ? 8 : 4; }
  void AppendKey(std::string_view value, std::vector<std::string>* keys) const {
    keys->push_back(Key(value));
  }

 private:
  bool hash64_ = false;
  uint64_t state_ = 0;
};

// The presence key.
std::string MdbPresenceKey();

// Equality keys of `values` (one per value, in order; duplicates kept).
void MdbEqualityKeys(const MdbKeyOptions& options, std::string_view type_name,
                     std::string_view syntax_oid, std::string_view equality_oid,
                     std::span<const std::string> values, std::vector<std::string>* keys);

// Substring keys of `values`, appended in slapd's order per value: the any
// fragments, then initial and final fragments by increasing length.
void MdbSubstringKeys(const MdbKeyOptions& options, std::string_view type_name,
                      std::string_view syntax_oid, std::string_view substr_oid,
                      std::span<const std::string> values, std::vector<std::string>* keys);

// The listed classes followed by the superclasses they bring in (each once,
// breadth first as slapd expands them), by canonical name. A value naming
// no known class is kept as written.
std::vector<std::string> ExpandObjectClasses(const Schema& schema,
                                             std::span<const std::string> values);
std::vector<std::string> ExpandObjectClasses(const Schema& schema,
                                             std::span<const std::string_view> values);

// The hasher of objectClass equality keys.
MdbKeyHasher MdbObjectClassHasher(const MdbKeyOptions& options);
// objectClass equality keys of already expanded class names.
void MdbObjectClassKeys(const MdbKeyOptions& options, std::span<const std::string> class_names,
                        std::vector<std::string>* keys);

// The ordered key of a decimal integer (optional '-', digits; no '+', no
// leading zeros, as integerMatch stores it): intlen bytes, big-endian two's
// complement with the sign bit inverted, so keys sort as the numbers do.
// Numbers that do not fit get slapd's exponent form: the top bits encode the
// sign and the number of bytes dropped. InvalidArgument for anything else.
Result<std::string> MdbIntegerKey(const MdbKeyOptions& options, std::string_view value);

// The ordered key of a generalizedTimeMatch or CSNMatch value (an index
// on either is keyed alike, without T, S or M), 5 bytes:
//   byte 0     bits 25..31 of D * 675, where D is the number of days from
//              0000-01-01 of the proleptic Gregorian calendar (year 0 a leap
//              year), with bit 6 inverted (the bit holding the sign)
//   bytes 1-4  the low 32 bits of D * 86400 + the seconds of the day,
//              big-endian
// so whole seconds are kept and the fraction is dropped (an entry CSN's
// counter, replica ID and modifier number as well). Byte 0 does not see a
// carry out of bytes 1-4: slapd computes them apart. The value must start
// with an optional '-' (the year is then negated), at least 14 digits read as
// YYYYmmddHHMMSS (month 1-12, day 1-31, hour 0-23, minute 0-59, second
// 0-61; the day is not checked against the month), an optional '.' with
// digits, then 'Z'; anything after the 'Z' is ignored (a CSN's
// "#counter#sid#mod"). Normalized generalizedTime values and CSNs always
// fit; nullopt for other values, which slapd stores no key for.
inline constexpr size_t kMdbTimeKeySize = 5;
std::optional<std::array<char, kMdbTimeKeySize>> MdbTimeKey(std::string_view value);

// The part of a normalized uniqueMember value that uniqueMemberMatch keys:
// the value without its optional UID, i.e. without the text from the last
// '#' on when what follows that '#' is a bit string ('bits'B, bits only 0
// and 1). Its equality key is the ordinary hash of this part, with the
// attribute's syntax OID and uniqueMemberMatch's OID.
std::string_view MdbUniqueMemberKeyPart(std::string_view normalized);

// The duplicates to store under a key for the ascending, distinct `ids`:
// the IDs themselves, or {0, ids.front(), ids.back()} when there are more
// than `max_ids` (MdbKeyOptions::max_ids_per_key). REQUIRES: ids
// ascending, no 0.
std::vector<uint64_t> MdbIdListDuplicates(std::span<const uint64_t> ids, size_t max_ids);

// An ID as a duplicate's 8 bytes.
std::string MdbIdBytes(uint64_t id);

}  // namespace dirload::mdb
