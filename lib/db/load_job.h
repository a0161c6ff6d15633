// LoadJob: `dirload add` (slapadd) into a Database opened with Access::kLoad
// or kDryRun, in RocksDB's ingestion shape: begun (Database::BeginLoad),
// run, then committed. Run() is phase 1 (the entries, lib/load/
// loader.h) then phase 2 (the indexes, unless asked not to); Commit() makes
// the result the database's: a native load removes its pending-work mark and
// undo copy, a load into slapd's format moves its build into place. A job
// destroyed without Commit() rolls back: an append goes back to its undo
// copy, a new native database is removed, slapd's build directory is
// deleted. A killed process leaves the pending-work mark to `dirload
// recover`.
//
// Thread safety: one thread (the loader starts its own workers).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "ldif/reader.h"
#include "lib/db/database.h"
#include "lib/load/entry_checker.h"
#include "lib/load/loader.h"
#include "lib/util/run_stats.h"

namespace dirload {

struct LoadJobOptions {
  std::string ldif = "-";  // a file (plain or gzip), or "-" for standard input
  // How messages name the input when not by `ldif` (a copy of standard
  // input is still "<stdin>"); a named input's URLs are not relative to it.
  std::string ldif_name;
  uint64_t max_record_size = uint64_t{64} << 20;
  // Phase 1's options; the suffix, lastmod and rootdn come from the
  // configuration (a rootdn given here wins).
  LoadOptions load;
  // lastmod for the entries, when not the database's own: glued databases
  // take the selected database's, as slapadd does (with its rootdn).
  std::optional<bool> lastmod;
  bool quick = false;                // -q: fewer, larger transactions (native)
  bool schema_check = true;          // -s turns it off
  bool no_index = false;             // phase 1 only
  bool one_pass = false;             // index keys made during phase 1 (native, new database, sort)
  IndexRunOptions index;             // phase 2's method, memory and spill directory
  RejectSink* rejects = nullptr;     // -c: where rejected records go; may be null
  ProgressSink* progress = nullptr;  // may be null
  NoticeSink notice;                 // may be empty
  bool verbose = false;
  bool collect_stats = false;
  // --online (slapd's format): written into the live environment in batches
  // of `online_batch` entries, beside slapd (online_load.h).
  bool online = false;
  uint32_t online_batch = 100;  // fill stats() with the engine's settings and table sizes
};

class LoadJob {
 public:
  ~LoadJob();  // rolls back unless committed (see above)
  LoadJob(const LoadJob&) = delete;
  LoadJob& operator=(const LoadJob&) = delete;

  // Phases 1 and 2. On error nothing is committed; destroying the job rolls
  // back and says so through the notice sink.
  Result<LoadSummary> Run();
  // REQUIRES: Run() succeeded. Once called, even when it fails, the job no
  // longer rolls back: what is left is for `dirload recover`.
  Status Commit();

  // Per-phase measurements (--stats), complete after Commit().
  const RunStats& stats() const { return stats_; }

  // What the parts of a load share, and where its entries go by format
  // (defined in load_job.cc).
  struct State;
  class Target;

 private:
  friend class Database;
  explicit LoadJob(std::unique_ptr<State> state);
  Result<LoadSummary> RunPhases();

  std::unique_ptr<State> s_;
  std::unique_ptr<Target> target_;  // by format; borrows *s_
  RunStats stats_;
  bool committed_ = false;
  bool run_failed_ = false;
};

}  // namespace dirload
