// Whether another process has an LMDB environment open, and keeping every
// other process out of it, through LMDB's own lock-file protocol: each
// process that opens DIR's environment holds a shared fcntl lock on the
// first byte of DIR/lock.mdb for as long as it has it open, and tries for an
// exclusive one first. slapd, slapadd, slapcat and mdb_* tools all do, so a
// lock held on that byte means the database is in use; /proc names the
// holder. Holding the byte exclusively makes a slapd that starts meanwhile
// wait in its mdb_env_open (LMDB waits for a shared lock) instead of opening
// a file that is about to be replaced.
//
// fcntl locks belong to the process and go when it closes any descriptor
// of the file: while an EnvironmentHold is held, this process must not open
// DIR's environment itself.
//
// Thread safety: one thread.
#pragma once

#include <optional>
#include <string>

#include "lib/util/file.h"
#include "lib/util/status.h"

namespace dirload {

// "process 1234 (slapd)" when another process has DIR's environment open;
// nullopt when none has (or there is no lock file yet).
Result<std::optional<std::string>> LmdbEnvironmentUser(const std::string& dir);

// The refusal of a database another process has open, naming it: origin
// kDatabase (exit 3).
Status InUseError(const std::string& dir, const std::string& user);

class EnvironmentHold {
 public:
  // Takes DIR/lock.mdb's first byte exclusively, creating the file (the
  // directory's owner's, 0600) when slapd never opened the database; the
  // refusal above when another process has the environment open.
  static Result<EnvironmentHold> Acquire(const std::string& dir);

  // Releases the environment. A process that waited for it finds the lock
  // file as LMDB leaves it: when the lock file was made here, an LMDB
  // process waiting for a shared lock would find it empty and refuse to
  // open ("Invalid argument"), so the environment is opened once, here,
  // which initializes it, before the lock goes.
  ~EnvironmentHold();
  EnvironmentHold(EnvironmentHold&&) = default;
  EnvironmentHold& operator=(EnvironmentHold&&) = default;

 private:
  EnvironmentHold(std::string dir, UniqueFd fd) : dir_(std::move(dir)), fd_(std::move(fd)) {}
  std::string dir_;
  UniqueFd fd_;  // closing it releases the lock
};

}  // namespace dirload
