// CpuLedger: where a run's CPU time goes, for --stats and -v: by stage (read
// and parse, checks, names and IDs, storing, ...) and by thread. Each thread
// reads its own CPU clock (CLOCK_THREAD_CPUTIME_ID) at coarse points, a
// batch of records or an index, never per record, and adds what it spent
// since its last reading to the stage it was in; each thread's whole CPU and
// wall time is added under its role when its work ends, so an operator sees
// how busy each thread was.
//
// Code that measures takes a CpuLedger* that may be null: then it measures
// nothing and makes no clock call.
//
// Thread safety: CpuLedger is safe to call from any thread; a StageLap or
// ThreadTimer belongs to the thread that made it.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace dirload {

// This thread's CPU time (user + system), in seconds.
double ThreadCpuSeconds();

class CpuLedger {
 public:
  struct Stage {
    std::string name;
    double cpu_seconds = 0;
  };
  struct Role {
    std::string name;  // "writer", "check", ...
    unsigned threads = 0;
    double cpu_seconds = 0;
    double wall_seconds = 0;  // the threads' lifetimes added up
  };

  void AddStage(std::string_view stage, double cpu_seconds);
  void AddThread(std::string_view role, double cpu_seconds, double wall_seconds);

  // In the order first added.
  std::vector<Stage> stages() const;
  std::vector<Role> roles() const;

 private:
  mutable std::mutex mu_;
  std::vector<Stage> stages_;
  std::vector<Role> roles_;
};

// One thread's readings: Lap(stage) adds the CPU time since the last lap
// (or since construction) to `stage`.
class StageLap {
 public:
  explicit StageLap(CpuLedger* ledger);
  void Lap(std::string_view stage);
  // Splits the time since the last lap between two stages, `first` taking
  // `share` (0..1) of it: for work whose parts alternate too often to read
  // the CPU clock around each.
  void Split(std::string_view first, std::string_view second, double share);
  bool active() const { return ledger_ != nullptr; }

 private:
  CpuLedger* ledger_;
  double last_ = 0;
};

// A thread's whole CPU and wall time, added to the ledger under `role` when
// it is destroyed (at the end of the thread's work).
class ThreadTimer {
 public:
  ThreadTimer(CpuLedger* ledger, std::string role);
  ~ThreadTimer();
  ThreadTimer(const ThreadTimer&) = delete;
  ThreadTimer& operator=(const ThreadTimer&) = delete;

 private:
  CpuLedger* ledger_;
  std::string role_;
  double cpu_start_ = 0;
  std::chrono::steady_clock::time_point wall_start_;
};

}  // namespace dirload
