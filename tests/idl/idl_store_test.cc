#include "lib/idl/idl_store.h"

#include <doctest/doctest.h>

#include <map>
#include <random>

#include "lib/idl/idl_format.h"
#include "lib/util/coding.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

using testing::TempDir;

std::unique_ptr<Store> OpenStore(Backend backend, const TempDir& dir) {
  StoreOptions o;
  o.create = true;
  auto s = Store::Open(backend, dir.File("db"), o);
  REQUIRE(s.ok());
  return std::move(s).value();
}

// Every (stored key, value) pair of a table, in order.
std::vector<std::pair<std::string, std::string>> Dump(Store* store, std::string_view table) {
  std::vector<std::pair<std::string, std::string>> out;
  auto c = store->NewCursor(table);
  for (c->SeekToFirst(); c->valid(); c->Next()) out.emplace_back(c->key(), c->value());
  REQUIRE(c->status().ok());
  return out;
}

TEST_CASE("stored keys: escaping, order and parsing") {
  CHECK(StoredKey("=ab", 0) == std::string("=ab\0\0\0\0\0", 8));
  CHECK(StoredKey("=ab", kTailChunk) == std::string("=ab\0\xff\xff\xff\xff", 8));
  CHECK(StoredKey(std::string("a\0b\x01", 4), 1) == std::string("a\x01\x01"
                                                                "b\x01\x02\0\0\0\0\x01",
                                                                11));

  // Escapes first, last and nowhere (bytes above 0x7f are not escaped).
  CHECK(StoredKey(std::string("\x01\0z", 3), 2) ==
        std::string("\x01\x02\x01\x01z\0\0\0\0\x02", 10));
  CHECK(StoredKey("\xff\x80\x02", 3) == std::string("\xff\x80\x02\0\0\0\0\x03", 8));

  // A key that is a prefix of another sorts, with all its chunks, first; and
  // keys with 0x00/0x01 bytes keep their order.
  std::vector<std::string> keys = {std::string("a", 1),
                                   std::string("a\0", 2),
                                   std::string("a\0\0", 3),
                                   std::string("a\x01", 2),
                                   std::string("a\x02", 2),
                                   "ab",
                                   "b"};
  std::vector<std::string> stored;
  for (const std::string& k : keys) {
    stored.push_back(StoredKey(k, 0));
    stored.push_back(StoredKey(k, 1));
    stored.push_back(StoredKey(k, kTailChunk));
  }
  CHECK(std::is_sorted(stored.begin(), stored.end()));

  for (const std::string& k : keys) {
    std::string back;
    uint32_t chunk = 0;
    REQUIRE(ParseStoredKey(StoredKey(k, 42), &back, &chunk).ok());
    CHECK(back == k);
    CHECK(chunk == 42);
  }
  std::string back;
  uint32_t chunk;
  CHECK(ParseStoredKey("abc", &back, &chunk).code() == StatusCode::kCorruption);
  CHECK(ParseStoredKey(std::string("a\x01\x03\0\0\0\0\0", 8), &back, &chunk).code() ==
        StatusCode::kCorruption);
}

TEST_CASE("chunk body codec") {
  std::string body;
  EncodeChunkBody(std::vector<EntryId>{5, 6, 300, 1ull << 40}, &body);
  // 5, +1, +294 (2 bytes), +(2^40 - 300) (6 bytes)
  CHECK(body.size() == 1 + 1 + 2 + 6);
  std::vector<EntryId> ids;
  REQUIRE(DecodeChunkBody(body, 0, &ids).ok());
  CHECK(ids == std::vector<EntryId>{5, 6, 300, 1ull << 40});
  ids.clear();
  CHECK(DecodeChunkBody(body, 5, &ids).code() == StatusCode::kCorruption);  // not after 5
  ids.clear();
  CHECK(DecodeChunkBody(std::string("\x05\x00", 2), 0, &ids).code() == StatusCode::kCorruption);
  ids.clear();
  CHECK(DecodeChunkBody(std::string("\x85", 1), 0, &ids).code() == StatusCode::kCorruption);
  ids.clear();
  CHECK(DecodeChunkBody("", 0, &ids).code() == StatusCode::kCorruption);
}

TEST_CASE("append grows a list across chunks and reads back exactly") {
  for (Backend backend : {Backend::kLmdb, Backend::kBdb}) {
    INFO("backend " << BackendName(backend));
    TempDir dir;
    auto store = OpenStore(backend, dir);
    const std::string table = "idx.test";
    const uint64_t seed = 4242;
    std::mt19937_64 rng(seed);
    std::vector<EntryId> all;
    EntryId next = 1;
    // Batches of random sizes and gaps: dense runs (1-byte deltas) and wide
    // gaps (3-4 byte deltas), so chunks fill at different ID counts.
    for (int batch = 0; batch < 60; ++batch) {
      std::vector<EntryId> ids;
      size_t n = 1 + rng() % 300;
      for (size_t i = 0; i < n; ++i) {
        next += (rng() % 4 == 0) ? 1 + rng() % 100000 : 1;
        ids.push_back(next);
      }
      uint64_t bytes = 0;
      bool created = false;
      REQUIRE(AppendIds(store.get(), table, "=k", ids, &bytes, &created).ok());
      CHECK(created == (batch == 0));
      CHECK(bytes > 0);
      all.insert(all.end(), ids.begin(), ids.end());
    }
    REQUIRE(store->Commit().ok());
    auto list = ReadIdList(store.get(), table, "=k");
    REQUIRE(list.ok());
    INFO("seed " << seed);
    CHECK(list->vector() == all);
    auto count = CountIds(store.get(), table, "=k");
    REQUIRE(count.ok());
    CHECK(*count == all.size());

    // The list really is chunked, every chunk within the size bound, and the
    // tail header counts the chunks before it.
    auto rows = Dump(store.get(), table);
    REQUIRE(rows.size() > 10);
    for (size_t i = 0; i + 1 < rows.size(); ++i) {
      CHECK(rows[i].first == StoredKey("=k", static_cast<uint32_t>(i)));
      CHECK(rows[i].second.size() <= kChunkBodyBytes);
    }
    CHECK(rows.back().first == StoredKey("=k", kTailChunk));
    TailHeader h;
    std::string_view body;
    REQUIRE(ParseTail(rows.back().second, &h, &body).ok());
    CHECK(h.total_ids == all.size());
    CHECK(h.full_chunks == rows.size() - 1);

    // Appending the same IDs in one batch, or one by one, gives the same
    // bytes: chunk boundaries depend on the list only.
    for (int mode = 0; mode < 2; ++mode) {
      std::string t2 = mode == 0 ? "idx.one" : "idx.single";
      if (mode == 0) {
        REQUIRE(AppendIds(store.get(), t2, "=k", all).ok());
      } else {
        for (EntryId id : all) REQUIRE(AppendIds(store.get(), t2, "=k", {&id, 1}).ok());
      }
      CHECK(Dump(store.get(), t2) == rows);
    }
    // And so does the streaming appender.
    {
      IdlAppender a(store.get(), "idx.appender");
      for (EntryId id : all) REQUIRE(a.Add("=k", id).ok());
      REQUIRE(a.Finish().ok());
      CHECK(a.keys() == 1);
      CHECK(a.ids() == all.size());
      CHECK(Dump(store.get(), "idx.appender") == rows);
    }

    // Out-of-order appends are refused and change nothing.
    EntryId old = all.back();
    CHECK(AppendIds(store.get(), table, "=k", {&old, 1}).code() == StatusCode::kInvalidArgument);
    std::vector<EntryId> bad = {old + 5, old + 2};
    CHECK(AppendIds(store.get(), table, "=k", bad).code() == StatusCode::kInvalidArgument);
    CHECK(Dump(store.get(), table) == rows);

    // Absent keys and tables read as empty.
    auto none = ReadIdList(store.get(), table, "=nope");
    REQUIRE(none.ok());
    CHECK(none->empty());
    auto none2 = ReadIdList(store.get(), "idx.absent", "=k");
    REQUIRE(none2.ok());
    CHECK(none2->empty());
  }
}

TEST_CASE("a whole list given as a chunk body is written as AddMany writes it") {
  // AddWhole writes a body of one chunk as the tail without decoding it,
  // and decodes a longer one: both must leave the bytes AddMany leaves, at
  // the edges of the one-chunk size too.
  TempDir dir;
  auto store = OpenStore(Backend::kLmdb, dir);
  std::mt19937_64 rng(77);
  std::vector<std::vector<EntryId>> lists;
  for (size_t target : {1, 2, 500, 959, 960, 961, 1500, 5000}) {
    // IDs with 2-byte deltas (from 128 on), so a body's size is near 2 per
    // ID; the last ID is grown by hand to land the body on `target` bytes.
    std::vector<EntryId> ids;
    std::string body;
    EntryId id = 0;
    while (body.size() < target) {
      EntryId next = id + (body.size() + 2 <= target ? 128 + rng() % 1000 : 1);
      ids.push_back(next);
      PutVarint(next - id, &body);
      id = next;
    }
    lists.push_back(ids);
  }
  IdlAppender many(store.get(), "idx.many");
  IdlAppender whole(store.get(), "idx.whole");
  for (size_t i = 0; i < lists.size(); ++i) {
    const std::string key = "=k" + std::to_string(10 + i);
    std::string body;
    EncodeChunkBody(lists[i], &body);
    INFO("body " << body.size() << " bytes");
    REQUIRE(many.AddMany(key, lists[i]).ok());
    REQUIRE(whole.AddWhole(key, body, lists[i].size()).ok());
    // Nothing can follow a whole list on its key.
    EntryId after = lists[i].back() + 1;
    CHECK(whole.AddMany(key, {&after, 1}).code() == StatusCode::kInvalidArgument);
    CHECK(whole.AddWhole(key, body, lists[i].size()).code() == StatusCode::kInvalidArgument);
  }
  REQUIRE(many.Finish().ok());
  REQUIRE(whole.Finish().ok());
  CHECK(whole.keys() == many.keys());
  CHECK(whole.ids() == many.ids());
  CHECK(whole.bytes_written() == many.bytes_written());
  REQUIRE(store->Commit().ok());
  const auto rows = Dump(store.get(), "idx.many");
  CHECK(rows.size() > lists.size());  // the longer lists took full chunks
  CHECK(Dump(store.get(), "idx.whole") == rows);
  for (size_t i = 0; i < lists.size(); ++i) {
    auto read = ReadIdList(store.get(), "idx.whole", "=k" + std::to_string(10 + i));
    REQUIRE(read.ok());
    CHECK(read->vector() == lists[i]);
  }
}

TEST_CASE("keys with 0x00 bytes and prefix keys coexist") {
  TempDir dir;
  auto store = OpenStore(Backend::kLmdb, dir);
  std::map<std::string, std::vector<EntryId>> lists;
  std::vector<std::string> keys = {std::string("=a"), std::string("=a\0", 3),
                                   std::string("=a\0\xff", 4), std::string("=a\x01", 3), "=ab"};
  // Long lists so prefix keys have several chunks each.
  IdlAppender a(store.get(), "idx.x");
  EntryId id = 1;
  std::vector<std::string> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  for (const std::string& k : sorted) {
    for (int i = 0; i < 3000; ++i) {
      id += 1 + (i % 7) * 50;
      lists[k].push_back(id);
      REQUIRE(a.Add(k, id).ok());
    }
  }
  REQUIRE(a.Finish().ok());
  for (const auto& [k, ids] : lists) {
    auto got = ReadIdList(store.get(), "idx.x", k);
    REQUIRE(got.ok());
    CHECK(got->vector() == ids);
  }
  size_t seen = 0;
  REQUIRE(ForEachIdList(store.get(), "idx.x", [&](std::string_view k, const IdList& l) {
            CHECK(l.vector() == lists[std::string(k)]);
            ++seen;
            return true;
          }).ok());
  CHECK(seen == keys.size());

  // The appender insists on ascending keys.
  IdlAppender b(store.get(), "idx.y");
  REQUIRE(b.Add("=b", 1).ok());
  CHECK(b.Add("=a", 2).code() == StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace dirload
