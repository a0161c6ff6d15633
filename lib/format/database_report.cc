#include "lib/format/database_report.h"

#include <algorithm>
#include <bit>

namespace dirload {

size_t IdlHistogramBucket(uint64_t length) {
  return static_cast<size_t>(std::bit_width(length)) - 1;
}
uint64_t IdlHistogramBucketMin(size_t bucket) { return uint64_t{1} << bucket; }
uint64_t IdlHistogramBucketMax(size_t bucket) {
  return bucket >= 63 ? UINT64_MAX : (uint64_t{1} << (bucket + 1)) - 1;
}

bool WouldKeepLongest(uint64_t ids, const std::vector<IdListReport>& longest) {
  return longest.size() < kReportLongestLists || ids > longest.back().ids;
}

void OfferLongest(IdListReport list, std::vector<IdListReport>* longest) {
  if (!WouldKeepLongest(list.ids, *longest)) return;
  // After every list as long: the one offered first stays ahead.
  auto pos = std::upper_bound(longest->begin(), longest->end(), list.ids,
                              [](uint64_t ids, const IdListReport& l) { return ids > l.ids; });
  longest->insert(pos, std::move(list));
  if (longest->size() > kReportLongestLists) longest->pop_back();
}

std::string_view IndexRecordName(IndexRecord record) {
  switch (record) {
    case IndexRecord::kBuilt:
      return "built";
    case IndexRecord::kBuilding:
      return "building";
    case IndexRecord::kUnrecorded:
      return "unrecorded";
  }
  return "unrecorded";
}

}  // namespace dirload
