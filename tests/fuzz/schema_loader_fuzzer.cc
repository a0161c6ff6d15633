// Fuzz target for the .schema loader (lib/schema/schema_loader.h), from a
// string: schema files and cn=schema entries come from other programs'
// configurations, so any text must load or give an error, never crash.
// The whole input is loaded into an empty schema (the built-in syntaxes and
// matching rules, nothing else: cheap to make per input) and also parsed as
// one attribute type, object class and syntax description against the
// built-in schema (whose OID macros the parsers may expand).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "lib/schema/schema.h"
#include "lib/schema/schema_loader.h"
#include "tests/fuzz/builtin_schema.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dirload;
  std::string_view text(reinterpret_cast<const char*>(data), size);

  Schema schema;
  std::vector<std::string> warnings;
  if (LoadSchemaText(&schema, text, "fuzz.schema", &warnings).ok()) {
    // Everything that loaded must be found again by its OID.
    for (const AttributeType* at : schema.attribute_types()) {
      if (schema.FindAttribute(at->oid) != at) std::abort();
    }
    (void)schema.Fingerprint();
  }

  const Schema& builtin = fuzz::BuiltinSchema();
  (void)ParseAttributeTypeDescription(builtin, text);
  (void)ParseObjectClassDescription(builtin, text);
  (void)ParseSyntaxDescription(builtin, text);
  return 0;
}
