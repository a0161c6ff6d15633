#include "lib/format/format.h"

namespace dirload {

Result<const IndexConfig*> FormatReader::UsableIndexes() {
  if (!usable_.has_value()) {
    IndexConfig usable;
    std::vector<std::string> unusable;
    DIRLOAD_RETURN_IF_ERROR(SortIndexes(&usable, &unusable));
    usable_.emplace(std::move(usable));
    unusable_ = std::move(unusable);
  }
  return &*usable_;
}

Result<std::vector<std::string>> FormatReader::UnusableIndexes() {
  DIRLOAD_RETURN_IF_ERROR(UsableIndexes().status());
  return unusable_;
}

}  // namespace dirload
