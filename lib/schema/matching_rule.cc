#include "lib/schema/matching_rule.h"

#include <array>

#include "lib/util/ascii.h"

namespace dirload {
namespace {

using U = MatchingRuleUsage;
using N = Normalizer;

constexpr std::string_view kDirectoryString = "1.3.6.1.4.1.1466.115.121.1.15";
constexpr std::string_view kIA5String = "1.3.6.1.4.1.1466.115.121.1.26";
constexpr std::string_view kSubstringAssertion = "1.3.6.1.4.1.1466.115.121.1.58";
constexpr std::string_view kInteger = "1.3.6.1.4.1.1466.115.121.1.27";
constexpr std::string_view kOid = "1.3.6.1.4.1.1466.115.121.1.38";
constexpr std::string_view kOctetString = "1.3.6.1.4.1.1466.115.121.1.40";
constexpr std::string_view kGeneralizedTime = "1.3.6.1.4.1.1466.115.121.1.24";
constexpr std::string_view kNumericString = "1.3.6.1.4.1.1466.115.121.1.36";
constexpr std::string_view kUuid = "1.3.6.1.1.16.1";
constexpr std::string_view kCsn = "1.3.6.1.4.1.4203.666.11.2.1";

// Rules whose values dirload cannot take apart (certificate lists and pairs,
// presentation addresses, CSNs, authz rules) compare as octet strings: equal bytes are
// equal values, which is exact for the canonical encodings those syntaxes use.
constexpr std::array kRules = {
    MatchingRule{"2.5.13.0", "objectIdentifierMatch", U::kEquality, N::kObjectIdentifier, kOid},
    MatchingRule{"2.5.13.1", "distinguishedNameMatch", U::kEquality, N::kDistinguishedName,
                 "1.3.6.1.4.1.1466.115.121.1.12"},
    MatchingRule{"2.5.13.2", "caseIgnoreMatch", U::kEquality, N::kCaseIgnore, kDirectoryString},
    MatchingRule{"2.5.13.3", "caseIgnoreOrderingMatch", U::kOrdering, N::kCaseIgnore,
                 kDirectoryString},
    MatchingRule{"2.5.13.4", "caseIgnoreSubstringsMatch", U::kSubstrings, N::kCaseIgnore,
                 kSubstringAssertion},
    MatchingRule{"2.5.13.5", "caseExactMatch", U::kEquality, N::kCaseExact, kDirectoryString},
    MatchingRule{"2.5.13.6", "caseExactOrderingMatch", U::kOrdering, N::kCaseExact,
                 kDirectoryString},
    MatchingRule{"2.5.13.7", "caseExactSubstringsMatch", U::kSubstrings, N::kCaseExact,
                 kSubstringAssertion},
    MatchingRule{"2.5.13.8", "numericStringMatch", U::kEquality, N::kNumericString, kNumericString},
    MatchingRule{"2.5.13.9", "numericStringOrderingMatch", U::kOrdering, N::kNumericString,
                 kNumericString},
    MatchingRule{"2.5.13.10", "numericStringSubstringsMatch", U::kSubstrings, N::kNumericString,
                 kSubstringAssertion},
    MatchingRule{"2.5.13.11", "caseIgnoreListMatch", U::kEquality, N::kCaseIgnoreList,
                 "1.3.6.1.4.1.1466.115.121.1.41"},
    MatchingRule{"2.5.13.12", "caseIgnoreListSubstringsMatch", U::kSubstrings, N::kCaseIgnoreList,
                 kSubstringAssertion},
    MatchingRule{"2.5.13.13", "booleanMatch", U::kEquality, N::kBoolean,
                 "1.3.6.1.4.1.1466.115.121.1.7"},
    MatchingRule{"2.5.13.14", "integerMatch", U::kEquality, N::kInteger, kInteger},
    MatchingRule{"2.5.13.15", "integerOrderingMatch", U::kOrdering, N::kInteger, kInteger},
    MatchingRule{"2.5.13.16", "bitStringMatch", U::kEquality, N::kBitString,
                 "1.3.6.1.4.1.1466.115.121.1.6"},
    MatchingRule{"2.5.13.17", "octetStringMatch", U::kEquality, N::kOctetString, kOctetString},
    MatchingRule{"2.5.13.18", "octetStringOrderingMatch", U::kOrdering, N::kOctetString,
                 kOctetString},
    MatchingRule{"2.5.13.19", "octetStringSubstringsMatch", U::kSubstrings, N::kOctetString,
                 kOctetString},
    MatchingRule{"2.5.13.20", "telephoneNumberMatch", U::kEquality, N::kTelephoneNumber,
                 "1.3.6.1.4.1.1466.115.121.1.50"},
    MatchingRule{"2.5.13.21", "telephoneNumberSubstringsMatch", U::kSubstrings, N::kTelephoneNumber,
                 kSubstringAssertion},
    MatchingRule{"2.5.13.22", "presentationAddressMatch", U::kEquality, N::kOctetString,
                 "1.3.6.1.4.1.1466.115.121.1.43"},
    MatchingRule{"2.5.13.23", "uniqueMemberMatch", U::kEquality, N::kUniqueMember,
                 "1.3.6.1.4.1.1466.115.121.1.34"},
    MatchingRule{"2.5.13.24", "protocolInformationMatch", U::kEquality, N::kOctetString,
                 "1.3.6.1.4.1.1466.115.121.1.42"},
    MatchingRule{"2.5.13.27", "generalizedTimeMatch", U::kEquality, N::kGeneralizedTime,
                 kGeneralizedTime},
    MatchingRule{"2.5.13.28", "generalizedTimeOrderingMatch", U::kOrdering, N::kGeneralizedTime,
                 kGeneralizedTime},
    MatchingRule{"2.5.13.29", "integerFirstComponentMatch", U::kEquality, N::kOctetString,
                 kInteger},
    MatchingRule{"2.5.13.30", "objectIdentifierFirstComponentMatch", U::kEquality, N::kOctetString,
                 kOid},
    MatchingRule{"2.5.13.34", "certificateExactMatch", U::kEquality, N::kCertificate,
                 "1.3.6.1.1.15.1"},
    MatchingRule{"2.5.13.35", "certificateMatch", U::kEquality, N::kOctetString, "1.3.6.1.1.15.2"},
    MatchingRule{"2.5.13.38", "certificateListExactMatch", U::kEquality, N::kOctetString,
                 "1.3.6.1.1.15.5"},
    MatchingRule{"2.5.13.45", "attributeCertificateExactMatch", U::kEquality, N::kOctetString,
                 "1.3.6.1.4.1.4203.666.11.10.2.1"},
    MatchingRule{"1.3.6.1.4.1.1466.109.114.1", "caseExactIA5Match", U::kEquality, N::kCaseExactIA5,
                 kIA5String},
    MatchingRule{"1.3.6.1.4.1.1466.109.114.2", "caseIgnoreIA5Match", U::kEquality,
                 N::kCaseIgnoreIA5, kIA5String},
    MatchingRule{"1.3.6.1.4.1.1466.109.114.3", "caseIgnoreIA5SubstringsMatch", U::kSubstrings,
                 N::kCaseIgnoreIA5, kIA5String},
    MatchingRule{"1.3.6.1.4.1.4203.1.2.1", "caseExactIA5SubstringsMatch", U::kSubstrings,
                 N::kCaseExactIA5, kIA5String},
    MatchingRule{"1.2.840.113556.1.4.803", "integerBitAndMatch", U::kExtensible, N::kInteger,
                 kInteger},
    MatchingRule{"1.2.840.113556.1.4.804", "integerBitOrMatch", U::kExtensible, N::kInteger,
                 kInteger},
    MatchingRule{"1.3.6.1.1.16.2", "UUIDMatch", U::kEquality, N::kUuid, kUuid},
    MatchingRule{"1.3.6.1.1.16.3", "UUIDOrderingMatch", U::kOrdering, N::kUuid, kUuid},
    MatchingRule{"1.3.6.1.4.1.4203.666.11.2.2", "CSNMatch", U::kEquality, N::kOctetString, kCsn},
    MatchingRule{"1.3.6.1.4.1.4203.666.11.2.3", "CSNOrderingMatch", U::kOrdering, N::kOctetString,
                 kCsn},
    MatchingRule{"1.3.6.1.4.1.4203.666.11.2.5", "CSNSIDMatch", U::kEquality, N::kOctetString,
                 "1.3.6.1.4.1.4203.666.11.2.4"},
    MatchingRule{"1.3.6.1.4.1.4203.666.4.12", "authzMatch", U::kEquality, N::kAuthz,
                 "1.3.6.1.4.1.4203.666.2.7"},
    MatchingRule{"1.3.6.1.4.1.4203.666.4.13", "privateKeyMatch", U::kEquality, N::kOctetString,
                 "1.2.840.113549.1.8.1.1"},
    MatchingRule{"1.2.36.79672281.1.13.3", "rdnMatch", U::kEquality, N::kOctetString,
                 "1.2.36.79672281.1.5.0"},
};

}  // namespace

std::span<const MatchingRule> BuiltinMatchingRules() { return kRules; }

const MatchingRule* FindMatchingRule(std::string_view name_or_oid) {
  // A linear scan: ~50 entries, used while loading schema text, never per value.
  for (const MatchingRule& rule : kRules) {
    if (rule.oid == name_or_oid || EqualsIgnoreCase(rule.name, name_or_oid)) {
      return &rule;
    }
  }
  return nullptr;
}

}  // namespace dirload
