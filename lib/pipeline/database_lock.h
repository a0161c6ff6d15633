// DatabaseLock: one writer per database directory. add, index (and the
// lifecycle commands after them) hold an exclusive flock(2) on
// DIR/dirload.lock for as long as they write; a second writer is refused at
// once, with the holder's process ID and command line, which the holder
// wrote into the file. The kernel releases the lock when the holder exits,
// however it exits (kill -9 included), so a stale file never blocks anyone.
//
// slapd's own files (data.mdb, lock.mdb) are not touched: the lock is
// between dirload processes. Readers take no lock: on LMDB they see
// committed transactions only. (Readers of Berkeley DB tables beside a
// writer are not refused yet.)
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
