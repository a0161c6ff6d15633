#include "lib/format/native/native_report.h"

#include <cstdio>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "lib/format/native/database_meta.h"
#include "lib/format/native/native_indexer.h"
#include "lib/idl/idl_store.h"
#include "lib/index/index_keys.h"
#include "lib/schema/ascii.h"
#include "lib/store/tables.h"
#include "lib/util/file.h"

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
  IndexKindReport kinds[kIndexKeyKinds];
  uint64_t hashed = 0;
  // Raw keys while walking; shown as text at the end, once each.
  std::vector<IdListReport> longest;
  DIRLOAD_RETURN_IF_ERROR(
      ForEachIdList(store, r->table, [&](std::string_view key, const IdList& ids) {
        const uint64_t n = ids.size();
        ++r->keys;
        r->ids += n;
        if (WouldKeepLongest(n, longest))
          OfferLongest({std::string(key), n, std::nullopt}, &longest);
        IndexKindReport& kind = kinds[static_cast<size_t>(KindOfIndexKey(key))];
        ++kind.keys;
        kind.ids += n;
        if (!key.empty() && key[0] == kHashedKeyTag) ++hashed;
        if (n > 0) {
          size_t b = IdlHistogramBucket(n);
          if (r->histogram.size() <= b) r->histogram.resize(b + 1, 0);
          ++r->histogram[b];
        }
        return true;
      }));
  for (IdListReport& l : longest) l.key = Printable(DescribeKey(l.key));
  r->longest = std::move(longest);
  r->hashed_keys = hashed;
  for (size_t k = 0; k < kIndexKeyKinds; ++k) {
    if (kinds[k].keys == 0) continue;
    kinds[k].kind = std::string(IndexKeyKindName(static_cast<IndexKeyKind>(k)));
    r->kinds->push_back(std::move(kinds[k]));
  }
  return Status::Ok();
}

}  // namespace

std::string_view IndexKeyKindName(IndexKeyKind kind) {
  switch (kind) {
    case IndexKeyKind::kPresence:
      return "pres";
    case IndexKeyKind::kEquality:
      return "eq";
    case IndexKeyKind::kApprox:
      return "approx";
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
    case kApproxKeyTag:
      return IndexKeyKind::kApprox;
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

Result<DatabaseReport> BuildNativeReport(Store* store) {
  DatabaseReport r;
  r.format = DatabaseFormat::kNative;
  r.backend = store->backend();
  r.path = store->path();
  EngineReport engine;
  // First of all: every read below, meta included, moves Berkeley DB's counters.
  DIRLOAD_ASSIGN_OR_RETURN(engine.cache_before, store->CacheStatistics());
  DIRLOAD_ASSIGN_OR_RETURN(DatabaseMeta meta, ReadMeta(store, nullptr));
  DIRLOAD_RETURN_IF_ERROR(RequireReady(meta, r.path));
  r.state = std::string(DatabaseStateName(meta.state));
  r.suffix = meta.suffix;
  r.entries = meta.entries;
  r.next_id = meta.next_id;
  std::string fingerprint;
  DIRLOAD_ASSIGN_OR_RETURN(bool has_fingerprint,
                           store->Get(kMetaTable, "schema.fingerprint", &fingerprint));
  if (has_fingerprint) r.schema_fingerprint = std::move(fingerprint);
  DIRLOAD_ASSIGN_OR_RETURN(StoreStats stats, store->Statistics());
  // After Statistics(), which opened every table, so that each one is listed.
  DIRLOAD_ASSIGN_OR_RETURN(engine.settings, store->Settings());
  r.file_bytes = stats.file_bytes;
  if (r.backend == Backend::kLmdb) {
    r.allocated_bytes = AllocatedBytes(r.path + "/data.mdb");
    engine.map_size = stats.map_size;
    engine.map_used = stats.map_used;
  }
  for (const TableStats& t : stats.tables) {
    TableReport table;
    table.name = t.name;
    table.entries = t.entries;
    table.page_size = t.page_size;
    table.depth = t.depth;
    table.branch_pages = t.branch_pages;
    table.leaf_pages = t.leaf_pages;
    table.overflow_pages = t.overflow_pages;
    table.free_pages = t.free_pages;
    table.bytes = t.bytes;
    table.file_bytes = t.file_bytes;
    if (t.cache.available) table.cache = t.cache;
    r.tables.push_back(std::move(table));
  }

  // Index tables on disk, and those meta records (an index no entry had a
  // value for has a record but no table).
  DIRLOAD_ASSIGN_OR_RETURN(auto recorded, RecordedIndexes(store));
  std::map<std::string, bool> exists;  // table -> has a table on disk
  for (const TableStats& t : stats.tables) {
    if (t.name.starts_with(kIndexTablePrefix)) exists[t.name] = true;
  }
  for (const auto& [table, line] : recorded) exists.emplace(table, false);
  for (const auto& [table, table_exists] : exists) {
    IndexReport ir;
    ir.table = table;
    ir.attribute =
        table.starts_with(kIndexTablePrefix) ? table.substr(kIndexTablePrefix.size()) : table;
    ir.table_exists = table_exists;
    ir.hashed_keys = 0;
    ir.kinds.emplace();
    auto it = recorded.find(table);
    if (it == recorded.end()) {
      ir.record = IndexRecord::kUnrecorded;
      ir.config = "";
    } else if (it->second.starts_with(kIndexBuildingMark)) {
      ir.record = IndexRecord::kBuilding;
      ir.config = BuildingLine(it->second);
    } else {
      ir.record = IndexRecord::kBuilt;
      ir.config = it->second;
    }
    if (ir.table_exists) DIRLOAD_RETURN_IF_ERROR(WalkIndex(store, &ir));
    r.indexes.push_back(std::move(ir));
  }
  DIRLOAD_ASSIGN_OR_RETURN(engine.cache_after, store->CacheStatistics());
  r.engine = std::move(engine);
  return r;
}

}  // namespace dirload
