#include "lib/index/index_builder.h"

#include <algorithm>
#include <array>
#include <condition_variable>
#include <deque>
#include <limits>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>

#include "lib/idl/idl_format.h"
#include "lib/idl/idl_store.h"
#include "lib/index/entry_key_maker.h"
#include "lib/index/index_keys.h"
#include "lib/index/sorted_runs.h"
#include "lib/util/ascii.h"

namespace dirload {

std::string_view IndexMethodName(IndexMethod method) {
  return method == IndexMethod::kCache ? "cache" : "sort";
}

Result<IndexMethod> ParseIndexMethod(std::string_view name) {
  if (EqualsIgnoreCase(name, "cache")) return IndexMethod::kCache;
  if (EqualsIgnoreCase(name, "sort")) return IndexMethod::kSort;
  return Status::InvalidArgument("unknown index method '" + std::string(name) +
                                 "' (expected cache or sort)");
}

namespace {

constexpr uint64_t kMinSortMemory = 1ull << 20;
constexpr uint32_t kNoTargets = std::numeric_limits<uint32_t>::max();

// The indexed values of a few hundred consecutive entries, as the scanning
// thread hands them to the workers, with the specs each value goes to.
struct ValueBatch {
  std::vector<EntryId> ids;
  std::vector<uint32_t> value_ends;  // per entry: end of its values
  KeyList values;                    // raw values
  std::vector<uint32_t> spec_ends;   // per value: end of its specs
  std::vector<uint16_t> specs;
  int remaining = 0;  // workers yet to process it; guarded by the builder's mu_
  size_t held = 0;    // bytes, set when it is handed over; guarded likewise

  // Calls fn(spec, value) for each value of entry `e` and each spec it goes
  // to. `*value` is the number of values of the entries before it; it is
  // moved past this entry's.
  template <typename Fn>
  void ForEachValue(size_t e, size_t* value, Fn fn) const {
    for (; *value < value_ends[e]; ++*value) {
      const uint32_t begin = *value == 0 ? 0 : spec_ends[*value - 1];
      for (uint32_t i = begin; i < spec_ends[*value]; ++i) fn(specs[i], values[*value]);
    }
  }
  void Clear() {
    ids.clear();
    value_ends.clear();
    values.Clear();
    spec_ends.clear();
    specs.clear();
  }
  size_t bytes() const {
    return ids.size() * sizeof(EntryId) + (value_ends.size() + spec_ends.size()) * 4 +
           values.bytes() + specs.size() * 2;
  }
};

// A run is cut between entries once the cache reaches its budget, so the
// entry that crosses it may start lists beyond what the budget holds.
constexpr size_t kListsPastBudget = 4096;
// The records reserved are taken from the address space at once: a large
// --sort-memory must not ask for more than the machine may grant (256 MB of
// records; past that a doubling's copy is small beside the run).
constexpr size_t kMaxReservedLists = size_t{1} << 22;

size_t ListsToReserve(uint64_t budget) {
  return std::min(IdlCache::ListsWithin(budget) + kListsPastBudget, kMaxReservedLists);
}

constexpr size_t kBatchEntries = 256;
// Batches of values: at most this many are made, one when none is free and
// the batches handed over and not yet done by every worker hold less than
// kBatchBytesInFlight. A worker that spills a run stops taking batches for
// a while; with 4 batches in flight the scanning thread soon waited for it,
// and the other worker for the scanning thread, so a core stood idle
// through every spill. Deeper, the others go on meanwhile: phase 2 of a
// native 1M load took 6.7-7.0 s instead of 7.1-8.1 s.
constexpr size_t kBatchesInFlight = 256;
constexpr size_t kBatchBytesInFlight = size_t{32} << 20;

class IndexBuilderImpl final : public IndexBuilder {
 public:
  IndexBuilderImpl(IndexMethod method, const std::vector<IndexSpec>& specs, const Schema& schema,
                   Store* store, const BuilderOptions& options)
      : method_(method),
        specs_(specs),
        schema_(schema),
        store_(store),
        options_(options),
        main_(
            specs_, schema,
            method == IndexMethod::kCache ? options.idl_cache_size
                                          : std::numeric_limits<uint64_t>::max(),
            [this](uint32_t t, std::string_view k, std::span<const EntryId> ids) {
              return FlushEvicted(t, k, ids);
            },
            "run-") {
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
    threaded_ = method == IndexMethod::kSort && options.threads > 1 && specs_.size() > 1;
  }

  ~IndexBuilderImpl() override { StopWorkers(/*abandon=*/true); }

  Status Init() {
    caller_lap_.emplace(options_.ledger);
    caller_timer_.emplace(options_.ledger, "reader");
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
    if (method_ == IndexMethod::kSort && !threaded_) {
      main_.cache.Reserve(ListsToReserve(options_.sort_memory));
    }
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
      IndexValue(id, t, v.value);
    }
    return EndEntry(id);
  }

  Status AddValues(EntryId id, std::span<const TypedValue> values) override {
    DIRLOAD_RETURN_IF_ERROR(StartEntry(id));
    for (const TypedValue& v : values) {
      if (v.type == nullptr) continue;
      uint32_t t = TypeTargets(v.type);
      if (t == kNoTargets) continue;
      IndexValue(id, t, v.value);
    }
    return EndEntry(id);
  }

  Status Finish() override {
    DIRLOAD_RETURN_IF_ERROR(status_);
    if (finished_) return Fail(Status::InvalidArgument("index builder finished twice"));
    finished_ = true;
    if (options_.lists) {
      if (method_ != IndexMethod::kSort || options_.drop_existing) {
        return Fail(Status::InvalidArgument("lists handed out need the sort method, no drop"));
      }
      if (threaded_) {
        DIRLOAD_RETURN_IF_ERROR(Fail(FinishWorkers()));
        for (const auto& w : workers_) DIRLOAD_RETURN_IF_ERROR(Fail(HandOut(&w->grouping)));
      } else {
        DIRLOAD_RETURN_IF_ERROR(Fail(EndInput(&main_)));
        DIRLOAD_RETURN_IF_ERROR(Fail(HandOut(&main_)));
      }
      temp_dir_.reset();
      return Status::Ok();
    }
    // Unthreaded, the calling thread made the keys as it read.
    caller_lap_->Lap(threaded_ ? "read" : "read and keys");
    if (threaded_) {
      DIRLOAD_RETURN_IF_ERROR(Fail(FinishWorkers()));
      if (options_.drop_existing) {
        DIRLOAD_RETURN_IF_ERROR(Fail(WriteOutInParallel()));
      } else {
        for (const auto& w : workers_) DIRLOAD_RETURN_IF_ERROR(Fail(WriteOut(&w->grouping)));
      }
    } else if (method_ == IndexMethod::kCache) {
      if (main_.cache.capacity() > 0 && main_.cache.stats().evictions == 0) {
        // Nothing reached the tables yet: every list is whole and the keys
        // come sorted, so the tables can be written by appending.
        DIRLOAD_RETURN_IF_ERROR(Fail(DrainToAppenders(&main_.cache)));
      } else {
        DIRLOAD_RETURN_IF_ERROR(Fail(
            main_.cache.Drain([this](uint32_t t, std::string_view k, std::span<const EntryId> ids) {
              return FlushEvicted(t, k, ids);
            })));
      }
    } else {
      DIRLOAD_RETURN_IF_ERROR(Fail(EndInput(&main_)));
      DIRLOAD_RETURN_IF_ERROR(Fail(WriteOut(&main_)));
    }
    DIRLOAD_RETURN_IF_ERROR(Fail(store_->Commit()));
    ++stats_.commits;
    temp_dir_.reset();
    caller_lap_->Lap("write");
    return Status::Ok();
  }

  BuilderStats stats() const override {
    BuilderStats s = stats_;
    s.cache = main_.cache.stats();
    if (method_ == IndexMethod::kSort) s.cache = IdlCacheStats();
    std::vector<const Grouping*> groupings{&main_};
    for (const auto& w : workers_) groupings.push_back(&w->grouping);
    s.pairs = 0;
    for (size_t i = 0; i < s.indexes.size(); ++i) {
      IndexBuildStats& is = s.indexes[i];
      for (const Grouping* g : groupings) {
        is.values += g->maker.values(i);
        is.unnormalizable += g->maker.unnormalizable(i);
      }
      s.pairs += is.ids;
    }
    for (const Grouping* g : groupings) {
      s.runs_spilled += g->runs_spilled;
      s.spill_bytes += g->spill_bytes;
    }
    return s;
  }

 private:
  static constexpr uint32_t kUnresolved = kNoTargets - 1;

  // Keys made, grouped into lists and, past the sort memory, spilled as
  // sorted runs: the whole of an unthreaded build, one worker's share of a
  // threaded one.
  struct Grouping {
    Grouping(const std::vector<IndexSpec>& specs, const Schema& schema, uint64_t capacity,
             IdlCache::FlushFn flush, std::string run_prefix)
        : maker(specs, schema), cache(capacity, std::move(flush)), prefix(std::move(run_prefix)) {}
    EntryKeyMaker maker;
    IdlCache cache;
    std::vector<std::string> runs;  // spilled, in order
    std::string prefix;             // of the runs' file names
    uint64_t runs_spilled = 0;
    uint64_t spill_bytes = 0;
  };

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
    if (threaded_) {
      if (filling_ == nullptr) DIRLOAD_RETURN_IF_ERROR(Fail(TakeFreeBatch()));
      filling_->ids.push_back(id);
    } else if (method_ == IndexMethod::kSort && main_.cache.memory() >= options_.sort_memory) {
      // Runs are cut only between entries, so one key's IDs never straddle
      // two runs out of order.
      DIRLOAD_RETURN_IF_ERROR(Fail(SpillRun(&main_)));
    }
    return Status::Ok();
  }

  // One value, for every spec in its target list: its keys are made here,
  // or (threaded) copied into the batch for the workers that own the specs.
  void IndexValue(EntryId id, uint32_t targets, std::string_view value) {
    if (threaded_) {
      filling_->values.AddMade(value);
      for (uint32_t i = targets; target_lists_[i] != kNoTargets; ++i) {
        filling_->specs.push_back(static_cast<uint16_t>(target_lists_[i]));
      }
      filling_->spec_ends.push_back(static_cast<uint32_t>(filling_->specs.size()));
      return;
    }
    for (uint32_t i = targets; target_lists_[i] != kNoTargets; ++i) {
      main_.maker.Value(id, target_lists_[i], value);
    }
  }

  Status EndEntry(EntryId id) {
    if (threaded_) {
      filling_->value_ends.push_back(static_cast<uint32_t>(filling_->values.size()));
      if (filling_->ids.size() >= kBatchEntries) return Fail(Submit());
      return Status::Ok();
    }
    return Fail(GroupKeys(&main_, id));
  }

  // The keys made for entry `id` go to the grouping's cache in one batch
  // (see IdlCache::AddBatch).
  static Status GroupKeys(Grouping* g, EntryId id) {
    g->maker.End();
    Status st = g->cache.AddBatch(id, g->maker.tables(), g->maker.key_views());
    g->maker.Clear();
    return st;
  }

  // --- Workers (kSort with options.threads > 1) ---------------------------
  // The specs are shared out between `threads` workers by the weight of
  // their keys in the first batch. The scanning thread copies each entry's
  // indexed values into a batch; every worker makes the keys of its own
  // specs from every batch, groups them in a cache of its own and spills
  // its own runs (at sort_memory / workers). A table's lists thus come
  // from one worker, which saw every entry in ID order: its runs merge as
  // a single-threaded build's do, and the output is the same, byte for
  // byte. Each worker sorts what it holds at the end, in parallel. Into
  // empty tables, the workers' lists are then encoded on one thread per
  // worker while the scanning thread appends them (WriteOutInParallel: the
  // store has one writer); otherwise the scanning thread writes them one
  // worker after the other.

  struct Worker {
    Worker(const std::vector<IndexSpec>& specs, const Schema& schema, size_t index)
        : grouping(
              specs, schema, std::numeric_limits<uint64_t>::max(),
              [](uint32_t, std::string_view, std::span<const EntryId>) { return Status::Ok(); },
              "run-" + std::to_string(index) + "-") {}
    std::vector<uint8_t> owned;  // per spec
    Grouping grouping;
    StageLap* lap = nullptr;        // the worker thread's, while it runs
    std::deque<ValueBatch*> queue;  // guarded by mu_
    std::thread thread;
  };

  Status TakeFreeBatch() {
    std::unique_lock<std::mutex> lock(mu_);
    auto may_add = [this] {
      return batches_.size() < kBatchesInFlight && bytes_in_flight_ < kBatchBytesInFlight;
    };
    cv_.wait(lock, [&] { return !free_.empty() || may_add() || !group_status_.ok(); });
    if (!group_status_.ok()) return group_status_;
    if (free_.empty()) {
      batches_.push_back(std::make_unique<ValueBatch>());
      free_.push_back(batches_.back().get());
    }
    filling_ = free_.back();
    free_.pop_back();
    filling_->Clear();
    return Status::Ok();
  }

  Status Submit() {
    // The calling thread's share: the entries read and their values copied.
    caller_lap_->Lap("read");
    if (workers_.empty()) StartWorkers(*filling_);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!group_status_.ok()) return group_status_;
      filling_->remaining = static_cast<int>(workers_.size());
      filling_->held = filling_->bytes();
      bytes_in_flight_ += filling_->held;
      for (const auto& w : workers_) w->queue.push_back(filling_);
    }
    filling_ = nullptr;
    cv_.notify_all();
    return Status::Ok();
  }

  // Shares the specs out by the keys they make from `sample` (longest
  // processing time first), and starts the workers.
  void StartWorkers(const ValueBatch& sample) {
    EntryKeyMaker probe(specs_, schema_);
    std::vector<uint64_t> weight(specs_.size(), 1);
    size_t value = 0;
    for (size_t e = 0; e < sample.ids.size(); ++e) {
      sample.ForEachValue(
          e, &value, [&](uint32_t s, std::string_view v) { probe.Value(sample.ids[e], s, v); });
      probe.End();
      for (uint32_t s : probe.tables()) ++weight[s];
      probe.Clear();
    }
    const size_t n = std::min<size_t>(options_.threads, specs_.size());
    std::vector<uint32_t> order(specs_.size());
    for (uint32_t s = 0; s < order.size(); ++s) order[s] = s;
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return weight[a] > weight[b]; });
    std::vector<uint64_t> load(n, 0);
    for (size_t i = 0; i < n; ++i) {
      workers_.push_back(std::make_unique<Worker>(specs_, schema_, i));
      workers_.back()->owned.assign(specs_.size(), 0);
    }
    for (uint32_t s : order) {
      size_t w = std::min_element(load.begin(), load.end()) - load.begin();
      workers_[w]->owned[s] = 1;
      load[w] += weight[s];
    }
    for (size_t i = 0; i < n; ++i) {
      Worker* w = workers_[i].get();
      w->thread = std::thread([this, w] { WorkerLoop(w); });
    }
  }

  void WorkerLoop(Worker* w) {
    ThreadTimer timer(options_.ledger, "index");
    StageLap lap(options_.ledger);
    w->lap = &lap;
    const uint64_t budget = options_.sort_memory / workers_.size();
    w->grouping.cache.Reserve(ListsToReserve(budget));
    for (;;) {
      ValueBatch* b = nullptr;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return !w->queue.empty() || no_more_; });
        if (w->queue.empty() || abandon_) break;
        b = w->queue.front();
        w->queue.pop_front();
      }
      Status st = Process(w, *b, budget);
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (--b->remaining == 0) {
          bytes_in_flight_ -= b->held;
          free_.push_back(b);
        }
        if (!st.ok() && group_status_.ok()) group_status_ = st;
      }
      cv_.notify_all();
      if (!st.ok()) return;
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (abandon_ || !group_status_.ok()) return;
    }
    // The end of the input: the sorting part of the write, on this thread.
    lap.Lap("keys");
    Status st = EndInput(&w->grouping);
    lap.Lap("sort");
    w->lap = nullptr;
    std::lock_guard<std::mutex> lock(mu_);
    if (!st.ok() && group_status_.ok()) group_status_ = st;
  }

  Status Process(Worker* w, const ValueBatch& b, uint64_t budget) {
    Grouping* g = &w->grouping;
    size_t value = 0;
    for (size_t e = 0; e < b.ids.size(); ++e) {
      // Runs are cut only between entries, so one key's IDs never straddle
      // two runs out of order.
      if (g->cache.memory() >= budget) {
        w->lap->Lap("keys");
        DIRLOAD_RETURN_IF_ERROR(SpillRun(g));
        w->lap->Lap("sort");
      }
      const EntryId id = b.ids[e];
      b.ForEachValue(e, &value, [&](uint32_t s, std::string_view v) {
        if (w->owned[s]) g->maker.Value(id, s, v);
      });
      DIRLOAD_RETURN_IF_ERROR(GroupKeys(g, id));
    }
    return Status::Ok();
  }

  // Hands over the last batch, lets the workers finish and joins them.
  // Their first error, if any, is the build's.
  Status FinishWorkers() {
    Status st;
    if (filling_ != nullptr && !filling_->ids.empty()) st = Submit();
    StopWorkers(/*abandon=*/false);
    std::lock_guard<std::mutex> lock(mu_);
    return st.ok() ? group_status_ : st;
  }

  void StopWorkers(bool abandon) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      no_more_ = true;
      abandon_ = abandon_ || abandon;
    }
    cv_.notify_all();
    for (const auto& w : workers_) {
      if (w->thread.joinable()) w->thread.join();
    }
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

  uint32_t TypeTargets(const AttributeType* type) {
    uint32_t tid = type->id;
    if (tid >= type_targets_.size()) type_targets_.resize(tid + 1, kUnresolved);
    if (type_targets_[tid] == kUnresolved) type_targets_[tid] = TargetsOf(type);
    return type_targets_[tid];
  }

  void ResolveDescriptions(const AttributeDictionary& dict) {
    for (size_t d = desc_targets_.size(); d < dict.size(); ++d) {
      Result<AttributeDescription> ad = schema_.ParseAttributeDescription(dict.Name(d));
      desc_targets_.push_back(!ad.ok() || ad->type == nullptr ? kNoTargets : TypeTargets(ad->type));
    }
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

  // Whole lists in (table, key) order into empty tables, one IdlAppender
  // at a time, counting what it appended. The build's own writes to the
  // store (writer_); in a parallel write-out, one per worker, whose records
  // go to the thread that writes the store.
  struct ListWriter {
    explicit ListWriter(IdlAppender::Output out) : output(std::move(out)) {}
    IdlAppender::Output output;
    std::unique_ptr<IdlAppender> appender;
    uint32_t table = 0;
    uint64_t bytes = 0;                                 // appended so far
    std::vector<std::pair<uint64_t, uint64_t>> counts;  // per spec: keys, IDs not yet in stats_
  };

  Status AppendWhole(ListWriter* w, uint32_t t, std::string_view key,
                     std::span<const EntryId> ids) {
    return AppendList(w, t, ids.size(), [&](IdlAppender* a) { return a->AddMany(key, ids); });
  }
  // The same from a list the cache hands over as it holds it.
  Status AppendWhole(ListWriter* w, const IdlCache::EncodedList& list) {
    return AppendList(w, list.table, list.count,
                      [&](IdlAppender* a) { return a->AddWhole(list.key, list.body, list.count); });
  }
  // One list of `ids` IDs in table `t`, given to its appender by `add`.
  template <typename AddFn>
  Status AppendList(ListWriter* w, uint32_t t, uint64_t ids, const AddFn& add) {
    if (w->appender == nullptr || w->table != t) {
      DIRLOAD_RETURN_IF_ERROR(CloseList(w));
      w->appender = std::make_unique<IdlAppender>(w->output, tables_[t]);
      w->table = t;
    }
    const uint64_t before = w->appender->bytes_written();
    DIRLOAD_RETURN_IF_ERROR(add(w->appender.get()));
    w->bytes += w->appender->bytes_written() - before;
    if (w->counts.empty()) w->counts.resize(specs_.size());
    ++w->counts[t].first;
    w->counts[t].second += ids;
    return Status::Ok();
  }

  static Status CloseList(ListWriter* w) {
    if (w->appender == nullptr) return Status::Ok();
    const uint64_t before = w->appender->bytes_written();
    DIRLOAD_RETURN_IF_ERROR(w->appender->Finish());
    w->bytes += w->appender->bytes_written() - before;
    w->appender.reset();
    return Status::Ok();
  }

  // A writer's key and ID counts into the stats. Main thread only.
  void FoldCounts(ListWriter* w) {
    for (size_t t = 0; t < w->counts.size(); ++t) {
      stats_.indexes[t].keys += w->counts[t].first;
      stats_.indexes[t].ids += w->counts[t].second;
    }
    w->counts.clear();
  }

  // A complete list: appended without reads when the build started from
  // empty tables, else merged into what the table holds.
  Status WriteWhole(uint32_t t, std::string_view key, std::span<const EntryId> ids) {
    if (!options_.drop_existing) return FlushEvicted(t, key, ids);
    return WriteCounted([&](ListWriter* w) { return AppendWhole(w, t, key, ids); });
  }
  // `append` into the build's own writer, its bytes counted, committing as
  // they mount up.
  template <typename AppendFn>
  Status WriteCounted(const AppendFn& append) {
    const uint64_t before = writer_.bytes;
    DIRLOAD_RETURN_IF_ERROR(append(&writer_));
    stats_.bytes_written += writer_.bytes - before;
    return MaybeCommit();
  }

  Status CloseAppender() {
    const uint64_t before = writer_.bytes;
    DIRLOAD_RETURN_IF_ERROR(CloseList(&writer_));
    stats_.bytes_written += writer_.bytes - before;
    FoldCounts(&writer_);
    return Status::Ok();
  }

  Status DrainToAppenders(IdlCache* cache) {
    if (options_.drop_existing) {
      DIRLOAD_RETURN_IF_ERROR(cache->DrainEncoded([this](const IdlCache::EncodedList& list) {
        return WriteCounted([&](ListWriter* w) { return AppendWhole(w, list); });
      }));
    } else {
      DIRLOAD_RETURN_IF_ERROR(
          cache->Drain([this](uint32_t t, std::string_view k, std::span<const EntryId> ids) {
            return FlushEvicted(t, k, ids);
          }));
    }
    return CloseAppender();
  }

  // The end of a sort build's input, for one grouping: the sorting part of
  // writing it out (WriteOut), which a worker does on its own thread.
  Status EndInput(Grouping* g) {
    if (g->runs.empty()) {
      g->cache.SortForDrain();
      return Status::Ok();
    }
    DIRLOAD_RETURN_IF_ERROR(SpillRun(g));  // the rest, as the last run
    // Only the runs are read from here on: the cache's memory would
    // otherwise stay taken through the merge, beside its buffers and the
    // store's pages.
    g->cache.Release();
    return Status::Ok();
  }

  // After EndInput: the grouping's lists into their tables, from the cache
  // when nothing was spilled, else by merging the runs.
  Status WriteOut(Grouping* g) {
    return g->runs.empty() ? DrainToAppenders(&g->cache) : MergeToAppenders(g->runs);
  }

  // After EndInput: the grouping's lists to options_.lists, from the cache
  // when nothing was spilled, else by merging the runs.
  Status HandOut(Grouping* g) {
    if (g->runs.empty()) return g->cache.Drain(options_.lists);
    return MergeRuns(g->runs, MergeBuffer(g->runs.size()), options_.lists);
  }

  // Writes what the grouping's cache holds as its next run. Called by one
  // thread per grouping; the spill directory is made once, under temp_mu_.
  Status SpillRun(Grouping* g) {
    IdlCache* cache = &g->cache;
    if (cache->size() == 0) return Status::Ok();
    std::string dir;
    {
      std::lock_guard<std::mutex> lock(temp_mu_);
      if (temp_dir_ == nullptr) {
        DIRLOAD_ASSIGN_OR_RETURN(temp_dir_, ScopedTempDir::Create(options_.tmpdir));
      }
      dir = temp_dir_->path();
    }
    std::string path = dir + "/" + g->prefix + std::to_string(g->runs.size() + 1);
    DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<RunWriter> w, RunWriter::Create(path));
    g->runs.push_back(path);
    DIRLOAD_RETURN_IF_ERROR(
        cache->Drain([&w](uint32_t t, std::string_view k, std::span<const EntryId> ids) {
          return w->Add(t, k, ids);
        }));
    DIRLOAD_RETURN_IF_ERROR(w->Finish());
    ++g->runs_spilled;
    g->spill_bytes += w->bytes();
    return Status::Ok();
  }

  // The read buffer of each of `runs` runs merged at once: half the sort
  // memory between them.
  size_t MergeBuffer(size_t runs) const {
    return static_cast<size_t>(
        std::clamp<uint64_t>(options_.sort_memory / (2 * runs), 64 << 10, 4 << 20));
  }

  Status MergeToAppenders(const std::vector<std::string>& runs) {
    DIRLOAD_RETURN_IF_ERROR(
        MergeRuns(runs, MergeBuffer(runs.size()),
                  [this](uint32_t t, std::string_view k, std::span<const EntryId> ids) {
                    return WriteWhole(t, k, ids);
                  }));
    return CloseAppender();
  }

  // WriteOut into `w`, on a thread of a parallel write-out.
  Status WriteOutTo(Grouping* g, ListWriter* w) {
    if (g->runs.empty()) {
      DIRLOAD_RETURN_IF_ERROR(g->cache.DrainEncoded(
          [this, w](const IdlCache::EncodedList& list) { return AppendWhole(w, list); }));
    } else {
      DIRLOAD_RETURN_IF_ERROR(
          MergeRuns(g->runs, MergeBuffer(g->runs.size()),
                    [this, w](uint32_t t, std::string_view k, std::span<const EntryId> ids) {
                      return AppendWhole(w, t, k, ids);
                    }));
    }
    return CloseList(w);
  }

  // The workers' tables into empty tables. Each worker's lists are drained
  // or merged and encoded on a thread of their own, which hands the records
  // over a piece at a time; this thread only appends them (the store has
  // one writer). A table's records keep their order, so the tables are
  // those of a serial write-out; the encoding, which was half of it, no
  // longer waits for the store.
  Status WriteOutInParallel() {
    struct Piece {
      std::string bytes;                             // keys and values, one after another
      std::vector<std::array<uint32_t, 3>> records;  // table, key size, value size
    };
    constexpr size_t kPieceBytes = 1 << 20;
    std::mutex mu;
    std::condition_variable cv;
    std::deque<std::unique_ptr<Piece>> full, free;  // guarded by mu
    size_t running = 0;                             // guarded by mu
    bool stop = false;                              // guarded by mu: the writing failed
    Status encoded;                                 // guarded by mu: the first encoding error
    for (size_t i = 0; i < 2 * workers_.size(); ++i) free.push_back(std::make_unique<Piece>());

    // Hands `*piece` over and takes an empty one; false when the writing stopped.
    auto hand_over = [&](std::unique_ptr<Piece>* piece) {
      std::unique_lock<std::mutex> lock(mu);
      full.push_back(std::move(*piece));
      cv.notify_all();
      cv.wait(lock, [&] { return !free.empty() || stop; });
      if (stop) return false;
      *piece = std::move(free.front());
      free.pop_front();
      return true;
    };
    std::vector<std::unique_ptr<ListWriter>> writers;
    std::vector<std::unique_ptr<Piece>> pieces(workers_.size());
    std::vector<std::thread> threads;
    std::vector<Grouping*> left;  // no thread to be had: written here afterwards
    for (size_t i = 0; i < workers_.size(); ++i) {
      {
        std::lock_guard<std::mutex> lock(mu);
        pieces[i] = std::move(free.front());
        free.pop_front();
      }
      std::unique_ptr<Piece>* piece = &pieces[i];
      writers.push_back(std::make_unique<ListWriter>(nullptr));
      ListWriter* w = writers.back().get();
      w->output = [&hand_over, piece, w](std::string_view, std::string_view key,
                                         std::string_view value) {
        Piece* p = piece->get();
        p->records.push_back(
            {w->table, static_cast<uint32_t>(key.size()), static_cast<uint32_t>(value.size())});
        p->bytes.append(key);
        p->bytes.append(value);
        if (p->bytes.size() < kPieceBytes || hand_over(piece)) return Status::Ok();
        return Status::Internal("index write-out stopped");  // the writer's error is the build's
      };
      Grouping* g = &workers_[i]->grouping;
      try {
        std::lock_guard<std::mutex> lock(mu);
        threads.emplace_back([&, g, w, piece] {
          ThreadTimer timer(options_.ledger, "encode");
          StageLap lap(options_.ledger);
          Status st = WriteOutTo(g, w);
          lap.Lap("write");
          std::lock_guard<std::mutex> lock(mu);
          // A hand-over refused when the writing stopped leaves no piece.
          if (*piece != nullptr && !(*piece)->records.empty()) full.push_back(std::move(*piece));
          if (!st.ok()) {
            if (encoded.ok()) encoded = st;
            stop = true;
          }
          --running;
          cv.notify_all();
        });
        ++running;
      } catch (const std::system_error&) {
        writers.pop_back();
        left.push_back(g);
      }
    }
    Status written;
    for (;;) {
      std::unique_ptr<Piece> piece;
      {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return !full.empty() || running == 0; });
        if (full.empty()) break;
        piece = std::move(full.front());
        full.pop_front();
      }
      const char* at = piece->bytes.data();
      for (const auto& [t, key_size, value_size] : piece->records) {
        if (!written.ok()) break;  // what is left is only taken back, not written
        std::string_view key(at, key_size), value(at + key_size, value_size);
        at += key_size + value_size;
        written = store_->Append(tables_[t], key, value);
        if (written.ok()) {
          stats_.bytes_written += key_size + value_size;
          written = MaybeCommit();
        }
      }
      piece->bytes.clear();
      piece->records.clear();
      std::lock_guard<std::mutex> lock(mu);
      if (!written.ok()) stop = true;
      free.push_back(std::move(piece));
      cv.notify_all();
    }
    for (std::thread& t : threads) t.join();
    for (const auto& w : writers) FoldCounts(w.get());
    DIRLOAD_RETURN_IF_ERROR(written);
    DIRLOAD_RETURN_IF_ERROR(encoded);
    for (Grouping* g : left) DIRLOAD_RETURN_IF_ERROR(WriteOut(g));
    return Status::Ok();
  }

  // The calling thread's readings; made in Init, on that thread.
  std::optional<StageLap> caller_lap_;
  std::optional<ThreadTimer> caller_timer_;
  IndexMethod method_;
  std::vector<IndexSpec> specs_;
  const Schema& schema_;
  Store* store_;
  BuilderOptions options_;
  std::vector<std::string> tables_;
  Grouping main_;  // unthreaded builds

  std::vector<uint32_t> desc_targets_;  // dictionary id -> start in target_lists_
  std::vector<uint32_t> type_targets_;  // AttributeType::id -> start in target_lists_
  std::vector<uint32_t> target_lists_;

  ListWriter writer_{[this](std::string_view t, std::string_view k, std::string_view v) {
    return store_->Append(t, k, v);
  }};
  std::mutex temp_mu_;
  std::unique_ptr<ScopedTempDir> temp_dir_;  // guarded by temp_mu_ while workers run

  bool threaded_ = false;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<std::unique_ptr<ValueBatch>> batches_;  // guarded by mu_
  std::mutex mu_;
  std::condition_variable cv_;
  ValueBatch* filling_ = nullptr;  // the scanning thread's
  std::vector<ValueBatch*> free_;  // guarded by mu_
  size_t bytes_in_flight_ = 0;     // guarded by mu_: of the batches handed over
  bool no_more_ = false;           // guarded by mu_
  bool abandon_ = false;           // guarded by mu_
  Status group_status_;            // guarded by mu_

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
