// Matching rules (RFC 4517 section 4 and the ones slapd adds): the fixed set of
// rules an attribute type may name in EQUALITY, ORDERING and SUBSTR, each tied
// to the normaliser that turns a value into its comparison key
// (normalize.h). slapd.conf cannot define new matching rules, so the table is
// static and shared by every Schema.
//
// Thread safety: immutable data; safe to use from any thread.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace dirload {

enum class MatchingRuleUsage : uint8_t {
  kEquality,
  kOrdering,
  kSubstrings,
  kExtensible,  // only usable in extensible-match filters (e.g. integerBitAndMatch)
};

// The algorithm producing a rule's comparison key. Rules that compare the same
// way share one (caseIgnoreMatch and caseIgnoreSubstringsMatch both fold with
// kCaseIgnore), so an equality key and a substring key of one attribute are
// made of the same folded characters.
enum class Normalizer : uint8_t {
  kOctetString,        // identity: the value's bytes
  kCaseIgnore,         // RFC 4518 prep, NFKC, case fold, insignificant spaces
  kCaseExact,          // RFC 4518 prep, NFKC, insignificant spaces
  kCaseIgnoreIA5,      // ASCII case fold, insignificant spaces
  kCaseExactIA5,       // insignificant spaces
  kCaseIgnoreList,     // postal address: each '$'-separated line as kCaseIgnore
  kNumericString,      // all spaces removed
  kTelephoneNumber,    // case fold, all spaces and hyphens removed
  kInteger,            // canonical decimal: no '+', no leading zeros, "-0" is "0"
  kBoolean,            // "TRUE" or "FALSE"
  kDistinguishedName,  // NormalizeDn (dn.h)
  kUniqueMember,       // normalised DN, then "#'bits'B" kept as written
  kObjectIdentifier,   // descriptors resolved to their numeric OID by the schema
  kGeneralizedTime,    // UTC, "YYYYMMDDHHMMSS[.fraction]Z"
  kBitString,          // '0101'B, validated
  kUuid,               // lower-case 8-4-4-4-12 hex
  kCertificate,        // "{ serialNumber '..'H, issuer rdnSequence:\"DN\" }" (x509_name.h)
  kAuthz,              // authzTo/authzFrom rules: "dn:" + normalised DN, ... (authz.h)
};

struct MatchingRule {
  std::string_view oid;
  std::string_view name;
  MatchingRuleUsage usage;
  Normalizer normalizer;
  std::string_view syntax_oid;  // the assertion syntax
};

// Every matching rule dirload knows, in a fixed order.
std::span<const MatchingRule> BuiltinMatchingRules();

// Finds a rule by name (case-insensitive) or numeric OID; nullptr if unknown.
const MatchingRule* FindMatchingRule(std::string_view name_or_oid);

}  // namespace dirload
