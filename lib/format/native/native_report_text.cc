#include "lib/format/native/native_report_text.h"

#include <string>
#include <vector>

#include "lib/store/tables.h"
#include "lib/util/text_table.h"

namespace dirload {
namespace {

std::string U64(uint64_t v) { return std::to_string(v); }

std::string Header(const DatabaseReport& r) {
  std::string out;
  out += "database    " + r.path + "\n";
  out += "backend     " + std::string(BackendName(r.backend)) + "\n";
  out += "state       " + std::string(DatabaseStateName(r.meta.state)) + "\n";
  out += "suffix      " + r.meta.suffix + "\n";
  out += "entries     " + U64(r.meta.entries) + "\n";
  out += "next id     " + U64(r.meta.next_id) + "\n";
  out += "on disk     " + U64(r.stats.file_bytes) + " bytes (" + HumanBytes(r.stats.file_bytes) +
         ", data files only)\n";
  return out;
}

std::string TablesSection(const DatabaseReport& r) {
  std::vector<std::vector<std::string>> rows = {{"table", "entries", "depth", "branch pages",
                                                 "leaf pages", "overflow pages", "bytes",
                                                 "file bytes"}};
  for (const TableStats& t : r.stats.tables) {
    rows.push_back({t.name, U64(t.entries), U64(t.depth), U64(t.branch_pages), U64(t.leaf_pages),
                    U64(t.overflow_pages), U64(t.bytes), U64(t.file_bytes)});
  }
  std::string out =
      "\ntables (entries are stored records: an ID list of many chunks counts "
      "once per chunk)\n";
  out += TextColumns(rows, 1);
  if (r.backend == Backend::kLmdb) {
    out += "(LMDB keeps every table in one file, data.mdb: file bytes are per database, above)\n";
  }
  return out;
}

std::string IndexesSection(const DatabaseReport& r) {
  if (r.indexes.empty()) return "\nindexes: none\n";
  std::vector<std::vector<std::string>> rows = {
      {"index", "record", "config", "keys", "IDs", "longest", "average"}};
  for (const IndexReport& ix : r.indexes) {
    rows.push_back({ix.table, std::string(IndexRecordName(ix.record)),
                    ix.config_line.empty() ? "-" : ix.config_line, U64(ix.keys), U64(ix.ids),
                    U64(ix.longest), FixedPoint(ix.average(), 2)});
  }
  std::string out = "\nindexes\n" + TextColumns(rows, 3);

  // Keys and IDs per kind, and the key with the longest list.
  out += "\nkeys per kind (keys/IDs) and the longest list's key\n";
  std::vector<std::vector<std::string>> kinds;
  for (const IndexReport& ix : r.indexes) {
    std::vector<std::string> row = {ix.table};
    std::string cells;
    for (size_t k = 0; k < kIndexKeyKinds; ++k) {
      if (ix.kinds[k].keys == 0) continue;
      if (!cells.empty()) cells += "  ";
      cells += std::string(IndexKeyKindName(static_cast<IndexKeyKind>(k))) + " " +
               U64(ix.kinds[k].keys) + "/" + U64(ix.kinds[k].ids);
    }
    if (ix.hashed_keys > 0) cells += "  (hashed " + U64(ix.hashed_keys) + ")";
    row.push_back(cells.empty() ? "-" : cells);
    row.push_back(ix.keys > 0 ? "longest: " + ix.longest_key : "");
    kinds.push_back(std::move(row));
  }
  out += TextColumns(kinds, 3);

  // One line per index: lists per length bucket.
  out += "\nID list lengths (length:lists)\n";
  std::vector<std::vector<std::string>> hist;
  for (const IndexReport& ix : r.indexes) {
    std::string cells;
    for (size_t b = 0; b < ix.histogram.size(); ++b) {
      uint64_t lo = IdlHistogramBucketMin(b), hi = IdlHistogramBucketMax(b);
      if (!cells.empty()) cells += " ";
      cells += (lo == hi ? U64(lo) : U64(lo) + "-" + U64(hi)) + ":" + U64(ix.histogram[b]);
    }
    hist.push_back({ix.table, cells.empty() ? "-" : cells});
  }
  out += TextColumns(hist, 2);
  return out;
}

std::string CacheRows(const CacheStats& before, const CacheStats& after) {
  std::vector<std::vector<std::string>> rows = {{"  memp_stat", "at start", "at end"}};
  auto add = [&](const char* name, uint64_t a, uint64_t b) {
    rows.push_back({std::string("  ") + name, U64(a), U64(b)});
  };
  add("hits", before.hits, after.hits);
  add("misses", before.misses, after.misses);
  add("pages read", before.pages_read, after.pages_read);
  add("pages written", before.pages_written, after.pages_written);
  add("pages created", before.pages_created, after.pages_created);
  add("pages mapped", before.pages_mapped, after.pages_mapped);
  add("clean evictions", before.clean_evictions, after.clean_evictions);
  add("dirty evictions", before.dirty_evictions, after.dirty_evictions);
  add("trickle writes", before.trickle_writes, after.trickle_writes);
  add("pages in cache", before.pages_in_cache, after.pages_in_cache);
  add("dirty pages", before.dirty_pages_in_cache, after.dirty_pages_in_cache);
  return TextColumns(rows, 1);
}

std::string EngineSection(const DatabaseReport& r) {
  const EngineSettings& s = r.settings;
  std::string out = "\nengine\n";
  if (r.backend == Backend::kLmdb) {
    out += "  LMDB, map size " + U64(r.stats.map_size) + " bytes (" + HumanBytes(r.stats.map_size) +
           "), used " + U64(r.stats.map_used) + " bytes (" + HumanBytes(r.stats.map_used) + ")\n";
    out += std::string("  read-ahead ") + (s.no_readahead ? "off" : "on") + "\n";
    out +=
        "  cache: none of its own; LMDB maps the file and reads through the kernel's page "
        "cache\n";
    return out;
  }
  // The pool's size as the engine set it up (Berkeley DB adds its own overhead
  // to the size asked for).
  out += "  Berkeley DB, cache size " + U64(s.cache_bytes) + " bytes (" +
         HumanBytes(s.cache_bytes) + "), mmap size " +
         (s.mmap_size == 0 ? std::string("engine default (10 MB)")
                           : U64(s.mmap_size) + " bytes (" + HumanBytes(s.mmap_size) + ")") +
         "\n";
  out += std::string("  transactions ") + (s.transactional ? "on" : "off") + "\n";
  std::string priority = "default";
  std::string pages;
  for (const TableSettings& t : s.tables) {
    if (t.name == kId2EntryTable) priority = std::string(CachePriorityName(t.priority));
    if (!pages.empty()) pages += ", ";
    pages += t.name + " " + U64(t.page_size);
  }
  out += "  id2entry priority " + priority + "\n";
  out += "  page sizes: " + (pages.empty() ? std::string("-") : pages) + "\n";
  // The environment is private (bdb_store.h): its counters start at zero when
  // this command opens it, so they describe this command's reads only.
  out +=
      "  buffer pool of this command only (a private environment): at the start, and after "
      "walking every table\n";
  out += CacheRows(r.cache_before, r.cache_after);
  return out;
}

}  // namespace

std::string NativeReportText(const DatabaseReport& r) {
  return Header(r) + TablesSection(r) + IndexesSection(r) + EngineSection(r);
}

}  // namespace dirload
