// MdbStagedLoad: `dirload add` into slapd's own database (OpenLDAP 2.5
// back-mdb, lib/format/mdb). The loader (loader.h) hands each entry to an
// MdbSink (mdb_sink.h) that writes it with an MdbLoadWriter.
//
// The database is built aside (mdb_build_dir.h): a new one from nothing, an
// append on a copy of the existing data.mdb. Only when phase 1 and the
// indexes are written and synced does Install() put the built data.mdb in
// place. A slapd started meanwhile sees the database as it was before,
// never a half load; a run that fails or is killed leaves DIR untouched.
//
// Thread safety: one thread.
#pragma once

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "lib/format/mdb/mdb_build_dir.h"
#include "lib/format/mdb/mdb_index_builder.h"
#include "lib/format/mdb/mdb_sink.h"
#include "lib/format/mdb/mdb_writer.h"
#include "lib/index/index_spec.h"
#include "lib/schema/schema.h"
#include "lib/util/status.h"

namespace dirload {

struct MdbStagedLoadOptions {
  mdb::MdbWriterOptions writer;  // map size, quick, index names
  mdb::MdbIndexOptions index;    // key options, memory, temp dir
  std::string suffix;
  // The indexes phase 2 builds, as canonical lines: recorded once phase 1
  // of a first load is complete, so that `dirload recover` can finish a
  // load killed in phase 2 instead of throwing its entries away.
  std::vector<std::string> index_lines;
};

class MdbStagedLoad {
 public:
  // Prepares the build directory of `dir` (which holds no database, or a
  // back-mdb one to append to).
  static Result<std::unique_ptr<MdbStagedLoad>> Begin(const std::string& dir, const Schema& schema,
                                                      const MdbStagedLoadOptions& options);
  ~MdbStagedLoad();  // the build directory goes unless installed
  MdbStagedLoad(const MdbStagedLoad&) = delete;
  MdbStagedLoad& operator=(const MdbStagedLoad&) = delete;

  EntrySink* sink() { return sink_.get(); }
  bool appending() const { return appending_; }
  const std::string& build_dir() const { return build_->path(); }

  // After the loader's Run: writes what waited and dn2i, and starts writing
  // the pages out in the background (Install waits for them); a first load
  // with indexes to build then records its entries complete
  // (MdbBuildDir::MarkEntriesComplete), still in the background.
  Status FinishEntries();
  // Phase 2: the index databases of `specs` (all of them: the new entries'
  // keys and the old ones' are rebuilt together on append).
  Result<mdb::MdbIndexStats> BuildIndexes(const std::vector<IndexSpec>& specs);
  // Moves the built database into place (see above).
  Status Install();

 private:
  MdbStagedLoad(const Schema& schema, MdbStagedLoadOptions options)
      : schema_(schema), options_(std::move(options)) {}

  const Schema& schema_;
  MdbStagedLoadOptions options_;
  std::unique_ptr<mdb::MdbBuildDir> build_;
  bool appending_ = false;
  std::unique_ptr<mdb::MdbLoadWriter> writer_;
  std::unique_ptr<MdbSink> sink_;
  // Phase 1's pages go to disk while phase 2 runs; what recording them
  // complete gave, read once the thread is joined.
  std::thread writeback_;
  Status marked_;
};

}  // namespace dirload
