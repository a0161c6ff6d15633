// How a run is told: a progress line per --interval, and at the end a text
// summary, a JSON object (--json) and a CSV table (--csv), all from the same
// ClientStats so that they cannot disagree.
//
// Thread safety: functions of their arguments; the caller serialises output.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/searchrate/statistics.h"
#include "lib/util/status.h"

namespace dirload::searchrate {

// "  4.0 s   1234.5 req/s   mean 0.810 ms   p99 2.100 ms   errors 0"
void PrintInterval(std::FILE* out, double at_seconds, double span_seconds,
                   std::vector<uint32_t>& samples, uint64_t errors);

// `clients[i]` is client i + 1; `total` their Merge.
void PrintSummary(std::FILE* out, const std::vector<ClientStats>& clients, ClientStats& total);
void PrintJson(std::FILE* out, const std::vector<ClientStats>& clients, ClientStats& total);
// One row per client and a row "total": client, requests, entries, errors,
// seconds, requests_per_second, mean_ms, p50_ms, p90_ms, p99_ms, max_ms.
[[nodiscard]] Status WriteCsv(const std::string& path, const std::vector<ClientStats>& clients,
                              ClientStats& total);

}  // namespace dirload::searchrate
