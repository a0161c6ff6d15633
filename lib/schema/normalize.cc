#include "lib/schema/normalize.h"

#include "lib/schema/ascii.h"
#include "lib/schema/authz.h"
#include "lib/schema/dn.h"
#include "lib/schema/generalized_time.h"
#include "lib/schema/schema.h"
#include "lib/schema/x509_name.h"

namespace dirload {
namespace {

Status NormalizeInteger(std::string_view v, std::string* out) {
  while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
  while (!v.empty() && v.back() == ' ') v.remove_suffix(1);
  bool negative = false;
  if (!v.empty() && (v.front() == '-' || v.front() == '+')) {
    negative = v.front() == '-';
    v.remove_prefix(1);
  }
  if (v.empty()) return Status::InvalidArgument("integer without digits");
  for (char c : v) {
    if (!IsAsciiDigit(c)) return Status::InvalidArgument("integer with a non-digit character");
  }
  while (v.size() > 1 && v.front() == '0') v.remove_prefix(1);
  out->clear();
  if (negative && v != "0") out->push_back('-');
  out->append(v);
  return Status::Ok();
}

Status NormalizeBoolean(std::string_view v, std::string* out) {
  if (EqualsIgnoreCase(v, "TRUE")) {
    out->assign("TRUE");
  } else if (EqualsIgnoreCase(v, "FALSE")) {
    out->assign("FALSE");
  } else {
    return Status::InvalidArgument("boolean must be TRUE or FALSE");
  }
  return Status::Ok();
}

Status NormalizeOid(const Schema& schema, std::string_view v, std::string* out) {
  while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
  while (!v.empty() && v.back() == ' ') v.remove_suffix(1);
  if (schema_internal::IsNumericOid(v)) {
    out->assign(v);
    return Status::Ok();
  }
  if (!schema_internal::IsDescr(v)) {
    return Status::InvalidArgument("'" + std::string(v) + "' is not an OID or descriptor");
  }
  if (const ObjectClass* oc = schema.FindObjectClass(v)) {
    out->assign(oc->oid);
  } else if (const AttributeType* at = schema.FindAttribute(v)) {
    out->assign(at->oid);
  } else if (const MatchingRule* mr = FindMatchingRule(v)) {
    out->assign(mr->oid);
  } else {
    out->assign(AsciiLowerCopy(v));
  }
  return Status::Ok();
}

Status NormalizeUuid(std::string_view v, std::string* out) {
  if (v.size() != 36) return Status::InvalidArgument("UUID must have 36 characters");
  out->clear();
  for (size_t i = 0; i < v.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? v[i] != '-' : !IsHexDigit(v[i])) {
      return Status::InvalidArgument("UUID must be 8-4-4-4-12 hex digits");
    }
    out->push_back(AsciiLower(v[i]));
  }
  return Status::Ok();
}

Status NormalizeBitString(std::string_view v, std::string* out) {
  if (v.size() < 3 || v.front() != '\'' || v.substr(v.size() - 2) != "'B") {
    return Status::InvalidArgument("bit string must look like '0101'B");
  }
  for (char c : v.substr(1, v.size() - 3)) {
    if (c != '0' && c != '1') return Status::InvalidArgument("bit string with a non-binary digit");
  }
  out->assign(v);
  return Status::Ok();
}

// Postal address (postalAddressNormalize): each '$'-separated line through
// the Directory String rule, escapes (\24, \5C) left as written and so
// folded like any other text; an empty line stays empty.
Status NormalizeList(std::string_view v, std::string* out) {
  out->clear();
  std::string prepared;
  for (;;) {
    const size_t dollar = v.find('$');
    const std::string_view line = v.substr(0, dollar);
    if (!line.empty()) {
      DIRLOAD_RETURN_IF_ERROR(
          schema_internal::PrepareUnicode(line, true, SubstringPosition::kWhole, &prepared));
      out->append(prepared);
    }
    if (dollar == std::string_view::npos) break;
    out->push_back('$');
    v.remove_prefix(dollar + 1);
  }
  return Status::Ok();
}

Status NormalizeUniqueMember(const Schema& schema, std::string_view v, std::string* out) {
  // "DN#'0101'B". A suffix that is not a valid bit string is taken as part
  // of the DN ("cn=x#'012'B" is the DN cn=x#'012'B), as slapadd does.
  const size_t hash = v.rfind("#'");
  std::string bits;
  if (hash != std::string_view::npos && NormalizeBitString(v.substr(hash + 1), &bits).ok()) {
    DIRLOAD_RETURN_IF_ERROR(NormalizeDn(schema, v.substr(0, hash), out));
    out->push_back('#');
    out->append(bits);
    return Status::Ok();
  }
  return NormalizeDn(schema, v, out);
}

Status Normalize(const Schema& schema, Normalizer normalizer, std::string_view v,
                 SubstringPosition pos, std::string* out) {
  switch (normalizer) {
    case Normalizer::kOctetString:
      out->assign(v);
      return Status::Ok();
    case Normalizer::kCaseIgnore:
      return schema_internal::PrepareUnicode(v, true, pos, out);
    case Normalizer::kCaseExact:
      return schema_internal::PrepareUnicode(v, false, pos, out);
    case Normalizer::kCaseIgnoreIA5:
      schema_internal::PrepareIA5(v, true, out);
      return Status::Ok();
    case Normalizer::kCaseExactIA5:
      schema_internal::PrepareIA5(v, false, out);
      return Status::Ok();
    case Normalizer::kCaseIgnoreList:
      return NormalizeList(v, out);
    case Normalizer::kNumericString:
      if (v.empty()) return Status::InvalidArgument("empty numeric string");
      schema_internal::PrepareNumericString(v, out);
      return Status::Ok();
    case Normalizer::kTelephoneNumber:
      if (v.empty()) return Status::InvalidArgument("empty telephone number");
      schema_internal::PrepareTelephoneNumber(v, out);
      return Status::Ok();
    case Normalizer::kInteger:
      return NormalizeInteger(v, out);
    case Normalizer::kBoolean:
      return NormalizeBoolean(v, out);
    case Normalizer::kDistinguishedName:
      return NormalizeDn(schema, v, out);
    case Normalizer::kUniqueMember:
      return NormalizeUniqueMember(schema, v, out);
    case Normalizer::kObjectIdentifier:
      return NormalizeOid(schema, v, out);
    case Normalizer::kGeneralizedTime:
      return NormalizeGeneralizedTime(v, out);
    case Normalizer::kBitString:
      return NormalizeBitString(v, out);
    case Normalizer::kUuid:
      return NormalizeUuid(v, out);
    case Normalizer::kCertificate:
      return NormalizeCertificateExact(schema, v, out);
    case Normalizer::kAuthz:
      return NormalizeAuthz(schema, v, out);
  }
  return Status::Internal("unknown normaliser");
}

int CompareIntegers(std::string_view a, std::string_view b) {
  const bool na = !a.empty() && a[0] == '-', nb = !b.empty() && b[0] == '-';
  if (na != nb) return na ? -1 : 1;
  if (na) {
    a.remove_prefix(1);
    b.remove_prefix(1);
  }
  int c = a.size() != b.size() ? (a.size() < b.size() ? -1 : 1) : a.compare(b);
  if (c != 0) c = c < 0 ? -1 : 1;
  return na ? -c : c;
}

}  // namespace

Status NormalizeValue(const Schema& schema, const MatchingRule& rule, std::string_view value,
                      std::string* out) {
  return Normalize(schema, rule.normalizer, value, SubstringPosition::kWhole, out);
}

Result<std::string> NormalizeValue(const Schema& schema, const MatchingRule& rule,
                                   std::string_view value) {
  std::string out;
  DIRLOAD_RETURN_IF_ERROR(NormalizeValue(schema, rule, value, &out));
  return out;
}

Status NormalizeEquality(const Schema& schema, const AttributeType& type, std::string_view value,
                         std::string* out) {
  if (type.equality == nullptr) {
    return Status::InvalidArgument("attribute type '" + std::string(type.name()) +
                                   "' has no equality matching rule");
  }
  return Normalize(schema, type.equality->normalizer, value, SubstringPosition::kWhole, out);
}

Result<std::string> NormalizeEquality(const Schema& schema, const AttributeType& type,
                                      std::string_view value) {
  std::string out;
  DIRLOAD_RETURN_IF_ERROR(NormalizeEquality(schema, type, value, &out));
  return out;
}

Status NormalizeSubstring(const Schema& schema, const AttributeType& type, std::string_view value,
                          SubstringPosition pos, std::string* out) {
  if (type.substr == nullptr) {
    return Status::InvalidArgument("attribute type '" + std::string(type.name()) +
                                   "' has no substrings matching rule");
  }
  return Normalize(schema, type.substr->normalizer, value, pos, out);
}

Result<std::string> NormalizeSubstring(const Schema& schema, const AttributeType& type,
                                       std::string_view value, SubstringPosition pos) {
  std::string out;
  DIRLOAD_RETURN_IF_ERROR(NormalizeSubstring(schema, type, value, pos, &out));
  return out;
}

int CompareNormalized(const MatchingRule& rule, std::string_view a, std::string_view b) {
  switch (rule.normalizer) {
    case Normalizer::kInteger:
      return CompareIntegers(a, b);
    case Normalizer::kGeneralizedTime:
      return CompareNormalizedGeneralizedTime(a, b);
    default: {
      const int c = a.compare(b);
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
  }
}

}  // namespace dirload
