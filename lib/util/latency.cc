#include "lib/util/latency.h"

#include <algorithm>
#include <cmath>

namespace dirload {

LatencySummary SummarizeLatencies(std::vector<uint32_t>& samples) {
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

}  // namespace dirload
