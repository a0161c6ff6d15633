#include "tools/run_report.h"

namespace dirload::tools {
namespace {

void AddCache(const std::string& prefix, const CacheStats& c, PhaseStats* p) {
  auto add = [&](const char* name, uint64_t v) {
    p->counters.push_back({prefix + name, static_cast<double>(v)});
  };
  add("hits", c.hits);
  add("misses", c.misses);
  add("pages_read", c.pages_read);
  add("pages_written", c.pages_written);
  add("pages_created", c.pages_created);
  add("pages_mapped", c.pages_mapped);
  add("clean_evictions", c.clean_evictions);
  add("dirty_evictions", c.dirty_evictions);
  add("trickle_writes", c.trickle_writes);
}

}  // namespace

void AddCacheCounters(Store* store, PhaseStats* phase) {
  Result<CacheStats> cache = store->CacheStatistics();
  if (cache.ok() && cache->available) AddCache("cache.", *cache, phase);
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

PhaseStats IndexPhaseStats(const IndexRunSummary& s, const PhaseClock& clock) {
  PhaseStats p;
  p.name = "index";
  p.wall_seconds = clock.wall_seconds();
  p.cpu_seconds = clock.cpu_seconds();
  p.entries = s.entries;
  p.peak_rss_bytes = PeakRssBytes();
  const BuilderStats& b = s.builder;
  auto add = [&](const std::string& name, uint64_t v) {
    p.counters.push_back({name, static_cast<double>(v)});
  };
  add("pairs", b.pairs);
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
  if (s.cache_after.available) {
    const CacheStats& a = s.cache_after;
    const CacheStats& z = s.cache_before;
    add("cache.hits", a.hits - z.hits);
    add("cache.misses", a.misses - z.misses);
    add("cache.pages_read", a.pages_read - z.pages_read);
    add("cache.pages_written", a.pages_written - z.pages_written);
    add("cache.pages_mapped", a.pages_mapped - z.pages_mapped);
    add("cache.clean_evictions", a.clean_evictions - z.clean_evictions);
    add("cache.dirty_evictions", a.dirty_evictions - z.dirty_evictions);
    add("cache.trickle_writes", a.trickle_writes - z.trickle_writes);
  }
  return p;
}

}  // namespace dirload::tools
