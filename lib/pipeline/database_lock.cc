#include "lib/pipeline/database_lock.h"

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

namespace dirload {
namespace {

Status StorageError(const std::string& what, int err) {
  return Status::IoError(what + ": " + std::strerror(err)).WithOrigin(ErrorOrigin::kStorage);
}

// This process's command line, its arguments joined by spaces.
std::string CommandLine() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!text.empty() && text.back() == '\0') text.pop_back();
  for (char& c : text) {
    if (c == '\0' || c == '\n') c = ' ';
  }
  if (text.size() > 300) text = text.substr(0, 300) + "...";
  return text.empty() ? "dirload" : text;
}

// What the holder wrote: "PID COMMAND", on one line.
std::string Holder(int fd) {
  char buf[512];
  ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return "";
  std::string text(buf, static_cast<size_t>(n));
  if (size_t nl = text.find('\n'); nl != std::string::npos) text.resize(nl);
  return text;
}

}  // namespace

Result<DatabaseLock> DatabaseLock::Acquire(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return StorageError("create " + dir, ec.value());
  const std::string path = dir + "/" + std::string(kFileName);
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return StorageError("open " + path, errno);
  DatabaseLock lock(fd);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    if (err != EWOULDBLOCK) return StorageError("flock " + path, err);
    const std::string holder = Holder(fd);
    std::string who = "another dirload process";
    if (!holder.empty()) {
      const size_t space = holder.find(' ');
      who = "process " + holder.substr(0, space) +
            (space == std::string::npos ? "" : " (" + holder.substr(space + 1) + ")");
    }
    return Status::AlreadyExists(dir + " is in use by " + who +
                                 ": one writer at a time; wait for it to finish")
        .WithOrigin(ErrorOrigin::kDatabase);
  }
  const std::string text = std::to_string(::getpid()) + " " + CommandLine() + "\n";
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
