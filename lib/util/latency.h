// Summaries of request latencies, shared by dirload search --bench and
// bench/dirload-searchrate.
//
// Thread safety: pure function.
#pragma once

#include <cstdint>
#include <vector>

namespace dirload {

struct LatencySummary {
  double mean_ms = 0, p50_ms = 0, p90_ms = 0, p99_ms = 0, max_ms = 0;
};

// Sorts `samples_us` (microseconds) and summarises them with nearest-rank
// percentiles; all zero when there is none.
LatencySummary SummarizeLatencies(std::vector<uint32_t>& samples_us);

}  // namespace dirload
