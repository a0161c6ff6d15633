// Indexer: phase 2 of `dirload add` and the whole of `dirload index`
// (slapindex). Scans id2entry in ID order and builds the configured indexes
// with an IndexBuilder (lib/index), then records in meta what it built, so
// that a later change of the index configuration or of the schema shows as
// stale indexes instead of wrong answers.
//
// meta keys (text values):
//   index.<table>       "building:" + the spec's canonical line while a
//                       build runs, then the line alone ("cn eq,sub"); a
//                       table whose entry is missing, "building..." or
//                       another line is stale. The line kept while building
//                       is what an interrupted build is resumed with.
//   schema.fingerprint  hex digest of the schema the indexes were built with
//
// Thread safety: one Indexer, one thread; it borrows the store, schema and
// configuration, which must outlive it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "lib/index/index_builder.h"
#include "lib/index/index_spec.h"
#include "lib/pipeline/progress.h"
#include "lib/pipeline/run_stats.h"
#include "lib/schema/schema.h"
#include "lib/store/store.h"

namespace dirload {

// The meta keys above: kIndexMetaPrefix + table, and the mark of a build in progress.
inline constexpr std::string_view kIndexMetaPrefix = "index.";
inline constexpr std::string_view kIndexBuildingMark = "building";

struct IndexStatus {
  std::string table;
  std::string line;  // canonical configured line
  bool fresh = false;
  std::string why;  // for a stale index: what differs
};

// The configuration the database says its indexes were built with, or were
// being built with when a build was interrupted (one canonical line per
// index, `where` = "database"); empty when none.
Result<std::vector<IndexConfig::Line>> RecordedIndexLines(Store* store);
// Only the indexes whose build was interrupted.
Result<std::vector<IndexConfig::Line>> InterruptedIndexLines(Store* store);
// The line of a "building:LINE" mark (empty for the bare mark of older
// databases).
std::string BuildingLine(std::string_view mark);

// Marks every built index as unfinished (its line kept), as after an
// interrupted build: entries were added without indexing them. Returns the
// tables marked. Not committed.
Result<std::vector<std::string>> MarkIndexesUnfinished(Store* store);

// Index tables in the store that `config` does not configure.
Result<std::vector<std::string>> UnconfiguredIndexTables(Store* store, const IndexConfig& config);

// Compares the configuration with what meta says was built.
Result<std::vector<IndexStatus>> CheckIndexes(Store* store, const Schema& schema,
                                              const IndexConfig& config);

struct IndexRunOptions {
  IndexMethod method = IndexMethod::kSort;
  BuilderOptions builder;
  // Rebuild only these attributes (names as configured); empty: all.
  std::vector<std::string> only;
};

struct IndexRunSummary {
  uint64_t entries = 0;
  std::vector<std::string> built;    // tables
  std::vector<std::string> dropped;  // tables no longer configured
  BuilderStats builder;
  CacheStats cache_before, cache_after;
};

class Indexer {
 public:
  Indexer(Store* store, const Schema* schema, const IndexConfig* config, ProgressSink* progress)
      : store_(store), schema_(schema), config_(config), progress_(progress) {}

  // REQUIRES: the database is ready (phase 1 complete).
  Result<IndexRunSummary> Run(const IndexRunOptions& options);

 private:
  Store* store_;
  const Schema* schema_;
  const IndexConfig* config_;
  ProgressSink* progress_;
};

}  // namespace dirload
