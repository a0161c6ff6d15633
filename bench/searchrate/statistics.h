// What a run measured: per-client counters (every result code counted, so a
// request is never lost between "sent" and "reported"), latency samples and
// their summary, and the buffer the progress lines read while clients run.
//
// Thread safety: ClientStats belongs to its client thread until joined;
// IntervalBuffer is shared between one client and the progress thread and
// locks internally.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "lib/util/latency.h"

namespace dirload::searchrate {

struct ClientStats {
  uint64_t requests = 0;         // completed after the warm-up, whatever their result
  uint64_t warmup_requests = 0;  // completed during the warm-up, left out of the rest
  uint64_t entries = 0;
  uint64_t references = 0;
  // Result code -> requests that ended with it (0 is success). Requests that
  // libldap could not send or whose connection failed are counted under
  // libldap's negative client-side codes.
  std::map<int, uint64_t> codes;
  std::vector<uint32_t> latency_us;  // one per measured request
  double seconds = 0;                // from the end of the warm-up to its last result
  int max_outstanding = 0;           // most searches in flight at once, as seen here
  std::string stopped;               // why the client stopped early; empty if it did not

  uint64_t Errors() const;  // requests whose code is not success
};

using dirload::LatencySummary;
// Sorts `samples` and summarises them (lib/util/latency.h).
inline LatencySummary Summarize(std::vector<uint32_t>& samples) {
  return SummarizeLatencies(samples);
}

// Adds `from` into `into`; seconds becomes the longer span (clients run side
// by side, so the run lasts as long as its slowest client).
void Merge(const ClientStats& from, ClientStats* into);

// The results since the last progress line.
class IntervalBuffer {
 public:
  void Add(uint32_t latency_us, bool error) {
    std::lock_guard<std::mutex> lock(mu_);
    samples_.push_back(latency_us);
    errors_ += error;
  }
  // Takes the samples and error count gathered so far, leaving it empty.
  void Take(std::vector<uint32_t>* samples, uint64_t* errors) {
    std::lock_guard<std::mutex> lock(mu_);
    samples->insert(samples->end(), samples_.begin(), samples_.end());
    samples_.clear();
    *errors += errors_;
    errors_ = 0;
  }

 private:
  std::mutex mu_;
  std::vector<uint32_t> samples_;
  uint64_t errors_ = 0;
};

}  // namespace dirload::searchrate
