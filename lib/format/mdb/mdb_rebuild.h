// slapindex on slapd's own format (back-mdb): which index databases a run
// rebuilds and which it deletes, and the run itself. slapd records no index
// configuration, so nothing tells a stale index from a current one: every
// configured index (or each one named) is rebuilt from id2e, and an index
// database no index line names is deleted only when asked (`all`, or named).
//
// Thread safety: one thread per call (MdbIndexBuilder starts its own).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "lib/format/mdb/mdb_index_builder.h"
#include "lib/index/index_spec.h"
#include "lib/schema/schema.h"
#include "lib/util/status.h"

namespace dirload {

struct MdbIndexPlan {
  std::vector<IndexSpec> rebuild;
  std::vector<std::string> drop;          // index databases to delete
  std::vector<std::string> missing;       // configured, with no database yet
  std::vector<std::string> unconfigured;  // databases no index line names
};

// What a run on the database in `dir` does with `config`: `attributes`
// (names as given; empty: every configured index) are rebuilt when
// configured and dropped when not; with `all`, every unconfigured database
// is dropped too. Errors: more indexes than back-mdb opens (kConfiguration),
// a named attribute with neither an index line nor a database (kUsage), and
// the database's own (kDatabase, kStorage).
Result<MdbIndexPlan> PlanMdbIndexRebuild(const std::string& dir, const Schema& schema,
                                         const IndexConfig& config,
                                         std::span<const std::string> attributes, bool all);

// Carries `plan` out as slapindex -q does (one writable map, the drops
// first, then MdbIndexBuilder::Build, one sync at the end), but on a copy
// of data.mdb built aside and put in place when complete (mdb_build_dir.h):
// slapd never finds half an index, and a run that stops leaves the
// database as it was. `map_size` is slapd's maxsize (0: room enough).
// The caller keeps other processes out of the environment throughout
// (lib/db/lmdb_presence.h), and opens none itself meanwhile.
Result<mdb::MdbIndexStats> RunMdbIndexRebuild(const std::string& dir, uint64_t map_size,
                                              const Schema& schema, const MdbIndexPlan& plan,
                                              const mdb::MdbIndexOptions& options);

// Finishes a first load that was killed in phase 2 with its entries
// complete (mdb_build_dir.h, ReadMdbCompleteEntries): checks that id2e in
// the build holds the `entries` recorded, builds `specs` there as phase 2
// does, and installs the build. The caller holds the environment and has
// made sure DIR holds no data.mdb. On failure the build is kept, to try
// again. Errors: a build whose entries are not those recorded (kDatabase),
// the engine's (kStorage).
Result<mdb::MdbIndexStats> FinishMdbBuild(const std::string& dir, uint64_t map_size,
                                          const Schema& schema, uint64_t entries,
                                          const std::vector<IndexSpec>& specs,
                                          const mdb::MdbIndexOptions& options);

}  // namespace dirload
