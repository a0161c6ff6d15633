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
#include <optional>
#include <string>
#include <vector>

#include "lib/util/status.h"

namespace dirload::mdb {

// DIR/.dirload-build, whether or not it exists.
std::string MdbBuildDirPath(const std::string& dir);

// A first load whose phase 1 finished: its entries (id2e, ad2i, dn2i) are
// complete and synced in the build directory, and only its indexes and
// the install were left. Work that can be kept is not thrown away: `dirload
// recover` finishes it.
struct MdbCompleteEntries {
  uint64_t entries = 0;
  std::vector<std::string> index_lines;  // canonical, as the load had them
};

// What DIR's build directory says of itself: nullopt when there is none or
// it holds no complete entries. Errors: a record that cannot be read.
Result<std::optional<MdbCompleteEntries>> ReadMdbCompleteEntries(const std::string& dir);

class MdbBuildDir {
 public:
  // Creates DIR (when missing) and an empty build directory, removing what
  // a killed run left there; with `copy_existing`, copies DIR/data.mdb
  // into it (not synced: the build's own last sync writes it out).
  // Errors: kStorage.
  static Result<std::unique_ptr<MdbBuildDir>> Create(const std::string& dir, bool copy_existing);
  // The build directory a killed load left with complete entries, to
  // finish. Unlike a new one, it is kept when the work fails again.
  static Result<std::unique_ptr<MdbBuildDir>> Resume(const std::string& dir);
  ~MdbBuildDir();  // removes the build directory unless installed
  MdbBuildDir(const MdbBuildDir&) = delete;
  MdbBuildDir& operator=(const MdbBuildDir&) = delete;

  const std::string& path() const { return path_; }

  // Records that the entries in the build are complete (`what`), once the
  // built data.mdb is synced: syncs it (fsync, which also writes pages
  // written through a map), then writes the record, synced.
  Status MarkEntriesComplete(const MdbCompleteEntries& what);

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
  bool keep_on_failure_ = false;
};

}  // namespace dirload::mdb
