#include "lib/format/database_report_json.h"

#include "lib/util/json.h"

namespace dirload {
namespace {

std::string U64(uint64_t v) { return std::to_string(v); }
std::string Bool(bool v) { return v ? "true" : "false"; }
std::string Opt(const std::optional<uint64_t>& v) { return v ? U64(*v) : "null"; }
std::string OptString(const std::optional<std::string>& v) { return v ? JsonString(*v) : "null"; }

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

std::string TableJson(const TableReport& t) {
  return "{\"name\": " + JsonString(t.name) + ", \"entries\": " + U64(t.entries) +
         ", \"keys\": " + Opt(t.keys) + ", \"page_size\": " + U64(t.page_size) +
         ", \"depth\": " + U64(t.depth) + ", \"branch_pages\": " + U64(t.branch_pages) +
         ", \"leaf_pages\": " + U64(t.leaf_pages) +
         ", \"overflow_pages\": " + U64(t.overflow_pages) +
         ", \"free_pages\": " + Opt(t.free_pages) + ", \"bytes\": " + U64(t.bytes) +
         ", \"file_bytes\": " + Opt(t.file_bytes) +
         ", \"cache\": " + (t.cache ? FileCacheJson(*t.cache) : "null") + "}";
}

std::string IdListJson(const IdListReport& l) {
  std::string range = "null";
  if (l.range) {
    range = "[";
    range += U64(l.range->first);
    range += ", ";
    range += U64(l.range->second);
    range += "]";
  }
  return "{\"key\": " + JsonString(l.key) + ", \"ids\": " + U64(l.ids) + ", \"range\": " + range +
         "}";
}

std::string KindsJson(const std::optional<std::vector<IndexKindReport>>& kinds) {
  if (!kinds) return "null";
  std::string out = "{";
  for (size_t i = 0; i < kinds->size(); ++i) {
    const IndexKindReport& k = (*kinds)[i];
    out += i ? ", " : "";
    out += JsonString(k.kind) + ": {\"keys\": " + U64(k.keys) + ", \"ids\": " + U64(k.ids) + "}";
  }
  return out + "}";
}

std::string IndexJson(const IndexReport& r) {
  std::string out =
      "{\"table\": " + JsonString(r.table) + ", \"attribute\": " + JsonString(r.attribute) +
      ", \"record\": " + (r.record ? JsonString(IndexRecordName(*r.record)) : "null") +
      ", \"config\": " + OptString(r.config) + ", \"table_exists\": " + Bool(r.table_exists) +
      ", \"keys\": " + U64(r.keys) + ", \"ids\": " + U64(r.ids) + ", \"pairs\": " + Opt(r.pairs) +
      ", \"ranges\": " + Opt(r.ranges) + ", \"longest\": " + U64(r.longest_ids()) +
      ", \"longest_key\": " + (r.longest.empty() ? "null" : JsonString(r.longest.front().key)) +
      ", \"longest_lists\": [";
  for (size_t i = 0; i < r.longest.size(); ++i) {
    out += i ? ", " : "";
    out += IdListJson(r.longest[i]);
  }
  out += "], \"average\": " + JsonNumber(r.average()) + ", \"hashed_keys\": " + Opt(r.hashed_keys) +
         ", \"kinds\": " + KindsJson(r.kinds) + ", \"histogram\": [";
  for (size_t b = 0; b < r.histogram.size(); ++b) {
    out += b ? ", " : "";
    out += "{\"min\": " + U64(IdlHistogramBucketMin(b)) +
           ", \"max\": " + U64(IdlHistogramBucketMax(b)) + ", \"lists\": " + U64(r.histogram[b]) +
           "}";
  }
  return out + "]}";
}

std::string EngineJson(const EngineReport& e) {
  const EngineSettings& s = e.settings;
  std::string out = "{\"backend\": " + JsonString(BackendName(s.backend)) +
                    ", \"read_only\": " + Bool(s.read_only) +
                    ", \"transactional\": " + Bool(s.transactional) +
                    ", \"sync_on_commit\": " + Bool(s.sync_on_commit);
  if (s.backend == Backend::kLmdb) {
    out += ", \"map_size\": " + Opt(e.map_size) + ", \"map_used\": " + Opt(e.map_used) +
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
  out += "], \"cache_before\": " + CacheJson(e.cache_before) +
         ", \"cache_after\": " + CacheJson(e.cache_after);
  return out + "}";
}

}  // namespace

std::string DatabaseReportToJson(const DatabaseReport& r) {
  std::string out = "{\"format\": " + JsonString(DatabaseFormatName(r.format)) +
                    ", \"backend\": " + JsonString(BackendName(r.backend)) +
                    ", \"path\": " + JsonString(r.path) + ", \"state\": " + OptString(r.state) +
                    ", \"suffix\": " + OptString(r.suffix) + ", \"entries\": " + U64(r.entries) +
                    ", \"next_id\": " + Opt(r.next_id) + ", \"max_id\": " + Opt(r.max_id) +
                    ", \"descriptions\": " + Opt(r.descriptions) +
                    ", \"schema_fingerprint\": " + OptString(r.schema_fingerprint) +
                    ", \"file_bytes\": " + U64(r.file_bytes) +
                    ", \"allocated_bytes\": " + Opt(r.allocated_bytes) + ", \"tables\": [";
  for (size_t i = 0; i < r.tables.size(); ++i) {
    out += i ? ", " : "";
    out += TableJson(r.tables[i]);
  }
  out += "], \"indexes\": [";
  for (size_t i = 0; i < r.indexes.size(); ++i) {
    out += i ? ", " : "";
    out += IndexJson(r.indexes[i]);
  }
  out += "], \"engine\": " + (r.engine ? EngineJson(*r.engine) : std::string("null"));
  return out + "}\n";
}

}  // namespace dirload
