// NativeIndexer: phase 2 of `dirload add` and the whole of `dirload index`
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
//   approx-keys.<table> "phonetic" once an approx index holds phonetic keys
//                       (index_keys.h); an approx index without it was built
//                       by a dirload that wrote equality keys for approx,
//                       and is stale
//
// Thread safety: one NativeIndexer, one thread; it borrows the store, schema and
// configuration, which must outlive it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "lib/index/index_builder.h"
#include "lib/index/index_spec.h"
#include "lib/schema/schema.h"
#include "lib/store/store.h"
#include "lib/util/progress.h"
#include "lib/util/run_stats.h"

namespace dirload {

// The meta keys above: kIndexMetaPrefix + table, and the mark of a build in progress.
inline constexpr std::string_view kIndexMetaPrefix = "index.";
inline constexpr std::string_view kIndexBuildingMark = "building";
inline constexpr std::string_view kApproxKeysMetaPrefix = "approx-keys.";
inline constexpr std::string_view kPhoneticApproxKeys = "phonetic";

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

struct IndexRunSummary {
  uint64_t entries = 0;
  bool fed = false;                  // the entries came from phase 1 (IndexFeed), not from a scan
  std::vector<std::string> built;    // tables
  std::vector<std::string> dropped;  // tables no longer configured
  BuilderStats builder;
  CacheStats cache_before, cache_after;
};

// Phase 2 fed by phase 1 (`dirload add --one-pass`): the loader hands over
// each entry as it stores it in id2entry, so that the index keys are made
// while phase 1 runs and phase 2 is left with sorting and writing the
// lists. The builder requires ascending IDs and entries that no longer
// change: when the loader stores an entry below an ID already fed (a
// parent that came after its child), or changes or removes an entry
// already fed (-w, -c), it abandons the feed, and phase 2 scans id2entry
// as it does without --one-pass.
class IndexFeed {
 public:
  ~IndexFeed();
  IndexFeed(const IndexFeed&) = delete;
  IndexFeed& operator=(const IndexFeed&) = delete;

  // `stored` is the entry's id2entry value; its descriptions are resolved
  // through `dictionary` (the loader's, the same one at every call).
  // Called by the loader's writing thread only. Does nothing once abandoned.
  [[nodiscard]] Status Add(EntryId id, std::string_view stored,
                           const AttributeDictionary& dictionary);
  // Gives the build up, and frees its memory and spill files.
  void Abandon(std::string why);
  bool abandoned() const { return !abandoned_.empty(); }
  const std::string& why_abandoned() const { return abandoned_; }

 private:
  friend class NativeIndexer;
  IndexFeed() = default;
  std::unique_ptr<IndexBuilder> builder_;
  std::vector<IndexSpec> specs_;
  EntryView entry_;
  EntryId last_id_ = 0;
  uint64_t entries_ = 0;
  std::string abandoned_;
};

class NativeIndexer {
 public:
  NativeIndexer(Store* store, const Schema* schema, const IndexConfig* config,
                ProgressSink* progress)
      : store_(store), schema_(schema), config_(config), progress_(progress) {}

  // REQUIRES: the database is ready (phase 1 complete).
  Result<IndexRunSummary> Run(const IndexRunOptions& options);

  // --one-pass: every configured index, built from what phase 1 feeds.
  // Marks the indexes as being built (not committed: the loader's first
  // commit does it) and starts the builder.
  // REQUIRES: a new database, before the loader begins; options.only empty.
  Result<std::unique_ptr<IndexFeed>> BeginFed(const IndexRunOptions& options);
  // After the loader finished: sorts and writes what the feed holds and
  // records the indexes as built. An abandoned feed is thrown away and
  // Run(options) builds the indexes instead.
  Result<IndexRunSummary> FinishFed(std::unique_ptr<IndexFeed> feed,
                                    const IndexRunOptions& options);

 private:
  // Drops what the configuration no longer has, marks `specs` as being
  // built and makes the marks durable.
  Status MarkBuilding(const std::vector<IndexSpec>& specs, IndexRunSummary* summary);
  // The builder has had every entry: its lists are written and the specs
  // recorded as built.
  Status Complete(IndexBuilder* builder, const std::vector<IndexSpec>& specs,
                  const IndexRunOptions& options, const PhaseClock& clock,
                  IndexRunSummary* summary);

  Store* store_;
  const Schema* schema_;
  const IndexConfig* config_;
  ProgressSink* progress_;
};

}  // namespace dirload
