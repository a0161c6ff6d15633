#include "lib/db/database_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>

#include "lib/util/file.h"

namespace dirload {
namespace {

Status StorageError(const std::string& what, int err) {
  return Status::IoError(what + ": " + std::strerror(err)).WithOrigin(ErrorOrigin::kStorage);
}

// The file `path` in `dir`, given to `dir`'s owner.
Status GiveToDirectoryOwner(const std::string& dir, const std::string& path) {
  DIRLOAD_ASSIGN_OR_RETURN(FileOwner owner, OwnerOf(dir));
  return GiveTo(path, owner);
}

}  // namespace

std::string ProcessCommandLine() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!text.empty() && text.back() == '\0') text.pop_back();
  for (char& c : text) {
    if (c == '\0' || c == '\n') c = ' ';
  }
  if (text.size() > 300) text = text.substr(0, 300) + "...";
  return text.empty() ? "dirload" : text;
}

namespace {

// What the holder wrote: "PID COMMAND", on one line.
std::string Holder(int fd) {
  char buf[512];
  ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return "";
  std::string text(buf, static_cast<size_t>(n));
  if (size_t nl = text.find('\n'); nl != std::string::npos) text.resize(nl);
  return text;
}

// Who holds the lock that `fd` could not take exclusively: readers when a
// shared lock can be had beside them (they write no names), else the writer
// the file names.
std::string HolderPhrase(const std::string& path, int fd) {
  int probe = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (probe >= 0) {
    const bool shared = ::flock(probe, LOCK_SH | LOCK_NB) == 0;
    ::close(probe);
    if (shared) return "a dirload reader (cat, search, stat or index --check)";
  }
  const std::string holder = Holder(fd);
  if (holder.empty()) return "another dirload process";
  const size_t space = holder.find(' ');
  return "process " + holder.substr(0, space) +
         (space == std::string::npos ? "" : " (" + holder.substr(space + 1) + ")");
}

}  // namespace

Result<std::optional<DatabaseLock>> DatabaseLock::AcquireForReading(const std::string& dir,
                                                                    bool berkeley_db) {
  if (!berkeley_db) return std::optional<DatabaseLock>();
  const std::string path = dir + "/" + std::string(kFileName);
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd >= 0) DIRLOAD_RETURN_IF_ERROR(GiveToDirectoryOwner(dir, path));
  if (fd < 0) fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT || errno == EACCES || errno == EROFS) return std::optional<DatabaseLock>();
    return StorageError("open " + path, errno);
  }
  DatabaseLock lock(fd);
  if (::flock(fd, LOCK_SH | LOCK_NB) != 0) {
    const int err = errno;
    if (err != EWOULDBLOCK) return StorageError("flock " + path, err);
    return Status::AlreadyExists(dir + " is being written by " + HolderPhrase(path, fd) +
                                 "; Berkeley DB cannot be read beside a writer: try again when "
                                 "it has finished")
        .WithOrigin(ErrorOrigin::kDatabase);
  }
  return std::optional<DatabaseLock>(std::move(lock));
}

Result<std::optional<std::string>> DatabaseLock::Writer(const std::string& dir) {
  const std::string path = dir + "/" + std::string(kFileName);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return std::optional<std::string>();
    return StorageError("open " + path, errno);
  }
  std::optional<std::string> writer;
  if (::flock(fd, LOCK_SH | LOCK_NB) != 0) {
    const int err = errno;
    if (err != EWOULDBLOCK) {
      ::close(fd);
      return StorageError("flock " + path, err);
    }
    writer = HolderPhrase(path, fd);
  }
  ::close(fd);
  return writer;
}

Result<DatabaseLock> DatabaseLock::Acquire(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return StorageError("create " + dir, ec.value());
  const std::string path = dir + "/" + std::string(kFileName);
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return StorageError("open " + path, errno);
  DatabaseLock lock(fd);
  // Later runs as the directory's owner (Debian's openldap) open it too.
  DIRLOAD_RETURN_IF_ERROR(GiveToDirectoryOwner(dir, path));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    if (err != EWOULDBLOCK) return StorageError("flock " + path, err);
    return Status::AlreadyExists(dir + " is in use by " + HolderPhrase(path, fd) +
                                 ": one writer at a time; wait for it to finish")
        .WithOrigin(ErrorOrigin::kDatabase);
  }
  const std::string text = std::to_string(::getpid()) + " " + ProcessCommandLine() + "\n";
  // Best effort: the lock itself is what excludes.
  if (::ftruncate(fd, 0) == 0) (void)::pwrite(fd, text.data(), text.size(), 0);
  return lock;
}

DatabaseLock::DatabaseLock(DatabaseLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

DatabaseLock& DatabaseLock::operator=(DatabaseLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

DatabaseLock::~DatabaseLock() {
  // Closing the descriptor releases the lock; the file stays for the next
  // writer to overwrite.
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace dirload
