#include "lib/format/mdb/mdb_build_dir.h"

#include <sys/stat.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "lib/util/file.h"

namespace dirload::mdb {
namespace {

namespace fs = std::filesystem;

Status StorageError(const std::string& what, const std::error_code& ec) {
  return Status::IoError(what + ": " + ec.message()).WithOrigin(ErrorOrigin::kStorage);
}

Status ErrnoError(const std::string& what) {
  return StorageError(what, std::error_code(errno, std::generic_category()));
}

// The record of complete entries, in the build directory: "entries N", then
// one "index LINE" per index, one per line.
constexpr char kCompleteName[] = "entries-complete";
constexpr char kCompleteHeader[] = "dirload build: entries complete";

}  // namespace

std::string MdbBuildDirPath(const std::string& dir) {
  return (fs::path(dir) / ".dirload-build").string();
}

Result<std::optional<MdbCompleteEntries>> ReadMdbCompleteEntries(const std::string& dir) {
  const fs::path record = fs::path(MdbBuildDirPath(dir)) / kCompleteName;
  std::error_code ec;
  if (!fs::exists(record, ec) || !fs::exists(fs::path(MdbBuildDirPath(dir)) / "data.mdb", ec)) {
    return std::optional<MdbCompleteEntries>();
  }
  std::ifstream in(record);
  std::string line;
  if (!std::getline(in, line) || line != kCompleteHeader) {
    return Status::Corruption(record.string() + ": not a record of complete entries")
        .WithOrigin(ErrorOrigin::kDatabase);
  }
  MdbCompleteEntries what;
  while (std::getline(in, line)) {
    if (line.rfind("entries ", 0) == 0) {
      what.entries = std::strtoull(line.c_str() + 8, nullptr, 10);
    } else if (line.rfind("index ", 0) == 0) {
      what.index_lines.push_back(line.substr(6));
    }
  }
  return std::optional<MdbCompleteEntries>(std::move(what));
}

Result<std::unique_ptr<MdbBuildDir>> MdbBuildDir::Create(const std::string& dir,
                                                         bool copy_existing) {
  std::unique_ptr<MdbBuildDir> build(new MdbBuildDir(dir, MdbBuildDirPath(dir)));
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return StorageError("create " + dir, ec);
  // What a killed run left is of no use: start again.
  fs::remove_all(build->path_, ec);
  if (ec) return StorageError("remove " + build->path_, ec);
  fs::create_directories(build->path_, ec);
  if (ec) return StorageError("create " + build->path_, ec);
  if (copy_existing) {
    DIRLOAD_RETURN_IF_ERROR(CopyFileKeepingOwner((fs::path(dir) / "data.mdb").string(),
                                                 (fs::path(build->path_) / "data.mdb").string(),
                                                 /*sync=*/false));
  }
  return build;
}

Result<std::unique_ptr<MdbBuildDir>> MdbBuildDir::Resume(const std::string& dir) {
  std::unique_ptr<MdbBuildDir> build(new MdbBuildDir(dir, MdbBuildDirPath(dir)));
  std::error_code ec;
  if (!fs::exists(fs::path(build->path_) / "data.mdb", ec)) {
    return Status::NotFound(build->path_ + " holds no build").WithOrigin(ErrorOrigin::kDatabase);
  }
  build->keep_on_failure_ = true;
  return build;
}

Status MdbBuildDir::MarkEntriesComplete(const MdbCompleteEntries& what) {
  DIRLOAD_RETURN_IF_ERROR(
      SyncPath((fs::path(path_) / "data.mdb").string()).WithOrigin(ErrorOrigin::kStorage));
  std::ostringstream text;
  text << kCompleteHeader << "\nentries " << what.entries << "\n";
  for (const std::string& l : what.index_lines) text << "index " << l << "\n";
  const std::string record = (fs::path(path_) / kCompleteName).string();
  const std::string temp = record + ".tmp";
  {
    std::ofstream out(temp, std::ios::trunc);
    out << text.str();
    out.close();
    if (!out) return ErrnoError("write " + temp);
  }
  DIRLOAD_RETURN_IF_ERROR(SyncPath(temp).WithOrigin(ErrorOrigin::kStorage));
  if (::rename(temp.c_str(), record.c_str()) != 0) return ErrnoError("rename " + temp);
  return SyncPath(path_).WithOrigin(ErrorOrigin::kStorage);
}

Status MdbBuildDir::Install() {
  const std::string built = (fs::path(path_) / "data.mdb").string();
  const std::string target = (fs::path(dir_) / "data.mdb").string();
  DIRLOAD_RETURN_IF_ERROR(SyncPath(built).WithOrigin(ErrorOrigin::kStorage));
  DIRLOAD_ASSIGN_OR_RETURN(FileOwner owner, OwnerOf(dir_));
  DIRLOAD_RETURN_IF_ERROR(GiveTo(built, owner));
  struct stat existing {};
  const mode_t mode = ::stat(target.c_str(), &existing) == 0 ? (existing.st_mode & 07777) : 0600;
  if (::chmod(built.c_str(), mode) != 0) return ErrnoError("chmod " + built);
  if (::rename(built.c_str(), target.c_str()) != 0) {
    return ErrnoError("rename " + built + " to " + target);
  }
  DIRLOAD_RETURN_IF_ERROR(SyncPath(dir_).WithOrigin(ErrorOrigin::kStorage));
  installed_ = true;
  std::error_code ec;
  fs::remove_all(path_, ec);
  // slapd's lock file is created by whoever opens the database first: make
  // sure an existing one is slapd's to open too.
  return GiveFilesTo(dir_, {"lock.mdb"}, owner);
}

MdbBuildDir::~MdbBuildDir() {
  if (installed_ || keep_on_failure_) return;
  std::error_code ec;
  fs::remove_all(path_, ec);
}

}  // namespace dirload::mdb
