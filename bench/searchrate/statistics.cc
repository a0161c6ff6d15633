#include "bench/searchrate/statistics.h"

#include <algorithm>
#include <cmath>

namespace dirload::searchrate {

uint64_t ClientStats::Errors() const {
  uint64_t n = 0;
  for (const auto& [code, count] : codes) n += code == 0 ? 0 : count;
  return n;
}

LatencySummary Summarize(std::vector<uint32_t>& samples) {
  LatencySummary s;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  double sum = 0;
  for (uint32_t v : samples) sum += v;
  auto rank = [&](double p) {
    size_t i = static_cast<size_t>(std::ceil(p * static_cast<double>(samples.size())));
    return samples[std::clamp<size_t>(i, 1, samples.size()) - 1] / 1000.0;
  };
  s.mean_ms = sum / static_cast<double>(samples.size()) / 1000.0;
  s.p50_ms = rank(0.50);
  s.p90_ms = rank(0.90);
  s.p99_ms = rank(0.99);
  s.max_ms = samples.back() / 1000.0;
  return s;
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
