// DatabaseLock: one writer per database directory. add, index (and the
// lifecycle commands after them) hold an exclusive flock(2) on
// DIR/dirload.lock for as long as they write; a second writer is refused at
// once, with the holder's process ID and command line, which the holder
// wrote into the file. The kernel releases the lock when the holder exits,
// however it exits (kill -9 included), so a stale file never blocks anyone.
//
// slapd's own files (data.mdb, lock.mdb) are not touched: the lock is
// between dirload processes. Readers of LMDB take no lock: they see
// committed transactions only. Readers of Berkeley DB tables, which each
// process reads through a private cache that a writer beside it would
// invalidate, hold the lock shared (AcquireForReading): a writer is then
// refused while they read, and they are refused while a writer writes.
//
// Thread safety: an object is used by one thread; locks of one process on
// one file do not exclude each other across threads of that process.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "lib/util/status.h"

namespace dirload {

// This process's command line, its arguments joined by spaces (from
// /proc/self/cmdline), shortened to about 300 characters.
std::string ProcessCommandLine();

class DatabaseLock {
 public:
  // Takes the writer's lock of the database directory `dir`, not waiting,
  // creating `dir` if needed, and records this process's ID and command
  // line (from /proc/self/cmdline) for whoever is refused. Errors:
  // AlreadyExists (origin kDatabase) when another process holds it: "DIR is
  // in use by process PID (COMMAND)"; kStorage when the directory or the
  // file cannot be made, opened or locked.
  static Result<DatabaseLock> Acquire(const std::string& dir);

  // A reader's lock of `dir` (see above), not waiting: shared, for
  // Berkeley DB; nothing for LMDB, and nothing when the directory has no
  // lock file and none can be made (a read-only directory no dirload
  // writer can have written either). AlreadyExists (kDatabase) while a
  // writer holds it.
  static Result<std::optional<DatabaseLock>> AcquireForReading(const std::string& dir,
                                                               bool berkeley_db);

  // Who holds the writer's lock of `dir` now, as "process PID (COMMAND)";
  // nothing when nobody does (or there is no lock file). A process that holds
  // the lock itself sees itself.
  static Result<std::optional<std::string>> Writer(const std::string& dir);

  DatabaseLock(DatabaseLock&& other) noexcept;
  DatabaseLock& operator=(DatabaseLock&& other) noexcept;
  DatabaseLock(const DatabaseLock&) = delete;
  DatabaseLock& operator=(const DatabaseLock&) = delete;
  ~DatabaseLock();  // releases the lock

  // The lock file's name in a database directory.
  static constexpr std::string_view kFileName = "dirload.lock";

 private:
  explicit DatabaseLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace dirload
