#include "lib/index/index_builder.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <limits>
#include <mutex>
#include <thread>

#include "lib/idl/idl_format.h"
#include "lib/idl/idl_store.h"
#include "lib/index/index_keys.h"
#include "lib/index/sorted_runs.h"
#include "lib/schema/ascii.h"

namespace dirload {

std::string_view IndexMethodName(IndexMethod method) {
  return method == IndexMethod::kCache ? "cache" : "sort";
}

Result<IndexMethod> ParseIndexMethod(std::string_view name) {
  if (schema_internal::EqualsIgnoreCase(name, "cache")) return IndexMethod::kCache;
  if (schema_internal::EqualsIgnoreCase(name, "sort")) return IndexMethod::kSort;
  return Status::InvalidArgument("unknown index method '" + std::string(name) +
                                 "' (expected cache or sort)");
}

namespace {

constexpr uint64_t kMinSortMemory = 1ull << 20;
constexpr uint32_t kNoTargets = std::numeric_limits<uint32_t>::max();

// The keys of a few hundred consecutive entries, as the scanning thread
// hands them to the grouping thread.
struct KeyBatch {
  std::vector<EntryId> ids;
  std::vector<uint32_t> counts;  // keys per entry
  std::vector<uint32_t> tables;  // per key
  KeyList keys;
  void Clear() {
    ids.clear();
    counts.clear();
    tables.clear();
    keys.Clear();
  }
};

constexpr size_t kBatchEntries = 256;
constexpr size_t kBatchesInFlight = 3;

class IndexBuilderImpl final : public IndexBuilder {
 public:
  IndexBuilderImpl(IndexMethod method, const std::vector<IndexSpec>& specs, const Schema& schema,
                   Store* store, const BuilderOptions& options)
      : method_(method),
        specs_(specs),
        schema_(schema),
        store_(store),
        options_(options),
        cache_(method == IndexMethod::kCache ? options.idl_cache_size
                                             : std::numeric_limits<uint64_t>::max(),
               [this](uint32_t t, std::string_view k, std::span<const EntryId> ids) {
                 return FlushEvicted(t, k, ids);
               }) {
    options_.sort_memory = std::max(options_.sort_memory, kMinSortMemory);
    stats_.method = method;
    for (const IndexSpec& s : specs_) {
      tables_.push_back(s.table());
      IndexBuildStats st;
      st.name = std::string(s.name());
      st.table = tables_.back();
      st.kinds = IndexMaskToString(s.mask & kIndexKindsMask);
      stats_.indexes.push_back(std::move(st));
    }
    present_.assign(specs_.size(), 0);
    threaded_ = method == IndexMethod::kSort && options.threads > 1;
  }

  ~IndexBuilderImpl() override { StopGrouper(); }

  Status Init() {
    for (size_t i = 0; i < specs_.size(); ++i) {
      if (specs_[i].type == nullptr) return Status::InvalidArgument("index spec without a type");
      for (size_t j = 0; j < i; ++j) {
        if (tables_[i] == tables_[j]) {
          return Status::InvalidArgument("index on '" + std::string(specs_[i].name()) +
                                         "' given twice");
        }
      }
    }
    if (specs_.size() > 65535) return Status::InvalidArgument("too many indexes");
    if (options_.drop_existing) {
      for (const std::string& t : tables_) DIRLOAD_RETURN_IF_ERROR(store_->DropTable(t));
    }
    return Status::Ok();
  }

  Status Add(EntryId id, const EntryView& entry, const AttributeDictionary& dict) override {
    DIRLOAD_RETURN_IF_ERROR(StartEntry(id));
    for (const ValueRef& v : entry.values) {
      uint32_t d = v.description;
      if (d >= desc_targets_.size()) ResolveDescriptions(dict);
      if (d >= desc_targets_.size()) {
        return Fail(Status::InvalidArgument("entry " + std::to_string(id) +
                                            ": attribute description id " + std::to_string(d) +
                                            " not in the dictionary"));
      }
      uint32_t t = desc_targets_[d];
      if (t == kNoTargets) continue;
      DIRLOAD_RETURN_IF_ERROR(IndexValue(id, t, v.value));
    }
    return EndEntry(id);
  }

  Status AddValues(EntryId id, std::span<const TypedValue> values) override {
    DIRLOAD_RETURN_IF_ERROR(StartEntry(id));
    for (const TypedValue& v : values) {
      if (v.type == nullptr) continue;
      uint32_t tid = v.type->id;
      if (tid >= type_targets_.size()) type_targets_.resize(tid + 1, kUnresolved);
      if (type_targets_[tid] == kUnresolved) type_targets_[tid] = TargetsOf(v.type);
      uint32_t t = type_targets_[tid];
      if (t == kNoTargets) continue;
      DIRLOAD_RETURN_IF_ERROR(IndexValue(id, t, v.value));
    }
    return EndEntry(id);
  }

  Status Finish() override {
    DIRLOAD_RETURN_IF_ERROR(status_);
    if (finished_) return Fail(Status::InvalidArgument("index builder finished twice"));
    finished_ = true;
    DIRLOAD_RETURN_IF_ERROR(Fail(FinishGrouping()));
    if (method_ == IndexMethod::kCache) {
      if (cache_.capacity() > 0 && cache_.stats().evictions == 0) {
        // Nothing reached the tables yet: every list is whole and the keys
        // come sorted, so the tables can be written by appending.
        DIRLOAD_RETURN_IF_ERROR(Fail(DrainToAppenders()));
      } else {
        DIRLOAD_RETURN_IF_ERROR(
            Fail(cache_.Drain([this](uint32_t t, std::string_view k, std::span<const EntryId> ids) {
              return FlushEvicted(t, k, ids);
            })));
      }
    } else if (runs_.empty()) {
      DIRLOAD_RETURN_IF_ERROR(Fail(DrainToAppenders()));
    } else {
      DIRLOAD_RETURN_IF_ERROR(Fail(SpillRun()));
      DIRLOAD_RETURN_IF_ERROR(Fail(MergeToAppenders()));
    }
    DIRLOAD_RETURN_IF_ERROR(Fail(store_->Commit()));
    ++stats_.commits;
    temp_dir_.reset();
    return Status::Ok();
  }

  BuilderStats stats() const override {
    BuilderStats s = stats_;
    s.cache = cache_.stats();
    if (method_ == IndexMethod::kSort) s.cache = IdlCacheStats();
    s.pairs = 0;
    for (const IndexBuildStats& i : s.indexes) s.pairs += i.ids;
    return s;
  }

 private:
  static constexpr uint32_t kUnresolved = kNoTargets - 1;

  Status Fail(Status s) {
    if (!s.ok() && status_.ok()) status_ = s;
    return s;
  }

  Status StartEntry(EntryId id) {
    DIRLOAD_RETURN_IF_ERROR(status_);
    if (finished_) return Fail(Status::InvalidArgument("index builder already finished"));
    if (id == 0 || id <= last_id_) {
      return Fail(Status::InvalidArgument("index builder: entry ID " + std::to_string(id) +
                                          " not after " + std::to_string(last_id_)));
    }
    last_id_ = id;
    ++stats_.entries;
    // Runs are cut only between entries, so one key's IDs never straddle
    // two runs out of order.
    if (!threaded_ && method_ == IndexMethod::kSort && cache_.memory() >= options_.sort_memory) {
      DIRLOAD_RETURN_IF_ERROR(Fail(SpillRun()));
    }
    return Status::Ok();
  }

  // The entry's keys go to the cache in one batch (see IdlCache::AddBatch).
  Status EndEntry(EntryId id) {
    for (uint32_t s : touched_) {
      entry_keys_.Add(kPresenceKeyTag, {});
      entry_tables_.push_back(s);
    }
    touched_.clear();
    Status st;
    if (threaded_) {
      st = Hand(id);
    } else {
      key_views_.clear();
      for (size_t k = 0; k < entry_keys_.size(); ++k) key_views_.push_back(entry_keys_[k]);
      st = cache_.AddBatch(id, entry_tables_, key_views_);
    }
    entry_keys_.Clear();
    entry_tables_.clear();
    return Fail(st);
  }

  // --- The grouping thread (kSort with options.threads > 1) ---------------
  // The scanning thread makes the keys; the grouping thread adds them to
  // the in-memory lists (cache_) and spills the runs, so that both cores
  // work. cache_, runs_, temp_dir_ and the spill stats belong to the
  // grouping thread until FinishGrouping() has joined it.

  // Copies the entry's keys into the batch being filled, and hands the batch
  // over when it is full.
  Status Hand(EntryId id) {
    if (filling_ == nullptr) DIRLOAD_RETURN_IF_ERROR(TakeFreeBatch());
    filling_->ids.push_back(id);
    filling_->counts.push_back(static_cast<uint32_t>(entry_keys_.size()));
    filling_->tables.insert(filling_->tables.end(), entry_tables_.begin(), entry_tables_.end());
    for (size_t k = 0; k < entry_keys_.size(); ++k) filling_->keys.AddMade(entry_keys_[k]);
    if (filling_->ids.size() >= kBatchEntries) return Submit();
    return Status::Ok();
  }

  Status TakeFreeBatch() {
    if (!grouper_.joinable()) {
      for (size_t i = 0; i < kBatchesInFlight; ++i) free_.push_back(std::make_unique<KeyBatch>());
      grouper_ = std::thread([this] { GroupLoop(); });
    }
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return !free_.empty() || !group_status_.ok(); });
    if (!group_status_.ok()) return group_status_;
    filling_ = std::move(free_.back());
    free_.pop_back();
    filling_->Clear();
    return Status::Ok();
  }

  Status Submit() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!group_status_.ok()) return group_status_;
      full_.push_back(std::move(filling_));
    }
    cv_.notify_all();
    return Status::Ok();
  }

  void GroupLoop() {
    std::vector<std::string_view> views;
    for (;;) {
      std::unique_ptr<KeyBatch> b;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [this] { return !full_.empty() || no_more_; });
        if (full_.empty()) return;
        b = std::move(full_.front());
        full_.pop_front();
      }
      Status st = GroupBatch(*b, &views);
      {
        std::lock_guard<std::mutex> lock(mu_);
        free_.push_back(std::move(b));
        if (!st.ok()) group_status_ = st;
      }
      cv_.notify_all();
      if (!st.ok()) return;
    }
  }

  Status GroupBatch(const KeyBatch& b, std::vector<std::string_view>* views) {
    size_t key = 0;
    for (size_t e = 0; e < b.ids.size(); ++e) {
      // Runs are cut only between entries, so one key's IDs never straddle
      // two runs out of order.
      if (cache_.memory() >= options_.sort_memory) DIRLOAD_RETURN_IF_ERROR(SpillRun());
      views->clear();
      for (uint32_t k = 0; k < b.counts[e]; ++k, ++key) views->push_back(b.keys[key]);
      std::span<const uint32_t> tables(b.tables.data() + (key - b.counts[e]), b.counts[e]);
      DIRLOAD_RETURN_IF_ERROR(cache_.AddBatch(b.ids[e], tables, *views));
    }
    return Status::Ok();
  }

  // Hands over the last batch, waits for the grouping thread to finish
  // them all and joins it. Its error, if any, is the build's.
  Status FinishGrouping() {
    if (!threaded_) return Status::Ok();
    Status st;
    if (filling_ != nullptr && !filling_->ids.empty()) st = Submit();
    StopGrouper();
    std::lock_guard<std::mutex> lock(mu_);
    return st.ok() ? group_status_ : st;
  }

  void StopGrouper() {
    if (!grouper_.joinable()) return;
    {
      std::lock_guard<std::mutex> lock(mu_);
      no_more_ = true;
    }
    cv_.notify_all();
    grouper_.join();
  }

  // Target lists are stored flat: target_lists_[t] is the start of a run of
  // spec numbers ended by kNoTargets.
  uint32_t TargetsOf(const AttributeType* type) {
    std::vector<const IndexSpec*> targets = IndexTargets(specs_, type);
    if (targets.empty()) return kNoTargets;
    uint32_t start = static_cast<uint32_t>(target_lists_.size());
    for (const IndexSpec* s : targets) {
      target_lists_.push_back(static_cast<uint32_t>(s - specs_.data()));
    }
    target_lists_.push_back(kNoTargets);
    return start;
  }

  void ResolveDescriptions(const AttributeDictionary& dict) {
    for (size_t d = desc_targets_.size(); d < dict.size(); ++d) {
      Result<AttributeDescription> ad = schema_.ParseAttributeDescription(dict.Name(d));
      if (!ad.ok() || ad->type == nullptr) {
        desc_targets_.push_back(kNoTargets);
        continue;
      }
      uint32_t tid = ad->type->id;
      if (tid >= type_targets_.size()) type_targets_.resize(tid + 1, kUnresolved);
      if (type_targets_[tid] == kUnresolved) type_targets_[tid] = TargetsOf(ad->type);
      desc_targets_.push_back(type_targets_[tid]);
    }
  }

  Status IndexValue(EntryId id, uint32_t targets, std::string_view value) {
    for (uint32_t i = targets; target_lists_[i] != kNoTargets; ++i) {
      uint32_t s = target_lists_[i];
      const IndexSpec& spec = specs_[s];
      IndexBuildStats& st = stats_.indexes[s];
      ++st.values;
      if ((spec.mask & kIndexPresence) && present_[s] != id) {
        present_[s] = id;
        touched_.push_back(s);
      }
      if (!AddValueKeys(schema_, spec, value, &entry_keys_, &scratch_).ok()) {
        ++st.unnormalizable;
        continue;
      }
      entry_tables_.resize(entry_keys_.size(), s);
    }
    return Status::Ok();
  }

  Status MaybeCommit() {
    if (options_.commit_bytes > 0 &&
        stats_.bytes_written - bytes_at_commit_ >= options_.commit_bytes) {
      DIRLOAD_RETURN_IF_ERROR(store_->Commit());
      ++stats_.commits;
      bytes_at_commit_ = stats_.bytes_written;
    }
    return Status::Ok();
  }

  // A list leaving the IDL cache: appended to whatever its table holds.
  Status FlushEvicted(uint32_t t, std::string_view key, std::span<const EntryId> ids) {
    bool created = false;
    DIRLOAD_RETURN_IF_ERROR(
        AppendIds(store_, tables_[t], key, ids, &stats_.bytes_written, &created));
    IndexBuildStats& st = stats_.indexes[t];
    if (created) ++st.keys;
    st.ids += ids.size();
    return MaybeCommit();
  }

  // Whole lists in (table, key) order, into empty tables.
  Status AppendWhole(uint32_t t, std::string_view key, std::span<const EntryId> ids) {
    if (appender_ == nullptr || appender_table_ != t) {
      DIRLOAD_RETURN_IF_ERROR(CloseAppender());
      appender_ = std::make_unique<IdlAppender>(store_, tables_[t]);
      appender_table_ = t;
    }
    uint64_t before = appender_->bytes_written();
    DIRLOAD_RETURN_IF_ERROR(appender_->AddMany(key, ids));
    stats_.bytes_written += appender_->bytes_written() - before;
    IndexBuildStats& st = stats_.indexes[t];
    ++st.keys;
    st.ids += ids.size();
    return MaybeCommit();
  }

  // A complete list: appended without reads when the build started from
  // empty tables, else merged into what the table holds.
  Status WriteWhole(uint32_t t, std::string_view key, std::span<const EntryId> ids) {
    return options_.drop_existing ? AppendWhole(t, key, ids) : FlushEvicted(t, key, ids);
  }

  Status CloseAppender() {
    if (appender_ == nullptr) return Status::Ok();
    uint64_t before = appender_->bytes_written();
    DIRLOAD_RETURN_IF_ERROR(appender_->Finish());
    stats_.bytes_written += appender_->bytes_written() - before;
    appender_.reset();
    return Status::Ok();
  }

  Status DrainToAppenders() {
    DIRLOAD_RETURN_IF_ERROR(
        cache_.Drain([this](uint32_t t, std::string_view k, std::span<const EntryId> ids) {
          return WriteWhole(t, k, ids);
        }));
    return CloseAppender();
  }

  Status SpillRun() {
    if (cache_.size() == 0) return Status::Ok();
    if (temp_dir_ == nullptr) {
      DIRLOAD_ASSIGN_OR_RETURN(temp_dir_, ScopedTempDir::Create(options_.tmpdir));
    }
    std::string path = temp_dir_->path() + "/run-" + std::to_string(runs_.size() + 1);
    DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<RunWriter> w, RunWriter::Create(path));
    DIRLOAD_RETURN_IF_ERROR(
        cache_.Drain([&w](uint32_t t, std::string_view k, std::span<const EntryId> ids) {
          return w->Add(t, k, ids);
        }));
    DIRLOAD_RETURN_IF_ERROR(w->Finish());
    runs_.push_back(path);
    ++stats_.runs_spilled;
    stats_.spill_bytes += w->bytes();
    return Status::Ok();
  }

  Status MergeToAppenders() {
    // Split the sort memory between the runs' read buffers.
    size_t buffer = static_cast<size_t>(
        std::clamp<uint64_t>(options_.sort_memory / (2 * runs_.size()), 64 << 10, 4 << 20));
    DIRLOAD_RETURN_IF_ERROR(MergeRuns(
        runs_, buffer, [this](uint32_t t, std::string_view k, std::span<const EntryId> ids) {
          return WriteWhole(t, k, ids);
        }));
    return CloseAppender();
  }

  IndexMethod method_;
  std::vector<IndexSpec> specs_;
  const Schema& schema_;
  Store* store_;
  BuilderOptions options_;
  std::vector<std::string> tables_;
  IdlCache cache_;

  std::vector<uint32_t> desc_targets_;  // dictionary id -> start in target_lists_
  std::vector<uint32_t> type_targets_;  // AttributeType::id -> start in target_lists_
  std::vector<uint32_t> target_lists_;
  std::vector<EntryId> present_;        // per spec: last entry given a presence key
  std::vector<uint32_t> touched_;       // specs needing a presence key for this entry
  KeyList entry_keys_;                  // keys of the entry being added
  std::vector<uint32_t> entry_tables_;  // spec number of each of them
  std::vector<std::string_view> key_views_;
  std::string scratch_;

  std::unique_ptr<IdlAppender> appender_;
  uint32_t appender_table_ = 0;
  std::unique_ptr<ScopedTempDir> temp_dir_;
  std::vector<std::string> runs_;

  bool threaded_ = false;
  std::thread grouper_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::unique_ptr<KeyBatch> filling_;            // the scanning thread's
  std::vector<std::unique_ptr<KeyBatch>> free_;  // guarded by mu_
  std::deque<std::unique_ptr<KeyBatch>> full_;   // guarded by mu_, in ID order
  bool no_more_ = false;                         // guarded by mu_
  Status group_status_;                          // guarded by mu_

  EntryId last_id_ = 0;
  uint64_t bytes_at_commit_ = 0;
  bool finished_ = false;
  BuilderStats stats_;
  Status status_;
};

}  // namespace

Result<std::unique_ptr<IndexBuilder>> IndexBuilder::Create(IndexMethod method,
                                                           const std::vector<IndexSpec>& specs,
                                                           const Schema& schema, Store* store,
                                                           const BuilderOptions& options) {
  auto b = std::make_unique<IndexBuilderImpl>(method, specs, schema, store, options);
  DIRLOAD_RETURN_IF_ERROR(b->Init());
  return std::unique_ptr<IndexBuilder>(std::move(b));
}

}  // namespace dirload
