// Turns engine, cache and builder figures into --stats entries.
#pragma once

#include "lib/format/mdb/mdb_index_builder.h"
#include "lib/format/native/native_indexer.h"
#include "lib/store/store.h"
#include "lib/util/run_stats.h"

namespace dirload {

// The engine's cache figures now (Berkeley DB memp_stat; nothing on LMDB).
void AddCacheCounters(Store* store, PhaseStats* phase);
// Per-table entries and bytes, and the database's size on disk.
void AddTableTotals(Store* store, RunStats* stats);
// The engine's settings as it reports them (cache and mmap size, transactions,
// per-table page size and priority; LMDB's map), plus phase 2's method and
// IDL cache size when `index` is given.
void AddSettings(Store* store, const IndexRunOptions* index, RunStats* stats);
// Phase 2's figures: builder counters, IDL cache, engine cache deltas.
PhaseStats IndexPhaseStats(const IndexRunSummary& summary, const PhaseClock& clock);
// The same on slapd's format: keys, IDs, ranges and spilled runs.
PhaseStats MdbIndexPhaseStats(const mdb::MdbIndexStats& built, const PhaseClock& clock);

}  // namespace dirload
