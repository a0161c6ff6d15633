// Distinguished names (RFC 4514): parsing into RDNs and AVAs, normalisation
// with the schema's equality rules, and the helpers the dn2id table is keyed
// by.
//
// Parsing accepts what slapd accepts: escapes (\, \+ \" \\ \< \> \; \= \#,
// "\ " and \XX hex pairs), #hex BER values, quoted values, multi-valued RDNs
// joined by '+', ';' as an RDN separator, spaces around '=', ',', ';' and
// '+', and attribute options on types ("cn;lang-en=x"). Errors give the byte
// offset (0-based) of the offending character.
//
// Normalised form (NormalizeDn), byte for byte what `slapdn -N` prints for the
// cases that matter (tests check this):
//   - RDNs separated by ',', AVAs within an RDN by '+', no spaces;
//   - each type is its attribute type's canonical name, spelled as in the
//     schema ("CN" and "2.5.4.3" become "cn", "OBJECTCLASS" "objectClass");
//     options are dropped;
//   - each value is normalised by the type's equality rule (normalize.h),
//     then escaped as \XX (upper-case hex) where it holds one of , + " \ < > ;
//     = or NUL, starts with '#' or ' ', or ends with ' '; every other byte,
//     control characters and UTF-8 included, is written as is;
//   - the AVAs of a multi-valued RDN are sorted by type name (bytewise), so
//     "ou=X+dc=Example" and "DC=example+OU=x" both give "dc=example+ou=x".
// Hence, in a normalised DN, every unescaped ',' separates RDNs and no byte is
// 0x00. Difference from slapd: objectIdentifierMatch values are resolved to
// numeric OIDs.
//
// Rejected by NormalizeDn, as by slapd: undefined attribute types, types
// without an equality rule, #hex (BER) values, empty values, values failing
// their syntax (c=USA, dc=Ä, uidNumber=007), the same type twice in one RDN.
//
// Thread safety: pure functions; Dn is a plain value.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lib/util/status.h"

namespace dirload {

class Schema;

// One attribute value assertion of an RDN, as written.
struct Ava {
  std::string type;   // attribute type as written, options removed ("CN", "2.5.4.3")
  std::string value;  // the value with escapes resolved; for #hex, the BER bytes
  bool ber = false;   // the value was written as #hex
};
using Rdn = std::vector<Ava>;

struct Dn {
  std::vector<Rdn> rdns;  // rdns[0] is the leftmost RDN, the entry's own

  bool empty() const { return rdns.empty(); }
  size_t size() const { return rdns.size(); }
  // REQUIRES: !empty(). The DN without its leftmost RDN.
  Dn Parent() const;
  // An RFC 4514 string of the DN as parsed (types as written, values escaped
  // where RFC 4514 requires).
  std::string ToString() const;
};

Result<Dn> ParseDn(std::string_view text);
// The same into `out` (replacing what it held), reusing its memory: for a
// caller that parses one DN after another.
Status ParseDn(std::string_view text, Dn* out);
// The leftmost RDN of `text` alone into *out (nothing for the empty DN):
// for a plain DN (IsPlainDn) only that RDN is parsed. An error when `text`
// does not parse.
Status ParseLeftmostRdn(std::string_view text, Dn* out);

// Normalises `text` (see the format above) into *out, replacing its contents.
Status NormalizeDn(const Schema& schema, std::string_view text, std::string* out);
Result<std::string> NormalizeDn(const Schema& schema, std::string_view text);
Status NormalizeDn(const Schema& schema, const Dn& dn, std::string* out);

// Whether `rdn` is one "type=value" that the parser takes as written: a
// descriptor, '=', then printable ASCII with nothing to escape, unescape,
// trim or split ('#' only matters first). Sets *type and *value when it is.
bool IsPlainAva(std::string_view rdn, std::string_view* type, std::string_view* value);
// Whether every RDN of `dn` is a plain AVA (IsPlainAva), joined by ','
// alone: then ParseDn(dn)->ToString() is `dn` itself, and its RDNs end at
// its commas.
bool IsPlainDn(std::string_view dn);

// Appends `normalized_value` (a value normalised by its equality rule)
// escaped as in a normalised DN (the format above).
void AppendEscapedDnValue(std::string_view normalized_value, std::string* out);

// The following take normalised DNs.

// The parent's normalised DN: everything after the first ','; "" for a
// single-RDN DN or the empty DN.
std::string_view ParentDn(std::string_view normalized_dn);

// True if `normalized_dn` equals `normalized_suffix` or lies below it (subtree
// scope). Every DN is under the empty DN.
bool IsUnder(std::string_view normalized_dn, std::string_view normalized_suffix);

// The dn2id key of a normalised DN. Format (version 1):
//   key = RDN_n 0x00 RDN_n-1 0x00 ... 0x00 RDN_1
// where RDN_1 is the leftmost RDN of the DN and RDN_n the rightmost, each
// copied byte for byte from the normalised DN (its escapes kept), and 0x00 is
// the separator. The empty DN's key is empty. A normalised RDN never contains
// 0x00 (NUL is escaped), and 0x00 sorts below every other byte,
// so in bytewise order:
//   - an entry's key comes right before the keys of all its descendants;
//   - the keys of X's descendants are exactly the keys that start with
//     DnDescendantPrefix(key of X), one contiguous range;
//   - the keys of X's children are the keys in that range with no 0x00 after
//     the prefix (a subtree scan filtered, not a separate range).
// Example: "cn=a,ou=x,dc=com" -> "dc=com\0ou=x\0cn=a".
std::string DnSortKey(std::string_view normalized_dn);
// The same into `key` (replacing what it held), reusing its memory.
void DnSortKey(std::string_view normalized_dn, std::string* key);

// The prefix shared by the keys of all descendants of the entry whose key is
// `sort_key`: sort_key + '\0', or "" for the empty DN (whose descendants are
// all non-empty keys).
std::string DnDescendantPrefix(std::string_view sort_key);

// The key of the parent, from a key: everything before the last 0x00, or ""
// for a key without one.
std::string_view DnSortKeyParent(std::string_view sort_key);

// dn2id records (format version 1, the same on LMDB and Berkeley DB). With K
// the sort key of a DN (DnSortKey) and ID its entry ID, 8 bytes big-endian:
//   |K| <= kDn2IdMaxPlainKey:  key = K                        value = ID
//   longer (a "long" key):     key = K[0, kDn2IdKeyPrefix) H  value = ID K
// where H = Dn2IdHash(K), 8 bytes big-endian, so a long key is
// kDn2IdKeyPrefix + 8 = 488 bytes. Store keys hold at most 511 bytes
// (lib/store/store.h kMaxKeySize) and slapd has no DN length limit below
// that, hence the second form. The value's length tells the two apart (8:
// the key is K; more: K follows the ID); databases written before long keys
// existed hold only the first form and read the same.
// A lookup of K fetches Dn2IdKey(K) and compares the K the record holds with
// its own: a different one means two DNs share a long key (a 64-bit hash
// collision between DNs that agree on their first 480 bytes), which callers
// report as an error; the two are never taken for one entry.
// Range scans: the descendants of the DN with key K are the records whose K'
// starts with D = DnDescendantPrefix(K). Their stored keys all start with
// Dn2IdScanPrefix(D), D cut to kDn2IdKeyPrefix bytes. Where D is longer than
// that, the range also holds records outside the subtree (K' and D agree only
// on the cut prefix), so each record's K' is checked. Long keys sort by their
// hash among the other long keys of their prefix, not after their ancestors:
// seeking to K + 0x01 skips K's descendants only when Dn2IdDescendantsFollow(K).
inline constexpr size_t kDn2IdMaxPlainKey = 511;
inline constexpr size_t kDn2IdKeyPrefix = 480;

// FNV-1a (64-bit: offset basis 0xcbf29ce484222325, prime 0x100000001b3) of
// `sort_key`, then mixed: h ^= h >> 33; h *= 0xff51afd7ed558ccd; h ^= h >> 33;
// h *= 0xc4ceb9fe1a85ec53; h ^= h >> 33. Stored: never change it.
uint64_t Dn2IdHash(std::string_view sort_key);

// True when `sort_key` is stored in the long form.
inline bool IsLongDn2IdKey(std::string_view sort_key) {
  return sort_key.size() > kDn2IdMaxPlainKey;
}

// The store key of `sort_key`: `sort_key` itself when it fits (no copy),
// else the long key, built in *buffer. The view is valid while both are.
std::string_view Dn2IdKey(std::string_view sort_key, std::string* buffer);

// Appends the dn2id value of entry `id` with key `sort_key` to *out.
void AppendDn2IdValue(uint64_t id, std::string_view sort_key, std::string* out);

struct Dn2IdRecord {
  uint64_t id = 0;
  std::string_view sort_key;  // the full K: the stored key or a part of the value
};

// Decodes a stored (key, value). False when they are not a valid record: a
// value under 8 bytes, or a long value whose K is short or does not give
// `key`. *out views `key` and `value`.
bool DecodeDn2IdRecord(std::string_view key, std::string_view value, Dn2IdRecord* out);

// The prefix shared by the stored keys of all records whose sort key starts
// with `descendant_prefix` (from DnDescendantPrefix): that prefix cut to
// kDn2IdKeyPrefix bytes.
std::string_view Dn2IdScanPrefix(std::string_view descendant_prefix);

// True when every stored key starting with Dn2IdScanPrefix(p) belongs to a
// record whose sort key starts with p, so that no record of the range needs
// its sort key checked.
inline bool Dn2IdScanIsExact(std::string_view descendant_prefix) {
  return descendant_prefix.size() <= kDn2IdKeyPrefix;
}

// True when the stored keys of all descendants of the entry with key
// `sort_key` sort right after `sort_key` and before sort_key + 0x01: its key
// is plain and its descendant prefix fits in kDn2IdKeyPrefix bytes.
inline bool Dn2IdDescendantsFollow(std::string_view sort_key) {
  return sort_key.size() < kDn2IdKeyPrefix;
}

}  // namespace dirload
