#include "lib/format/mdb/mdb_build_dir.h"

#include <sys/stat.h>

#include <cerrno>
#include <filesystem>
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

}  // namespace

std::string MdbBuildDirPath(const std::string& dir) {
  return (fs::path(dir) / ".dirload-build").string();
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
  if (installed_) return;
  std::error_code ec;
  fs::remove_all(path_, ec);
}

}  // namespace dirload::mdb
