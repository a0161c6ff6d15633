#include "lib/db/pending_work.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

#include "lib/db/database_lock.h"
#include "lib/util/file.h"

namespace dirload {
namespace {

Status StorageError(const std::string& what, int err) {
  return Status::IoError(what + ": " + std::strerror(err)).WithOrigin(ErrorOrigin::kStorage);
}

std::string MarkPath(const std::string& dir) { return dir + "/" + std::string(kPendingWorkFile); }

Status SyncDir(const std::string& dir) {
  return SyncDirectory(dir).WithOrigin(ErrorOrigin::kStorage);
}

std::string OneLine(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

}  // namespace

std::string_view WorkKindName(WorkKind kind) {
  switch (kind) {
    case WorkKind::kLoad:
      return "load";
    case WorkKind::kAppend:
      return "append";
    case WorkKind::kIndex:
      return "index";
    case WorkKind::kOnlineAdd:
      return "online-add";
    case WorkKind::kModify:
      return "modify";
  }
  return "unknown";
}

Status BeginPendingWork(const std::string& dir, const PendingWork& work) {
  std::string text = "work: " + std::string(WorkKindName(work.kind)) + "\n";
  text += "format: " + std::string(DatabaseFormatName(work.format)) + "\n";
  for (const std::string& line : work.index_lines) text += "index: " + OneLine(line) + "\n";
  if (work.kind == WorkKind::kOnlineAdd) {
    text += "input: " + OneLine(work.input) + "\n";
    text += "committed: " + std::to_string(work.committed) + "\n";
    text += "resume: " + std::to_string(work.resume_line) + "\n";
  }
  text += "command: " + OneLine(work.command) + "\n";
  const std::string path = MarkPath(dir);
  const std::string tmp = path + ".tmp";
  {
    UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    if (!fd.valid()) return StorageError("create " + tmp, errno);
    const ssize_t n = ::write(fd.get(), text.data(), text.size());
    if (n != static_cast<ssize_t>(text.size())) {
      return StorageError("write " + tmp, n < 0 ? errno : ENOSPC);
    }
    DIRLOAD_RETURN_IF_ERROR(SyncFd(fd.get(), tmp).WithOrigin(ErrorOrigin::kStorage));
  }
  // `dirload recover` may run as the directory's owner after a root run.
  DIRLOAD_ASSIGN_OR_RETURN(FileOwner owner, OwnerOf(dir));
  DIRLOAD_RETURN_IF_ERROR(GiveTo(tmp, owner));
  if (::rename(tmp.c_str(), path.c_str()) != 0) return StorageError("rename " + tmp, errno);
  return SyncDir(dir);
}

Status EndPendingWork(const std::string& dir) {
  const std::string path = MarkPath(dir);
  if (::unlink(path.c_str()) != 0) {
    if (errno == ENOENT) return Status::Ok();
    return StorageError("remove " + path, errno);
  }
  return SyncDir(dir);
}

Result<std::optional<PendingWork>> ReadPendingWork(const std::string& dir) {
  const std::string path = MarkPath(dir);
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (errno == ENOENT || ::access(path.c_str(), F_OK) != 0) return std::optional<PendingWork>();
    return StorageError("open " + path, errno);
  }
  PendingWork work;
  bool has_kind = false;
  std::string line;
  while (std::getline(in, line)) {
    const size_t colon = line.find(": ");
    if (colon == std::string::npos) continue;
    const std::string key = line.substr(0, colon);
    std::string value = line.substr(colon + 2);
    if (key == "work") {
      has_kind = true;
      if (value == "load") {
        work.kind = WorkKind::kLoad;
      } else if (value == "append") {
        work.kind = WorkKind::kAppend;
      } else if (value == "index") {
        work.kind = WorkKind::kIndex;
      } else if (value == "online-add") {
        work.kind = WorkKind::kOnlineAdd;
      } else if (value == "modify") {
        work.kind = WorkKind::kModify;
      } else {
        has_kind = false;
      }
    } else if (key == "format") {
      Result<DatabaseFormat> format = ParseDatabaseFormat(value);
      if (!format.ok()) {
        return Status::Corruption(path + ": unknown format '" + value + "'")
            .WithOrigin(ErrorOrigin::kDatabase);
      }
      work.format = *format;
    } else if (key == "index") {
      work.index_lines.push_back(std::move(value));
    } else if (key == "input") {
      work.input = std::move(value);
    } else if (key == "committed" || key == "resume") {
      (key == "committed" ? work.committed : work.resume_line) =
          std::strtoull(value.c_str(), nullptr, 10);
    } else if (key == "command") {
      work.command = std::move(value);
    }
  }
  if (!has_kind) {
    return Status::Corruption(path + ": not a mark of pending work dirload understands")
        .WithOrigin(ErrorOrigin::kDatabase);
  }
  return std::optional<PendingWork>(std::move(work));
}

Status PendingWorkError(const std::string& dir, const PendingWork& work) {
  const std::string phrase = work.kind == WorkKind::kLoad        ? "a load"
                             : work.kind == WorkKind::kAppend    ? "an append"
                             : work.kind == WorkKind::kOnlineAdd ? "an online add"
                             : work.kind == WorkKind::kModify    ? "a modify"
                                                                 : "an index rebuild";
  return Status::Corruption(dir + ": " + phrase + " did not finish (" + work.command +
                            "); run 'dirload recover' on it first")
      .WithOrigin(ErrorOrigin::kDatabase);
}

Status RequireNoPendingWork(const std::string& dir) {
  DIRLOAD_ASSIGN_OR_RETURN(std::optional<PendingWork> work, ReadPendingWork(dir));
  if (!work) return Status::Ok();
  DIRLOAD_ASSIGN_OR_RETURN(std::optional<std::string> writer, DatabaseLock::Writer(dir));
  const std::string what = std::string(WorkKindName(work->kind));
  if (writer) {
    return Status::AlreadyExists(dir + " is being written (" + what + ") by " + *writer +
                                 "; try again when it has finished")
        .WithOrigin(ErrorOrigin::kDatabase);
  }
  return PendingWorkError(dir, *work);
}

}  // namespace dirload
