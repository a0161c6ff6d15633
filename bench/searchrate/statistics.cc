#include "bench/searchrate/statistics.h"

#include <algorithm>
#include <cmath>

namespace dirload::searchrate {

uint64_t ClientStats::Errors() const {
  uint64_t n = 0;
  for (const auto& [code, count] : codes) n += code == 0 ? 0 : count;
  return n;
}

void Merge(const ClientStats& from, ClientStats* into) {
  into->requests += from.requests;
  into->warmup_requests += from.warmup_requests;
  into->entries += from.entries;
  into->references += from.references;
  for (const auto& [code, count] : from.codes) into->codes[code] += count;
  into->latency_us.insert(into->latency_us.end(), from.latency_us.begin(), from.latency_us.end());
  into->seconds = std::max(into->seconds, from.seconds);
  into->max_outstanding = std::max(into->max_outstanding, from.max_outstanding);
  if (into->stopped.empty()) into->stopped = from.stopped;
}

}  // namespace dirload::searchrate
