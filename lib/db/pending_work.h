// PendingWork: the mark a writer leaves in a database directory while it
// changes the database, so that an interruption is never mistaken for a
// finished database. DIR/dirload.pending is written and synced before the
// first write of a load, an append or an index rebuild, and removed (the
// directory synced) after the last sync. A kill -9, a crash or a power loss
// in between leaves it behind: every command then refuses the database and
// names `dirload recover`, which reads the mark to know what to undo or
// finish (lib/db/recovery.h).
//
// Loads into slapd's format build aside (mdb_staged_load.h) and need no mark; its
// in-place index rebuild does. An online add (lib/db/online_load.h) writes
// into slapd's live database in batches, each whole: nothing is left to undo
// after a kill, and its mark says how far the input got, for the operator.
//
// The file is text, one "key: value" per line:
//   work: load | append | index | online-add
//   format: native | mdb
//   index: <line>          one per index being built (rebuilds only)
//   input: <the LDIF read> (online-add)
//   committed: <entries>   entries committed so far (online-add)
//   resume: <line>         -j LINE continues the input from there (online-add;
//                          0: nothing committed yet)
//   command: <the writer's command line>
//
// Thread safety: functions over the file system.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/format/format_detect.h"
#include "lib/util/status.h"

namespace dirload {

enum class WorkKind { kLoad, kAppend, kIndex, kOnlineAdd, kModify };

// "load", "append", "index", "online-add", "modify"
std::string_view WorkKindName(WorkKind kind);

struct PendingWork {
  WorkKind kind = WorkKind::kLoad;
  DatabaseFormat format = DatabaseFormat::kNative;
  std::vector<std::string> index_lines;  // kIndex: the configuration being built
  // kOnlineAdd: the input, the entries committed and the line to go on from.
  std::string input;
  uint64_t committed = 0;
  uint64_t resume_line = 0;
  std::string command;
};

inline constexpr std::string_view kPendingWorkFile = "dirload.pending";

// Writes the mark durably (a temporary file, fsync, rename, fsync of DIR).
Status BeginPendingWork(const std::string& dir, const PendingWork& work);
// Removes the mark durably. Not an error when there is none.
Status EndPendingWork(const std::string& dir);
// The mark in `dir`, if any.
Result<std::optional<PendingWork>> ReadPendingWork(const std::string& dir);

// The refusal of a database whose `work` did not finish (no writer holds
// it): "... did not finish (COMMAND); run 'dirload recover' on it first".
Status PendingWorkError(const std::string& dir, const PendingWork& work);

// OK when no work is pending in `dir`. Otherwise the refusal (origin
// kDatabase, exit 3): "being written by process PID (COMMAND)" while the
// writer still holds the lock (database_lock.h), else "... was interrupted;
// run 'dirload recover'".
Status RequireNoPendingWork(const std::string& dir);

}  // namespace dirload
