#include "lib/util/run_stats.h"

#include <sys/resource.h>

#include <charconv>
#include <fstream>
#include <string>
#include <system_error>

#include "lib/util/json.h"

namespace dirload {

double ProcessCpuSeconds() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

PhaseStats TimedPhase(std::string name, const PhaseClock& clock) {
  PhaseStats p;
  p.name = std::move(name);
  p.wall_seconds = clock.wall_seconds();
  p.cpu_seconds = clock.cpu_seconds();
  return p;
}

uint64_t PeakRssBytes() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmHWM:", 0) != 0) continue;
    // "VmHWM:     123456 kB"
    size_t begin = line.find_first_not_of(" \t", 6);
    if (begin == std::string::npos) return 0;
    uint64_t kb = 0;
    auto [end, error] = std::from_chars(line.data() + begin, line.data() + line.size(), kb);
    (void)end;
    return error == std::errc() ? kb * 1024 : 0;
  }
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<uint64_t>(ru.ru_maxrss) * 1024;
}

PhaseClock::PhaseClock()
    : wall_start_(std::chrono::steady_clock::now()), cpu_start_(ProcessCpuSeconds()) {}

double PhaseClock::wall_seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start_).count();
}

double PhaseClock::cpu_seconds() const { return ProcessCpuSeconds() - cpu_start_; }

namespace {

void Counters(const std::vector<std::pair<std::string, double>>& c, std::string* out) {
  for (const auto& [k, v] : c) *out += ", " + JsonString(k) + ": " + JsonNumber(v);
}

}  // namespace

std::string RunStats::ToJson() const {
  std::string out = "{\"command\": " + JsonString(command) +
                    ", \"backend\": " + JsonString(backend) +
                    ", \"database\": " + JsonString(database) + ", \"phases\": [";
  for (size_t i = 0; i < phases.size(); ++i) {
    const PhaseStats& p = phases[i];
    double mb = static_cast<double>(p.bytes) / 1e6;
    out += i ? ", " : "";
    out +=
        "{\"name\": " + JsonString(p.name) + ", \"wall_seconds\": " + JsonNumber(p.wall_seconds) +
        ", \"cpu_seconds\": " + JsonNumber(p.cpu_seconds) +
        ", \"entries\": " + JsonNumber(static_cast<double>(p.entries)) +
        ", \"bytes\": " + JsonNumber(static_cast<double>(p.bytes)) + ", \"entries_per_second\": " +
        JsonNumber(p.wall_seconds > 0 ? static_cast<double>(p.entries) / p.wall_seconds : 0) +
        ", \"mb_per_second\": " + JsonNumber(p.wall_seconds > 0 ? mb / p.wall_seconds : 0) +
        ", \"peak_rss_bytes\": " + JsonNumber(static_cast<double>(p.peak_rss_bytes));
    Counters(p.counters, &out);
    if (!p.stages.empty()) {
      out += ", \"stages\": [";
      for (size_t k = 0; k < p.stages.size(); ++k) {
        out += std::string(k ? ", " : "") + "{\"name\": " + JsonString(p.stages[k].name) +
               ", \"cpu_seconds\": " + JsonNumber(p.stages[k].cpu_seconds) + "}";
      }
      out += "]";
    }
    if (!p.threads.empty()) {
      out += ", \"threads\": [";
      for (size_t k = 0; k < p.threads.size(); ++k) {
        const CpuLedger::Role& r = p.threads[k];
        out += std::string(k ? ", " : "") + "{\"role\": " + JsonString(r.name) +
               ", \"threads\": " + JsonNumber(r.threads) +
               ", \"cpu_seconds\": " + JsonNumber(r.cpu_seconds) +
               ", \"wall_seconds\": " + JsonNumber(r.wall_seconds) + ", \"busy\": " +
               JsonNumber(r.wall_seconds > 0 ? r.cpu_seconds / r.wall_seconds : 0) + "}";
      }
      out += "]";
    }
    out += "}";
  }
  out += "], \"settings\": {";
  for (size_t i = 0; i < settings.size(); ++i) {
    out += (i ? ", " : "") + JsonString(settings[i].first) + ": " + JsonString(settings[i].second);
  }
  out += "}";
  Counters(totals, &out);
  return out + "}\n";
}

}  // namespace dirload
