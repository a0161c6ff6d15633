// MdbBuildDir: where a new data.mdb for slapd's format is built, beside the
// one slapd may serve: DIR/.dirload-build. A load into an empty directory
// starts it empty; an append or an index rebuild starts it with a copy of
// DIR/data.mdb. Nothing in DIR changes until Install() renames the built
// file over DIR/data.mdb (one rename(2), atomic), with the owner, group and
// mode slapd needs. A slapd started meanwhile sees the database as it was,
// never half of the work; a run that fails or is killed leaves DIR as it
// was (the directory is removed on destruction, or by the next run and
// `dirload recover`).
//
// The caller keeps every other process out of DIR's environment from
// Create() to Install() (lib/db/lmdb_presence.h): the copy is taken as a
// file, not through LMDB, so nothing may write DIR/data.mdb meanwhile.
//
// Thread safety: one thread.
#pragma once

#include <memory>
#include <string>

#include "lib/util/status.h"

namespace dirload::mdb {

// DIR/.dirload-build, whether or not it exists.
std::string MdbBuildDirPath(const std::string& dir);

class MdbBuildDir {
 public:
  // Creates DIR (when missing) and an empty build directory, removing what
  // a killed run left there; with `copy_existing`, copies DIR/data.mdb
  // into it (not synced: the build's own last sync writes it out).
  // Errors: kStorage.
  static Result<std::unique_ptr<MdbBuildDir>> Create(const std::string& dir, bool copy_existing);
  ~MdbBuildDir();  // removes the build directory unless installed
  MdbBuildDir(const MdbBuildDir&) = delete;
  MdbBuildDir& operator=(const MdbBuildDir&) = delete;

  const std::string& path() const { return path_; }

  // Moves the built data.mdb, which the caller has closed and synced, over
  // DIR/data.mdb: it takes DIR's owner and group, and the mode the file it
  // replaces had (0600 for a new one, as slapadd makes it: it holds password
  // hashes); the rename is synced, then the build directory removed and
  // DIR's lock file given to DIR's owner too.
  Status Install();

 private:
  MdbBuildDir(std::string dir, std::string path) : dir_(std::move(dir)), path_(std::move(path)) {}
  std::string dir_, path_;
  bool installed_ = false;
};

}  // namespace dirload::mdb
