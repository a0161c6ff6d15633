#include "lib/db/run_report.h"

#include <string>
#include <vector>

#include "lib/util/heap_headroom.h"
#include "lib/util/malloc_huge_pages.h"

namespace dirload {
namespace {

// The figures CacheStats and FileCacheStats share, by name.
template <typename Stats, typename Fn>
void ForEachCommonFigure(Stats& c, Fn&& fn) {
  fn("hits", c.hits);
  fn("misses", c.misses);
  fn("pages_read", c.pages_read);
  fn("pages_written", c.pages_written);
  fn("pages_created", c.pages_created);
  fn("pages_mapped", c.pages_mapped);
}

// "cache.hits", ..., then "cache.table.<name>.hits", ... per table.
void AddCache(const CacheStats& c, PhaseStats* p) {
  auto adder = [p](const std::string& prefix) {
    return [p, prefix](const char* name, uint64_t v) {
      p->counters.push_back({prefix + name, static_cast<double>(v)});
    };
  };
  auto add = adder("cache.");
  add("bytes", c.cache_bytes);
  ForEachCommonFigure(c, add);
  add("clean_evictions", c.clean_evictions);
  add("dirty_evictions", c.dirty_evictions);
  add("trickle_writes", c.trickle_writes);
  for (const auto& [table, fc] : c.tables)
    ForEachCommonFigure(fc, adder("cache.table." + table + "."));
}

// `a` minus `z`, figure by figure.
template <typename Stats>
Stats Subtract(Stats a, const Stats& z) {
  std::vector<uint64_t> old;
  ForEachCommonFigure(z, [&](const char*, uint64_t v) { old.push_back(v); });
  size_t i = 0;
  ForEachCommonFigure(a, [&](const char*, uint64_t& v) { v -= old[i++]; });
  return a;
}

// Whether every figure of `z` is at most the same figure of `a`.
bool NoneSmaller(const FileCacheStats& a, const FileCacheStats& z) {
  std::vector<uint64_t> later;
  ForEachCommonFigure(a, [&](const char*, uint64_t v) { later.push_back(v); });
  size_t i = 0;
  bool ok = true;
  ForEachCommonFigure(z, [&](const char*, uint64_t v) { ok = ok && v <= later[i++]; });
  return ok;
}

// What happened between two snapshots. A table the second one lacks was
// dropped: its figures went with it. One the first lacks is new: all of its
// figures belong to the interval. A table dropped and rebuilt in between
// starts again from zero, which shows as a smaller figure than before: then
// the later figure alone is the interval's.
CacheStats Delta(const CacheStats& a, const CacheStats& z) {
  CacheStats d = Subtract(a, z);
  d.clean_evictions -= z.clean_evictions;
  d.dirty_evictions -= z.dirty_evictions;
  d.trickle_writes -= z.trickle_writes;
  for (auto& [table, fc] : d.tables) {
    for (const auto& [old_table, old] : z.tables) {
      if (old_table == table && NoneSmaller(fc, old)) fc = Subtract(fc, old);
    }
  }
  return d;
}

}  // namespace

void AddCacheCounters(Store* store, PhaseStats* phase) {
  Result<CacheStats> cache = store->CacheStatistics();
  if (cache.ok() && cache->available) AddCache(*cache, phase);
}

void AddTableTotals(Store* store, RunStats* stats) {
  Result<StoreStats> ss = store->Statistics();
  if (!ss.ok()) return;
  stats->totals.push_back({"database_bytes", static_cast<double>(ss->file_bytes)});
  for (const TableStats& t : ss->tables) {
    stats->totals.push_back({"table." + t.name + ".entries", static_cast<double>(t.entries)});
    stats->totals.push_back({"table." + t.name + ".bytes", static_cast<double>(t.bytes)});
  }
}

void AddSettings(Store* store, const IndexRunOptions* index, RunStats* stats) {
  auto set = [&](const std::string& k, const std::string& v) { stats->settings.push_back({k, v}); };
  set("malloc_huge_pages", MallocHugePagesRequested() ? "true" : "false");
  set("malloc_top_pad", HeapHeadroomSetting());
  Result<EngineSettings> e = store->Settings();
  if (e.ok()) {
    set("transactional", e->transactional ? "true" : "false");
    set("sync_on_commit", e->sync_on_commit ? "true" : "false");
    if (e->backend == Backend::kBdb) {
      set("cache_bytes", std::to_string(e->cache_bytes));
      set("mmap_size", std::to_string(e->mmap_size));
    } else {
      set("map_size", std::to_string(e->map_size));
      set("no_readahead", e->no_readahead ? "true" : "false");
      set("write_map", e->write_map ? "true" : "false");
    }
    for (const TableSettings& t : e->tables) {
      if (e->backend == Backend::kBdb) {
        set("table." + t.name + ".page_size", std::to_string(t.page_size));
        set("table." + t.name + ".priority", std::string(CachePriorityName(t.priority)));
      }
      set("table." + t.name + ".read_only", t.read_only ? "true" : "false");
    }
  }
  if (index != nullptr) {
    set("index_method", std::string(IndexMethodName(index->method)));
    set("idl_cache_size", std::to_string(index->builder.idl_cache_size));
    set("sort_memory", std::to_string(index->builder.sort_memory));
  }
}

PhaseStats IndexPhaseStats(const IndexRunSummary& s, const PhaseClock& clock) {
  PhaseStats p = TimedPhase("index", clock);
  p.entries = s.entries;
  p.peak_rss_bytes = PeakRssBytes();
  const BuilderStats& b = s.builder;
  auto add = [&](const std::string& name, uint64_t v) {
    p.counters.push_back({name, static_cast<double>(v)});
  };
  add("pairs", b.pairs);
  add("keys_made_in_phase_1", s.fed ? 1 : 0);
  add("bytes_written", b.bytes_written);
  add("commits", b.commits);
  add("runs_spilled", b.runs_spilled);
  add("spill_bytes", b.spill_bytes);
  add("idl_cache.hits", b.cache.hits);
  add("idl_cache.misses", b.cache.misses);
  add("idl_cache.evictions", b.cache.evictions);
  add("idl_cache.flushes", b.cache.flushes);
  add("idl_cache.max_lists", b.cache.max_lists);
  for (const IndexBuildStats& i : b.indexes) {
    add("index." + i.name + ".keys", i.keys);
    add("index." + i.name + ".ids", i.ids);
    add("index." + i.name + ".unnormalizable", i.unnormalizable);
  }
  if (s.cache_after.available) AddCache(Delta(s.cache_after, s.cache_before), &p);
  return p;
}

PhaseStats MdbIndexPhaseStats(const mdb::MdbIndexStats& built, const PhaseClock& clock) {
  PhaseStats p = TimedPhase("index", clock);
  p.entries = built.entries;
  p.peak_rss_bytes = PeakRssBytes();
  p.counters.push_back({"keys", static_cast<double>(built.keys)});
  p.counters.push_back({"ids", static_cast<double>(built.ids)});
  p.counters.push_back({"ranges", static_cast<double>(built.ranges)});
  p.counters.push_back({"runs", static_cast<double>(built.runs)});
  return p;
}

}  // namespace dirload
