// dirload stat: what a database holds and how the engine keeps it, offline:
// counts and sizes per table, keys and IDs per index, ID-list length
// histograms, and the engine's settings and cache figures. The figures come
// from lib/pipeline/database_report.h; this file only lays them out.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "lib/format/format_detect.h"
#include "lib/format/mdb/mdb_report.h"
#include "lib/pipeline/database_lock.h"
#include "lib/pipeline/database_report.h"
#include "lib/pipeline/pending_work.h"
#include "lib/store/tables.h"
#include "tools/commands.h"
#include "tools/database_args.h"
#include "tools/exit_codes.h"

namespace dirload::tools {
namespace {

struct StatArgs {
  DatabaseArgs db;
  std::string json;  // --json FILE; "-" for stdout (then no text report)
};

std::string U64(uint64_t v) { return std::to_string(v); }

// "12.3 MiB"; bytes below 1 KiB as "512 B".
std::string Human(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = static_cast<double>(bytes);
  size_t unit = 0;
  while (v >= 1024 && unit + 1 < std::size(kUnits)) {
    v /= 1024;
    ++unit;
  }
  char buf[32];
  if (unit == 0) {
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  } else {
    std::snprintf(buf, sizeof buf, "%.1f %s", v, kUnits[unit]);
  }
  return buf;
}

std::string Fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// Columns padded to their widest cell: the first `left` columns aligned
// left (names), the rest right (numbers).
std::string Columns(const std::vector<std::vector<std::string>>& rows, size_t left) {
  std::vector<size_t> width;
  for (const auto& row : rows) {
    if (width.size() < row.size()) width.resize(row.size(), 0);
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      if (c > 0) line += "  ";
      std::string pad(width[c] - row[c].size(), ' ');
      line += c < left ? row[c] + pad : pad + row[c];
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

std::string Header(const DatabaseReport& r) {
  std::string out;
  out += "database    " + r.path + "\n";
  out += "backend     " + std::string(BackendName(r.backend)) + "\n";
  out += "state       " + std::string(DatabaseStateName(r.meta.state)) + "\n";
  out += "suffix      " + r.meta.suffix + "\n";
  out += "entries     " + U64(r.meta.entries) + "\n";
  out += "next id     " + U64(r.meta.next_id) + "\n";
  out += "on disk     " + U64(r.stats.file_bytes) + " bytes (" + Human(r.stats.file_bytes) +
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
  out += Columns(rows, 1);
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
                    U64(ix.longest), Fixed(ix.average(), 2)});
  }
  std::string out = "\nindexes\n" + Columns(rows, 3);

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
  out += Columns(kinds, 3);

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
  out += Columns(hist, 2);
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
  return Columns(rows, 1);
}

std::string EngineSection(const DatabaseReport& r) {
  const EngineSettings& s = r.settings;
  std::string out = "\nengine\n";
  if (r.backend == Backend::kLmdb) {
    out += "  LMDB, map size " + U64(r.stats.map_size) + " bytes (" + Human(r.stats.map_size) +
           "), used " + U64(r.stats.map_used) + " bytes (" + Human(r.stats.map_used) + ")\n";
    out += std::string("  read-ahead ") + (s.no_readahead ? "off" : "on") + "\n";
    out +=
        "  cache: none of its own; LMDB maps the file and reads through the kernel's page "
        "cache\n";
    return out;
  }
  // The pool's size as the engine set it up (Berkeley DB adds its own overhead
  // to the size asked for).
  out += "  Berkeley DB, cache size " + U64(s.cache_bytes) + " bytes (" + Human(s.cache_bytes) +
         "), mmap size " +
         (s.mmap_size == 0 ? std::string("engine default (10 MB)")
                           : U64(s.mmap_size) + " bytes (" + Human(s.mmap_size) + ")") +
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

Status WriteText(const std::string& text, const std::string& path) {
  FILE* f = path == "-" ? stdout : std::fopen(path.c_str(), "wb");
  if (f == nullptr) return Status::IoError(path + ": open: " + std::strerror(errno));
  size_t n = std::fwrite(text.data(), 1, text.size(), f);
  int flush = std::fflush(f);
  int err = errno;
  bool failed = n != text.size() || flush != 0 || std::ferror(f);
  if (f != stdout && std::fclose(f) != 0 && !failed) {
    err = errno;
    failed = true;
  }
  if (failed) {
    return Status::IoError((path == "-" ? std::string("stdout") : path) +
                           ": write: " + std::strerror(err));
  }
  return Status::Ok();
}

// Opens the store read-only and gathers the report; the store is closed on
// return, before anything is written out.
Result<DatabaseReport> Gather(const ResolvedDatabase& db) {
  StoreOptions so = db.store_options;
  so.read_only = true;
  DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<Store> store, Store::Open(db.backend, db.dir, so));
  return BuildDatabaseReport(store.get());
}

// The text report of a back-mdb database: the same sections as the native
// one, with slapd's sub-databases for tables.
std::string MdbText(const mdb::MdbDatabaseReport& r) {
  std::string out;
  out += "database    " + r.path + "\n";
  out += "format      slapd back-mdb (LMDB)\n";
  out += "entries     " + U64(r.entries) + "\n";
  out += "highest id  " + U64(r.max_id) + "\n";
  out += "attribute descriptions " + U64(r.descriptions) + " (ad2i)\n";
  out += "on disk     " + U64(r.file_bytes) + " bytes (" + Human(r.file_bytes) + ", data.mdb)\n";

  std::vector<std::vector<std::string>> rows = {
      {"table", "entries", "keys", "depth", "branch pages", "leaf pages", "overflow pages"}};
  for (const mdb::MdbSubDbReport& t : r.subdbs) {
    rows.push_back({t.name, U64(t.stat.entries), U64(t.keys), U64(t.stat.depth),
                    U64(t.stat.branch_pages), U64(t.stat.leaf_pages), U64(t.stat.overflow_pages)});
  }
  out += "\ntables (mdb_stat; entries count duplicates)\n" + Columns(rows, 1);

  if (r.indexes.empty()) return out + "\nindexes: none\n";
  std::vector<std::vector<std::string>> ix_rows = {
      {"index", "keys", "IDs", "ranges", "average", "longest lists (IDs, or a range lo..hi)"}};
  for (const mdb::MdbIndexReport& ix : r.indexes) {
    std::string longest;
    for (const mdb::MdbIdList& l : ix.longest) {
      if (!longest.empty()) longest += "  ";
      longest += mdb::MdbKeyHex(l.key) + ":" + mdb::MdbIdListText(l);
    }
    double average = ix.keys == 0 ? 0.0 : static_cast<double>(ix.ids) / ix.keys;
    ix_rows.push_back({ix.name, U64(ix.keys), U64(ix.ids), U64(ix.ranges), Fixed(average, 2),
                       longest.empty() ? "-" : longest});
  }
  out += "\nindexes (keys are hashes or ordered keys, shown in hex)\n" + Columns(ix_rows, 1);
  return out;
}

// stat on slapd's own database.
int RunMdbStat(const StatArgs& a, const ResolvedDatabase& db) {
  Result<mdb::MdbDatabaseReport> report = mdb::BuildMdbReport(db.dir);
  if (!report.ok()) return ReportError(report.status());
  if (!a.json.empty()) {
    Status s = WriteText(mdb::MdbReportToJson(*report), a.json);
    if (!s.ok()) return ReportError(s);
  }
  if (a.json != "-") {
    Status s = WriteText(MdbText(*report), "-");
    if (!s.ok()) return ReportError(s);
  }
  return kExitOk;
}

int RunStat(const StatArgs& a) {
  Result<ResolvedDatabase> db = ResolveDatabase(a.db, /*creating=*/false);
  if (!db.ok()) return ReportError(db.status());
  PrintNotes(*db, a.db.verbose);
  // The format first: the native report refuses slapd's database.
  Status quiet = RequireNoPendingWork(db->dir);
  if (!quiet.ok()) return ReportError(quiet);
  Result<DatabaseFormat> format = DetectDatabaseFormat(db->dir);
  if (!format.ok()) return ReportError(format.status());
  if (*format == DatabaseFormat::kMdb) return RunMdbStat(a, *db);
  Result<std::optional<DatabaseLock>> reader_lock =
      DatabaseLock::AcquireForReading(db->dir, db->backend == Backend::kBdb);
  if (!reader_lock.ok()) return ReportError(reader_lock.status());
  Result<DatabaseReport> report = Gather(*db);
  if (!report.ok()) return ReportError(report.status());

  // The file first: when it cannot be written, nothing has been printed yet.
  if (!a.json.empty()) {
    Status s = WriteText(DatabaseReportToJson(*report), a.json);
    if (!s.ok()) return ReportError(s);
  }
  if (a.json != "-") {
    Status s = WriteText(
        Header(*report) + TablesSection(*report) + IndexesSection(*report) + EngineSection(*report),
        "-");
    if (!s.ok()) return ReportError(s);
  }
  return kExitOk;
}

}  // namespace

CommandRunner RegisterStat(CLI::App* app) {
  auto a = std::make_shared<StatArgs>();
  CLI::App* cmd = app->add_subcommand(
      "stat",
      "show what a database holds: entries and sizes per table, keys and IDs per index, "
      "ID-list length histograms, and the engine's settings and cache figures (read-only)");
  // The suffix comes from the database itself, and the report needs no schema
  // or index configuration: those shared options would only mislead here.
  AddDatabaseOptions(cmd, &a->db, /*engine_options=*/false, /*with_suffix=*/false);
  cmd->remove_option(cmd->get_option("--schema"));
  cmd->remove_option(cmd->get_option("--index"));
  cmd->add_option("--json", a->json,
                  "also write the report as JSON to FILE; '-' writes only the JSON, to stdout, "
                  "instead of the text report")
      ->option_text("FILE");
  return [a] { return RunStat(*a); };
}

}  // namespace dirload::tools
