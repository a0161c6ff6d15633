#include "lib/format/mdb/mdb_index_writer.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>

#include "lib/format/mdb/mdb_entry_codec.h"
#include "lib/format/mdb/mdb_indexer.h"
#include "lib/index/sorted_runs.h"
#include "lib/schema/matching_rule.h"
#include "lib/schema/schema.h"
#include "lib/schema/syntax.h"

namespace dirload::mdb {
namespace {

uint64_t Little(std::string_view b) {
  uint64_t v = 0;
  for (size_t i = b.size(); i-- > 0;) v = (v << 8) | static_cast<unsigned char>(b[i]);
  return v;
}

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
};

// Key numbering: most keys are hashes of 4 or 8 bytes, so keys of up to 8
// bytes are looked up in an open-addressing table on their packed bytes
// (the hot path of the scan); longer ones (index_intlen > 8) in a map.
class KeyNumbers {
 public:
  // The number of `key`, giving it the next one when new.
  uint32_t Number(std::string_view key, std::vector<std::string>* keys) {
    if (key.size() > 8) {
      auto it = long_.find(key);
      if (it != long_.end()) return it->second;
      uint32_t n = static_cast<uint32_t>(keys->size());
      keys->emplace_back(key);
      long_.emplace(std::string(key), n);
      return n;
    }
    uint64_t packed = 0;
    std::memcpy(&packed, key.data(), key.size());
    const uint8_t len = static_cast<uint8_t>(key.size());
    if (used_ * 2 >= slots_.size()) Grow();
    size_t mask = slots_.size() - 1;
    for (size_t i = Hash(packed, len) & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.len == 0) {
        s = Slot{packed, static_cast<uint32_t>(keys->size()), static_cast<uint8_t>(len + 1)};
        ++used_;
        keys->emplace_back(key);
        return s.number;
      }
      if (s.packed == packed && s.len == len + 1) return s.number;
    }
  }

 private:
  struct Slot {
    uint64_t packed = 0;
    uint32_t number = 0;
    uint8_t len = 0;  // key length + 1; 0 marks a free slot
  };
  static size_t Hash(uint64_t packed, uint8_t len) {
    uint64_t h = (packed ^ len) * 0x9e3779b97f4a7c15ull;
    return static_cast<size_t>(h ^ (h >> 29));
  }
  void Grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 1024 : old.size() * 2, Slot{});
    size_t mask = slots_.size() - 1;
    for (const Slot& s : old) {
      if (s.len == 0) continue;
      size_t i = Hash(s.packed, static_cast<uint8_t>(s.len - 1)) & mask;
      while (slots_[i].len != 0) i = (i + 1) & mask;
      slots_[i] = s;
    }
  }

  std::vector<Slot> slots_;
  size_t used_ = 0;
  std::unordered_map<std::string, uint32_t, StringHash, std::equal_to<>> long_;
};

// One index database being built.
struct Target {
  const IndexSpec* spec = nullptr;
  std::optional<MdbIndexer> indexer;
  MdbDb db;
  KeyNumbers numbers;
  std::vector<std::string> keys;  // by number
  // key number << 32 | ID: one word per pair sorts fast and halves memory.
  std::vector<uint64_t> pairs;

  size_t key_bytes = 0;  // held by `keys`, roughly
  // PrepareSorted's result: key numbers in key order, each key's slice of
  // `grouped` (the IDs).
  bool prepared = false;
  std::vector<uint32_t> order;
  std::vector<size_t> begin;
  std::vector<uint32_t> grouped;

  void Add(std::string_view key, uint64_t id) {
    size_t before = keys.size();
    pairs.push_back(uint64_t{numbers.Number(key, &keys)} << 32 | id);
    if (keys.size() != before) key_bytes += 48 + (key.size() > 15 ? key.size() : 0);
  }
  size_t memory() const { return pairs.capacity() * 8 + key_bytes; }
};

// Groups `t`'s pairs by key, in memcmp key order. Pairs arrive in
// ascending ID order (id2e is scanned in order), so a stable counting sort
// on the key number keeps each key's IDs ascending: one pass to count and
// one to place, instead of sorting every pair; only the distinct keys are
// sorted. Pure CPU work on the target alone, so the scanning threads do it.
void PrepareSorted(Target& t) {
  const size_t n = t.keys.size();
  t.order.resize(n);
  for (uint32_t i = 0; i < n; ++i) t.order[i] = i;
  std::sort(t.order.begin(), t.order.end(),
            [&](uint32_t a, uint32_t b) { return t.keys[a] < t.keys[b]; });
  t.begin.assign(n + 1, 0);
  for (uint64_t p : t.pairs) ++t.begin[(p >> 32) + 1];
  for (size_t k = 0; k < n; ++k) t.begin[k + 1] += t.begin[k];
  t.grouped.resize(t.pairs.size());
  {
    std::vector<size_t> next(t.begin.begin(), t.begin.end() - 1);
    for (uint64_t p : t.pairs) t.grouped[next[p >> 32]++] = static_cast<uint32_t>(p);
  }
  // Assigning {} would keep the capacity: swap to release it.
  std::vector<uint64_t>().swap(t.pairs);
  t.prepared = true;
}

// Calls fn(key, ids) per key of a prepared `t` in key order, its distinct
// IDs ascending, then releases the target's memory.
template <typename Fn>
Status EmitSorted(Target& t, Fn&& fn) {
  std::vector<uint64_t> ids;
  for (uint32_t key : t.order) {
    ids.clear();
    for (size_t i = t.begin[key]; i < t.begin[key + 1]; ++i) {
      // A key an entry gives twice (two values with one fragment) counts once.
      if (ids.empty() || ids.back() != t.grouped[i]) ids.push_back(t.grouped[i]);
    }
    DIRLOAD_RETURN_IF_ERROR(fn(std::string_view(t.keys[key]), ids));
  }
  std::vector<uint32_t>().swap(t.order);
  std::vector<size_t>().swap(t.begin);
  std::vector<uint32_t>().swap(t.grouped);
  std::vector<std::string>().swap(t.keys);
  t.numbers = KeyNumbers();
  t.key_bytes = 0;
  t.prepared = false;
  return Status::Ok();
}

template <typename Fn>
Status DrainSorted(Target& t, Fn&& fn) {
  if (!t.prepared) PrepareSorted(t);
  return EmitSorted(t, std::forward<Fn>(fn));
}

class KeyWriter {
 public:
  KeyWriter(MdbEnv& env, uint32_t puts_per_txn, MdbIndexStats* stats)
      : env_(env), puts_per_txn_(puts_per_txn), stats_(stats) {}

  Status Put(MdbDb db, std::string_view key, std::span<const uint64_t> ids) {
    if (!txn_) {
      DIRLOAD_ASSIGN_OR_RETURN(MdbTxn t, env_.Begin(true));
      txn_.emplace(std::move(t));
    }
    stats_->ids += ids.size();
    stats_->keys += 1;
    // Duplicates are 8-byte little-endian IDs: on a little-endian machine
    // the ID array is already their bytes, written with no copy.
    std::span<const uint64_t> dups = ids;
    std::vector<uint64_t> range;
    if (ids.size() > kMdbMaxIdsPerKey) {
      range = MdbIdListDuplicates(ids);
      dups = range;
      stats_->ranges += 1;
    }
    if constexpr (std::endian::native == std::endian::little) {
      DIRLOAD_RETURN_IF_ERROR(txn_->AppendMultiple(
          db, key, std::string_view(reinterpret_cast<const char*>(dups.data()), dups.size() * 8),
          8));
    } else {
      data_.clear();
      for (uint64_t d : dups) data_ += MdbIdBytes(d);
      DIRLOAD_RETURN_IF_ERROR(txn_->AppendMultiple(db, key, data_, 8));
    }
    puts_ += dups.size();
    if (puts_ >= puts_per_txn_) return Commit();
    return Status::Ok();
  }
  Status Commit() {
    puts_ = 0;
    if (!txn_) return Status::Ok();
    Status st = txn_->Commit();
    txn_.reset();
    return st;
  }

 private:
  MdbEnv& env_;
  uint32_t puts_per_txn_;
  MdbIndexStats* stats_;
  std::optional<MdbTxn> txn_;
  uint64_t puts_ = 0;
  std::string data_;
};

}  // namespace

Result<MdbIndexStats> MdbIndexWriter::Build(MdbEnv& env, const Schema& schema,
                                            const std::vector<IndexSpec>& specs,
                                            const MdbIndexOptions& options) {
  MdbIndexStats stats;
  std::vector<Target> targets(specs.size());
  for (size_t i = 0; i < specs.size(); ++i) {
    targets[i].spec = &specs[i];
    DIRLOAD_ASSIGN_OR_RETURN(MdbIndexer indexer,
                             MdbIndexer::Create(schema, specs[i], options.keys));
    targets[i].indexer.emplace(std::move(indexer));
    DIRLOAD_ASSIGN_OR_RETURN(targets[i].db, env.Index(specs[i].name()));
  }

  {
    DIRLOAD_ASSIGN_OR_RETURN(MdbTxn txn, env.Begin(true));
    for (Target& t : targets) {
      if (options.rebuild) {
        DIRLOAD_RETURN_IF_ERROR(txn.Drop(t.db));
        continue;
      }
      uint64_t keys = 0, pairs = 0;
      DIRLOAD_RETURN_IF_ERROR(txn.Count(t.db, &keys, &pairs));
      if (pairs != 0) {
        return Status::InvalidArgument(env.path() + ": index database " +
                                       std::string(t.spec->name()) + " is not empty")
            .WithOrigin(ErrorOrigin::kDatabase);
      }
    }
    DIRLOAD_RETURN_IF_ERROR(txn.Commit());
  }

  // Scan id2e. Per ad2i number: the targets its values go to.
  DIRLOAD_ASSIGN_OR_RETURN(MdbTxn rtxn, env.Begin(false));
  {
    std::string_view last_key, last_value;
    Status st = rtxn.Last(env.id2e(), &last_key, &last_value);
    if (st.ok() && Little(last_key) > 0xffffffffu) {
      return Status::Unsupported(env.path() + ": entry IDs beyond 2^32 - 1")
          .WithOrigin(ErrorOrigin::kDatabase);
    }
    if (!st.ok() && st.code() != StatusCode::kNotFound) return st;
  }
  std::vector<std::optional<std::vector<size_t>>> routes;  // by adx
  std::vector<std::pair<size_t, std::string>> ad2i;
  DIRLOAD_RETURN_IF_ERROR(rtxn.Scan(env.ad2i(), [&](std::string_view k, std::string_view v) {
    ad2i.emplace_back(Little(k), std::string(v));
    return Status::Ok();
  }));
  for (auto& [n, text] : ad2i) {
    if (routes.size() <= n) routes.resize(n + 1);
    std::vector<size_t> to;
    Result<AttributeDescription> desc = schema.ParseAttributeDescription(text);
    if (desc.ok()) {
      for (const IndexSpec* s : IndexTargets(specs, desc->type)) {
        to.push_back(static_cast<size_t>(s - specs.data()));
      }
    }
    routes[n] = std::move(to);
  }

  rtxn.Abort();  // one read transaction per thread: each scan opens its own

  // The targets are shared out between (at most) two scans that run side by
  // side, each reading id2e in its own read transaction and building only
  // its own index databases; substring indexes weigh most. Writing stays on
  // this thread, since LMDB has one writer.
  struct Group {
    std::vector<size_t> targets;
    std::vector<std::optional<std::vector<size_t>>> routes;  // by adx, own targets only
    std::unique_ptr<ScopedTempDir> run_dir;
    std::vector<std::string> runs;
    uint64_t entries = 0;
    Status status;
  };
  const size_t group_count = targets.size() > 1 ? 2 : 1;
  std::vector<Group> groups(group_count);
  {
    std::vector<double> weight(group_count, 0);
    std::vector<size_t> by_weight(targets.size());
    auto cost = [&](size_t ti) {
      const IndexSpec& sp = *targets[ti].spec;
      return (sp.Has(kIndexSubstr) ? 6.0 : 0.0) + (sp.Has(kIndexEquality) ? 1.0 : 0.0) +
             (sp.Has(kIndexPresence) ? 0.2 : 0.0);
    };
    for (size_t i = 0; i < by_weight.size(); ++i) by_weight[i] = i;
    std::stable_sort(by_weight.begin(), by_weight.end(),
                     [&](size_t a, size_t b) { return cost(a) > cost(b); });
    for (size_t ti : by_weight) {
      size_t g = std::min_element(weight.begin(), weight.end()) - weight.begin();
      groups[g].targets.push_back(ti);
      weight[g] += cost(ti);
    }
    for (Group& g : groups) {
      // Runs hold their tables in ascending order (sorted_runs.h).
      std::sort(g.targets.begin(), g.targets.end());
      g.routes.resize(routes.size());
      for (size_t adx = 0; adx < routes.size(); ++adx) {
        if (!routes[adx]) continue;
        std::vector<size_t> own;
        for (size_t ti : *routes[adx]) {
          if (std::find(g.targets.begin(), g.targets.end(), ti) != g.targets.end()) {
            own.push_back(ti);
          }
        }
        g.routes[adx] = std::move(own);
      }
    }
  }
  // The budget is shared by the scans (0: no limit).
  const size_t budget =
      options.memory_budget == 0 ? 0 : std::max<size_t>(1, options.memory_budget / group_count);

  // Beyond the memory budget, a group's pairs gathered so far go to a sorted
  // run file; the runs are merged at the end. Runs are cut between entries,
  // so a key's IDs in a later run all follow those of an earlier one.
  auto spill = [&](Group& g) -> Status {
    if (!g.run_dir) {
      DIRLOAD_ASSIGN_OR_RETURN(g.run_dir, ScopedTempDir::Create(options.temp_dir));
    }
    std::string path = g.run_dir->path() + "/run" + std::to_string(g.runs.size());
    DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<RunWriter> run, RunWriter::Create(path));
    for (size_t ti : g.targets) {
      DIRLOAD_RETURN_IF_ERROR(
          DrainSorted(targets[ti], [&](std::string_view key, std::span<const uint64_t> ids) {
            return run->Add(static_cast<uint32_t>(ti), key, ids);
          }));
    }
    DIRLOAD_RETURN_IF_ERROR(run->Finish());
    g.runs.push_back(std::move(path));
    return Status::Ok();
  };

  auto scan = [&](Group& g) -> Status {
    auto memory = [&]() {
      size_t m = 0;
      for (size_t ti : g.targets) m += targets[ti].memory();
      return m;
    };
    MdbEntryView e;
    MdbKeyList keys;
    DIRLOAD_ASSIGN_OR_RETURN(MdbTxn txn, env.Begin(false));
    DIRLOAD_RETURN_IF_ERROR(txn.Scan(env.id2e(), [&](std::string_view k, std::string_view v) {
      uint64_t id = Little(k);
      DIRLOAD_RETURN_IF_ERROR(DecodeMdbEntryView(v, &e));
      ++g.entries;
      for (const MdbAttributeView& a : e.attributes) {
        if (a.adx >= g.routes.size() || !g.routes[a.adx]) {
          return Status::Corruption(env.path() + ": id2e entry " + std::to_string(id) +
                                    " uses ad2i number " + std::to_string(a.adx) +
                                    ", which ad2i lacks")
              .WithOrigin(ErrorOrigin::kDatabase);
        }
        if (a.multival) {
          return Status::Unsupported(env.path() + ": multival (id2v) attributes are not supported")
              .WithOrigin(ErrorOrigin::kDatabase);
        }
        std::span<const std::string_view> vals = e.Normalized(a);
        for (size_t ti : *g.routes[a.adx]) {
          Target& t = targets[ti];
          keys.clear();
          t.indexer->AddKeys(vals, &keys);
          for (size_t i = 0; i < keys.size(); ++i) t.Add(keys[i], id);
        }
      }
      if (budget != 0 && memory() > budget) return spill(g);
      return Status::Ok();
    }));
    txn.Abort();
    if (!g.runs.empty()) return spill(g);
    // Everything fitted in memory: group the pairs here, in parallel.
    for (size_t ti : g.targets) PrepareSorted(targets[ti]);
    return Status::Ok();
  };
  if (group_count == 1) {
    groups[0].status = scan(groups[0]);
  } else {
    std::thread second([&] { groups[1].status = scan(groups[1]); });
    groups[0].status = scan(groups[0]);
    second.join();
  }
  for (Group& g : groups) DIRLOAD_RETURN_IF_ERROR(g.status);
  stats.entries = groups[0].entries;
  for (const Group& g : groups) stats.runs += g.runs.size();

  KeyWriter writer(env, options.puts_per_txn, &stats);
  for (Group& g : groups) {
    if (g.runs.empty()) {
      // Each index in key order.
      for (size_t ti : g.targets) {
        Target& t = targets[ti];
        DIRLOAD_RETURN_IF_ERROR(
            EmitSorted(t, [&](std::string_view key, std::span<const uint64_t> ids) {
              return writer.Put(t.db, key, ids);
            }));
        DIRLOAD_RETURN_IF_ERROR(writer.Commit());
      }
    } else {
      DIRLOAD_RETURN_IF_ERROR(
          MergeRuns(g.runs, size_t{256} << 10,
                    [&](uint32_t table, std::string_view key, std::span<const EntryId> ids) {
                      return writer.Put(targets[table].db, key, ids);
                    }));
      DIRLOAD_RETURN_IF_ERROR(writer.Commit());
    }
  }
  DIRLOAD_RETURN_IF_ERROR(env.Sync());
  return stats;
}

}  // namespace dirload::mdb
