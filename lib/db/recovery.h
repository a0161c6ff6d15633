// `dirload recover`: brings a database back from work that did not finish
// (a kill -9, a crash, a full disk), using what the writer left for it:
//   - the pending-work mark (pending_work.h) says what was running;
//   - an append into a native database goes back to its undo copy
//     (undo_copy.h): the database is exactly as before the append, its
//     indexes included;
//   - a load into an empty directory is removed: there was nothing before;
//   - an index rebuild is finished (the old lists are gone, and rebuilding
//     from the entries is always safe): the indexes it was building, with
//     the configuration it was building them with;
//   - an unfinished build of slapd's format (DIR/.dirload-build) is removed:
//     loads and index rebuilds of that format never touch the database
//     before their last step;
//   - undo copies beside no pending work, and the spill directories of
//     killed runs (dirload-sort-PID-*, PID no longer running) under the
//     temporary directory, are removed.
// Running it again finds nothing to do: each step removes what it acted on,
// last.
//
// Thread safety: one thread; the caller holds the writer's lock.
#pragma once

#include <string>
#include <vector>

#include "lib/config/database_config.h"
#include "lib/format/native/native_indexer.h"
#include "lib/schema/schema.h"
#include "lib/util/status.h"

namespace dirload {

struct RecoveryReport {
  // What was done, one sentence each; empty: nothing needed doing.
  std::vector<std::string> actions;
};

// The indexes of the native database in `dir` (open as `store`) whose build
// did not finish: those meta marks "building:LINE", and those a pending
// index rebuild names (its mark is synced before the first write; on
// Berkeley DB without --durable, meta's own marks may not have reached the
// disk when the run was killed).
Result<std::vector<IndexConfig::Line>> UnfinishedIndexLines(Store* store, const std::string& dir);

// `run` gives the method, memory and temporary directory of a rebuild to be
// finished (and where spill directories are looked for).
Result<RecoveryReport> RecoverDatabase(const ResolvedDatabase& db, const Schema& schema,
                                       const IndexRunOptions& run);

}  // namespace dirload
