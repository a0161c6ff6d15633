// Progress of a long phase, reported to a sink the tool provides; library code
// never prints. The loader calls Update() often (cheaply) and the sink decides
// how often to draw.
//
// Thread safety: a sink is called from the thread running the phase.
#pragma once

#include <cstdint>
#include <string>

namespace dirload {

struct ProgressSnapshot {
  std::string phase;         // "phase 1: load", "phase 2: index"
  uint64_t done_bytes = 0;   // input consumed (compressed bytes for gzip)
  uint64_t total_bytes = 0;  // 0 when unknown (stdin)
  uint64_t entries = 0;
  uint64_t uncompressed_bytes = 0;
  double elapsed_seconds = 0;
};

class ProgressSink {
 public:
  virtual ~ProgressSink() = default;
  virtual void Update(const ProgressSnapshot& snapshot) = 0;
  // The phase ended; `summary` is a one-line account of it.
  virtual void Finish(const ProgressSnapshot& snapshot, const std::string& summary) = 0;
};

}  // namespace dirload
