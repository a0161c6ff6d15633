#include "lib/util/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

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

std::optional<uint64_t> AllocatedBytes(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return static_cast<uint64_t>(st.st_blocks) * 512;
}

}  // namespace dirload
