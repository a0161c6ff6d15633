// Value normalisation: the comparison key a matching rule assigns to a value.
// Two values match under an equality rule exactly when their keys are equal
// bytes, which is what makes equality index keys and dn2id keys possible.
// Ordering rules compare keys with CompareNormalized.
//
// Keys per normaliser (matching_rule.h):
//   kCaseIgnore        slapd's Directory String preparation (string_prep.h,
//                      lunicode.h): liblunicode's per-code-point case
//                      folding, compatibility decomposition and canonical
//                      composition, then insignificant U+0020 spaces:
//                      "  ÅNGSTRÖM  Lab" and "ångström lab" agree, "ｆｏｏ"
//                      is "foo", "İ" is "i"; TAB and zero-width characters
//                      are kept. An all-space value becomes " ".
//   kCaseExact         the same without case folding.
//   kCaseIgnoreIA5     ASCII lower-casing + insignificant spaces.
//   kCaseExactIA5      insignificant spaces.
//   kCaseIgnoreList    each '$'-separated line as kCaseIgnore, joined by '$'
//                      (escapes folded as written: "\5C" becomes "\5c").
//   kNumericString     every space removed ("1 234" is "1234"); " " if none.
//   kTelephoneNumber   every space and '-' removed, case kept; " " if none.
//   kInteger           "-0012" is "-12", "+5" is "5", "-0" is "0".
//   kBoolean           "TRUE" / "FALSE" (input case-insensitive).
//   kDistinguishedName NormalizeDn (dn.h).
//   kUniqueMember      normalised DN, then the optional "#'0101'B" as written.
//   kObjectIdentifier  object class, attribute type and matching rule names
//                      become their numeric OID ("inetOrgPerson",
//                      "INETORGPERSON" and "2.16.840.1.113730.3.2.2" agree);
//                      unknown descriptors are lower-cased.
//   kGeneralizedTime   generalized_time.h.
//   kUuid              lower-case hex.
//   kCertificate       certificateExactMatch: the DER certificate's serial
//                      number and issuer, as slapd writes them
//                      ("{ serialNumber '1'H, issuer rdnSequence:"cn=ca" }",
//                      x509_name.h).
//   kAuthz             authzTo / authzFrom rules as slapd normalises them
//                      ("dn.exact:uid=A,o=B" is "dn:uid=a,o=b"; authz.h).
//   kOctetString, kBitString  the value itself (bit strings are validated).
//
// Errors (InvalidArgument) mean the rule cannot produce a key: malformed
// UTF-8 for the Unicode string rules, an invalid DN, an unparsable time,
// integer or UUID, an empty telephone or numeric string, a certificate that
// does not parse or whose issuer is not a valid DN. Whether slapadd would
// reject the entry for it is SlapaddRejectsUnnormalizable's business.
//
// Thread safety: pure functions of their arguments; the Schema is only read.
#pragma once

#include <string>
#include <string_view>

#include "lib/schema/matching_rule.h"
#include "lib/schema/string_prep.h"
#include "lib/util/status.h"

namespace dirload {

class Schema;
struct AttributeType;

// Writes the key of `value` under `rule` to *out (replacing its contents).
// String rules treat `value` as a whole value (SubstringPosition::kWhole).
Status NormalizeValue(const Schema& schema, const MatchingRule& rule, std::string_view value,
                      std::string* out);
Result<std::string> NormalizeValue(const Schema& schema, const MatchingRule& rule,
                                   std::string_view value);

// With the type's effective EQUALITY rule; InvalidArgument if it has none.
Status NormalizeEquality(const Schema& schema, const AttributeType& type, std::string_view value,
                         std::string* out);
Result<std::string> NormalizeEquality(const Schema& schema, const AttributeType& type,
                                      std::string_view value);

// With the type's effective SUBSTR rule, for a substring-assertion fragment
// at `pos`, or for a whole value (kWhole) whose substrings are to be indexed.
// Same folding as the equality key of a string type; only the treatment of
// spaces at the fragment's edges differs (string_prep.h). InvalidArgument if
// the type has no SUBSTR rule.
Status NormalizeSubstring(const Schema& schema, const AttributeType& type, std::string_view value,
                          SubstringPosition pos, std::string* out);
Result<std::string> NormalizeSubstring(const Schema& schema, const AttributeType& type,
                                       std::string_view value, SubstringPosition pos);

// Whether slapadd 2.5 rejects an entry whose value has no key under a rule
// with this normaliser. It does for the Unicode string rules (malformed
// UTF-8), postal addresses, DNs and unique members, generalized times, UUIDs,
// certificates (a non-minimal serial number, an issuer naming an undefined
// attribute type or holding an invalid value; a value that is no certificate
// at all slapadd keys from whatever memory follows it, dirload refuses), and
// empty telephone or numeric strings. It does not for integers, booleans, bit strings and OIDs:
// slapadd stores "uidNumber: abc" or "hasSubordinates: maybe" as written, where dirload has no key
// for them. A loader mirroring slapadd rejects an entry only when this is true, and otherwise
// stores the value without index keys.
inline bool SlapaddRejectsUnnormalizable(Normalizer normalizer) {
  switch (normalizer) {
    case Normalizer::kInteger:
    case Normalizer::kBoolean:
    case Normalizer::kBitString:
    case Normalizer::kObjectIdentifier:
      return false;
    default:
      return true;
  }
}

// Orders two keys produced by `rule`'s normaliser: <0, 0, >0. Integers compare
// numerically, generalized times chronologically, everything else bytewise.
int CompareNormalized(const MatchingRule& rule, std::string_view a, std::string_view b);

}  // namespace dirload
