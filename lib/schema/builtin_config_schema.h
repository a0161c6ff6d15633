// The schema slapd's configuration backend has built in: the attribute types
// and object classes of cn=config entries (olcGlobal, olcDatabaseConfig,
// olcMdbConfig, olcSyncProvConfig, ...) of slapd 2.5 itself and of every
// backend and overlay module Debian ships, with the system schema they use,
// as slapd lists them in cn=schema,cn=config. A configuration LDIF for
// `slapadd -n 0` usually gives cn=schema,cn=config bare (objectClass and cn
// only), since slapd needs no definitions from it; dirload then takes these.
// The table (builtin_config_schema_table.cc) is generated from the installed
// slapd by scripts/gen_builtin_config_schema.sh.
//
// Thread safety: constants; the function is pure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dirload {

struct ConfigSchemaDefinitions {
  std::vector<std::string> attribute_types;  // olcAttributeTypes values
  std::vector<std::string> object_classes;   // olcObjectClasses values
};

// slapd's built-in configuration schema, in slapd's order.
ConfigSchemaDefinitions BuiltinConfigSchemaDefinitions();

}  // namespace dirload

namespace dirload::schema_internal {

extern const std::string_view kConfigSchemaDefinitions;

}  // namespace dirload::schema_internal
