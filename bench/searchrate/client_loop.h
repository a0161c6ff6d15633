// One client of a run: a loop on its own connection that keeps up to
// --async searches outstanding (ldap_search_ext, then ldap_result for
// whichever answer comes next: SLAMD's asynchronous search rate; with 1 it is
// the classic send, wait, send). Every request it sends ends in exactly one
// result code in its ClientStats, including those a lost connection or a
// timeout cut short.
//
// Thread safety: RunClient runs on its client's thread; it shares only the
// const Options and values and its IntervalBuffer.
#pragma once

#include <ldap.h>

#include <chrono>
#include <string>
#include <vector>

#include "bench/searchrate/options.h"
#include "bench/searchrate/statistics.h"

namespace dirload::searchrate {

using Clock = std::chrono::steady_clock;

// When the run starts, when measuring starts (after the warm-up) and, with
// --duration, when clients stop sending.
struct RunClock {
  Clock::time_point start, measure_from, stop;
};

// REQUIRES: `ld` connected and bound, used by this thread only; `values`
// non-empty. `client` counts from 1.
ClientStats RunClient(LDAP* ld, const Options& options, const std::vector<std::string>& values,
                      int client, const RunClock& clock, IntervalBuffer* interval);

}  // namespace dirload::searchrate
