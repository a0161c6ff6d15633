// The parts of a LoadJob (load_job.h) that its targets share: the State of
// a load, and the Target interface each format's way of storing a load
// implements (load_job.cc for a dry run, the native format and slapd's
// format built aside; online_load.h for slapd's live database).
//
// Thread safety: one thread, as LoadJob.
#pragma once

#include <memory>
#include <string>

#include "lib/db/load_job.h"
#include "lib/index/index_spec.h"

namespace dirload {

// What every part of a load shares; owned by the job.
struct LoadJob::State {
  Database* db = nullptr;  // borrowed: the job's Database outlives it
  LoadJobOptions options;
  const Schema* schema = nullptr;
  std::unique_ptr<EntryChecker> checker;
  IndexConfig index_config;
  std::unique_ptr<ldif::Reader> reader;

  void Notice(const std::string& line) const {
    if (options.notice) options.notice(line);
  }
  bool indexing() const { return !options.no_index && !index_config.empty(); }
};

// Where a load's entries go: what differs between a dry run, dirload's
// native format and slapd's format in a load.
class LoadJob::Target {
 public:
  virtual ~Target() = default;
  // Where phase 1 puts the entries; ready after BeforePhase1.
  virtual EntrySink* sink() = 0;
  // Before phase 1: the sink, and what rides along with it (--one-pass).
  virtual Status BeforePhase1() { return Status::Ok(); }
  virtual Status AfterPhase1() { return Status::Ok(); }
  virtual void AddPhase1Figures(PhaseStats*) {}
  virtual Status Phase2(RunStats* stats) = 0;
  virtual Status Commit(RunStats* stats) = 0;
  // Undoes what was written; `run_failed`: Run() returned an error.
  virtual void RollBack(bool run_failed) = 0;
};

}  // namespace dirload
