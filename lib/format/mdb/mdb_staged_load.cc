#include "lib/format/mdb/mdb_staged_load.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <system_error>

#include "lib/format/mdb/mdb_env.h"
#include "lib/util/file.h"

namespace dirload {
namespace {

namespace fs = std::filesystem;

constexpr char kBuildDirName[] = ".dirload-build";

Status StorageError(const std::string& what, const std::error_code& ec) {
  return Status::IoError(what + ": " + ec.message()).WithOrigin(ErrorOrigin::kStorage);
}

}  // namespace

Result<std::unique_ptr<MdbStagedLoad>> MdbStagedLoad::Begin(const std::string& dir,
                                                            const Schema& schema,
                                                            const MdbStagedLoadOptions& options) {
  std::unique_ptr<MdbStagedLoad> load(new MdbStagedLoad(schema, options));
  load->dir_ = dir;
  load->build_dir_ = (fs::path(dir) / kBuildDirName).string();
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return StorageError("create " + dir, ec);
  // What a killed run left is of no use: start again.
  fs::remove_all(load->build_dir_, ec);
  if (ec) return StorageError("remove " + load->build_dir_, ec);
  fs::create_directories(load->build_dir_, ec);
  if (ec) return StorageError("create " + load->build_dir_, ec);

  const std::string existing = (fs::path(dir) / "data.mdb").string();
  load->appending_ = fs::exists(existing);
  if (load->appending_) {
    // Append on a copy: the database slapd may serve is not touched until
    // Install. A copy of the file, not through LMDB: the caller holds the
    // environment (lmdb_presence.h), which an environment opened here would
    // release, and nothing writes it meanwhile.
    DIRLOAD_RETURN_IF_ERROR(
        CopyFileKeepingOwner(existing, (fs::path(load->build_dir_) / "data.mdb").string()));
  }
  if (load->appending_) {
    DIRLOAD_ASSIGN_OR_RETURN(
        load->writer_, mdb::MdbLoadWriter::OpenExisting(schema, load->build_dir_, options.writer));
  } else {
    DIRLOAD_ASSIGN_OR_RETURN(load->writer_,
                             mdb::MdbLoadWriter::Create(schema, load->build_dir_, options.writer));
  }
  load->sink_ = std::make_unique<MdbSink>(load->writer_.get(), &schema);
  return load;
}

Status MdbStagedLoad::FinishEntries() {
  // The loader finished the sink: every entry is written.
  DIRLOAD_RETURN_IF_ERROR(writer_->Finish());
  // Phase 2 writes best through the map (MdbLoadWriter::ReopenForIndexes).
  if (!options_.writer.index_names.empty()) DIRLOAD_RETURN_IF_ERROR(writer_->ReopenForIndexes());
  // Install syncs once, for both phases; starting the writes now overlaps
  // them with phase 2 instead of waiting for them here or there.
  mdb::MdbEnv* env = &writer_->env();
  writeback_ = std::thread([env] { env->StartWriteback(); });
  return Status::Ok();
}

Result<mdb::MdbIndexStats> MdbStagedLoad::BuildIndexes(const std::vector<IndexSpec>& specs) {
  mdb::MdbIndexOptions o = options_.index;
  // On append the old entries' keys are rebuilt with the new ones.
  o.rebuild = appending_;
  o.sync = false;  // Install syncs
  return mdb::MdbIndexBuilder::Build(writer_->env(), schema_, specs, o);
}

Status MdbStagedLoad::Install() {
  if (writeback_.joinable()) writeback_.join();
  DIRLOAD_RETURN_IF_ERROR(writer_->env().Sync());
  sink_.reset();
  writer_.reset();
  const std::string built = (fs::path(build_dir_) / "data.mdb").string();
  const std::string target = (fs::path(dir_) / "data.mdb").string();
  DIRLOAD_RETURN_IF_ERROR(SyncPath(built).WithOrigin(ErrorOrigin::kStorage));
  // The files take the directory's owner: slapd (user openldap) must be
  // able to open what root loaded. data.mdb keeps the mode it had (0600
  // for a new one, as slapadd): it holds password hashes.
  DIRLOAD_ASSIGN_OR_RETURN(FileOwner owner, OwnerOf(dir_));
  DIRLOAD_RETURN_IF_ERROR(GiveTo(built, owner));
  struct stat existing {};
  const mode_t mode = ::stat(target.c_str(), &existing) == 0 ? (existing.st_mode & 07777) : 0600;
  if (::chmod(built.c_str(), mode) != 0) {
    return StorageError("chmod " + built, std::error_code(errno, std::generic_category()));
  }
  if (::rename(built.c_str(), target.c_str()) != 0) {
    return StorageError("rename " + built + " to " + target,
                        std::error_code(errno, std::generic_category()));
  }
  DIRLOAD_RETURN_IF_ERROR(SyncPath(dir_).WithOrigin(ErrorOrigin::kStorage));
  installed_ = true;
  std::error_code ec;
  fs::remove_all(build_dir_, ec);
  // slapd's lock file: created by whoever opens the database first; make
  // sure an existing one is slapd's to open too.
  return GiveFilesTo(dir_, {"lock.mdb"}, owner);
}

MdbStagedLoad::~MdbStagedLoad() {
  if (writeback_.joinable()) writeback_.join();
  sink_.reset();
  writer_.reset();
  if (!installed_ && !build_dir_.empty()) {
    std::error_code ec;
    fs::remove_all(build_dir_, ec);
  }
}

}  // namespace dirload
