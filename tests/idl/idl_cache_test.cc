#include "lib/idl/idl_cache.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <limits>
#include <map>
#include <random>
#include <set>

#include "lib/idl/idl_format.h"

namespace dirload {
namespace {

using Key = std::pair<uint32_t, std::string>;

// A flush target that checks each list continues where the last flush of
// the same key ended, and collects the result.
struct Collector {
  std::map<Key, std::vector<EntryId>> lists;
  uint64_t calls = 0;
  Status Flush(uint32_t t, std::string_view k, std::span<const EntryId> ids) {
    ++calls;
    auto& l = lists[{t, std::string(k)}];
    for (EntryId id : ids) {
      if (!l.empty() && id <= l.back()) return Status::Internal("not ascending");
      l.push_back(id);
    }
    return Status::Ok();
  }
};

// Drains `cache` into `into`; returns the keys in the order they came.
std::vector<Key> DrainInto(IdlCache& cache, Collector* into) {
  std::vector<Key> order;
  REQUIRE(cache
              .Drain([&](uint32_t t, std::string_view k, std::span<const EntryId> ids) {
                order.push_back({t, std::string(k)});
                return into->Flush(t, k, ids);
              })
              .ok());
  return order;
}

TEST_CASE("IDL cache keeps lists exact at every capacity") {
  const uint64_t seed = 99;
  std::mt19937_64 rng(seed);
  // A model workload: 3000 entries, each adding 1-8 keys from a skewed
  // vocabulary over 3 tables, with repeats inside an entry.
  struct Add {
    uint32_t table;
    std::string key;
    EntryId id;
  };
  std::vector<Add> adds;
  std::map<Key, std::set<EntryId>> model;
  for (EntryId id = 1; id <= 3000; ++id) {
    size_t n = 1 + rng() % 8;
    for (size_t i = 0; i < n; ++i) {
      uint32_t t = static_cast<uint32_t>(rng() % 3);
      uint64_t r = rng() % 1000;
      std::string key = std::to_string(r * r % 997);  // skewed
      key.insert(key.begin(), '=');
      adds.push_back({t, key, id});
      if (rng() % 5 == 0) adds.push_back({t, key, id});  // a repeat in one entry
      model[{t, key}].insert(id);
    }
  }

  for (uint64_t capacity : {0ull, 1ull, 2ull, 10ull, 100ull, 1000000ull}) {
    INFO("seed " << seed << " capacity " << capacity);
    Collector evicted;
    IdlCache cache(capacity, [&](uint32_t t, std::string_view k, std::span<const EntryId> ids) {
      return evicted.Flush(t, k, ids);
    });
    for (const Add& a : adds) REQUIRE(cache.Add(a.table, a.key, a.id).ok());
    CHECK(cache.size() <= capacity);
    const IdlCacheStats before = cache.stats();
    const std::vector<Key> drained_order = DrainInto(cache, &evicted);
    CHECK(cache.size() == 0);
    CHECK(std::is_sorted(drained_order.begin(), drained_order.end()));

    // Contents are exact whatever the capacity.
    REQUIRE(evicted.lists.size() == model.size());
    for (const auto& [k, ids] : model) {
      CHECK(evicted.lists[k] == std::vector<EntryId>(ids.begin(), ids.end()));
    }
    const IdlCacheStats& s = cache.stats();
    CHECK(s.hits + s.misses == adds.size());
    CHECK(s.flushes == evicted.calls);
    if (capacity == 0) {
      CHECK(s.evictions == 0);
      CHECK(s.flushes == s.misses);
    } else if (capacity >= model.size()) {
      CHECK(s.flushes == drained_order.size());
      CHECK(s.evictions == 0);
      CHECK(before.misses == model.size());
      CHECK(drained_order.size() == model.size());
    } else {
      CHECK(s.evictions > 0);
      CHECK(s.flushes == s.evictions + drained_order.size());
      CHECK(s.max_lists == capacity);
      // Every miss beyond the first `capacity` lists evicted one.
      CHECK(s.evictions == s.misses - capacity);
    }
    CHECK(s.bytes == 0);
  }
}

TEST_CASE("IDL cache tells apart keys alike in their first 16 bytes") {
  // The cache matches and orders keys on their first 16 bytes before it
  // reads the rest: keys that differ only past them, only in length, in
  // trailing NULs (which the zero padding of the first 16 hides) or in
  // bytes above 0x7f must each keep a list of their own, drained bytewise.
  std::vector<std::string> keys = {"",
                                   std::string(1, '\0'),
                                   std::string(2, '\0'),
                                   "a",
                                   "ab",
                                   std::string("ab\0", 3),
                                   std::string("ab\0\0", 4),
                                   "abcdefgh",
                                   std::string("abcdefgh\0", 9),
                                   "abcdefghi",
                                   "0123456789abcdef",
                                   std::string("0123456789abcdef\0", 17),
                                   "0123456789abcdefx",
                                   "0123456789abcdefy",
                                   "0123456789abcdefxz",
                                   std::string("\xff"),
                                   "\x80"
                                   "abc",
                                   "\x7f"
                                   "0123456789abcdef"};
  // Keys of every length to 17 differing from "abcdefghijklmnopq" in one
  // byte only, at each position: the head is read in overlapping pieces.
  const std::string letters = "abcdefghijklmnopq";
  for (size_t n = 1; n <= letters.size(); ++n) {
    keys.push_back(letters.substr(0, n));
    for (size_t k = 0; k < n; ++k) {
      keys.push_back(letters.substr(0, n));
      keys.back()[k] = '\xfe';
    }
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  std::map<Key, std::vector<EntryId>> model;
  for (bool batched : {false, true}) {
    INFO("batched " << batched);
    Collector evicted;
    IdlCache cache(1000, [&](uint32_t t, std::string_view k, std::span<const EntryId> ids) {
      return evicted.Flush(t, k, ids);
    });
    model.clear();
    for (EntryId id = 1; id <= 40; ++id) {
      // Each entry takes two keys in five, in two tables, so that every
      // key has a list and neighbouring keys' lists differ.
      std::vector<uint32_t> tables;
      std::vector<std::string_view> views;
      for (size_t i = 0; i < keys.size(); ++i) {
        if ((id * 7 + i) % 5 >= 2) continue;
        for (uint32_t t : {1u, 2u}) {
          tables.push_back(t);
          views.push_back(keys[i]);
          model[{t, keys[i]}].push_back(id);
        }
      }
      if (batched) {
        REQUIRE(cache.AddBatch(id, tables, views).ok());
      } else {
        for (size_t i = 0; i < views.size(); ++i) REQUIRE(cache.Add(tables[i], views[i], id).ok());
      }
    }
    CHECK(cache.size() == model.size());
    const std::vector<Key> order = DrainInto(cache, &evicted);
    CHECK(std::is_sorted(order.begin(), order.end()));
    CHECK(evicted.lists == model);
  }
}

TEST_CASE("IDL cache hands its lists over encoded as chunk bodies") {
  // DrainEncoded gives each list as the cache holds it, which the appender
  // writes as a chunk body unread: it must be EncodeChunkBody of the list,
  // in Drain's order, counted as Drain counts.
  std::mt19937_64 rng(5);
  std::map<Key, std::vector<EntryId>> model;
  IdlCache encoded(1000000, nullptr), decoded(1000000, nullptr);
  for (EntryId id = 1; id <= 4000; id += 1 + rng() % 300) {
    for (int k = 0; k < 6; ++k) {
      const uint32_t t = static_cast<uint32_t>(rng() % 2);
      const std::string key = "=" + std::to_string(rng() % 50);
      auto& ids = model[{t, key}];
      if (!ids.empty() && ids.back() == id) continue;
      ids.push_back(id);
      REQUIRE(encoded.Add(t, key, id).ok());
      REQUIRE(decoded.Add(t, key, id).ok());
    }
  }
  std::vector<Key> order;
  REQUIRE(encoded
              .DrainEncoded([&](const IdlCache::EncodedList& l) {
                order.push_back({l.table, std::string(l.key)});
                const std::vector<EntryId>& ids = model.at(order.back());
                std::string body;
                EncodeChunkBody(ids, &body);
                CHECK(l.body == body);
                CHECK(l.count == ids.size());
                return Status::Ok();
              })
              .ok());
  Collector c;
  CHECK(DrainInto(decoded, &c) == order);
  CHECK(c.lists == model);
  CHECK(encoded.stats().flushes == decoded.stats().flushes);
  CHECK(encoded.stats().ids_flushed == decoded.stats().ids_flushed);
  CHECK(encoded.size() == 0);
  CHECK(encoded.stats().bytes == 0);
}

TEST_CASE("IDL cache evicts the least recently used list") {
  std::vector<std::string> flushed;
  IdlCache cache(2, [&](uint32_t, std::string_view k, std::span<const EntryId>) {
    flushed.emplace_back(k);
    return Status::Ok();
  });
  REQUIRE(cache.Add(0, "a", 1).ok());
  REQUIRE(cache.Add(0, "b", 2).ok());
  REQUIRE(cache.Add(0, "a", 3).ok());  // a is now the most recent
  REQUIRE(cache.Add(0, "c", 4).ok());  // evicts b
  CHECK(flushed == std::vector<std::string>{"b"});
  REQUIRE(cache.Add(0, "c", 5).ok());
  REQUIRE(cache.Add(0, "d", 6).ok());  // evicts a
  CHECK(flushed == std::vector<std::string>{"b", "a"});
  REQUIRE(cache.Add(1, "d", 7).ok());  // same key, other table: a new list; evicts c
  CHECK(flushed == std::vector<std::string>{"b", "a", "c"});
  CHECK(cache.stats().evictions == 3);
  CHECK(cache.stats().hits == 2);
  CHECK(cache.stats().misses == 5);
}

TEST_CASE("IDL cache flush errors are sticky") {
  int calls = 0;
  IdlCache cache(1, [&](uint32_t, std::string_view, std::span<const EntryId>) {
    ++calls;
    return Status::IoError("disk full");
  });
  REQUIRE(cache.Add(0, "a", 1).ok());
  CHECK(cache.Add(0, "b", 2).code() == StatusCode::kIoError);
  CHECK(cache.Add(0, "c", 3).code() == StatusCode::kIoError);
  CHECK(calls == 1);
}

TEST_CASE("IDL cache grows its table past many keys") {
  std::map<std::string, std::vector<EntryId>> got;
  IdlCache cache(1u << 30, [&](uint32_t, std::string_view k, std::span<const EntryId> ids) {
    auto& l = got[std::string(k)];
    l.insert(l.end(), ids.begin(), ids.end());
    return Status::Ok();
  });
  auto key = [](EntryId n) {
    std::string k = std::to_string(n);
    k.insert(k.begin(), 'k');
    return k;
  };
  for (EntryId id = 1; id <= 50000; ++id) {
    REQUIRE(cache.Add(0, key(id), id).ok());
    REQUIRE(cache.Add(0, key(id / 2), id).ok());
  }
  CHECK(cache.size() == 50001);
  REQUIRE(cache
              .Drain([&](uint32_t, std::string_view k, std::span<const EntryId> ids) {
                auto& l = got[std::string(k)];
                l.insert(l.end(), ids.begin(), ids.end());
                return Status::Ok();
              })
              .ok());
  CHECK(got["k1"] == std::vector<EntryId>{1, 2, 3});
  CHECK(got["k0"] == std::vector<EntryId>{1});
  CHECK(got["k50000"] == std::vector<EntryId>{50000});
  CHECK(got.size() == 50001);
}

TEST_CASE("IDL cache filled again after a drain keeps lists exact") {
  // The sort builder drains one cache per spilled run and fills it again:
  // the second round must find none of the first round's lists, and build
  // its own exactly, through AddBatch as the builder calls it.
  IdlCache cache(std::numeric_limits<uint64_t>::max(),
                 [](uint32_t, std::string_view, std::span<const EntryId>) {
                   return Status::Internal("nothing is evicted");
                 });
  std::mt19937_64 rng(7);
  for (int round = 0; round < 3; ++round) {
    INFO("round " << round);
    std::map<Key, std::vector<EntryId>> model;
    const EntryId first = 1 + round * 5000;
    for (EntryId id = first; id < first + 5000; ++id) {
      std::vector<uint32_t> tables;
      std::vector<std::string> keys;
      for (int i = 0; i < 12; ++i) {
        uint32_t t = static_cast<uint32_t>(rng() % 2);
        // Shared keys across rounds, and keys of this round only.
        std::string k = rng() % 2
                            ? "s" + std::to_string(rng() % 300)
                            : "r" + std::to_string(round) + "-" + std::to_string(rng() % 4000);
        tables.push_back(t);
        keys.push_back(k);
        auto& l = model[{t, k}];
        if (l.empty() || l.back() != id) l.push_back(id);
      }
      std::vector<std::string_view> views(keys.begin(), keys.end());
      REQUIRE(cache.AddBatch(id, tables, views).ok());
    }
    CHECK(cache.size() == model.size());
    Collector got;
    const std::vector<Key> order = DrainInto(cache, &got);
    CHECK(std::is_sorted(order.begin(), order.end()));
    CHECK(got.lists == model);
    CHECK(cache.size() == 0);
    CHECK(cache.stats().bytes == 0);
  }
}

TEST_CASE("IDL cache reserved for fewer or more lists than it gets keeps lists exact") {
  // The sort builder reserves records for what its memory budget holds; a
  // run may start more lists than that (or far fewer), and drained runs
  // start over in the reserved records.
  for (size_t reserved : {size_t{0}, size_t{10}, size_t{100000}}) {
    INFO("reserved " << reserved);
    IdlCache cache(std::numeric_limits<uint64_t>::max(),
                   [](uint32_t, std::string_view, std::span<const EntryId>) {
                     return Status::Internal("nothing is evicted");
                   });
    cache.Reserve(reserved);
    for (int round = 0; round < 2; ++round) {
      std::map<Key, std::vector<EntryId>> model;
      const EntryId first = 1 + round * 3000;
      for (EntryId id = first; id < first + 3000; ++id) {
        for (EntryId k : {id % 7, id, id / 3}) {
          std::string key = std::to_string(k);
          key.insert(key.begin(), 'k');
          REQUIRE(cache.Add(1, key, id).ok());
          auto& l = model[{1, key}];
          if (l.empty() || l.back() != id) l.push_back(id);
        }
      }
      Collector got;
      DrainInto(cache, &got);
      CHECK(got.lists == model);
    }
  }
}

TEST_CASE("IDL cache released gives its memory back only when empty, and stays usable") {
  // The builder releases each cache after its last run so that the merge
  // does not find the cache's memory still taken.
  IdlCache cache(std::numeric_limits<uint64_t>::max(),
                 [](uint32_t, std::string_view, std::span<const EntryId>) {
                   return Status::Internal("nothing is evicted");
                 });
  cache.Reserve(1000);
  const uint64_t empty = cache.held();
  for (int round = 0; round < 2; ++round) {
    INFO("round " << round);
    std::map<Key, std::vector<EntryId>> model;
    const EntryId first = 1 + round * 4000;
    for (EntryId id = first; id < first + 4000; ++id) {
      for (EntryId k : {id % 5, id, id / 4}) {
        std::string key = "k" + std::to_string(k);
        REQUIRE(cache.Add(2, key, id).ok());
        auto& l = model[{2, key}];
        if (l.empty() || l.back() != id) l.push_back(id);
      }
    }
    const uint64_t full = cache.held();
    CHECK(full > empty);
    cache.Release();  // lists held: nothing changes
    CHECK(cache.held() == full);
    CHECK(cache.size() == model.size());
    Collector got;
    DrainInto(cache, &got);
    CHECK(got.lists == model);
    CHECK(cache.held() > empty);  // a drain keeps the memory for the next run
    cache.Release();
    CHECK(cache.held() < empty);  // even the reserved records went back
    CHECK(cache.size() == 0);
  }
}

TEST_CASE("IDL cache holds no more lists than ListsWithin says its memory allows") {
  // The builder cuts a run once memory() reaches its budget and reserves
  // ListsWithin(budget) records: lists of one ID and short keys, the
  // smallest there are, must reach the budget within that many.
  for (uint64_t budget : {uint64_t{1} << 16, uint64_t{1} << 20, uint64_t{3} << 20}) {
    INFO("budget " << budget);
    IdlCache cache(std::numeric_limits<uint64_t>::max(),
                   [](uint32_t, std::string_view, std::span<const EntryId>) {
                     return Status::Internal("nothing is evicted");
                   });
    EntryId id = 0;
    while (cache.memory() < budget) {
      ++id;
      REQUIRE(cache.Add(0, std::to_string(id), id).ok());
    }
    CHECK(cache.size() <= IdlCache::ListsWithin(budget) + 1);
    // Not a loose bound either: the smallest lists come within a tenth of it.
    CHECK(cache.size() * 10 >= IdlCache::ListsWithin(budget) * 9);
  }
}

}  // namespace
}  // namespace dirload
