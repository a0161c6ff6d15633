#include "lib/pipeline/database_report.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <map>

#include "lib/idl/idl_store.h"
#include "lib/index/index_keys.h"
#include "lib/pipeline/indexer.h"
#include "lib/pipeline/run_stats.h"
#include "lib/schema/ascii.h"
#include "lib/store/tables.h"
#include "lib/util/json.h"

namespace dirload {
namespace {

// Keys may hold any bytes; the report is text and JSON, so only printable
// ASCII and well-formed UTF-8 (above the C1 controls) pass; any other byte is
// shown as \xNN, and a backslash as \\ to stay unambiguous.
std::string Printable(std::string_view bytes) {
  std::string out;
  for (size_t i = 0; i < bytes.size();) {
    unsigned char u = static_cast<unsigned char>(bytes[i]);
    int32_t cp = 0;
    size_t n = u >= 0x80 ? schema_internal::DecodeUtf8(bytes, i, &cp) : 0;
    if (bytes[i] == '\\') {
      out += "\\\\";
      ++i;
    } else if (u >= 0x20 && u < 0x7f) {
      out += bytes[i];
      ++i;
    } else if (n > 0 && cp >= 0xa0) {
      out.append(bytes.substr(i, n));
      i += n;
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
      ++i;
    }
  }
  return out;
}

// What meta records per index table: "index.<table>" -> line or "building".
Result<std::map<std::string, std::string>> RecordedIndexes(Store* store) {
  std::map<std::string, std::string> out;
  std::unique_ptr<Cursor> c = store->NewCursor(kMetaTable);
  for (c->Seek(kIndexMetaPrefix); c->valid() && c->key().starts_with(kIndexMetaPrefix); c->Next()) {
    out.emplace(std::string(c->key().substr(kIndexMetaPrefix.size())), std::string(c->value()));
  }
  DIRLOAD_RETURN_IF_ERROR(c->status());
  return out;
}

Status WalkIndex(Store* store, IndexReport* r) {
  std::string longest_key;
  DIRLOAD_RETURN_IF_ERROR(
      ForEachIdList(store, r->table, [&](std::string_view key, const IdList& ids) {
        const uint64_t n = ids.size();
        ++r->keys;
        r->ids += n;
        if (n > r->longest) {
          r->longest = n;
          longest_key.assign(key);
        }
        IndexKindReport& kind = r->kinds[static_cast<size_t>(KindOfIndexKey(key))];
        ++kind.keys;
        kind.ids += n;
        if (!key.empty() && key[0] == kHashedKeyTag) ++r->hashed_keys;
        if (n > 0) {
          size_t b = IdlHistogramBucket(n);
          if (r->histogram.size() <= b) r->histogram.resize(b + 1, 0);
          ++r->histogram[b];
        }
        return true;
      }));
  if (r->keys > 0) r->longest_key = Printable(DescribeKey(longest_key));
  return Status::Ok();
}

std::string U64(uint64_t v) { return std::to_string(v); }
std::string Bool(bool v) { return v ? "true" : "false"; }

std::string CacheJson(const CacheStats& c) {
  return "{\"available\": " + Bool(c.available) + ", \"cache_bytes\": " + U64(c.cache_bytes) +
         ", \"hits\": " + U64(c.hits) + ", \"misses\": " + U64(c.misses) +
         ", \"pages_created\": " + U64(c.pages_created) + ", \"pages_read\": " + U64(c.pages_read) +
         ", \"pages_written\": " + U64(c.pages_written) +
         ", \"pages_mapped\": " + U64(c.pages_mapped) +
         ", \"clean_evictions\": " + U64(c.clean_evictions) +
         ", \"dirty_evictions\": " + U64(c.dirty_evictions) +
         ", \"trickle_writes\": " + U64(c.trickle_writes) +
         ", \"pages_in_cache\": " + U64(c.pages_in_cache) +
         ", \"dirty_pages_in_cache\": " + U64(c.dirty_pages_in_cache) + "}";
}

std::string FileCacheJson(const FileCacheStats& c) {
  return "{\"hits\": " + U64(c.hits) + ", \"misses\": " + U64(c.misses) +
         ", \"pages_created\": " + U64(c.pages_created) + ", \"pages_read\": " + U64(c.pages_read) +
         ", \"pages_written\": " + U64(c.pages_written) +
         ", \"pages_mapped\": " + U64(c.pages_mapped) + "}";
}

std::string TableJson(const TableStats& t) {
  std::string out =
      "{\"name\": " + JsonString(t.name) + ", \"entries\": " + U64(t.entries) +
      ", \"page_size\": " + U64(t.page_size) + ", \"depth\": " + U64(t.depth) +
      ", \"branch_pages\": " + U64(t.branch_pages) + ", \"leaf_pages\": " + U64(t.leaf_pages) +
      ", \"overflow_pages\": " + U64(t.overflow_pages) + ", \"free_pages\": " + U64(t.free_pages) +
      ", \"bytes\": " + U64(t.bytes) + ", \"file_bytes\": " + U64(t.file_bytes);
  if (t.cache.available) out += ", \"cache\": " + FileCacheJson(t.cache);
  return out + "}";
}

std::string IndexJson(const IndexReport& r) {
  std::string out =
      "{\"table\": " + JsonString(r.table) + ", \"attribute\": " + JsonString(r.attribute) +
      ", \"record\": " + JsonString(IndexRecordName(r.record)) +
      ", \"config\": " + JsonString(r.config_line) + ", \"table_exists\": " + Bool(r.table_exists) +
      ", \"keys\": " + U64(r.keys) + ", \"ids\": " + U64(r.ids) +
      ", \"longest\": " + U64(r.longest) + ", \"longest_key\": " + JsonString(r.longest_key) +
      ", \"average\": " + JsonNumber(r.average()) + ", \"hashed_keys\": " + U64(r.hashed_keys) +
      ", \"kinds\": {";
  bool first = true;
  for (size_t k = 0; k < kIndexKeyKinds; ++k) {
    if (r.kinds[k].keys == 0) continue;
    out += first ? "" : ", ";
    first = false;
    out += JsonString(IndexKeyKindName(static_cast<IndexKeyKind>(k))) +
           ": {\"keys\": " + U64(r.kinds[k].keys) + ", \"ids\": " + U64(r.kinds[k].ids) + "}";
  }
  out += "}, \"histogram\": [";
  for (size_t b = 0; b < r.histogram.size(); ++b) {
    out += b ? ", " : "";
    out += "{\"min\": " + U64(IdlHistogramBucketMin(b)) +
           ", \"max\": " + U64(IdlHistogramBucketMax(b)) + ", \"lists\": " + U64(r.histogram[b]) +
           "}";
  }
  return out + "]}";
}

std::string EngineJson(const DatabaseReport& r) {
  const EngineSettings& s = r.settings;
  std::string out = "{\"backend\": " + JsonString(BackendName(s.backend)) +
                    ", \"read_only\": " + Bool(s.read_only) +
                    ", \"transactional\": " + Bool(s.transactional) +
                    ", \"sync_on_commit\": " + Bool(s.sync_on_commit);
  if (s.backend == Backend::kLmdb) {
    out += ", \"map_size\": " + U64(r.stats.map_size) + ", \"map_used\": " + U64(r.stats.map_used) +
           ", \"no_readahead\": " + Bool(s.no_readahead);
  } else {
    out += ", \"cache_bytes\": " + U64(s.cache_bytes) + ", \"mmap_size\": " + U64(s.mmap_size);
  }
  out += ", \"tables\": [";
  for (size_t i = 0; i < s.tables.size(); ++i) {
    const TableSettings& t = s.tables[i];
    out += i ? ", " : "";
    out += "{\"name\": " + JsonString(t.name) + ", \"page_size\": " + U64(t.page_size) +
           ", \"priority\": " + JsonString(CachePriorityName(t.priority)) + "}";
  }
  out += "], \"cache_before\": " + CacheJson(r.cache_before) +
         ", \"cache_after\": " + CacheJson(r.cache_after);
  return out + "}";
}

}  // namespace

std::string_view IndexKeyKindName(IndexKeyKind kind) {
  switch (kind) {
    case IndexKeyKind::kPresence:
      return "pres";
    case IndexKeyKind::kEquality:
      return "eq";
    case IndexKeyKind::kSubInitial:
      return "subinitial";
    case IndexKeyKind::kSubAny:
      return "subany";
    case IndexKeyKind::kSubFinal:
      return "subfinal";
    case IndexKeyKind::kOther:
      return "other";
  }
  return "other";
}

IndexKeyKind KindOfIndexKey(std::string_view key) {
  if (key.empty()) return IndexKeyKind::kOther;
  char tag = key[0];
  // A hashed key names the kind it replaces in its second byte.
  if (tag == kHashedKeyTag) {
    if (key.size() < 2) return IndexKeyKind::kOther;
    tag = key[1];
  }
  switch (tag) {
    case kPresenceKeyTag:
      return IndexKeyKind::kPresence;
    case kEqualityKeyTag:
      return IndexKeyKind::kEquality;
    case kSubInitialKeyTag:
      return IndexKeyKind::kSubInitial;
    case kSubAnyKeyTag:
      return IndexKeyKind::kSubAny;
    case kSubFinalKeyTag:
      return IndexKeyKind::kSubFinal;
    default:
      return IndexKeyKind::kOther;
  }
}

size_t IdlHistogramBucket(uint64_t length) {
  return static_cast<size_t>(std::bit_width(length)) - 1;
}
uint64_t IdlHistogramBucketMin(size_t bucket) { return uint64_t{1} << bucket; }
uint64_t IdlHistogramBucketMax(size_t bucket) {
  return bucket >= 63 ? UINT64_MAX : (uint64_t{1} << (bucket + 1)) - 1;
}

std::string_view IndexRecordName(IndexRecord record) {
  switch (record) {
    case IndexRecord::kBuilt:
      return "built";
    case IndexRecord::kBuilding:
      return "building";
    case IndexRecord::kUnrecorded:
      return "unrecorded";
  }
  return "unrecorded";
}

Result<DatabaseReport> BuildDatabaseReport(Store* store) {
  DatabaseReport r;
  r.backend = store->backend();
  r.path = store->path();
  // First of all: every read below, meta included, moves Berkeley DB's counters.
  DIRLOAD_ASSIGN_OR_RETURN(r.cache_before, store->CacheStatistics());
  DIRLOAD_ASSIGN_OR_RETURN(r.meta, ReadMeta(store, nullptr));
  DIRLOAD_RETURN_IF_ERROR(RequireReady(r.meta, r.path));
  DIRLOAD_ASSIGN_OR_RETURN(bool has_fingerprint,
                           store->Get(kMetaTable, "schema.fingerprint", &r.schema_fingerprint));
  if (!has_fingerprint) r.schema_fingerprint.clear();
  DIRLOAD_ASSIGN_OR_RETURN(r.stats, store->Statistics());
  // After Statistics(), which opened every table, so that each one is listed.
  DIRLOAD_ASSIGN_OR_RETURN(r.settings, store->Settings());

  // Index tables on disk, and those meta records (an index no entry had a
  // value for has a record but no table).
  DIRLOAD_ASSIGN_OR_RETURN(auto recorded, RecordedIndexes(store));
  std::map<std::string, IndexReport> by_table;
  for (const TableStats& t : r.stats.tables) {
    if (!t.name.starts_with(kIndexTablePrefix)) continue;
    by_table[t.name].table_exists = true;
  }
  for (const auto& [table, line] : recorded) by_table[table];
  for (auto& [table, ir] : by_table) {
    ir.table = table;
    ir.attribute =
        table.starts_with(kIndexTablePrefix) ? table.substr(kIndexTablePrefix.size()) : table;
    auto it = recorded.find(table);
    if (it == recorded.end()) {
      ir.record = IndexRecord::kUnrecorded;
    } else if (it->second.starts_with(kIndexBuildingMark)) {
      ir.record = IndexRecord::kBuilding;
      ir.config_line = BuildingLine(it->second);
    } else {
      ir.record = IndexRecord::kBuilt;
      ir.config_line = it->second;
    }
    if (ir.table_exists) DIRLOAD_RETURN_IF_ERROR(WalkIndex(store, &ir));
    r.indexes.push_back(std::move(ir));
  }
  DIRLOAD_ASSIGN_OR_RETURN(r.cache_after, store->CacheStatistics());
  return r;
}

std::string DatabaseReportToJson(const DatabaseReport& r) {
  std::string out =
      "{\"backend\": " + JsonString(BackendName(r.backend)) + ", \"path\": " + JsonString(r.path) +
      ", \"state\": " + JsonString(DatabaseStateName(r.meta.state)) +
      ", \"suffix\": " + JsonString(r.meta.suffix) + ", \"entries\": " + U64(r.meta.entries) +
      ", \"next_id\": " + U64(r.meta.next_id) +
      ", \"schema_fingerprint\": " + JsonString(r.schema_fingerprint) +
      ", \"file_bytes\": " + U64(r.stats.file_bytes) + ", \"tables\": [";
  for (size_t i = 0; i < r.stats.tables.size(); ++i) {
    out += i ? ", " : "";
    out += TableJson(r.stats.tables[i]);
  }
  out += "], \"indexes\": [";
  for (size_t i = 0; i < r.indexes.size(); ++i) {
    out += i ? ", " : "";
    out += IndexJson(r.indexes[i]);
  }
  out += "], \"engine\": " + EngineJson(r);
  return out + "}\n";
}

}  // namespace dirload
