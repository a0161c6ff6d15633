#include "lib/format/mdb/mdb_index_builder.h"

#include <algorithm>
#include <array>
#include <bit>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>

#include "lib/format/mdb/mdb_entry_codec.h"
#include "lib/format/mdb/mdb_id2v.h"
#include "lib/format/mdb/mdb_key_maker.h"
#include "lib/format/mdb/mdb_reader.h"
#include "lib/idl/idl_cache.h"
#include "lib/index/sorted_runs.h"
#include "lib/schema/ascii.h"
#include "lib/schema/matching_rule.h"
#include "lib/schema/schema.h"
#include "lib/schema/syntax.h"
#include "lib/util/coding.h"

namespace dirload::mdb {
namespace {

// Groups of index databases built one after another (see Build).
constexpr size_t kGroups = 4;
// The scan's window of entries read ahead, and the bytes of each fetched
// early (Build's scan says why).
constexpr size_t kScanAhead = 32;
constexpr size_t kPrefetchBytes = 512;

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
  std::unordered_map<std::string, uint32_t, schema_internal::StringHash, std::equal_to<>> long_;
};

// One index database being built.
struct Target {
  const IndexSpec* spec = nullptr;
  std::optional<MdbKeyMaker> indexer;
  MdbDb db;
  // One word per pair. While every key has 4 bytes (32-bit hashes,
  // presence, 4-byte integer keys: the usual case) the word is the key read
  // big-endian << 32 | ID, sorted as it is; once another size comes the
  // target is `wide`: keys are numbered and the word is number << 32 | ID.
  std::vector<uint64_t> pairs;
  bool wide = false;
  KeyNumbers numbers;
  std::vector<std::string> keys;  // wide: by number

  size_t key_bytes = 0;  // held by `keys`, roughly
  // PrepareSorted's result: key numbers in key order, each key's slice of
  // `grouped` (the IDs).
  bool prepared = false;
  std::vector<uint32_t> order;
  std::vector<size_t> begin;
  std::vector<uint32_t> grouped;

  void Add(std::string_view key, uint64_t id) {
    if (!wide) {
      if (key.size() == 4) {
        pairs.push_back(uint64_t{GetBigEndian32(key)} << 32 | id);
        return;
      }
      Widen();
    }
    size_t before = keys.size();
    pairs.push_back(uint64_t{numbers.Number(key, &keys)} << 32 | id);
    if (keys.size() != before) key_bytes += 48 + (key.size() > 15 ? key.size() : 0);
  }
  // Bytes in use. A reservation made ahead (Build's scan) is not counted:
  // pages never written are never resident.
  size_t memory() const { return pairs.size() * 8 + key_bytes; }

  // An entry's keys for this index, as AddKeys made them.
  void Add(const MdbKeyList& list, uint64_t id) {
    if (list.narrow() && !wide) {
      // The list's words are the keys read big-endian, as pairs hold them.
      for (uint32_t w : list.Words()) pairs.push_back(uint64_t{w} << 32 | id);
      return;
    }
    for (size_t i = 0; i < list.size(); ++i) Add(list[i], id);
  }
  // The pairs so far, numbered.
  void Widen() {
    wide = true;
    for (uint64_t& p : pairs) {
      const std::string key = BigEndian32(static_cast<uint32_t>(p >> 32));
      size_t before = keys.size();
      p = uint64_t{numbers.Number(key, &keys)} << 32 | (p & 0xffffffffu);
      if (keys.size() != before) key_bytes += 48;
    }
  }
};

// Sorts 4-byte-key pairs by key, stably (each key's IDs stay ascending):
// least significant digit radix sort on the key half, two 16-bit digits
// (the second pass puts the pairs back in place). `scratch` holds at least
// pairs->size() words.
void RadixSortByKey(std::vector<uint64_t>* pairs, uint64_t* scratch) {
  const size_t n = pairs->size();
  if (n < 4096) {
    std::stable_sort(pairs->begin(), pairs->end(),
                     [](uint64_t a, uint64_t b) { return (a >> 32) < (b >> 32); });
    return;
  }
  uint64_t* from = pairs->data();
  uint64_t* to = scratch;
  std::vector<size_t> count(65537);
  for (int shift : {32, 48}) {
    std::fill(count.begin(), count.end(), 0);
    for (size_t i = 0; i < n; ++i) ++count[((from[i] >> shift) & 0xffff) + 1];
    for (size_t i = 1; i < count.size(); ++i) count[i] += count[i - 1];
    for (size_t i = 0; i < n; ++i) to[count[(from[i] >> shift) & 0xffff]++] = from[i];
    std::swap(from, to);
  }
}

// Groups `t`'s pairs by key, in memcmp key order. Pairs arrive in
// ascending ID order (id2e is scanned in order), so a stable sort on the key
// keeps each key's IDs ascending: a radix sort of the 4-byte keys, or for a
// wide target a counting sort on the key number (one pass to count and one
// to place; only the distinct keys are sorted). Pure CPU work on the target
// alone, so the scanning threads do it. `scratch` holds at least as many
// words as `t` has pairs.
void PrepareSorted(Target& t, uint64_t* scratch) {
  if (!t.wide) {
    RadixSortByKey(&t.pairs, scratch);
    t.prepared = true;
    return;
  }
  const size_t n = t.keys.size();
  t.order.resize(n);
  const bool short_keys =
      std::all_of(t.keys.begin(), t.keys.end(), [](const std::string& k) { return k.size() <= 8; });
  if (short_keys) {
    // Keys of up to 8 bytes, read big-endian and padded with zero bytes on
    // the right, then by length: the same order as memcmp, without chasing
    // a pointer per comparison.
    struct Sortable {
      uint64_t bytes;
      uint32_t len;
      uint32_t number;
    };
    std::vector<Sortable> v(n);
    for (uint32_t i = 0; i < n; ++i) {
      uint64_t b = 0;
      for (size_t j = 0; j < 8; ++j) {
        b = (b << 8) | (j < t.keys[i].size() ? static_cast<unsigned char>(t.keys[i][j]) : 0u);
      }
      v[i] = Sortable{b, static_cast<uint32_t>(t.keys[i].size()), i};
    }
    std::sort(v.begin(), v.end(), [](const Sortable& a, const Sortable& b) {
      return a.bytes != b.bytes ? a.bytes < b.bytes : a.len < b.len;
    });
    for (size_t i = 0; i < n; ++i) t.order[i] = v[i].number;
  } else {
    for (uint32_t i = 0; i < n; ++i) t.order[i] = i;
    std::sort(t.order.begin(), t.order.end(),
              [&](uint32_t a, uint32_t b) { return t.keys[a] < t.keys[b]; });
  }
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

// The IDs of a key on their way to the sink: grown as needed, never
// initialized (one store per ID, from a local pointer, where a vector's
// push_back reloaded its ends at each one).
class IdBuffer {
 public:
  std::span<const uint64_t> ids() const { return {data_.get(), size_}; }
  void clear() { size_ = 0; }
  // Room for `more` IDs after those held; where the next goes.
  uint64_t* Extend(size_t more) {
    if (size_ + more > capacity_) {
      const size_t want = std::max(size_ + more, 2 * capacity_);
      auto bigger = std::make_unique_for_overwrite<uint64_t[]>(want);
      std::copy(data_.get(), data_.get() + size_, bigger.get());
      data_ = std::move(bigger);
      capacity_ = want;
    }
    return data_.get() + size_;
  }
  // After Extend: the IDs now held end at `end`.
  void EndAt(const uint64_t* end) { size_ = static_cast<size_t>(end - data_.get()); }
  // The last ID held; REQUIRES: one is.
  uint64_t back() const { return data_[size_ - 1]; }
  size_t size() const { return size_; }

 private:
  std::unique_ptr<uint64_t[]> data_;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

// A prepared target's keys in key order, each with its distinct IDs
// ascending: AppendIds once per key, then Next.
class SortedKeys {
 public:
  explicit SortedKeys(const Target& t) : t_(t) { Next(); }
  bool done() const { return done_; }
  std::string_view key() const {
    return t_.wide ? std::string_view(t_.keys[number_]) : std::string_view(word_bytes_, 4);
  }
  // Appends the key's IDs to *ids (a merge gathers two targets' there).
  // A key an entry gives twice (two values with one fragment) counts once.
  void AppendIds(IdBuffer* ids) {
    const bool none = ids->size() == 0;
    uint64_t last = none ? 0 : ids->back();  // IDs start at 1
    if (!t_.wide) {
      // The key's pairs end where the key word changes.
      const std::vector<uint64_t>& pairs = t_.pairs;
      size_t end = end_;
      while (end < pairs.size() && static_cast<uint32_t>(pairs[end] >> 32) == word_) ++end;
      uint64_t* out = ids->Extend(end - end_);
      for (size_t i = end_; i < end; ++i) {
        const uint64_t id = static_cast<uint32_t>(pairs[i]);
        if (id != last) *out++ = last = id;
      }
      ids->EndAt(out);
      end_ = end;
      return;
    }
    const size_t from = t_.begin[number_], to = t_.begin[number_ + 1];
    uint64_t* out = ids->Extend(to - from);
    for (size_t i = from; i < to; ++i) {
      const uint64_t id = t_.grouped[i];
      if (id != last) *out++ = last = id;
    }
    ids->EndAt(out);
  }

  void Next() {
    if (!t_.wide) {
      if (end_ == t_.pairs.size()) {
        done_ = true;
        return;
      }
      word_ = static_cast<uint32_t>(t_.pairs[end_] >> 32);
      for (int i = 0; i < 4; ++i) word_bytes_[i] = static_cast<char>(word_ >> (24 - 8 * i));
      return;
    }
    if (at_ == t_.order.size()) {
      done_ = true;
      return;
    }
    number_ = t_.order[at_++];
  }

 private:
  const Target& t_;
  bool done_ = false;
  // Narrow: the key word, its bytes, and where its pairs end once
  // AppendIds has read them (before, where they start).
  uint32_t word_ = 0;
  char word_bytes_[4] = {};
  size_t end_ = 0;
  // Wide: the key's number and the next place in `order`.
  uint32_t number_ = 0;
  size_t at_ = 0;
};

// Releases a target's pairs and keys once they are emitted.
void Release(Target& t) {
  std::vector<uint64_t>().swap(t.pairs);
  std::vector<uint32_t>().swap(t.order);
  std::vector<size_t>().swap(t.begin);
  std::vector<uint32_t>().swap(t.grouped);
  std::vector<std::string>().swap(t.keys);
  t.numbers = KeyNumbers();
  t.key_bytes = 0;
  t.prepared = false;
  t.wide = false;
}

// Calls fn(key, ids) per key of a prepared `t` in key order, its distinct
// IDs ascending, then releases the target's memory.
template <typename Fn>
Status EmitSorted(Target& t, Fn&& fn) {
  IdBuffer ids;
  for (SortedKeys k(t); !k.done(); k.Next()) {
    ids.clear();
    k.AppendIds(&ids);
    DIRLOAD_RETURN_IF_ERROR(fn(k.key(), ids.ids()));
  }
  Release(t);
  return Status::Ok();
}

// EmitSorted of the pairs of two prepared targets, `later`'s IDs all above
// `t`'s (the halves of a scan): a key both hold gets `t`'s IDs, then
// `later`'s. Releases both.
template <typename Fn>
Status EmitMerged(Target& t, Target& later, Fn&& fn) {
  SortedKeys a(t), b(later);
  IdBuffer ids;
  while (!a.done() || !b.done()) {
    ids.clear();
    const bool from_a = !a.done() && (b.done() || a.key() <= b.key());
    const bool from_b = !b.done() && (a.done() || b.key() <= a.key());
    if (from_a) a.AppendIds(&ids);
    if (from_b) b.AppendIds(&ids);
    DIRLOAD_RETURN_IF_ERROR(fn(from_a ? a.key() : b.key(), ids.ids()));
    if (from_a) a.Next();
    if (from_b) b.Next();
  }
  Release(t);
  Release(later);
  return Status::Ok();
}

// A spilled run: sorts and emits the pairs held so far. The array is
// released (kept, the arrays of a group's targets would each stay at their
// largest, together more than the budget) and reserved again at the size it
// had, for the pairs still to come.
template <typename Fn>
Status DrainSorted(Target& t, uint64_t* scratch, Fn&& fn) {
  if (!t.prepared) PrepareSorted(t, scratch);
  const size_t had = t.pairs.size();  // 0 once a wide target is prepared
  DIRLOAD_RETURN_IF_ERROR(EmitSorted(t, std::forward<Fn>(fn)));
  t.pairs.reserve(had);
  return Status::Ok();
}

// The sink of Build: each key's IDs into its index database, committed
// every `puts_per_txn` duplicates and at the end of each group.
class KeyWriter final : public MdbKeySink {
 public:
  KeyWriter(MdbEnv& env, std::vector<MdbDb> dbs, uint32_t puts_per_txn, size_t max_ids,
            MdbIndexStats* stats)
      : env_(env),
        dbs_(std::move(dbs)),
        puts_per_txn_(puts_per_txn),
        max_ids_(max_ids),
        stats_(stats) {}

  Status Add(size_t index, std::string_view key, std::span<const uint64_t> ids) override {
    if (!txn_) {
      DIRLOAD_ASSIGN_OR_RETURN(MdbTxn t, env_.Begin(true));
      txn_.emplace(std::move(t));
    }
    const MdbDb db = dbs_[index];
    stats_->ids += ids.size();
    stats_->keys += 1;
    // Duplicates are 8-byte little-endian IDs: on a little-endian machine
    // the ID array is already their bytes, written with no copy.
    std::span<const uint64_t> dups = ids;
    std::vector<uint64_t> range;
    if (ids.size() > max_ids_) {
      range = MdbIdListDuplicates(ids, max_ids_);
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
  // A write transaction belongs to its thread: none outlives a group.
  Status EndGroup() override { return Commit(); }
  // Drops the open transaction, if any; on the thread that made it.
  void AbortGroup() override {
    puts_ = 0;
    txn_.reset();
  }

 private:
  Status Commit() {
    puts_ = 0;
    if (!txn_) return Status::Ok();
    Status st = txn_->Commit();
    txn_.reset();
    return st;
  }

  MdbEnv& env_;
  std::vector<MdbDb> dbs_;
  uint32_t puts_per_txn_;
  size_t max_ids_;  // the most a key lists before it becomes a range
  MdbIndexStats* stats_;
  std::optional<MdbTxn> txn_;
  uint64_t puts_ = 0;
  std::string data_;
};

using Routes = std::vector<std::optional<std::vector<size_t>>>;  // by adx: target numbers

Status UnknownAdx(const MdbEnv& env, uint64_t id, uint32_t adx) {
  return Status::Corruption(env.path() + ": id2e entry " + std::to_string(id) +
                            " uses ad2i number " + std::to_string(adx) + ", which ad2i lacks")
      .WithOrigin(ErrorOrigin::kDatabase);
}

// By ad2i number: the attributes whose values a scan routed by `routes`
// reads. An unknown number stays wanted: the scan names it as corrupt.
std::vector<uint8_t> WantedAttributes(const Routes& routes) {
  std::vector<uint8_t> wanted(routes.size());
  for (size_t adx = 0; adx < routes.size(); ++adx) {
    wanted[adx] = !routes[adx] || !routes[adx]->empty();
  }
  return wanted;
}

// The cache method: one scan of id2e, inside the write transaction, adds
// each entry's keys to the ID lists held in an IdlCache; a list leaving the
// cache (evicted, or at the end in key order) is merged into its key: its
// IDs go after those the key holds, or the key becomes the range
// {0, lo, hi} once it would hold more than max_ids_per_key() IDs. Gives the
// sort method's databases (the same pairs, the same ranges).
Status BuildCached(MdbEnv& env, std::vector<Target>& targets, const Routes& routes,
                   const MdbIndexOptions& options, MdbIndexStats* stats) {
  std::optional<MdbTxn> txn;
  uint64_t puts = 0;
  std::string data;
  auto merge = [&](uint32_t table, std::string_view key, std::span<const EntryId> ids) -> Status {
    const MdbDb db = targets[table].db;
    stats->ids += ids.size();
    DIRLOAD_ASSIGN_OR_RETURN(MdbTxn::DupRange have, txn->Dups(db, key));
    // IDs start at 1: a first duplicate 0 is the range form.
    const bool range = have.count != 0 && MdbDecodeId(have.first) == 0;
    data.clear();
    if (range) {
      const std::string hi(have.last);
      if (ids.back() > MdbDecodeId(hi)) {
        DIRLOAD_RETURN_IF_ERROR(txn->DeleteDup(db, key, hi));
        data = MdbIdBytes(ids.back());
      }
    } else if (have.count + ids.size() > options.keys.max_ids_per_key()) {
      const uint64_t lo = have.count != 0 ? MdbDecodeId(have.first) : ids.front();
      if (have.count != 0) DIRLOAD_RETURN_IF_ERROR(txn->DeleteKey(db, key));
      data = MdbIdBytes(0) + MdbIdBytes(lo) + MdbIdBytes(ids.back());
      stats->ranges += 1;
    } else {
      for (EntryId id : ids) data += MdbIdBytes(id);
    }
    if (have.count == 0) stats->keys += 1;
    puts += data.size() / 8;
    if (data.empty()) return Status::Ok();
    return txn->AddMultiple(db, key, data, 8);
  };
  IdlCache cache(options.idl_cache_size, merge);

  const std::vector<uint8_t> wanted = WantedAttributes(routes);
  MdbEntryView e;
  MdbKeyList keys;
  std::vector<uint32_t> tables;
  std::vector<std::string_view> views;
  uint64_t next = 0;  // the ID the scan goes on from
  for (bool more = true; more;) {
    more = false;
    DIRLOAD_ASSIGN_OR_RETURN(MdbTxn t, env.Begin(true));
    txn.emplace(std::move(t));
    DIRLOAD_RETURN_IF_ERROR(txn->ScanFrom(
        env.id2e(), MdbIdBytes(next), [&](std::string_view k, std::string_view v) -> Result<bool> {
          const uint64_t id = MdbDecodeId(k);
          DIRLOAD_RETURN_IF_ERROR(DecodeMdbEntryView(v, &e, MdbEntryChecks::kBounds, wanted));
          // The values are used before this entry's first index put.
          DIRLOAD_RETURN_IF_ERROR(ResolveMdbMultival(*txn, env.id2v(), id, &e, env.path()));
          keys.clear();
          tables.clear();
          for (const MdbAttributeView& a : e.attributes) {
            if (a.adx >= routes.size() || !routes[a.adx]) return UnknownAdx(env, id, a.adx);
            for (size_t ti : *routes[a.adx]) {
              targets[ti].indexer->AddKeys(e.Normalized(a), &keys);
              tables.resize(keys.size(), static_cast<uint32_t>(ti));
            }
          }
          views.clear();
          for (size_t i = 0; i < keys.size(); ++i) views.push_back(keys[i]);
          DIRLOAD_RETURN_IF_ERROR(cache.AddBatch(id, tables, views));
          ++stats->entries;
          next = id + 1;
          // A cursor must not outlive its transaction: stop, commit, go on.
          if (puts >= options.puts_per_txn) {
            more = true;
            return false;
          }
          return true;
        }));
    DIRLOAD_RETURN_IF_ERROR(txn->Commit());
    txn.reset();
    puts = 0;
  }
  // What is still held, in key order, committed as it goes.
  DIRLOAD_ASSIGN_OR_RETURN(MdbTxn t, env.Begin(true));
  txn.emplace(std::move(t));
  DIRLOAD_RETURN_IF_ERROR(
      cache.Drain([&](uint32_t table, std::string_view key, std::span<const EntryId> ids) {
        DIRLOAD_RETURN_IF_ERROR(merge(table, key, ids));
        if (puts < options.puts_per_txn) return Status::Ok();
        puts = 0;
        DIRLOAD_RETURN_IF_ERROR(txn->Commit());
        txn.reset();
        DIRLOAD_ASSIGN_OR_RETURN(MdbTxn next_txn, env.Begin(true));
        txn.emplace(std::move(next_txn));
        return Status::Ok();
      }));
  DIRLOAD_RETURN_IF_ERROR(txn->Commit());
  txn.reset();
  return Status::Ok();
}

// What every scan of id2e needs: a key maker per index, and per ad2i
// number the indexes its values go to.
struct ScanPlan {
  std::vector<Target> targets;
  Routes routes;
  uint64_t last_id = 0;  // id2e's greatest ID
};

Status MakeScanPlan(MdbEnv& env, const Schema& schema, const std::vector<IndexSpec>& specs,
                    const MdbIndexOptions& options, ScanPlan* plan) {
  std::vector<Target>& targets = plan->targets;
  targets = std::vector<Target>(specs.size());
  for (size_t i = 0; i < specs.size(); ++i) {
    targets[i].spec = &specs[i];
    DIRLOAD_ASSIGN_OR_RETURN(MdbKeyMaker indexer,
                             MdbKeyMaker::Create(schema, specs[i], options.keys));
    targets[i].indexer.emplace(std::move(indexer));
  }
  // Scan id2e. Per ad2i number: the targets its values go to.
  DIRLOAD_ASSIGN_OR_RETURN(MdbTxn rtxn, env.Begin(false));
  uint64_t& last_id = plan->last_id;
  {
    std::string_view last_key, last_value;
    Status st = rtxn.Last(env.id2e(), &last_key, &last_value);
    if (st.ok()) last_id = MdbDecodeId(last_key);
    if (st.ok() && last_id > 0xffffffffu) {
      return Status::Unsupported(env.path() + ": entry IDs beyond 2^32 - 1")
          .WithOrigin(ErrorOrigin::kDatabase);
    }
    if (!st.ok() && st.code() != StatusCode::kNotFound) return st;
  }
  Routes& routes = plan->routes;
  std::vector<std::pair<size_t, std::string>> ad2i;
  DIRLOAD_RETURN_IF_ERROR(rtxn.Scan(env.ad2i(), [&](std::string_view k, std::string_view v) {
    ad2i.emplace_back(MdbDecodeId(k), std::string(v));
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
  return Status::Ok();
}

// The sort method (see the header): groups of indexes, each scanned and
// then handed to `sink`, by options.threads threads. `pin`: the sink
// writes into `env` (see the header's note on the file's layout).
Status StreamSorted(MdbEnv& env, ScanPlan& plan, const MdbIndexOptions& options, MdbKeySink* sink,
                    MdbIndexStats* stats, bool pin) {
  std::vector<Target>& targets = plan.targets;
  const Routes& routes = plan.routes;
  const uint64_t last_id = plan.last_id;
  // The targets are shared out into groups of about equal weight
  // (substring indexes weigh most). Each group is built by a scan of id2e in
  // its own read transaction, then handed to the sink; the threads take the
  // next task in turn: hand the next group on once it is scanned and no
  // other group is being handed on (LMDB has one writer), else scan the next
  // group. So the
  // writes of one group overlap the scan of the next, and both cores work
  // through the phase; only a few groups' pairs are held at a time.
  //
  // The first group is scanned in two halves of the IDs, by two threads at
  // once, each sorting its own pairs; its writes merge the two. The writes,
  // one after another, are most of the phase, and they wait for the first
  // group: scanned whole, beside the second group's scan, it took 0.6-1.0 s
  // at 285,000 entries, its halves 0.25-0.55 s (bench/README.md, "The
  // first group scanned in halves").
  enum class Part : uint8_t { kWhole, kLower, kUpper };
  struct Group {
    std::vector<size_t> targets;
    Routes routes;  // own targets only
    // By ad2i number: the attributes whose values the scan reads (the
    // decode skips the others' values).
    std::vector<uint8_t> wanted;
    std::mutex run_dir_mu;
    std::unique_ptr<ScopedTempDir> run_dir;
    std::vector<std::string> runs;
    uint64_t entries = 0;
    bool scanned = false;
    // Scanned in halves: the upper half's own targets (by target number;
    // only the group's are used; empty once joined into runs), runs and
    // entries, and the halves still scanning.
    std::vector<Target> upper;
    std::vector<std::string> upper_runs;
    uint64_t upper_entries = 0;
    int halves_left = 0;
  };
  const size_t group_count = std::min<size_t>(targets.size(), kGroups);
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
    // The last group is written while the other thread has nothing left to
    // scan: it gets the smallest share, so that this tail is short.
    std::vector<double> share(group_count, 1.0);
    if (group_count > 2) share.back() = 0.5;
    for (size_t ti : by_weight) {
      size_t g = 0;
      for (size_t k = 1; k < group_count; ++k) {
        if (weight[k] / share[k] < weight[g] / share[g]) g = k;
      }
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
      g.wanted = WantedAttributes(g.routes);
    }
  }
  // What a group's pairs may take before a spill (0: no limit). With two
  // threads at most four such shares are held at once: the two groups being
  // scanned, the one being written, and the second array of a radix sort,
  // sized for a group's largest target. Pairs are counted as written, not as
  // reserved.
  // Two threads even for one group: they scan its halves.
  const size_t threads = std::clamp<size_t>(options.threads, 1, std::max<size_t>(group_count, 2));
  const size_t budget = options.memory_budget == 0
                            ? 0
                            : std::max<size_t>(1, options.memory_budget /
                                                      (2 * std::min<size_t>(group_count, threads)));
  // Each half of a group scanned in halves holds half a group's share.
  const size_t half_budget = budget == 0 ? 0 : std::max<size_t>(1, budget / 2);
  const bool halves = threads > 1 && group_count > 0 && last_id > 1;
  const uint64_t mid_id = last_id / 2;  // the lower half's last ID
  struct Task {
    size_t group;
    Part part;
  };
  std::vector<Task> tasks;
  for (size_t g = 0; g < group_count; ++g) {
    if (g == 0 && halves) {
      tasks.push_back({0, Part::kLower});
      tasks.push_back({0, Part::kUpper});
      groups[0].halves_left = 2;
      groups[0].upper.resize(targets.size());
      for (size_t ti : groups[0].targets) {
        Target& u = groups[0].upper[ti];
        u.spec = targets[ti].spec;
        u.indexer = targets[ti].indexer;  // its memos are its own
        u.db = targets[ti].db;
      }
    } else {
      tasks.push_back({g, Part::kWhole});
    }
  }

  // The radix sorts of a group's targets share one second array, sized for
  // the largest and not initialized. A fresh array per sort was fresh
  // memory, which the kernel zeroes when it is first written: with the
  // copies the vectors made as they doubled, that zeroing was a fifth of
  // phase 2's samples at 285,000 entries.
  auto group_scratch = [&](const Group& g, const std::vector<Target>& tv) {
    size_t most = 0;
    for (size_t ti : g.targets) {
      if (!tv[ti].wide) most = std::max(most, tv[ti].pairs.size());
    }
    return std::make_unique_for_overwrite<uint64_t[]>(most);
  };

  // Beyond the memory budget, a group's pairs gathered so far go to a sorted
  // run file; the runs are merged at the end. Runs are cut between entries,
  // so a key's IDs in a later run all follow those of an earlier one.
  // `upper`: the upper half's pairs go, listed in its own runs; otherwise the
  // group's (or its lower half's), in the group's runs.
  auto spill = [&](Group& g, bool upper) -> Status {
    std::vector<Target>& tv = upper ? g.upper : targets;
    std::vector<std::string>& runs = upper ? g.upper_runs : g.runs;
    const std::string_view name = upper ? "upper" : "run";
    std::string path;
    {
      // The halves of a group share its directory.
      std::lock_guard<std::mutex> lock(g.run_dir_mu);
      if (!g.run_dir) {
        DIRLOAD_ASSIGN_OR_RETURN(g.run_dir, ScopedTempDir::Create(options.temp_dir));
      }
      path = g.run_dir->path() + "/" + std::string(name) + std::to_string(runs.size());
    }
    DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<RunWriter> run, RunWriter::Create(path));
    const std::unique_ptr<uint64_t[]> scratch = group_scratch(g, tv);
    for (size_t ti : g.targets) {
      DIRLOAD_RETURN_IF_ERROR(DrainSorted(tv[ti], scratch.get(),
                                          [&](std::string_view key, std::span<const uint64_t> ids) {
                                            return run->Add(static_cast<uint32_t>(ti), key, ids);
                                          }));
    }
    DIRLOAD_RETURN_IF_ERROR(run->Finish());
    runs.push_back(std::move(path));
    return Status::Ok();
  };

  // After the first entries, each target's array is reserved for the pairs
  // its share of the IDs should give (at most what the budget lets it hold
  // before a spill, plus one entry's worth): grown by doubling, it was
  // copied into fresh memory the kernel zeroed at each step, and held up to
  // twice what it used. A reservation costs address space only until
  // written.
  constexpr uint64_t kEstimateAfter = 2048;
  constexpr size_t kEntrySlack = size_t{1} << 16;  // words
  // [from, last]: the IDs the scan covers.
  auto reserve = [&](const Group& g, std::vector<Target>& tv, uint64_t from, uint64_t last,
                     uint64_t id, size_t most) {
    for (size_t ti : g.targets) {
      std::vector<uint64_t>& pairs = tv[ti].pairs;
      const double share =
          static_cast<double>(last - from + 1) / static_cast<double>(id - from + 1);
      auto want = static_cast<size_t>(static_cast<double>(pairs.size()) * share * 1.1) + 1024;
      if (most != 0) want = std::min(want, most / 8 + kEntrySlack);
      if (want > pairs.capacity()) pairs.reserve(want);
    }
  };

  // Groups the pairs `tv` holds of a scan in memory, in key order.
  auto group_pairs = [&](Group& g, std::vector<Target>& tv) {
    const std::unique_ptr<uint64_t[]> scratch = group_scratch(g, tv);
    for (size_t ti : g.targets) PrepareSorted(tv[ti], scratch.get());
  };

  // Once both halves are scanned: if either spilled, each spills what it
  // still holds, the lower half first, and the upper half's runs follow the
  // lower's (a key's IDs in a later run all follow those of an earlier
  // one, as MergeRuns requires). Otherwise the writes merge the two.
  auto join_halves = [&](Group& g) -> Status {
    g.entries += g.upper_entries;
    if (g.runs.empty() && g.upper_runs.empty()) return Status::Ok();
    size_t lower = 0, upper = 0;
    for (size_t ti : g.targets) {
      lower += targets[ti].memory();
      upper += g.upper[ti].memory();
    }
    if (lower != 0) DIRLOAD_RETURN_IF_ERROR(spill(g, false));
    if (upper != 0) DIRLOAD_RETURN_IF_ERROR(spill(g, true));
    g.runs.insert(g.runs.end(), g.upper_runs.begin(), g.upper_runs.end());
    g.upper = std::vector<Target>();
    g.upper_runs.clear();
    return Status::Ok();
  };

  auto scan = [&](Group& g, Part part, StageLap* lap) -> Status {
    const bool upper = part == Part::kUpper;
    std::vector<Target>& tv = upper ? g.upper : targets;
    std::vector<std::string>& runs = upper ? g.upper_runs : g.runs;
    uint64_t& entries = upper ? g.upper_entries : g.entries;
    const uint64_t from = upper ? mid_id + 1 : 1;
    const uint64_t to = part == Part::kLower ? mid_id : UINT64_MAX;
    const size_t most = part == Part::kWhole ? budget : half_budget;
    auto memory = [&]() {
      size_t m = 0;
      for (size_t ti : g.targets) m += tv[ti].memory();
      return m;
    };
    MdbEntryView e;
    MdbKeyList keys;
    size_t skipped = 0;  // options.skip before the entry
    auto index_entry = [&](MdbTxn& txn, uint64_t id, std::string_view v) -> Status {
      while (skipped < options.skip.size() && options.skip[skipped] < id) ++skipped;
      if (skipped < options.skip.size() && options.skip[skipped] == id) return Status::Ok();
      DIRLOAD_RETURN_IF_ERROR(DecodeMdbEntryView(v, &e, MdbEntryChecks::kBounds, g.wanted));
      DIRLOAD_RETURN_IF_ERROR(ResolveMdbMultival(txn, env.id2v(), id, &e, env.path()));
      if (++entries == kEstimateAfter) reserve(g, tv, from, std::min(to, last_id), id, most);
      for (const MdbAttributeView& a : e.attributes) {
        if (a.adx >= g.routes.size() || !g.routes[a.adx]) return UnknownAdx(env, id, a.adx);
        std::span<const std::string_view> vals = e.Normalized(a);
        for (size_t ti : *g.routes[a.adx]) {
          Target& t = tv[ti];
          keys.clear();
          t.indexer->AddKeys(vals, &keys);
          t.Add(keys, id);
        }
      }
      if (most != 0 && memory() > most) return spill(g, upper);
      return Status::Ok();
    };
    // The scan runs kScanAhead entries ahead of the indexing, asking the
    // processor for the first bytes of each entry (its length table and
    // first values) as the cursor reaches it. Each entry mostly sits on a
    // page of its own, so nothing else brings it in early; decoding it was
    // waiting on memory most of the time. With the window, user time fell
    // by about a tenth at 285,000 and at 1,000,000 entries.
    std::array<std::pair<uint64_t, std::string_view>, kScanAhead> ring;
    size_t head = 0, held = 0;
    DIRLOAD_ASSIGN_OR_RETURN(MdbTxn txn, env.Begin(false));
    DIRLOAD_RETURN_IF_ERROR(txn.ScanFrom(
        env.id2e(), MdbIdBytes(from), [&](std::string_view k, std::string_view v) -> Result<bool> {
          const uint64_t id = MdbDecodeId(k);
          if (id > to) return false;
          for (size_t at = 0; at < v.size() && at < kPrefetchBytes; at += 64) {
            __builtin_prefetch(v.data() + at);
          }
          if (held < kScanAhead) {
            ring[(head + held++) % kScanAhead] = {id, v};
            return true;
          }
          auto [first_id, first] = ring[head];
          ring[head] = {id, v};
          head = (head + 1) % kScanAhead;
          DIRLOAD_RETURN_IF_ERROR(index_entry(txn, first_id, first));
          return true;
        }));
    // The read transaction is still open: the views are valid.
    for (; held > 0; --held, head = (head + 1) % kScanAhead) {
      DIRLOAD_RETURN_IF_ERROR(index_entry(txn, ring[head].first, ring[head].second));
    }
    txn.Abort();
    // After a spill, what is left goes to a last run; a half's, once both
    // halves are scanned (join_halves).
    if (!runs.empty()) {
      if (part == Part::kWhole) return spill(g, false);
      return Status::Ok();
    }
    // Everything fitted in memory: group the pairs here, in parallel.
    lap->Lap("keys");
    group_pairs(g, tv);
    lap->Lap("sort");
    return Status::Ok();
  };
  auto write_group = [&](Group& g) -> Status {
    if (g.runs.empty()) {
      // Each index in key order.
      for (size_t ti : g.targets) {
        auto add = [&](std::string_view key, std::span<const uint64_t> ids) {
          return sink->Add(ti, key, ids);
        };
        if (g.upper.empty()) {
          DIRLOAD_RETURN_IF_ERROR(EmitSorted(targets[ti], add));
        } else {
          DIRLOAD_RETURN_IF_ERROR(EmitMerged(targets[ti], g.upper[ti], add));
        }
      }
      return sink->EndGroup();
    }
    DIRLOAD_RETURN_IF_ERROR(
        MergeRuns(g.runs, size_t{256} << 10,
                  [&](uint32_t table, std::string_view key, std::span<const EntryId> ids) {
                    return sink->Add(table, key, ids);
                  }));
    return sink->EndGroup();
  };
  auto write = [&](Group& g) {
    Status st = write_group(g);
    if (!st.ok()) sink->AbortGroup();
    return st;
  };

  std::mutex mu;
  std::condition_variable changed;
  size_t next_scan = 0, next_write = 0;
  bool writing = false;
  Status failed;
  auto work = [&] {
    ThreadTimer timer(options.ledger, "index");
    StageLap lap(options.ledger);
    std::unique_lock<std::mutex> lock(mu);
    while (failed.ok() && next_write < group_count) {
      if (!writing && groups[next_write].scanned) {
        writing = true;
        Group& g = groups[next_write];
        lock.unlock();
        Status st = write(g);
        lap.Lap("write");
        lock.lock();
        writing = false;
        ++next_write;
        if (!st.ok() && failed.ok()) failed = st;
        changed.notify_all();
      } else if (next_scan < tasks.size()) {
        const Task task = tasks[next_scan++];
        Group& g = groups[task.group];
        lock.unlock();
        Status st = scan(g, task.part, &lap);
        lap.Lap("keys");  // a scan that spilled: its runs were sorted as it went
        lock.lock();
        // The half that ends last joins the two (after a spill), while the
        // other thread goes on to the next task.
        if (task.part != Part::kWhole && --g.halves_left == 0 && st.ok() && failed.ok()) {
          lock.unlock();
          st = join_halves(g);
          lap.Lap("sort");
          lock.lock();
        }
        if (task.part == Part::kWhole || g.halves_left == 0) g.scanned = true;
        if (!st.ok() && failed.ok()) failed = st;
        changed.notify_all();
      } else {
        changed.wait(lock);
      }
    }
  };
  if (pin && threads > 1) {
    // The calling thread holds the pin (LMDB gives a thread one read
    // transaction at a time) while the workers scan and write.
    DIRLOAD_ASSIGN_OR_RETURN(MdbTxn pinned, env.Begin(false));
    std::vector<std::thread> workers;
    for (size_t i = 0; i < threads; ++i) workers.emplace_back(work);
    for (std::thread& t : workers) t.join();
    pinned.Abort();
  } else {
    std::vector<std::thread> others;
    for (size_t i = 1; i < threads; ++i) others.emplace_back(work);
    work();
    for (std::thread& t : others) t.join();
  }
  DIRLOAD_RETURN_IF_ERROR(failed);
  stats->entries = groups.empty() ? 0 : groups[0].entries;
  for (const Group& g : groups) stats->runs += g.runs.size();
  return Status::Ok();
}

}  // namespace

Result<MdbIndexStats> MdbIndexBuilder::Build(MdbEnv& env, const Schema& schema,
                                             const std::vector<IndexSpec>& specs,
                                             const MdbIndexOptions& options) {
  MdbIndexStats stats;
  ScanPlan plan;
  DIRLOAD_RETURN_IF_ERROR(MakeScanPlan(env, schema, specs, options, &plan));
  std::vector<Target>& targets = plan.targets;
  std::vector<MdbDb> dbs;
  for (size_t i = 0; i < specs.size(); ++i) {
    DIRLOAD_ASSIGN_OR_RETURN(targets[i].db, env.Index(specs[i].name()));
    dbs.push_back(targets[i].db);
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

  if (options.method == IndexMethod::kCache) {
    DIRLOAD_RETURN_IF_ERROR(BuildCached(env, targets, plan.routes, options, &stats));
  } else {
    KeyWriter writer(env, std::move(dbs), options.puts_per_txn, options.keys.max_ids_per_key(),
                     &stats);
    // A rebuild would keep the pages of the lists it dropped from reuse:
    // as many again as the indexes take. It goes without the pin.
    DIRLOAD_RETURN_IF_ERROR(
        StreamSorted(env, plan, options, &writer, &stats, /*pin=*/!options.rebuild));
  }
  if (options.sync) DIRLOAD_RETURN_IF_ERROR(env.Sync());
  return stats;
}

Result<MdbIndexStats> MdbIndexBuilder::Stream(MdbEnv& env, const Schema& schema,
                                              const std::vector<IndexSpec>& specs,
                                              const MdbIndexOptions& options, MdbKeySink* sink) {
  MdbIndexStats stats;
  ScanPlan plan;
  DIRLOAD_RETURN_IF_ERROR(MakeScanPlan(env, schema, specs, options, &plan));
  DIRLOAD_RETURN_IF_ERROR(StreamSorted(env, plan, options, sink, &stats, /*pin=*/false));
  return stats;
}

}  // namespace dirload::mdb
