#include "lib/util/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace dirload {
namespace {

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

}  // namespace dirload
