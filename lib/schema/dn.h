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
//     = or a byte below 0x20 or 0x7F, starts with '#' or ' ', or ends with
//     ' '; every other byte, UTF-8 included, is written as is;
//   - the AVAs of a multi-valued RDN are sorted by type name (bytewise), so
//     "ou=X+dc=Example" and "DC=example+OU=x" both give "dc=example+ou=x".
// Hence, in a normalised DN, every unescaped ',' separates RDNs and no byte is
// below 0x20. Differences from slapd: values are prepared per RFC 4518 (slapd
// keeps a TAB and does not map NEL to a space), and
// objectIdentifierMatch values are resolved to numeric OIDs.
//
// Rejected by NormalizeDn, as by slapd: undefined attribute types, types
// without an equality rule, #hex (BER) values, empty values, values failing
// their syntax (c=USA, dc=Ä, uidNumber=007), the same type twice in one RDN.
//
// Thread safety: pure functions; Dn is a plain value.
#pragma once

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

// Normalises `text` (see the format above) into *out, replacing its contents.
Status NormalizeDn(const Schema& schema, std::string_view text, std::string* out);
Result<std::string> NormalizeDn(const Schema& schema, std::string_view text);
Status NormalizeDn(const Schema& schema, const Dn& dn, std::string* out);

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
// 0x00 (bytes below 0x20 are escaped), and 0x00 sorts below every other byte,
// so in bytewise order:
//   - an entry's key comes right before the keys of all its descendants;
//   - the keys of X's descendants are exactly the keys that start with
//     DnDescendantPrefix(key of X), one contiguous range;
//   - the keys of X's children are the keys in that range with no 0x00 after
//     the prefix (a subtree scan filtered, not a separate range).
// Example: "cn=a,ou=x,dc=com" -> "dc=com\0ou=x\0cn=a".
std::string DnSortKey(std::string_view normalized_dn);

// The prefix shared by the keys of all descendants of the entry whose key is
// `sort_key`: sort_key + '\0', or "" for the empty DN (whose descendants are
// all non-empty keys).
std::string DnDescendantPrefix(std::string_view sort_key);

// The key of the parent, from a key: everything before the last 0x00, or ""
// for a key without one.
std::string_view DnSortKeyParent(std::string_view sort_key);

}  // namespace dirload
