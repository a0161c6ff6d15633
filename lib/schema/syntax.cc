#include "lib/schema/syntax.h"

#include "lib/schema/ascii.h"
#include "lib/schema/attribute_type.h"
#include "lib/schema/dn.h"
#include "lib/schema/generalized_time.h"
#include "lib/schema/lunicode.h"

namespace dirload {
namespace {

std::vector<Syntax> MakeBuiltinSyntaxes() {
  using K = SyntaxKind;
  struct Row {
    const char* oid;
    const char* desc;
    K kind;
    bool binary;  // binary transfer required
    bool human;   // human readable
  };
  // RFC 4517 section 3.3 (numbered 1.3.6.1.4.1.1466.115.121.1.N), RFC 4523,
  // RFC 4530, RFC 2307, and the syntaxes slapd defines for its own attributes.
  static constexpr Row kRows[] = {
      {"1.3.6.1.4.1.1466.115.121.1.1", "ACI Item", K::kAny, false, false},
      {"1.3.6.1.4.1.1466.115.121.1.2", "Access Point", K::kAny, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.3", "Attribute Type Description", K::kAny, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.4", "Audio", K::kAny, false, false},
      {"1.3.6.1.4.1.1466.115.121.1.5", "Binary", K::kAny, false, false},
      {"1.3.6.1.4.1.1466.115.121.1.6", "Bit String", K::kBitString, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.7", "Boolean", K::kBoolean, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.8", "Certificate", K::kAny, true, false},
      {"1.3.6.1.4.1.1466.115.121.1.9", "Certificate List", K::kAny, true, false},
      {"1.3.6.1.4.1.1466.115.121.1.10", "Certificate Pair", K::kAny, true, false},
      {"1.3.6.1.4.1.1466.115.121.1.11", "Country String", K::kCountryString, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.12", "Distinguished Name", K::kDn, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.13", "Data Quality Syntax", K::kAny, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.14", "Delivery Method", K::kAny, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.15", "Directory String", K::kDirectoryString, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.16", "DIT Content Rule Description", K::kAny, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.17", "DIT Structure Rule Description", K::kAny, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.19", "DSA Quality Syntax", K::kAny, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.20", "DSE Type", K::kAny, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.21", "Enhanced Guide", K::kAny, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.22", "Facsimile Telephone Number", K::kAny, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.23", "Fax", K::kAny, false, false},
      {"1.3.6.1.4.1.1466.115.121.1.24", "Generalized Time", K::kGeneralizedTime, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.25", "Guide", K::kAny, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.26", "IA5 String", K::kIA5String, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.27", "Integer", K::kInteger, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.28", "JPEG", K::kAny, false, false},
      {"1.3.6.1.4.1.1466.115.121.1.29", "Master And Shadow Access Points", K::kAny, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.30", "Matching Rule Description", K::kAny, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.31", "Matching Rule Use Description", K::kAny, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.32", "Mail Preference", K::kAny, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.33", "MHS OR Address", K::kAny, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.34", "Name And Optional UID", K::kNameAndOptionalUid, false,
       true},
      {"1.3.6.1.4.1.1466.115.121.1.35", "Name Form Description", K::kAny, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.36", "Numeric String", K::kNumericString, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.37", "Object Class Description", K::kAny, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.38", "OID", K::kOid, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.39", "Other Mailbox", K::kAny, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.40", "Octet String", K::kAny, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.41", "Postal Address", K::kPostalAddress, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.42", "Protocol Information", K::kAny, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.43", "Presentation Address", K::kAny, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.44", "Printable String", K::kPrintableString, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.45", "SubtreeSpecification", K::kAny, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.46", "Supplier Information", K::kAny, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.47", "Supplier Or Consumer", K::kAny, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.48", "Supplier And Consumer", K::kAny, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.49", "Supported Algorithm", K::kAny, true, false},
      {"1.3.6.1.4.1.1466.115.121.1.50", "Telephone Number", K::kTelephoneNumber, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.51", "Teletex Terminal Identifier", K::kAny, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.52", "Telex Number", K::kAny, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.53", "UTC Time", K::kAny, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.54", "LDAP Syntax Description", K::kAny, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.55", "Modify Rights", K::kAny, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.56", "LDAP Schema Definition", K::kAny, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.57", "LDAP Schema Description", K::kAny, false, true},
      {"1.3.6.1.4.1.1466.115.121.1.58", "Substring Assertion", K::kAny, false, true},
      {"1.3.6.1.1.15.1", "X.509 Certificate Exact Assertion", K::kAny, false, false},
      {"1.3.6.1.1.15.2", "X.509 Certificate Assertion", K::kAny, false, false},
      {"1.3.6.1.1.15.3", "X.509 Certificate Pair Exact Assertion", K::kAny, false, false},
      {"1.3.6.1.1.15.4", "X.509 Certificate Pair Assertion", K::kAny, false, false},
      {"1.3.6.1.1.15.5", "X.509 Certificate List Exact Assertion", K::kAny, false, false},
      {"1.3.6.1.1.15.6", "X.509 Certificate List Assertion", K::kAny, false, false},
      {"1.3.6.1.1.15.7", "X.509 Algorithm Identifier", K::kAny, false, false},
      {"1.3.6.1.1.16.1", "UUID", K::kUuid, false, true},
      {"1.3.6.1.1.1.0.0", "RFC2307 NIS Netgroup Triple", K::kAny, false, true},
      {"1.3.6.1.1.1.0.1", "RFC2307 Boot Parameter", K::kAny, false, true},
      {"1.2.36.79672281.1.5.0", "RDN", K::kAny, false, true},
      {"1.2.840.113549.1.8.1.1", "PKCS#8 PrivateKeyInfo", K::kAny, false, false},
      {"1.3.6.1.4.1.4203.666.11.10.2.1", "X.509 AttributeCertificate", K::kAny, true, false},
      {"1.3.6.1.4.1.4203.666.2.7", "OpenLDAP authz", K::kAny, false, true},
      {"1.3.6.1.4.1.4203.666.11.2.1", "CSN", K::kAny, false, true},
      {"1.3.6.1.4.1.4203.666.11.2.4", "CSN SID", K::kAny, false, true},
  };
  std::vector<Syntax> out;
  out.reserve(std::size(kRows));
  for (const Row& r : kRows) out.push_back(Syntax{r.oid, r.desc, r.kind, r.binary, r.human});
  return out;
}

bool IsPrintableChar(char c) {
  if (IsAsciiAlpha(c) || IsAsciiDigit(c)) return true;
  switch (c) {
    case '\'':
    case '(':
    case ')':
    case '+':
    case ',':
    case '-':
    case '.':
    case '=':
    case '/':
    case ':':
    case '?':
    case ' ':
      return true;
    default:
      return false;
  }
}

Status Invalid(std::string_view syntax, std::string_view why) {
  return Status::InvalidArgument("not a valid " + std::string(syntax) + ": " + std::string(why));
}

Status ValidateInteger(std::string_view v) {
  std::string_view digits = v;
  if (!digits.empty() && digits[0] == '-') digits.remove_prefix(1);
  if (digits.empty()) return Invalid("Integer", "no digits");
  for (char c : digits) {
    if (!IsAsciiDigit(c)) return Invalid("Integer", "non-digit character");
  }
  if (digits[0] == '0' && (digits.size() > 1 || digits.size() != v.size())) {
    return Invalid("Integer", "leading zero or negative zero");
  }
  return Status::Ok();
}

Status ValidateBitString(std::string_view v) {
  if (v.size() < 3 || v.front() != '\'' || v.substr(v.size() - 2) != "'B") {
    return Invalid("Bit String", "expected '0101'B");
  }
  for (char c : v.substr(1, v.size() - 3)) {
    if (c != '0' && c != '1') return Invalid("Bit String", "only 0 and 1 may appear");
  }
  return Status::Ok();
}

// postalAddressValidate: every '\' starts \24 or \5C (either case), and
// each '$'-separated line is UTF-8 by slapd's rules. Empty lines pass.
Status ValidatePostalAddress(std::string_view v) {
  size_t line_start = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] == '\\') {
      const std::string_view esc = v.substr(i + 1, 2);
      if (!EqualsIgnoreCase(esc, "24") && !EqualsIgnoreCase(esc, "5C")) {
        return Invalid("Postal Address", "'\\' must start \\24 or \\5C");
      }
      continue;
    }
    if (v[i] == '$') {
      if (!lunicode::IsSlapdUtf8(v.substr(line_start, i - line_start))) {
        return Invalid("Postal Address", "not UTF-8");
      }
      line_start = i + 1;
    }
  }
  if (!lunicode::IsSlapdUtf8(v.substr(line_start))) return Invalid("Postal Address", "not UTF-8");
  return Status::Ok();
}

Status ValidateUuid(std::string_view v) {
  if (v.size() != 36) return Invalid("UUID", "expected 36 characters");
  for (size_t i = 0; i < v.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? v[i] != '-' : !IsHexDigit(v[i])) return Invalid("UUID", "expected 8-4-4-4-12 hex");
  }
  return Status::Ok();
}

}  // namespace

const std::vector<Syntax>& BuiltinSyntaxes() {
  static const std::vector<Syntax> syntaxes = MakeBuiltinSyntaxes();
  return syntaxes;
}

Status ValidateSyntaxValue(const Syntax& syntax, std::string_view v) {
  switch (syntax.kind) {
    case SyntaxKind::kAny:
      return Status::Ok();
    case SyntaxKind::kDirectoryString:
      if (v.empty()) return Invalid("Directory String", "empty");
      if (!lunicode::IsSlapdUtf8(v)) return Invalid("Directory String", "not UTF-8");
      return Status::Ok();
    case SyntaxKind::kIA5String:
      if (!IsAllAscii(v)) return Invalid("IA5 String", "non-ASCII byte");
      return Status::Ok();
    case SyntaxKind::kPrintableString:
    case SyntaxKind::kTelephoneNumber:
      if (v.empty()) return Invalid(syntax.desc, "empty");
      for (char c : v) {
        if (!IsPrintableChar(c)) return Invalid(syntax.desc, "character outside PrintableString");
      }
      return Status::Ok();
    case SyntaxKind::kCountryString:
      if (v.size() != 2 || !IsPrintableChar(v[0]) || !IsPrintableChar(v[1])) {
        return Invalid("Country String", "expected two printable characters");
      }
      return Status::Ok();
    case SyntaxKind::kInteger:
      return ValidateInteger(v);
    case SyntaxKind::kNumericString:
      if (v.empty()) return Invalid("Numeric String", "empty");
      for (char c : v) {
        if (!IsAsciiDigit(c) && c != ' ') return Invalid("Numeric String", "not a digit or space");
      }
      return Status::Ok();
    case SyntaxKind::kOid:
      if (!schema_internal::IsDescr(v) && !schema_internal::IsNumericOid(v)) {
        return Invalid("OID", "neither a descriptor nor a numeric OID");
      }
      return Status::Ok();
    case SyntaxKind::kDn:
      return ParseDn(v).status();
    case SyntaxKind::kBoolean:
      if (v != "TRUE" && v != "FALSE") return Invalid("Boolean", "expected TRUE or FALSE");
      return Status::Ok();
    case SyntaxKind::kGeneralizedTime: {
      std::string scratch;
      return NormalizeGeneralizedTime(v, &scratch);
    }
    case SyntaxKind::kPostalAddress:
      return ValidatePostalAddress(v);
    case SyntaxKind::kBitString:
      return ValidateBitString(v);
    case SyntaxKind::kNameAndOptionalUid: {
      // DN [ "#" BitString ]: the '#' that starts a trailing '...'B.
      const size_t hash = v.rfind("#'");
      if (hash != std::string_view::npos && v.size() >= hash + 4 && v.back() == 'B') {
        DIRLOAD_RETURN_IF_ERROR(ValidateBitString(v.substr(hash + 1)));
        return ParseDn(v.substr(0, hash)).status();
      }
      return ParseDn(v).status();
    }
    case SyntaxKind::kUuid:
      return ValidateUuid(v);
  }
  return Status::Ok();
}

Status NameAttributeInFailure(const AttributeType& type, const Status& failure) {
  return failure.WithPrefix("attribute '" + std::string(type.name()) + "': ");
}

}  // namespace dirload
