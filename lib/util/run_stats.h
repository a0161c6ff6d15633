// Measurements of one run, per phase, written as JSON by --stats: wall and CPU
// time, entries, bytes, rates, peak RSS, and the engine's figures.
//
// Thread safety: values; Clock reads process-wide counters.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/util/cpu_ledger.h"

namespace dirload {

// Wall and CPU time since construction.
class PhaseClock {
 public:
  PhaseClock();
  double wall_seconds() const;
  double cpu_seconds() const;  // user + system of the whole process

 private:
  std::chrono::steady_clock::time_point wall_start_;
  double cpu_start_;
};

double ProcessCpuSeconds();
uint64_t PeakRssBytes();  // VmHWM of this process

struct PhaseStats {
  std::string name;
  double wall_seconds = 0;
  double cpu_seconds = 0;
  uint64_t entries = 0;
  uint64_t bytes = 0;  // uncompressed input bytes processed
  uint64_t peak_rss_bytes = 0;
  // Engine and cache figures, free-form: ("cache.hits", 123), ...
  std::vector<std::pair<std::string, double>> counters;
  // Where the CPU time went (cpu_ledger.h): by stage, and by thread role
  // with how busy its threads were. Empty when not measured.
  std::vector<CpuLedger::Stage> stages;
  std::vector<CpuLedger::Role> threads;
};

// A phase named `name` whose wall and CPU time are those of `clock` now.
PhaseStats TimedPhase(std::string name, const PhaseClock& clock);

struct RunStats {
  std::string command;
  std::string backend;
  std::string database;
  std::vector<PhaseStats> phases;
  std::vector<std::pair<std::string, double>> totals;
  // What the run was set to and what the engine reports it runs with
  // ("cache_bytes" read back from it, "id2entry_priority", ...), so that a
  // measurement carries the proof that its options took effect.
  std::vector<std::pair<std::string, std::string>> settings;
  std::string ToJson() const;
};

}  // namespace dirload
