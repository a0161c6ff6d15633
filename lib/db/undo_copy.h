// The undo copy: what an append into a native database goes back to if it
// does not finish. Before the append writes anything, the database's files
// (LMDB's data.mdb; Berkeley DB's *.bdb tables and log.* files) are copied
// into DIR/.dirload-undo, synced, and a manifest naming them is written last:
// without the manifest the copy is incomplete and the database was not yet
// touched. A reflink (FICLONE) is tried first, so that file systems that
// share blocks make the copy in no time; elsewhere it is a full copy,
// checked first against the free space.
//
// Restoring deletes the database files the manifest does not name (tables
// the append created), renames the copied ones back over the database's and
// removes the copy; interrupted, it is simply done again (the files already
// moved back are no longer in the copy). So restoring is idempotent.
//
// Only a pending append (pending_work.h) makes a complete copy meaningful:
// a copy beside no pending work is left from a finished or never-started
// append and is removed, never restored.
//
// Thread safety: functions over the file system; the caller holds the
// database's writer lock and has no store open on it while restoring.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lib/util/status.h"

namespace dirload {

inline constexpr std::string_view kUndoCopyDir = ".dirload-undo";

enum class UndoCopyState { kNone, kIncomplete, kComplete };

UndoCopyState UndoCopyStateOf(const std::string& dir);

// The files of a native database in `dir`, sorted.
Result<std::vector<std::string>> NativeDatabaseFiles(const std::string& dir);

// Copies the database files of `dir` (see above). Returns the bytes copied.
// Refuses (kStorage, ENOSPC's message) when the file system has less free
// space than the files take and cannot share blocks.
Result<uint64_t> TakeUndoCopy(const std::string& dir);
// Puts the copied files back (see above). REQUIRES: kComplete.
Status RestoreUndoCopy(const std::string& dir);
// Removes the copy, whatever its state.
Status RemoveUndoCopy(const std::string& dir);

// Removes the database files of `dir` (an interrupted load into an empty
// directory), leaving other files (configuration, the lock file).
Status RemoveNativeDatabaseFiles(const std::string& dir);

}  // namespace dirload
