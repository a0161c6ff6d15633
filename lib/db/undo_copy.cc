#include "lib/db/undo_copy.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "lib/util/file.h"

namespace dirload {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kManifest = "manifest";

Status StorageError(const std::string& what, int err) {
  return Status::IoError(what + ": " + std::strerror(err)).WithOrigin(ErrorOrigin::kStorage);
}

std::string UndoDir(const std::string& dir) { return dir + "/" + std::string(kUndoCopyDir); }

bool IsDatabaseFile(const std::string& name) {
  if (name == "data.mdb") return true;
  if (name.size() > 4 && name.compare(name.size() - 4, 4, ".bdb") == 0) return true;
  return name.rfind("log.", 0) == 0;  // Berkeley DB's write-ahead log (--durable)
}

Status SyncDir(const std::string& path) {
  return SyncDirectory(path).WithOrigin(ErrorOrigin::kStorage);
}

Result<std::vector<std::string>> ReadManifest(const std::string& dir) {
  const std::string path = UndoDir(dir) + "/" + std::string(kManifest);
  std::ifstream in(path, std::ios::binary);
  if (!in) return StorageError("open " + path, errno);
  std::vector<std::string> names;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    if (!IsDatabaseFile(line) || line.find('/') != std::string::npos) {
      return Status::Corruption(path + ": unexpected file name '" + line + "'")
          .WithOrigin(ErrorOrigin::kDatabase);
    }
    names.push_back(line);
  }
  return names;
}

}  // namespace

UndoCopyState UndoCopyStateOf(const std::string& dir) {
  std::error_code ec;
  if (!fs::exists(UndoDir(dir), ec)) return UndoCopyState::kNone;
  if (fs::exists(UndoDir(dir) + "/" + std::string(kManifest), ec)) return UndoCopyState::kComplete;
  return UndoCopyState::kIncomplete;
}

Result<std::vector<std::string>> NativeDatabaseFiles(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (IsDatabaseFile(name) && e.is_regular_file(ec)) names.push_back(name);
  }
  if (ec) return StorageError("list " + dir, ec.value());
  std::sort(names.begin(), names.end());
  return names;
}

Result<uint64_t> TakeUndoCopy(const std::string& dir) {
  DIRLOAD_RETURN_IF_ERROR(RemoveUndoCopy(dir));
  DIRLOAD_ASSIGN_OR_RETURN(std::vector<std::string> names, NativeDatabaseFiles(dir));
  uint64_t bytes = 0;
  std::error_code ec;
  for (const std::string& n : names) bytes += fs::file_size(dir + "/" + n, ec);
  const std::string undo = UndoDir(dir);
  if (::mkdir(undo.c_str(), 0700) != 0) return StorageError("create " + undo, errno);
  for (const std::string& n : names) {
    Status s = CopyFileKeepingOwner(dir + "/" + n, undo + "/" + n);
    if (!s.ok()) {
      (void)RemoveUndoCopy(dir);
      // A full copy that does not fit: say so before anything was written.
      struct statvfs sv {};
      if (::statvfs(dir.c_str(), &sv) == 0 &&
          static_cast<uint64_t>(sv.f_bavail) * sv.f_frsize < bytes) {
        return StorageError(
            dir + ": an append first keeps a copy of the database (" + std::to_string(bytes >> 20) +
                " MB) to go back to, and " + "the file system has " +
                std::to_string((static_cast<uint64_t>(sv.f_bavail) * sv.f_frsize) >> 20) +
                " MB free",
            ENOSPC);
      }
      return s;
    }
  }
  // The manifest last: until it is there, the copy does not count.
  const std::string manifest = undo + "/" + std::string(kManifest);
  const std::string tmp = manifest + ".tmp";
  {
    std::string text;
    for (const std::string& n : names) text += n + "\n";
    UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
    if (!fd.valid()) return StorageError("create " + tmp, errno);
    const bool written =
        ::write(fd.get(), text.data(), text.size()) == static_cast<ssize_t>(text.size());
    if (!written) return StorageError("write " + tmp, errno);
    DIRLOAD_RETURN_IF_ERROR(SyncFd(fd.get(), tmp).WithOrigin(ErrorOrigin::kStorage));
  }
  DIRLOAD_RETURN_IF_ERROR(SyncDir(undo));
  if (::rename(tmp.c_str(), manifest.c_str()) != 0) return StorageError("rename " + tmp, errno);
  DIRLOAD_RETURN_IF_ERROR(SyncDir(undo));
  DIRLOAD_RETURN_IF_ERROR(SyncDir(dir));
  return bytes;
}

Status RestoreUndoCopy(const std::string& dir) {
  DIRLOAD_ASSIGN_OR_RETURN(std::vector<std::string> keep, ReadManifest(dir));
  DIRLOAD_ASSIGN_OR_RETURN(std::vector<std::string> present, NativeDatabaseFiles(dir));
  const std::string undo = UndoDir(dir);
  // Files the append created (new tables, log files) go first.
  for (const std::string& n : present) {
    if (std::find(keep.begin(), keep.end(), n) != keep.end()) continue;
    if (::unlink((dir + "/" + n).c_str()) != 0 && errno != ENOENT) {
      return StorageError("remove " + dir + "/" + n, errno);
    }
  }
  for (const std::string& n : keep) {
    const std::string from = undo + "/" + n;
    if (::access(from.c_str(), F_OK) != 0) continue;  // moved back by an earlier attempt
    if (::rename(from.c_str(), (dir + "/" + n).c_str()) != 0) {
      return StorageError("rename " + from, errno);
    }
  }
  // LMDB's lock file describes the environment that was there; the next
  // opener makes a new one.
  if (::unlink((dir + "/lock.mdb").c_str()) != 0 && errno != ENOENT) {
    return StorageError("remove " + dir + "/lock.mdb", errno);
  }
  DIRLOAD_RETURN_IF_ERROR(SyncDir(dir));
  return RemoveUndoCopy(dir);
}

Status RemoveUndoCopy(const std::string& dir) {
  std::error_code ec;
  fs::remove_all(UndoDir(dir), ec);
  if (ec) return StorageError("remove " + UndoDir(dir), ec.value());
  return Status::Ok();
}

Status RemoveNativeDatabaseFiles(const std::string& dir) {
  DIRLOAD_ASSIGN_OR_RETURN(std::vector<std::string> present, NativeDatabaseFiles(dir));
  for (const std::string& n : present) {
    if (::unlink((dir + "/" + n).c_str()) != 0 && errno != ENOENT) {
      return StorageError("remove " + dir + "/" + n, errno);
    }
  }
  // LMDB's lock file holds no data; without data.mdb it only misleads.
  if (::unlink((dir + "/lock.mdb").c_str()) != 0 && errno != ENOENT) {
    return StorageError("remove " + dir + "/lock.mdb", errno);
  }
  return SyncDir(dir);
}

}  // namespace dirload
