#include "lib/store/tables.h"

#include "lib/util/ascii.h"

namespace dirload {

std::string IndexTableName(std::string_view attribute) {
  std::string name(kIndexTablePrefix);
  name.reserve(name.size() + attribute.size());
  for (char c : attribute) name.push_back(AsciiLower(c));
  return name;
}

Status ValidateTableName(std::string_view name) {
  if (name.empty()) return Status::InvalidArgument("store: empty table name");
  if (name.size() > kMaxTableNameLength) {
    return Status::InvalidArgument("store: table name longer than " +
                                   std::to_string(kMaxTableNameLength) + " characters: '" +
                                   std::string(name.substr(0, 40)) + "...'");
  }
  if (name.front() == '.') {
    return Status::InvalidArgument("store: table name '" + std::string(name) + "' starts with '.'");
  }
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-';
    if (!ok) {
      return Status::InvalidArgument("store: table name '" + std::string(name) +
                                     "' has a character outside [A-Za-z0-9._-]");
    }
  }
  return Status::Ok();
}

}  // namespace dirload
