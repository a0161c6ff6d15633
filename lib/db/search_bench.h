// dirload search --bench: the offline column of the search-rate
// experiments. The same searches a client would send slapd, run on the
// database directly by W workers at once, each over its own read session,
// for a fixed time or number of requests, once per worker count asked for.
//
// Workers are processes, not threads: LMDB forbids opening one environment
// twice in one process, and a search session's readers keep per-session
// caches, so a worker in its own process with its own session is what
// several concurrent offline readers are. Each opens its session before the
// clock starts; all start together.
//
// Each request substitutes the next value of the pattern file
// (ReadRequestValues) for every %s of the filter template
// (FillFilterTemplate, lib/util/request_values.h), parses the filter and
// runs the search, counting entries without printing them. Worker w of W
// (from 0) starts at value w * count / W and walks the file in order,
// wrapping around, so that workers do not all read the same entries.
//
// Thread safety: one call at a time; it forks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lib/db/database.h"
#include "lib/search/search.h"
#include "lib/util/status.h"

namespace dirload {

struct SearchBenchOptions {
  std::vector<int> workers;     // a run per count, in this order
  std::string filter_template;  // with %s when values is not empty
  std::vector<std::string> values;
  std::string base;  // empty: the session's suffix
  SearchScope scope = SearchScope::kSub;
  bool use_indexes = true;
  double seconds = 5;     // per run, when requests is 0
  uint64_t requests = 0;  // per worker; 0: run for `seconds`
};

struct SearchBenchRun {
  int workers = 0;
  uint64_t requests = 0;
  uint64_t entries = 0;
  uint64_t errors = 0;  // searches that returned an error (a base not found...)
  std::string first_error;
  double seconds = 0;  // from the start to the last worker's end
  double requests_per_second = 0;
  double mean_ms = 0, p50_ms = 0, p99_ms = 0, max_ms = 0;
};

// Runs the benchmark on the database `open` names (its access is set here). Errors opening the
// database are returned as opening it for a search returns them.
Result<std::vector<SearchBenchRun>> RunSearchBench(const OpenOptions& open,
                                                   const SearchBenchOptions& options);

}  // namespace dirload
