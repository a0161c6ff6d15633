#include "lib/util/file.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace dirload {
namespace {

Status CopyError(const std::string& what, int err) {
  return Status::IoError(what + ": " + std::strerror(err)).WithOrigin(ErrorOrigin::kStorage);
}

Status Errno(const char* op, const std::string& path, int err) {
  return Status::IoError(std::string(op) + " " + path + ": " + std::strerror(err));
}

Status OpenAndSync(const std::string& path, int flags) {
  UniqueFd fd(::open(path.c_str(), flags | O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return Errno("open", path, errno);
  return SyncFd(fd.get(), path);
}

}  // namespace

void UniqueFd::reset(int fd) {
  const int old = fd_;
  fd_ = fd;
  if (old >= 0 && old != fd) ::close(old);
}

int UniqueFd::Close() {
  const int fd = release();
  return fd < 0 ? 0 : ::close(fd);
}

Status SyncFd(int fd, const std::string& path) {
  if (::fsync(fd) != 0) return Errno("fsync", path, errno);
  return Status::Ok();
}

Status SyncPath(const std::string& path) { return OpenAndSync(path, 0); }

Status SyncDirectory(const std::string& dir) { return OpenAndSync(dir, O_DIRECTORY); }

Result<FileOwner> OwnerOf(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return Errno("stat", path, errno).WithOrigin(ErrorOrigin::kStorage);
  return FileOwner{st.st_uid, st.st_gid};
}

Status GiveTo(const std::string& path, const FileOwner& owner) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return Errno("stat", path, errno).WithOrigin(ErrorOrigin::kStorage);
  if (st.st_uid == owner.uid && st.st_gid == owner.gid) return Status::Ok();
  if (::chown(path.c_str(), owner.uid, owner.gid) != 0 && ::geteuid() == 0) {
    return Errno("chown", path, errno).WithOrigin(ErrorOrigin::kStorage);
  }
  return Status::Ok();
}

Status GiveFilesToDirectoryOwner(const std::string& dir) {
  DIRLOAD_ASSIGN_OR_RETURN(FileOwner owner, OwnerOf(dir));
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (!e.is_regular_file(ec)) continue;
    DIRLOAD_RETURN_IF_ERROR(GiveTo(e.path().string(), owner));
  }
  return Status::Ok();
}

Status GiveFilesTo(const std::string& dir, std::initializer_list<const char*> names,
                   const FileOwner& owner) {
  for (const char* name : names) {
    const std::string path = dir + "/" + name;
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) continue;
    DIRLOAD_RETURN_IF_ERROR(GiveTo(path, owner));
  }
  return Status::Ok();
}

Status CopyFileKeepingOwner(const std::string& from, const std::string& to, bool sync) {
  UniqueFd in_fd(::open(from.c_str(), O_RDONLY | O_CLOEXEC));
  if (!in_fd.valid()) return CopyError("open " + from, errno);
  UniqueFd out_fd(::open(to.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  if (!out_fd.valid()) return CopyError("create " + to, errno);
  const int in = in_fd.get(), out = out_fd.get();
  {
    // The copy is what a rollback puts back: the original's owner and mode,
    // so that slapd can open it again and nobody else can read it.
    struct stat from_st {};
    if (::fstat(in, &from_st) != 0) return CopyError("stat " + from, errno);
    if (::fchown(out, from_st.st_uid, from_st.st_gid) != 0 && ::geteuid() == 0) {
      return CopyError("chown " + to, errno);
    }
    if (::fchmod(out, from_st.st_mode & 07777) != 0) return CopyError("chmod " + to, errno);
  }
  Status s;
  if (::ioctl(out, FICLONE, in) != 0) {
    struct stat st {};
    if (::fstat(in, &st) != 0) s = CopyError("stat " + from, errno);
    // The data parts only: a file with holes (a map grown sparsely) stays
    // as small on disk as it was.
    off_t pos = 0;
    while (s.ok() && pos < st.st_size) {
      off_t data = ::lseek(in, pos, SEEK_DATA);
      if (data < 0) break;  // ENXIO: only a hole is left
      off_t hole = ::lseek(in, data, SEEK_HOLE);
      if (hole < 0) hole = st.st_size;
      off_t at_in = data, at_out = data;
      while (s.ok() && at_in < hole) {
        ssize_t n =
            ::copy_file_range(in, &at_in, out, &at_out, static_cast<size_t>(hole - at_in), 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) s = CopyError("copy " + from + " to " + to, n < 0 ? errno : EIO);
      }
      pos = hole;
    }
    if (s.ok() && ::ftruncate(out, st.st_size) != 0) s = CopyError("truncate " + to, errno);
  }
  if (s.ok() && sync) s = SyncFd(out, to).WithOrigin(ErrorOrigin::kStorage);
  if (out_fd.Close() != 0 && s.ok()) s = CopyError("close " + to, errno);
  return s;
}

std::optional<uint64_t> AllocatedBytes(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return static_cast<uint64_t>(st.st_blocks) * 512;
}

}  // namespace dirload
