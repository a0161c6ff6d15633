#include "lib/format/database_report_text.h"

#include <algorithm>
#include <string>
#include <vector>

#include "lib/store/tables.h"
#include "lib/util/text_table.h"

namespace dirload {
namespace {

using Rows = std::vector<std::vector<std::string>>;

std::string U64(uint64_t v) { return std::to_string(v); }

// "-" for a figure one row lacks while others have it.
std::string Opt(const std::optional<uint64_t>& v) { return v ? U64(*v) : "-"; }

// Whether any of `items` has the figure `get` picks: a column is shown then.
template <typename T, typename Get>
bool Any(const std::vector<T>& items, Get get) {
  return std::any_of(items.begin(), items.end(), [&](const T& t) { return get(t).has_value(); });
}

std::string FormatLine(const DatabaseReport& r) {
  return r.format == DatabaseFormat::kMdb ? "slapd back-mdb" : "native";
}

std::string Header(const DatabaseReport& r) {
  std::string out;
  out += "database    " + r.path + "\n";
  out += "format      " + FormatLine(r) + "\n";
  out += "backend     " + std::string(BackendName(r.backend)) + "\n";
  if (r.state) out += "state       " + *r.state + "\n";
  if (r.suffix) out += "suffix      " + *r.suffix + "\n";
  out += "entries     " + U64(r.entries) + "\n";
  if (r.next_id) out += "next id     " + U64(*r.next_id) + "\n";
  if (r.max_id) out += "highest id  " + U64(*r.max_id) + "\n";
  if (r.descriptions) out += "attribute descriptions " + U64(*r.descriptions) + " (ad2i)\n";
  out += "on disk     " + U64(r.file_bytes) + " bytes (" + HumanBytes(r.file_bytes) +
         ", data files only, apparent size)\n";
  if (r.allocated_bytes) {
    // A sparse data.mdb takes far less than its apparent size.
    out += "allocated   " + U64(*r.allocated_bytes) + " bytes (" + HumanBytes(*r.allocated_bytes) +
           (*r.allocated_bytes < r.file_bytes ? ", sparse" : "") + ")\n";
  }
  return out;
}

std::string TablesSection(const DatabaseReport& r) {
  const bool keys = Any(r.tables, [](const TableReport& t) { return t.keys; });
  const bool files = Any(r.tables, [](const TableReport& t) { return t.file_bytes; });
  std::vector<std::string> head = {"table", "entries"};
  if (keys) head.push_back("keys");
  head.insert(head.end(), {"depth", "branch pages", "leaf pages", "overflow pages", "bytes"});
  if (files) head.push_back("file bytes");
  Rows rows = {head};
  for (const TableReport& t : r.tables) {
    std::vector<std::string> row = {t.name, U64(t.entries)};
    if (keys) row.push_back(Opt(t.keys));
    row.insert(row.end(), {U64(t.depth), U64(t.branch_pages), U64(t.leaf_pages),
                           U64(t.overflow_pages), U64(t.bytes)});
    if (files) row.push_back(Opt(t.file_bytes));
    rows.push_back(std::move(row));
  }
  std::string out =
      "\ntables (entries are stored records: each duplicate, and each chunk of a long ID "
      "list, counts once)\n";
  out += TextColumns(rows, 1);
  if (files && r.backend == Backend::kLmdb) {
    out += "(LMDB keeps every table in one file, data.mdb: file bytes are per database, above)\n";
  }
  return out;
}

// "lo..hi" for a range, else the count of IDs.
std::string ListLength(const IdListReport& l) {
  return l.range ? U64(l.range->first) + ".." + U64(l.range->second) : U64(l.ids);
}

std::string IndexTable(const DatabaseReport& r) {
  const bool record = Any(r.indexes, [](const IndexReport& ix) { return ix.record; });
  const bool config = Any(r.indexes, [](const IndexReport& ix) { return ix.config; });
  const bool pairs = Any(r.indexes, [](const IndexReport& ix) { return ix.pairs; });
  const bool ranges = Any(r.indexes, [](const IndexReport& ix) { return ix.ranges; });
  std::vector<std::string> head = {"index"};
  if (record) head.push_back("record");
  if (config) head.push_back("config");
  head.insert(head.end(), {"keys", "IDs"});
  if (pairs) head.push_back("pairs");
  if (ranges) head.push_back("ranges");
  head.insert(head.end(), {"longest", "average"});
  Rows rows = {head};
  for (const IndexReport& ix : r.indexes) {
    std::vector<std::string> row = {ix.table};
    if (record) row.push_back(ix.record ? std::string(IndexRecordName(*ix.record)) : "-");
    if (config) row.push_back(ix.config && !ix.config->empty() ? *ix.config : "-");
    row.insert(row.end(), {U64(ix.keys), U64(ix.ids)});
    if (pairs) row.push_back(Opt(ix.pairs));
    if (ranges) row.push_back(Opt(ix.ranges));
    row.insert(row.end(), {U64(ix.longest_ids()), FixedPoint(ix.average(), 2)});
    rows.push_back(std::move(row));
  }
  return "\nindexes\n" + TextColumns(rows, 1 + (record ? 1 : 0) + (config ? 1 : 0));
}

// Keys and IDs per kind, where the format's keys say their kind.
std::string KindsSection(const DatabaseReport& r) {
  if (!Any(r.indexes, [](const IndexReport& ix) { return ix.kinds; })) return "";
  Rows rows;
  for (const IndexReport& ix : r.indexes) {
    std::string cells;
    for (const IndexKindReport& k : ix.kinds.value_or(std::vector<IndexKindReport>{})) {
      if (!cells.empty()) cells += "  ";
      cells += k.kind + " " + U64(k.keys) + "/" + U64(k.ids);
    }
    if (ix.hashed_keys.value_or(0) > 0) cells += "  (hashed " + U64(*ix.hashed_keys) + ")";
    rows.push_back({ix.table, cells.empty() ? "-" : cells});
  }
  return "\nkeys per kind (keys/IDs)\n" + TextColumns(rows, 2);
}

// One row per list: the index named on its first.
std::string LongestSection(const DatabaseReport& r) {
  Rows rows = {{"index", "key", "IDs"}};
  for (const IndexReport& ix : r.indexes) {
    for (size_t i = 0; i < ix.longest.size(); ++i) {
      rows.push_back({i == 0 ? ix.table : "", ix.longest[i].key, ListLength(ix.longest[i])});
    }
  }
  if (rows.size() == 1) return "";
  const bool hex = r.format == DatabaseFormat::kMdb;
  return std::string("\nlongest ID lists (") +
         (hex ? "keys are hashes or ordered keys, shown in hex; " : "") +
         "IDs, or a range lo..hi)\n" + TextColumns(rows, 2);
}

// One line per index: lists per length bucket.
std::string HistogramSection(const DatabaseReport& r) {
  Rows rows;
  for (const IndexReport& ix : r.indexes) {
    std::string cells;
    for (size_t b = 0; b < ix.histogram.size(); ++b) {
      uint64_t lo = IdlHistogramBucketMin(b), hi = IdlHistogramBucketMax(b);
      if (!cells.empty()) cells += " ";
      cells += (lo == hi ? U64(lo) : U64(lo) + "-" + U64(hi)) + ":" + U64(ix.histogram[b]);
    }
    rows.push_back({ix.table, cells.empty() ? "-" : cells});
  }
  return "\nID list lengths (length:lists)\n" + TextColumns(rows, 2);
}

std::string IndexesSection(const DatabaseReport& r) {
  if (r.indexes.empty()) return "\nindexes: none\n";
  return IndexTable(r) + KindsSection(r) + LongestSection(r) + HistogramSection(r);
}

std::string CacheRows(const CacheStats& before, const CacheStats& after) {
  Rows rows = {{"  memp_stat", "at start", "at end"}};
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

std::string EngineSection(const EngineReport& e) {
  const EngineSettings& s = e.settings;
  std::string out = "\nengine\n";
  if (s.backend == Backend::kLmdb) {
    const uint64_t size = e.map_size.value_or(0), used = e.map_used.value_or(0);
    out += "  LMDB, map size " + U64(size) + " bytes (" + HumanBytes(size) + "), used " +
           U64(used) + " bytes (" + HumanBytes(used) + ")\n";
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
  out += CacheRows(e.cache_before, e.cache_after);
  return out;
}

}  // namespace

std::string DatabaseReportText(const DatabaseReport& r) {
  return Header(r) + TablesSection(r) + IndexesSection(r) +
         (r.engine ? EngineSection(*r.engine) : "");
}

}  // namespace dirload
