// The schema text dirload carries built in, in .schema file syntax and parsed
// by the same loader as files (schema_loader.h):
//   kSystemSchemaText  what slapd defines internally (builtin_system.cc);
//   kCoreSchemaText    RFC 4519 and the related definitions of OpenLDAP's
//                      core.schema (RFC 4523, RFC 2079, RFC 2247, RFC 2377,
//                      PKCS #9 email);
//   kCosineSchemaText  RFC 4524;
//   kInetOrgPersonSchemaText  RFC 2798;
//   kNisSchemaText     RFC 2307;
//   kPpolicySchemaText draft-behera-ldap-password-policy, as OpenLDAP 2.5's
//                      ppolicy module defines it (builtin_ppolicy.cc).
// The texts were written from the RFCs; tests check that each defines the
// same types and classes as the corresponding OpenLDAP file.
//
// Some schema is not in any file but comes with a slapd module: slapd.conf
// `moduleload ppolicy` (or `overlay ppolicy`, cn=config olcModuleLoad) makes
// its definitions available. AddModuleSchema() is that step for dirload.
//
// Thread safety: constants; AddModuleSchema needs exclusive access to the
// Schema it writes.
#pragma once

#include <string_view>
#include <vector>

#include "lib/schema/schema.h"
#include "lib/util/status.h"

namespace dirload {

// Adds the schema that slapd module `module` defines when loaded. `module` is
// what slapd.conf names: "ppolicy", "ppolicy.la", "ppolicy.so" or a path to
// one of them; the comparison ignores ASCII case. Adding a module's schema
// again changes nothing. A module dirload knows no schema for (back_mdb,
// syncprov, ...) adds nothing and returns OK; callers that want to say so
// check IsKnownSchemaModule() first.
[[nodiscard]] Status AddModuleSchema(Schema* schema, std::string_view module);

// Whether AddModuleSchema() has definitions for `module` (same spelling rules).
bool IsKnownSchemaModule(std::string_view module);

// The modules AddModuleSchema() knows, by their base name ("ppolicy").
std::vector<std::string_view> KnownSchemaModules();

}  // namespace dirload

namespace dirload::schema_internal {

extern const std::string_view kSystemSchemaText;
extern const std::string_view kCoreSchemaText;
extern const std::string_view kCosineSchemaText;
extern const std::string_view kInetOrgPersonSchemaText;
extern const std::string_view kNisSchemaText;
extern const std::string_view kPpolicySchemaText;

}  // namespace dirload::schema_internal
