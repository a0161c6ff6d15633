#include "tools/progress_printer.h"

#include <unistd.h>

#include <cstdio>

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

}  // namespace dirload::tools
