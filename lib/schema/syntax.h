// LDAP syntaxes: the value grammars of RFC 4517 (plus the handful slapd adds),
// their properties, and validators for the ones dirload checks.
//
// A Syntax is identified by its numeric OID. Each Schema owns its syntaxes: it
// starts with BuiltinSyntaxes() and may add more from `ldapsyntax` statements
// (OpenLDAP's X-SUBST names a built-in syntax whose checks the new one reuses).
//
// Validation here is the strict RFC grammar. slapadd 2.5 does not validate
// values against their syntax when loading; it only rejects values that the
// attribute's equality normaliser cannot handle (see normalize.h). Callers that
// want slapadd's verdicts should rely on normalisation, and use ValidateValue
// only for an explicitly strict mode.
//
// Thread safety: the built-in table is immutable after first use (initialised
// thread-safely); all functions here may be called concurrently.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lib/schema/attribute_type.h"
#include "lib/util/status.h"

namespace dirload {

// How values of a syntax are checked. Syntaxes whose grammar dirload does not
// check (certificates, JPEG, guides, ...) are kAny and accept every value.
enum class SyntaxKind : uint8_t {
  kAny,
  kDirectoryString,     // non-empty UTF-8
  kIA5String,           // bytes 0x00-0x7F
  kPrintableString,     // RFC 4517 PrintableCharacter, non-empty
  kCountryString,       // two PrintableCharacters
  kInteger,             // RFC 4517 3.3.16: no leading zeros, no "-0"
  kNumericString,       // digits and spaces, non-empty
  kTelephoneNumber,     // PrintableString
  kOid,                 // descr or numericoid
  kDn,                  // RFC 4514 string
  kBoolean,             // "TRUE" or "FALSE"
  kGeneralizedTime,     // RFC 4517 3.3.13
  kPostalAddress,       // lines separated by '$', escapes \24 and \5C only
  kBitString,           // '0101'B
  kNameAndOptionalUid,  // DN [ '#' BitString ]
  kUuid,                // RFC 4122 string form
};

struct Syntax {
  std::string oid;
  std::string desc;
  SyntaxKind kind = SyntaxKind::kAny;
  // Values may only be transferred with the ";binary" option (RFC 4522):
  // slapadd rejects "userCertificate: x" and accepts "userCertificate;binary".
  bool binary_transfer_required = false;
  bool human_readable = true;
};

// The syntaxes slapd knows without any schema file, in a fixed order.
const std::vector<Syntax>& BuiltinSyntaxes();

// Returns OK if `value` is in the grammar of `syntax`; otherwise an
// InvalidArgument status saying what is wrong (the caller adds the attribute
// and position).
Status ValidateSyntaxValue(const Syntax& syntax, std::string_view value);

// `failure`, its message prefixed with the attribute's name.
Status NameAttributeInFailure(const AttributeType& type, const Status& failure);

// Validates `value` against the attribute type's syntax (inherited from its
// SUP chain when the type names none). Inline: it runs once per value of a
// load, and its call cost as much as the checks of a short value.
inline Status ValidateValue(const AttributeType& type, std::string_view value) {
  if (type.syntax == nullptr) return Status::Ok();
  Status st = ValidateSyntaxValue(*type.syntax, value);
  if (st.ok()) return st;
  return NameAttributeInFailure(type, st);
}

}  // namespace dirload
