#include "lib/schema/builtin_config_schema.h"

namespace dirload {

ConfigSchemaDefinitions BuiltinConfigSchemaDefinitions() {
  constexpr std::string_view kTypes = "olcAttributeTypes: ";
  constexpr std::string_view kClasses = "olcObjectClasses: ";
  ConfigSchemaDefinitions out;
  std::string_view text = schema_internal::kConfigSchemaDefinitions;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    if (line.starts_with(kTypes)) {
      out.attribute_types.emplace_back(line.substr(kTypes.size()));
    } else if (line.starts_with(kClasses)) {
      out.object_classes.emplace_back(line.substr(kClasses.size()));
    }
  }
  return out;
}

}  // namespace dirload
