// File-descriptor ownership and durable syncing for the code that writes
// databases and marker files: UniqueFd closes what it owns exactly once, and
// SyncFd / SyncPath / SyncDirectory make written data (or a rename or unlink
// in a directory) survive a crash, reporting failure as a Status whose
// message names the operation, the path and strerror ("fsync PATH: ...").
// The errors carry no origin; callers that know it mark them (WithOrigin).
//
// Thread safety: a UniqueFd is a value, not synchronised; it may be moved
// between threads. The functions are safe to call concurrently.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>

#include "lib/util/status.h"

namespace dirload {

// Owns one file descriptor (or none, -1) and closes it on destruction or
// when another is assigned. Move-only.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) reset(other.release());
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }

  // Gives up ownership without closing; the caller closes what it returns.
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }

  // Closes the descriptor held (its close(2) result ignored) and takes `fd`.
  void reset(int fd = -1);

  // Closes now and returns close(2)'s result (0 when none was held), errno
  // set on failure: close is where some file systems (NFS) report a failed
  // write, so writers check it.
  int Close();

 private:
  int fd_ = -1;
};

// fsync(2) of an open descriptor; `path` names it in the message
// ("fsync PATH: strerror").
Status SyncFd(int fd, const std::string& path);

// Opens `path` read-only and fsyncs it: a file whose data must be on disk,
// or a directory whose entries must be ("open PATH: ..." or
// "fsync PATH: ...").
Status SyncPath(const std::string& path);

// As SyncPath, but fails unless `dir` is a directory: after a rename,
// unlink or create in `dir`, this makes the change itself durable.
Status SyncDirectory(const std::string& dir);

// Copies `from` to a new file `to`: blocks shared when the file system can
// (FICLONE), else the data parts only, so a sparse file stays sparse; the
// copy takes the original's owner and mode, and is synced unless `sync` is
// false (a copy that is written further and synced with its last write).
Status CopyFileKeepingOwner(const std::string& from, const std::string& to, bool sync = true);

// Who owns a database directory: every file dirload creates or replaces in
// it takes this owner and group, so that slapd (Debian runs it as
// `openldap`) and later runs as that user can open what root wrote.
struct FileOwner {
  unsigned uid = 0;
  unsigned gid = 0;
};
Result<FileOwner> OwnerOf(const std::string& path);
// Gives `path` to `owner` unless it is theirs already. Only root may give a
// file away: another user's failure is no error, as the file is then theirs
// and the directory too, or the directory's owner could not have been given
// it anyway.
Status GiveTo(const std::string& path, const FileOwner& owner);
// GiveTo for every regular file directly in `dir`, to `dir`'s owner.
Status GiveFilesToDirectoryOwner(const std::string& dir);
// GiveTo for each of `names` in `dir` that exists.
Status GiveFilesTo(const std::string& dir, std::initializer_list<const char*> names,
                   const FileOwner& owner);
// The bytes the file system allocated for `path` (st_blocks * 512), which
// for a sparse file (LMDB's data.mdb grown to its map size) is far below its
// apparent size; nullopt when it cannot be stat'ed.
std::optional<uint64_t> AllocatedBytes(const std::string& path);

}  // namespace dirload
