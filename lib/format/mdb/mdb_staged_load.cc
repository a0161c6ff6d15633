#include "lib/format/mdb/mdb_staged_load.h"

#include <filesystem>
#include <optional>

#include "lib/format/mdb/mdb_env.h"

namespace dirload {

Result<std::unique_ptr<MdbStagedLoad>> MdbStagedLoad::Begin(const std::string& dir,
                                                            const Schema& schema,
                                                            const MdbStagedLoadOptions& options) {
  std::unique_ptr<MdbStagedLoad> load(new MdbStagedLoad(schema, options));
  // Append on a copy: the database slapd may serve is not touched until
  // Install.
  load->appending_ = std::filesystem::exists(std::filesystem::path(dir) / "data.mdb");
  DIRLOAD_ASSIGN_OR_RETURN(load->build_, mdb::MdbBuildDir::Create(dir, load->appending_));
  const std::string& build_dir = load->build_->path();
  if (load->appending_) {
    DIRLOAD_ASSIGN_OR_RETURN(load->writer_,
                             mdb::MdbLoadWriter::OpenExisting(schema, build_dir, options.writer));
  } else {
    DIRLOAD_ASSIGN_OR_RETURN(load->writer_,
                             mdb::MdbLoadWriter::Create(schema, build_dir, options.writer));
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
  std::optional<mdb::MdbCompleteEntries> complete;
  if (!appending_ && !options_.index_lines.empty()) {
    complete = mdb::MdbCompleteEntries{writer_->entries_added(), options_.index_lines};
  }
  writeback_ = std::thread([this, env, complete] {
    env->StartWriteback();
    // Not through env->Sync(): phase 2 runs meanwhile on the caller's
    // thread, and the caller's syncs stay in their order.
    if (complete) marked_ = build_->MarkEntriesComplete(*complete);
  });
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
  DIRLOAD_RETURN_IF_ERROR(marked_);
  DIRLOAD_RETURN_IF_ERROR(writer_->env().Sync());
  sink_.reset();
  writer_.reset();
  return build_->Install();
}

MdbStagedLoad::~MdbStagedLoad() {
  if (writeback_.joinable()) writeback_.join();
  // The environment closes before its directory goes.
  sink_.reset();
  writer_.reset();
  build_.reset();
}

}  // namespace dirload
