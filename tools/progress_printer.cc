#include "tools/progress_printer.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

namespace dirload::tools {

ProgressMode ParseProgressMode(const std::string& value) {
  if (value == "always") return ProgressMode::kAlways;
  if (value == "never") return ProgressMode::kNever;
  return ProgressMode::kAuto;
}

ProgressPrinter::ProgressPrinter(ProgressMode mode)
    : draw_(mode == ProgressMode::kAlways || (mode == ProgressMode::kAuto && isatty(2))) {}

void ProgressPrinter::Update(const ProgressSnapshot& s) {
  if (!draw_) return;
  double mb = static_cast<double>(s.uncompressed_bytes) / 1e6;
  double t = s.elapsed_seconds > 0 ? s.elapsed_seconds : 1e-9;
  char line[256];
  int n;
  if (s.total_bytes > 0) {
    double frac = static_cast<double>(s.done_bytes) / static_cast<double>(s.total_bytes);
    double eta = frac > 0 ? t / frac - t : 0;
    n = std::snprintf(line, sizeof line,
                      "%s: %5.1f%%  %llu entries  %.0f entries/s  %.1f MB/s  ETA %d:%02d",
                      s.phase.c_str(), 100 * frac, static_cast<unsigned long long>(s.entries),
                      static_cast<double>(s.entries) / t, mb / t, static_cast<int>(eta) / 60,
                      static_cast<int>(eta) % 60);
  } else {
    n = std::snprintf(line, sizeof line, "%s: %llu entries  %.0f entries/s  %.1f MB/s",
                      s.phase.c_str(), static_cast<unsigned long long>(s.entries),
                      static_cast<double>(s.entries) / t, mb / t);
  }
  size_t width = n > 0 ? static_cast<size_t>(n) : 0;
  std::fprintf(stderr, "\r%s%*s", line,
               static_cast<int>(last_width_ > width ? last_width_ - width : 0), "");
  last_width_ = width;
  std::fflush(stderr);
}

void ProgressPrinter::Finish(const ProgressSnapshot&, const std::string& summary) {
  if (draw_ && last_width_ > 0) std::fprintf(stderr, "\r%*s\r", static_cast<int>(last_width_), "");
  last_width_ = 0;
  std::fprintf(stderr, "%s\n", summary.c_str());
}

namespace {

std::string Fixed(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

}  // namespace

void PrintCpuSummary(const RunStats& stats) {
  for (const PhaseStats& p : stats.phases) {
    if (p.stages.empty() && p.threads.empty()) continue;
    std::string line = p.name + ": " + Fixed(p.wall_seconds) + " s, " + Fixed(p.cpu_seconds) +
                       " CPU s (" + Fixed(p.wall_seconds > 0 ? p.cpu_seconds / p.wall_seconds : 0) +
                       " cores)";
    double counted = 0;
    for (size_t i = 0; i < p.stages.size(); ++i) {
      line += (i ? ", " : "; CPU s by stage: ") + p.stages[i].name + " " +
              Fixed(p.stages[i].cpu_seconds);
      counted += p.stages[i].cpu_seconds;
    }
    // What no stage accounts for: other threads (the engine's), and the
    // process's own work before and after the stages.
    if (!p.stages.empty()) line += ", other " + Fixed(std::max(0.0, p.cpu_seconds - counted));
    for (size_t i = 0; i < p.threads.size(); ++i) {
      const CpuLedger::Role& r = p.threads[i];
      line += (i ? ", " : "; threads: ") + r.name + " x" + std::to_string(r.threads) + " " +
              std::to_string(static_cast<int>(
                  r.wall_seconds > 0 ? 100 * r.cpu_seconds / r.wall_seconds + 0.5 : 0)) +
              "% busy";
    }
    std::fprintf(stderr, "dirload: %s\n", line.c_str());
  }
}

}  // namespace dirload::tools
