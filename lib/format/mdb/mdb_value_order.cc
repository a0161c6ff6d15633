#include "lib/format/mdb/mdb_value_order.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <string>

#include "lib/schema/attribute_type.h"
#include "lib/schema/matching_rule.h"
#include "lib/util/ascii.h"

namespace dirload::mdb {
namespace {

constexpr std::string_view kObjectClassOid = "2.5.4.0";

// Equality rules whose match function is octetStringMatch or dnMatch in
// slapd 2.5's schema_init.c: both order by length, then by bytes.
constexpr std::array<std::string_view, 19> kOctetRules = {
    "objectIdentifierMatch",
    "distinguishedNameMatch",
    "caseIgnoreMatch",
    "caseExactMatch",
    "numericStringMatch",
    "caseIgnoreListMatch",
    "bitStringMatch",
    "octetStringMatch",
    "telephoneNumberMatch",
    "generalizedTimeMatch",
    "objectIdentifierFirstComponentMatch",
    "certificateExactMatch",
    "certificateListExactMatch",
    "attributeCertificateExactMatch",
    "caseExactIA5Match",
    "caseIgnoreIA5Match",
    "UUIDMatch",
    "CSNSIDMatch",
    "privateKeyMatch",
};

int OctetCompare(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  if (a.empty()) return 0;
  return std::memcmp(a.data(), b.data(), a.size());
}

bool IsBitString(std::string_view s) {
  // 'bits'B, as slapd's bitStringValidate accepts it.
  if (s.size() < 3 || s.front() != '\'' || s[s.size() - 2] != '\'' ||
      (s.back() != 'B' && s.back() != 'b')) {
    return false;
  }
  for (size_t i = 1; i + 2 < s.size(); ++i) {
    if (s[i] != '0' && s[i] != '1') return false;
  }
  return true;
}

// The DN and the optional UID of a uniqueMember value, split at its last
// '#' when what follows is a bit string.
void SplitUid(std::string_view v, std::string_view* dn, std::string_view* uid) {
  *dn = v;
  *uid = {};
  if (v.empty()) return;
  const size_t hash = v.rfind('#');
  if (hash == std::string_view::npos) return;
  std::string_view u = v.substr(hash + 1);
  if (!IsBitString(u)) return;
  *uid = u;
  *dn = v.substr(0, hash);
}

int UniqueMemberCompare(std::string_view a, std::string_view b) {
  std::string_view adn, auid, bdn, buid;
  SplitUid(a, &adn, &auid);
  SplitUid(b, &bdn, &buid);
  if (!auid.empty() && !buid.empty()) {
    if (int c = OctetCompare(auid, buid); c != 0) return c;
  } else if (!auid.empty()) {
    return -1;
  } else if (!buid.empty()) {
    return 1;
  }
  return OctetCompare(adn, bdn);
}

int IntegerCompare(std::string_view a, std::string_view b) {
  int asign = 1, bsign = 1;
  if (!a.empty() && a.front() == '-') {
    asign = -1;
    a.remove_prefix(1);
  }
  if (!b.empty() && b.front() == '-') {
    bsign = -1;
    b.remove_prefix(1);
  }
  // slapd's integerMatch zeroes the first sign for either empty magnitude.
  if (a.empty() || b.empty()) asign = 0;
  int c = asign - bsign;
  if (c != 0) return c;
  c = OctetCompare(a, b);
  return asign < 0 ? -c : c;
}

}  // namespace

Result<MdbValueOrder> MdbValueOrderFor(const AttributeType& type) {
  if (type.oid == kObjectClassOid || type.equality == nullptr) return MdbValueOrder::kOctet;
  for (const SchemaExtension& x : type.extensions) {
    // slapd compares an X-ORDERED type's id2v values with ber_bvcmp.
    if (EqualsIgnoreCase(x.name, "X-ORDERED")) return MdbValueOrder::kOctet;
  }
  const std::string_view rule = type.equality->name;
  for (std::string_view r : kOctetRules) {
    if (EqualsIgnoreCase(rule, r)) return MdbValueOrder::kOctet;
  }
  if (EqualsIgnoreCase(rule, "uniqueMemberMatch")) return MdbValueOrder::kUniqueMember;
  if (EqualsIgnoreCase(rule, "integerMatch") ||
      EqualsIgnoreCase(rule, "integerFirstComponentMatch")) {
    return MdbValueOrder::kInteger;
  }
  if (EqualsIgnoreCase(rule, "booleanMatch")) return MdbValueOrder::kBoolean;
  return Status::InvalidArgument("attribute type '" + std::string(type.name()) +
                                 "': slapd orders its values with " + std::string(rule) +
                                 ", which dirload does not reproduce")
      .WithOrigin(ErrorOrigin::kConfiguration);
}

int MdbCompareValues(MdbValueOrder order, std::string_view a, std::string_view b) {
  switch (order) {
    case MdbValueOrder::kOctet:
      return OctetCompare(a, b);
    case MdbValueOrder::kUniqueMember:
      return UniqueMemberCompare(a, b);
    case MdbValueOrder::kInteger:
      return IntegerCompare(a, b);
    case MdbValueOrder::kBoolean:
      return a.size() == b.size() ? 0 : (a.size() > b.size() ? -1 : 1);
  }
  return 0;
}

}  // namespace dirload::mdb
