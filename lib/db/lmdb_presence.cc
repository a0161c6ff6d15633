#include "lib/db/lmdb_presence.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "lib/format/mdb/mdb_env.h"

namespace dirload {
namespace {

std::string LockPath(const std::string& dir) { return dir + "/lock.mdb"; }

Status StorageError(const std::string& what, int err) {
  return Status::IoError(what + ": " + std::strerror(err)).WithOrigin(ErrorOrigin::kStorage);
}

// LMDB's lock: the file's first byte.
struct flock FirstByte(short type) {
  struct flock l {};
  l.l_type = type;
  l.l_whence = SEEK_SET;
  l.l_start = 0;
  l.l_len = 1;
  return l;
}

std::string ProcessName(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  std::getline(in, name);
  return name;
}

// Who holds a lock on `fd`'s first byte that conflicts with taking it
// exclusively, if anyone.
Result<std::optional<std::string>> Holder(int fd, const std::string& path) {
  struct flock l = FirstByte(F_WRLCK);
  if (::fcntl(fd, F_GETLK, &l) != 0) return StorageError("fcntl(F_GETLK) " + path, errno);
  if (l.l_type == F_UNLCK) return std::optional<std::string>();
  std::string who = "process " + std::to_string(l.l_pid);
  const std::string name = ProcessName(l.l_pid);
  if (!name.empty()) who += " (" + name + ")";
  return std::optional<std::string>(who);
}

}  // namespace

Result<std::optional<std::string>> LmdbEnvironmentUser(const std::string& dir) {
  const std::string path = LockPath(dir);
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) {
    if (errno == ENOENT) return std::optional<std::string>();
    return StorageError("open " + path, errno);
  }
  return Holder(fd.get(), path);
}

Status InUseError(const std::string& dir, const std::string& user) {
  return Status::AlreadyExists(dir + " is open by " + user +
                               ": dirload writes slapd's database by itself only when nothing "
                               "else has it open; stop it (e.g. systemctl stop slapd) and run "
                               "again, or write beside it with --online (add, index)")
      .WithOrigin(ErrorOrigin::kDatabase);
}

Result<EnvironmentHold> EnvironmentHold::Acquire(const std::string& dir) {
  const std::string path = LockPath(dir);
  UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (!fd.valid()) return StorageError("open " + path, errno);
  DIRLOAD_ASSIGN_OR_RETURN(FileOwner owner, OwnerOf(dir));
  DIRLOAD_RETURN_IF_ERROR(GiveTo(path, owner));
  struct flock l = FirstByte(F_WRLCK);
  if (::fcntl(fd.get(), F_SETLK, &l) != 0) {
    const int err = errno;
    if (err != EAGAIN && err != EACCES) return StorageError("fcntl(F_SETLK) " + path, err);
    DIRLOAD_ASSIGN_OR_RETURN(std::optional<std::string> user, Holder(fd.get(), path));
    return InUseError(dir, user.value_or("another process"));
  }
  return EnvironmentHold(dir, std::move(fd));
}

EnvironmentHold::~EnvironmentHold() {
  if (!fd_.valid()) return;
  // Opening the environment in this process takes LMDB's lock as its own
  // (fcntl locks belong to the process), initializes the lock file, and
  // closing it lets go of every lock this process has on the file.
  std::error_code ec;
  if (std::filesystem::exists(dir_ + "/data.mdb", ec)) {
    mdb::MdbEnvOptions ro;
    ro.read_only = true;
    (void)mdb::MdbEnv::Open(dir_, ro);
  }
}

}  // namespace dirload
