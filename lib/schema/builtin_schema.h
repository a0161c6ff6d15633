// The schema text dirload carries built in, in .schema file syntax and parsed
// by the same loader as files (schema_loader.h):
//   kSystemSchemaText  what slapd defines internally (builtin_system.cc);
//   kCoreSchemaText    RFC 4519 and the related definitions of OpenLDAP's
//                      core.schema (RFC 4523, RFC 2079, RFC 2247, RFC 2377,
//                      PKCS #9 email);
//   kCosineSchemaText  RFC 4524;
//   kInetOrgPersonSchemaText  RFC 2798;
//   kNisSchemaText     RFC 2307.
// The texts were written from the RFCs; tests check that each defines the
// same types and classes as the corresponding OpenLDAP file.
//
// Thread safety: constants.
#pragma once

#include <string_view>

namespace dirload::schema_internal {

extern const std::string_view kSystemSchemaText;
extern const std::string_view kCoreSchemaText;
extern const std::string_view kCosineSchemaText;
extern const std::string_view kInetOrgPersonSchemaText;
extern const std::string_view kNisSchemaText;

}  // namespace dirload::schema_internal
