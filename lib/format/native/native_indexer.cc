#include "lib/format/native/native_indexer.h"

#include <algorithm>
#include <cstdio>

#include "lib/entry/entry_codec.h"
#include "lib/format/native/database_meta.h"
#include "lib/schema/ascii.h"
#include "lib/store/tables.h"
#include "lib/util/coding.h"

namespace dirload {
namespace {

std::string MetaKey(std::string_view table) {
  return std::string(kIndexMetaPrefix) + std::string(table);
}

std::string ApproxMetaKey(std::string_view table) {
  return std::string(kApproxKeysMetaPrefix) + std::string(table);
}

Status PutBuildingMarks(Store* store, const std::vector<IndexSpec>& specs) {
  for (const IndexSpec& spec : specs) {
    DIRLOAD_RETURN_IF_ERROR(
        store->Put(kMetaTable, MetaKey(spec.table()),
                   std::string(kIndexBuildingMark) + ":" + IndexConfig::CanonicalLine(spec)));
  }
  return Status::Ok();
}

std::string Fingerprint(const Schema& schema) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(schema.Fingerprint()));
  return buf;
}

}  // namespace

std::string BuildingLine(std::string_view mark) {
  if (!mark.starts_with(kIndexBuildingMark)) return "";
  mark.remove_prefix(kIndexBuildingMark.size());
  if (!mark.starts_with(':')) return "";
  return std::string(mark.substr(1));
}

namespace {

Result<std::vector<IndexConfig::Line>> IndexLines(Store* store, bool interrupted_only) {
  std::vector<IndexConfig::Line> lines;
  std::unique_ptr<Cursor> c = store->NewCursor(kMetaTable);
  for (c->Seek(kIndexMetaPrefix); c->valid() && c->key().starts_with(kIndexMetaPrefix); c->Next()) {
    const std::string_view v = c->value();
    const bool building = v.starts_with(kIndexBuildingMark);
    if (interrupted_only && !building) continue;
    std::string line = building ? BuildingLine(v) : std::string(v);
    if (!line.empty()) lines.push_back({std::move(line), "database"});
  }
  DIRLOAD_RETURN_IF_ERROR(c->status());
  return lines;
}

}  // namespace

Result<std::vector<IndexConfig::Line>> RecordedIndexLines(Store* store) {
  return IndexLines(store, false);
}

Result<std::vector<IndexConfig::Line>> InterruptedIndexLines(Store* store) {
  return IndexLines(store, true);
}

Result<std::vector<std::string>> MarkIndexesUnfinished(Store* store) {
  std::vector<std::pair<std::string, std::string>> built;
  {
    std::unique_ptr<Cursor> c = store->NewCursor(kMetaTable);
    for (c->Seek(kIndexMetaPrefix); c->valid() && c->key().starts_with(kIndexMetaPrefix);
         c->Next()) {
      if (c->value().starts_with(kIndexBuildingMark)) continue;
      built.emplace_back(std::string(c->key()), std::string(c->value()));
    }
    DIRLOAD_RETURN_IF_ERROR(c->status());
  }
  std::vector<std::string> tables;
  for (const auto& [key, line] : built) {
    DIRLOAD_RETURN_IF_ERROR(
        store->Put(kMetaTable, key, std::string(kIndexBuildingMark) + ":" + line));
    tables.push_back(key.substr(kIndexMetaPrefix.size()));
  }
  return tables;
}

Result<std::vector<std::string>> UnconfiguredIndexTables(Store* store, const IndexConfig& config) {
  std::vector<std::string> out;
  DIRLOAD_ASSIGN_OR_RETURN(std::vector<std::string> tables, store->ListTables());
  for (const std::string& t : tables) {
    if (t.rfind(kIndexTablePrefix, 0) != 0) continue;
    bool configured = std::any_of(config.specs().begin(), config.specs().end(),
                                  [&](const IndexSpec& s) { return s.table() == t; });
    if (!configured) out.push_back(t);
  }
  return out;
}

namespace {

Result<bool> HasPhoneticApproxKeys(Store* store, const std::string& table) {
  std::string kind;
  DIRLOAD_ASSIGN_OR_RETURN(bool has, store->Get(kMetaTable, ApproxMetaKey(table), &kind));
  return has && kind == kPhoneticApproxKeys;
}

}  // namespace

Result<std::vector<IndexStatus>> CheckIndexes(Store* store, const Schema& schema,
                                              const IndexConfig& config) {
  std::vector<IndexStatus> out;
  std::string fingerprint;
  DIRLOAD_ASSIGN_OR_RETURN(bool has_fp, store->Get(kMetaTable, "schema.fingerprint", &fingerprint));
  const bool schema_same = has_fp && fingerprint == Fingerprint(schema);
  for (const IndexSpec& spec : config.specs()) {
    IndexStatus st;
    st.table = spec.table();
    st.line = IndexConfig::CanonicalLine(spec);
    std::string built;
    DIRLOAD_ASSIGN_OR_RETURN(bool has, store->Get(kMetaTable, MetaKey(st.table), &built));
    bool phonetic = true;
    if (spec.Has(kIndexApprox)) {
      DIRLOAD_ASSIGN_OR_RETURN(phonetic, HasPhoneticApproxKeys(store, st.table));
    }
    if (!has) {
      st.why = "never built";
    } else if (built.starts_with(kIndexBuildingMark)) {
      st.why = "a build did not finish";
    } else if (built != st.line) {
      st.why = "built as '" + built + "', configured as '" + st.line + "'";
    } else if (!phonetic) {
      st.why = "its approx keys are equality keys (built before approx matched phonetically)";
    } else if (!schema_same) {
      st.why = "built with another schema";
    } else {
      st.fresh = true;
    }
    out.push_back(std::move(st));
  }
  return out;
}

Status NativeIndexer::MarkBuilding(const std::vector<IndexSpec>& specs, IndexRunSummary* summary) {
  // Tables of indexes no longer configured go first.
  DIRLOAD_ASSIGN_OR_RETURN(std::vector<std::string> unconfigured,
                           UnconfiguredIndexTables(store_, *config_));
  for (const std::string& t : unconfigured) {
    DIRLOAD_RETURN_IF_ERROR(store_->DropTable(t));
    DIRLOAD_RETURN_IF_ERROR(store_->Delete(kMetaTable, MetaKey(t)));
    summary->dropped.push_back(t);
  }
  // Marked before the first key is written: an interrupted build leaves them
  // stale, never half-built and trusted.
  DIRLOAD_RETURN_IF_ERROR(PutBuildingMarks(store_, specs));
  // Synced, not only committed: Berkeley DB without transactions keeps a
  // commit in its cache, and a killed run would leave the old lines saying
  // "built" over half-written tables.
  DIRLOAD_RETURN_IF_ERROR(store_->Commit());
  return store_->Sync();
}

Result<IndexRunSummary> NativeIndexer::Run(const IndexRunOptions& options) {
  IndexRunSummary summary;
  // Which specs to build.
  std::vector<IndexSpec> specs;
  for (const std::string& name : options.only) {
    const IndexSpec* spec = config_->Find(*schema_, name);
    if (spec == nullptr) {
      return Status::InvalidArgument("attribute '" + name + "' has no index configured");
    }
  }
  for (const IndexSpec& spec : config_->specs()) {
    bool wanted = options.only.empty();
    for (const std::string& name : options.only) {
      wanted |= config_->Find(*schema_, name) == &spec;
    }
    if (wanted) specs.push_back(spec);
  }
  DIRLOAD_RETURN_IF_ERROR(MarkBuilding(specs, &summary));
  if (specs.empty()) return summary;

  AttributeDictionary dictionary;
  DIRLOAD_ASSIGN_OR_RETURN(DatabaseMeta meta, ReadMeta(store_, &dictionary));
  DIRLOAD_ASSIGN_OR_RETURN(summary.cache_before, store_->CacheStatistics());
  // Berkeley DB maps a read-only id2entry instead of copying it through the cache.
  DIRLOAD_RETURN_IF_ERROR(store_->ReopenReadOnly(kId2EntryTable));
  DIRLOAD_ASSIGN_OR_RETURN(
      std::unique_ptr<IndexBuilder> builder,
      IndexBuilder::Create(options.method, specs, *schema_, store_, options.builder));
  PhaseClock clock;
  double last = -1;
  std::unique_ptr<Cursor> cursor = store_->NewCursor(kId2EntryTable);
  EntryView entry;
  std::string value;
  for (cursor->SeekToFirst(); cursor->valid(); cursor->Next()) {
    EntryId id = GetBigEndian64(cursor->key());
    // The builder may write (and commit) while we scan: keep our own copy.
    value.assign(cursor->value());
    DIRLOAD_RETURN_IF_ERROR(DecodeEntry(value, &entry));
    DIRLOAD_RETURN_IF_ERROR(builder->Add(id, entry, dictionary));
    ++summary.entries;
    if (progress_ != nullptr && (summary.entries & 1023) == 0) {
      double now = clock.wall_seconds();
      if (now - last >= 0.2) {
        last = now;
        ProgressSnapshot s;
        s.phase = "phase 2: index";
        s.done_bytes = summary.entries;
        s.total_bytes = meta.entries;
        s.entries = summary.entries;
        s.elapsed_seconds = now;
        progress_->Update(s);
      }
    }
  }
  DIRLOAD_RETURN_IF_ERROR(cursor->status());
  cursor.reset();
  DIRLOAD_RETURN_IF_ERROR(Complete(builder.get(), specs, options, clock, &summary));
  return summary;
}

Status NativeIndexer::Complete(IndexBuilder* builder, const std::vector<IndexSpec>& specs,
                               const IndexRunOptions& options, const PhaseClock& clock,
                               IndexRunSummary* summary) {
  DIRLOAD_RETURN_IF_ERROR(builder->Finish());
  summary->builder = builder->stats();
  for (const IndexSpec& spec : specs) {
    DIRLOAD_RETURN_IF_ERROR(
        store_->Put(kMetaTable, MetaKey(spec.table()), IndexConfig::CanonicalLine(spec)));
    if (spec.Has(kIndexApprox)) {
      DIRLOAD_RETURN_IF_ERROR(
          store_->Put(kMetaTable, ApproxMetaKey(spec.table()), kPhoneticApproxKeys));
    }
    summary->built.push_back(spec.table());
  }
  DIRLOAD_RETURN_IF_ERROR(store_->Put(kMetaTable, "schema.fingerprint", Fingerprint(*schema_)));
  DIRLOAD_RETURN_IF_ERROR(store_->Sync());
  DIRLOAD_ASSIGN_OR_RETURN(summary->cache_after, store_->CacheStatistics());
  if (progress_ != nullptr) {
    char buf[256];
    double t = clock.wall_seconds();
    std::snprintf(buf, sizeof buf,
                  "phase 2: %zu indexes over %llu entries, %llu keys/IDs, in %.2f s (%s method%s)",
                  specs.size(), static_cast<unsigned long long>(summary->entries),
                  static_cast<unsigned long long>(summary->builder.pairs), t,
                  std::string(IndexMethodName(options.method)).c_str(),
                  summary->fed ? ", keys made in phase 1" : "");
    ProgressSnapshot s;
    s.phase = "phase 2: index";
    s.entries = summary->entries;
    s.elapsed_seconds = t;
    progress_->Finish(s, buf);
  }
  return Status::Ok();
}

IndexFeed::~IndexFeed() = default;

Status IndexFeed::Add(EntryId id, std::string_view stored, const AttributeDictionary& dictionary) {
  if (abandoned()) return Status::Ok();
  if (id <= last_id_) {
    Abandon("entry " + std::to_string(id) + " came after entry " + std::to_string(last_id_));
    return Status::Ok();
  }
  last_id_ = id;
  DIRLOAD_RETURN_IF_ERROR(DecodeEntry(stored, &entry_));
  ++entries_;
  return builder_->Add(id, entry_, dictionary);
}

void IndexFeed::Abandon(std::string why) {
  if (abandoned()) return;
  abandoned_ = why.empty() ? "abandoned" : std::move(why);
  builder_.reset();
}

Result<std::unique_ptr<IndexFeed>> NativeIndexer::BeginFed(const IndexRunOptions& options) {
  if (!options.only.empty()) {
    return Status::Internal("a build fed by phase 1 covers every configured index");
  }
  std::unique_ptr<IndexFeed> feed(new IndexFeed());
  feed->specs_ = config_->specs();
  // Not committed here: the loader's first commit carries the marks, and a
  // new database that was not loaded to the end is undone as a whole.
  DIRLOAD_RETURN_IF_ERROR(PutBuildingMarks(store_, feed->specs_));
  DIRLOAD_ASSIGN_OR_RETURN(feed->builder_, IndexBuilder::Create(options.method, feed->specs_,
                                                                *schema_, store_, options.builder));
  return feed;
}

Result<IndexRunSummary> NativeIndexer::FinishFed(std::unique_ptr<IndexFeed> feed,
                                                 const IndexRunOptions& options) {
  if (feed->abandoned()) {
    feed.reset();
    return Run(options);
  }
  IndexRunSummary summary;
  summary.fed = true;
  summary.entries = feed->entries_;
  DIRLOAD_ASSIGN_OR_RETURN(summary.cache_before, store_->CacheStatistics());
  PhaseClock clock;
  DIRLOAD_RETURN_IF_ERROR(Complete(feed->builder_.get(), feed->specs_, options, clock, &summary));
  return summary;
}

}  // namespace dirload
