// Draws phase progress on one terminal line (stderr) and prints each phase's
// summary line. With --progress auto it draws only when stderr is a terminal;
// summaries are always printed.
#pragma once

#include <string>

#include "lib/util/progress.h"
#include "lib/util/run_stats.h"

namespace dirload::tools {

enum class ProgressMode { kAuto, kAlways, kNever };

// --progress: "always", "never", anything else (CLI11 checks) "auto".
ProgressMode ParseProgressMode(const std::string& value);

class ProgressPrinter final : public ProgressSink {
 public:
  explicit ProgressPrinter(ProgressMode mode);
  void Update(const ProgressSnapshot& s) override;
  void Finish(const ProgressSnapshot& s, const std::string& summary) override;

 private:
  bool draw_;
  size_t last_width_ = 0;
};

// -v: for each phase measured, its wall and CPU time and where the CPU
// time went (stages and threads, lib/util/cpu_ledger.h), one line each.
void PrintCpuSummary(const RunStats& stats);

}  // namespace dirload::tools
