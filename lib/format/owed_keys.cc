#include "lib/format/owed_keys.h"

#include <algorithm>
#include <tuple>

namespace dirload {

void OwedKeys::Record(EntryId id, std::span<const Key> old_keys, std::span<const Key> new_keys) {
  ++sequence_;
  // Both sorted by (index, key): one merge finds what each side lacks.
  size_t i = 0, j = 0;
  while (i < old_keys.size() || j < new_keys.size()) {
    if (i < old_keys.size() && j < new_keys.size() && old_keys[i] == new_keys[j]) {
      ++i;
      ++j;
    } else if (j == new_keys.size() || (i < old_keys.size() && old_keys[i] < new_keys[j])) {
      changes_.push_back(
          Change{old_keys[i].first, std::string(old_keys[i].second), sequence_, id, false});
      ++i;
    } else {
      changes_.push_back(
          Change{new_keys[j].first, std::string(new_keys[j].second), sequence_, id, true});
      ++j;
    }
  }
}

Status OwedKeys::Settle(const std::function<Status(std::span<const Change> changes)>& fn) {
  std::sort(changes_.begin(), changes_.end(), [](const Change& a, const Change& b) {
    return std::tie(a.index, a.key, a.sequence) < std::tie(b.index, b.key, b.sequence);
  });
  for (size_t i = 0; i < changes_.size();) {
    size_t end = i;
    while (end < changes_.size() && changes_[end].index == changes_[i].index &&
           changes_[end].key == changes_[i].key) {
      ++end;
    }
    DIRLOAD_RETURN_IF_ERROR(fn(std::span<const Change>(changes_).subspan(i, end - i)));
    i = end;
  }
  changes_.clear();
  return Status::Ok();
}

}  // namespace dirload
