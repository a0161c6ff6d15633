// The same cases run on both engines (TEST_CASE_TEMPLATE over the backends);
// the engine-specific ones follow at the end. Each test works in its own
// temporary directory.
#include "lib/store/store.h"

#include <doctest/doctest.h>
#include <stdlib.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "lib/store/tables.h"
#include "tests/store/engines.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

using testing::TempDir;

StoreOptions CreateOptions() {
  StoreOptions o;
  o.create = true;
  return o;
}

StoreOptions ExistingOptions() { return StoreOptions{}; }

StoreOptions ReadOnlyOptions() {
  StoreOptions o;
  o.read_only = true;
  return o;
}

std::unique_ptr<Store> OpenOrDie(Backend backend, const std::string& dir,
                                 const StoreOptions& options) {
  Result<std::unique_ptr<Store>> store = Store::Open(backend, dir, options);
  INFO(store.status().ToString());
  REQUIRE(store.ok());
  return std::move(store).value();
}

// 8-byte big-endian, the id2entry key layout: byte order is numeric order.
std::string IdKey(uint64_t id) {
  std::string k(8, '\0');
  for (int i = 7; i >= 0; --i) {
    k[i] = static_cast<char>(id & 0xff);
    id >>= 8;
  }
  return k;
}

std::string GetOrEmpty(Store* store, std::string_view table, std::string_view key) {
  std::string value;
  Result<bool> found = store->Get(table, key, &value);
  REQUIRE(found.ok());
  return *found ? value : std::string("<absent>");
}

std::vector<std::string> Keys(Store* store, std::string_view table, std::string_view from = {}) {
  std::unique_ptr<Cursor> c = store->NewCursor(table);
  std::vector<std::string> keys;
  for (c->Seek(from); c->valid(); c->Next()) keys.emplace_back(c->key());
  INFO(c->status().ToString());
  CHECK(c->status().ok());
  return keys;
}

uint64_t EntriesOf(const StoreStats& stats, std::string_view table) {
  for (const TableStats& t : stats.tables) {
    if (t.name == table) return t.entries;
  }
  return 0;
}

const TableStats* FindTableStats(const StoreStats& stats, std::string_view table) {
  for (const TableStats& t : stats.tables) {
    if (t.name == table) return &t;
  }
  return nullptr;
}

TEST_CASE_TEMPLATE("put, get, overwrite and delete", E, ENGINES) {
  TempDir tmp;
  auto store = OpenOrDie(E::kBackend, tmp.File("db"), CreateOptions());
  CHECK(store->backend() == E::kBackend);
  CHECK(store->path() == tmp.File("db"));

  REQUIRE(store->Put("dn2id", "dc=example,dc=com", IdKey(1)).ok());
  REQUIRE(store->Put("dn2id", "ou=people,dc=example,dc=com", IdKey(2)).ok());
  CHECK(GetOrEmpty(store.get(), "dn2id", "dc=example,dc=com") == IdKey(1));
  CHECK(GetOrEmpty(store.get(), "dn2id", "ou=nobody") == "<absent>");

  REQUIRE(store->Put("dn2id", "dc=example,dc=com", IdKey(7)).ok());
  CHECK(GetOrEmpty(store.get(), "dn2id", "dc=example,dc=com") == IdKey(7));

  // Binary values keep their zero bytes and their length.
  std::string binary("\0\x01\xff\0", 4);
  REQUIRE(store->Put("meta", "blob", binary).ok());
  REQUIRE(store->Put("meta", "empty", "").ok());
  CHECK(GetOrEmpty(store.get(), "meta", "blob") == binary);
  CHECK(GetOrEmpty(store.get(), "meta", "empty").empty());

  REQUIRE(store->Delete("dn2id", "dc=example,dc=com").ok());
  CHECK(GetOrEmpty(store.get(), "dn2id", "dc=example,dc=com") == "<absent>");
  CHECK(GetOrEmpty(store.get(), "dn2id", "ou=people,dc=example,dc=com") == IdKey(2));
  // Deleting what is not there is not an error.
  CHECK(store->Delete("dn2id", "dc=example,dc=com").ok());
  CHECK(store->Delete("no.such.table", "x").ok());

  // Reading a table that does not exist sees it empty and does not create it.
  CHECK(GetOrEmpty(store.get(), "idx.cn", "x") == "<absent>");
  CHECK(Keys(store.get(), "idx.cn").empty());
  REQUIRE(store->Commit().ok());
  Result<std::vector<std::string>> tables = store->ListTables();
  REQUIRE(tables.ok());
  CHECK(*tables == std::vector<std::string>{"dn2id", "meta"});
}

TEST_CASE_TEMPLATE("bad table names and keys are refused with the reason", E, ENGINES) {
  TempDir tmp;
  auto store = OpenOrDie(E::kBackend, tmp.File("db"), CreateOptions());
  Status s = store->Put("../escape", "k", "v");
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(s.message().find("../escape") != std::string::npos);
  CHECK(store->Put("", "k", "v").code() == StatusCode::kInvalidArgument);
  CHECK(store->Put(".hidden", "k", "v").code() == StatusCode::kInvalidArgument);
  CHECK(store->Put("a/b", "k", "v").code() == StatusCode::kInvalidArgument);
  CHECK(store->Put(std::string(kMaxTableNameLength + 1, 'a'), "k", "v").code() ==
        StatusCode::kInvalidArgument);
  CHECK(store->Put(std::string(kMaxTableNameLength, 'a'), "k", "v").ok());

  s = store->Put("meta", "", "v");
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(s.message().find("empty key") != std::string::npos);
  s = store->Put("meta", std::string(kMaxKeySize + 1, 'k'), "v");
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(s.message().find("512 bytes") != std::string::npos);
  CHECK(store->Put("meta", std::string(kMaxKeySize, 'k'), "v").ok());

  std::unique_ptr<Cursor> c = store->NewCursor("no/such");
  c->SeekToFirst();
  CHECK_FALSE(c->valid());
  CHECK(c->status().code() == StatusCode::kInvalidArgument);
}

TEST_CASE_TEMPLATE("append in ascending order; out of order is refused", E, ENGINES) {
  TempDir tmp;
  auto store = OpenOrDie(E::kBackend, tmp.File("db"), CreateOptions());
  for (uint64_t id = 1; id <= 1000; ++id) {
    REQUIRE(store->Append(kId2EntryTable, IdKey(id), "entry " + std::to_string(id)).ok());
  }
  Status s = store->Append(kId2EntryTable, IdKey(500), "late");
  CHECK(s.code() == StatusCode::kInvalidArgument);
  INFO(s.message());
  CHECK(s.message().find("append(id2entry)") != std::string::npos);
  CHECK(s.message().find("0x00000000000001f4") != std::string::npos);  // the key given
  CHECK(s.message().find("0x00000000000003e8") != std::string::npos);  // the last key
  CHECK(s.message().find(tmp.File("db")) != std::string::npos);
  // An equal key is not greater either.
  CHECK(store->Append(kId2EntryTable, IdKey(1000), "again").code() == StatusCode::kInvalidArgument);
  // The refused appends changed nothing and the transaction goes on.
  CHECK(GetOrEmpty(store.get(), kId2EntryTable, IdKey(500)) == "entry 500");
  CHECK(GetOrEmpty(store.get(), kId2EntryTable, IdKey(1000)) == "entry 1000");
  REQUIRE(store->Append(kId2EntryTable, IdKey(1001), "entry 1001").ok());
  REQUIRE(store->Commit().ok());

  // The order holds across commits and against keys written with Put.
  CHECK(store->Append(kId2EntryTable, IdKey(2), "x").code() == StatusCode::kInvalidArgument);
  REQUIRE(store->Put(kId2EntryTable, IdKey(5000), "put").ok());
  CHECK(store->Append(kId2EntryTable, IdKey(4000), "x").code() == StatusCode::kInvalidArgument);
  REQUIRE(store->Append(kId2EntryTable, IdKey(5001), "entry 5001").ok());
  REQUIRE(store->Commit().ok());

  Result<StoreStats> stats = store->Statistics();
  REQUIRE(stats.ok());
  CHECK(EntriesOf(*stats, kId2EntryTable) == 1003);

  // Appending to a table with data from an earlier session checks against it.
  store.reset();
  store = OpenOrDie(E::kBackend, tmp.File("db"), ExistingOptions());
  CHECK(store->Append(kId2EntryTable, IdKey(5001), "x").code() == StatusCode::kInvalidArgument);
  CHECK(store->Append(kId2EntryTable, IdKey(5002), "entry 5002").ok());
}

TEST_CASE_TEMPLATE("a cursor scans a key range in order", E, ENGINES) {
  TempDir tmp;
  auto store = OpenOrDie(E::kBackend, tmp.File("db"), CreateOptions());
  // Inserted out of order; the scan must come back sorted bytewise.
  std::vector<std::string> keys = {"com,example,ou=people,uid=b", "com,example",
                                   "com,example,ou=groups",       "com,example,ou=people",
                                   "com,example,ou=people,uid=a", "com,examplf",
                                   std::string("\xff\x01", 2),    "a"};
  for (const std::string& k : keys) REQUIRE(store->Put(kDn2IdTable, k, "v:" + k).ok());

  std::vector<std::string> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  CHECK(Keys(store.get(), kDn2IdTable) == sorted);

  // A subtree is the key range starting at its prefix.
  std::string prefix = "com,example,ou=people";
  std::unique_ptr<Cursor> c = store->NewCursor(kDn2IdTable);
  std::vector<std::string> subtree;
  for (c->Seek(prefix); c->valid() && c->key().substr(0, prefix.size()) == prefix; c->Next()) {
    subtree.emplace_back(c->key());
    CHECK(c->value() == "v:" + std::string(c->key()));
  }
  CHECK(subtree == std::vector<std::string>{"com,example,ou=people", "com,example,ou=people,uid=a",
                                            "com,example,ou=people,uid=b"});

  c->Seek("com,example,ou=h");  // between keys: lands on the next one
  REQUIRE(c->valid());
  CHECK(c->key() == "com,example,ou=people");
  c->SeekToLast();
  REQUIRE(c->valid());
  CHECK(c->key() == std::string("\xff\x01", 2));
  c->Next();
  CHECK_FALSE(c->valid());
  CHECK(c->status().ok());
  c->Seek(std::string("\xff\x02", 2));
  CHECK_FALSE(c->valid());
  c->SeekToFirst();
  REQUIRE(c->valid());
  CHECK(c->key() == "a");
  // Seek keys beyond the key size limit still find the next greater key.
  c->Seek("com,example,ou=people,uid=a" + std::string(600, 'z'));
  REQUIRE(c->valid());
  CHECK(c->key() == "com,example,ou=people,uid=b");
  CHECK(c->status().ok());

  std::unique_ptr<Cursor> empty = store->NewCursor("idx.none");
  empty->SeekToFirst();
  CHECK_FALSE(empty->valid());
  CHECK(empty->status().ok());
}

TEST_CASE_TEMPLATE("a cursor keeps its place across commits and writes", E, ENGINES) {
  TempDir tmp;
  StoreOptions options = CreateOptions();
  SUBCASE("batched") {}
  SUBCASE("durable") { options.durable = true; }
  auto store = OpenOrDie(E::kBackend, tmp.File("db"), options);
  for (uint64_t id = 1; id <= 3000; ++id) {
    REQUIRE(store->Append(kId2EntryTable, IdKey(id), std::string(100, 'a' + id % 26)).ok());
  }
  REQUIRE(store->Commit().ok());

  // Phase 2's pattern: scan id2entry, write another table, commit every N.
  std::unique_ptr<Cursor> c = store->NewCursor(kId2EntryTable);
  uint64_t expected = 1;
  for (c->SeekToFirst(); c->valid(); c->Next(), ++expected) {
    REQUIRE(c->key() == IdKey(expected));
    REQUIRE(c->value() == std::string(100, 'a' + expected % 26));
    REQUIRE(store->Put("idx.cn", std::string(c->value().substr(0, 3)) + IdKey(expected), c->key())
                .ok());
    if (expected % 250 == 0) REQUIRE(store->Commit().ok());
  }
  CHECK(c->status().ok());
  CHECK(expected == 3001);
  REQUIRE(store->Commit().ok());

  // value() straight after a commit, without moving, still reads the entry.
  c->Seek(IdKey(10));
  REQUIRE(store->Commit().ok());
  REQUIRE(c->valid());
  CHECK(c->key() == IdKey(10));
  CHECK(c->value() == std::string(100, 'a' + 10 % 26));

  // The entry under the cursor is deleted: Next() goes to the one after it.
  c->Seek(IdKey(20));
  REQUIRE(store->Delete(kId2EntryTable, IdKey(20)).ok());
  REQUIRE(store->Delete(kId2EntryTable, IdKey(21)).ok());
  REQUIRE(store->Commit().ok());
  c->Next();
  REQUIRE(c->valid());
  CHECK(c->key() == IdKey(22));

  Result<StoreStats> stats = store->Statistics();
  REQUIRE(stats.ok());
  CHECK(EntriesOf(*stats, "idx.cn") == 3000);
  CHECK(EntriesOf(*stats, kId2EntryTable) == 2998);
}

TEST_CASE_TEMPLATE("drop table", E, ENGINES) {
  TempDir tmp;
  auto store = OpenOrDie(E::kBackend, tmp.File("db"), CreateOptions());
  for (int i = 0; i < 500; ++i) {
    REQUIRE(store->Put("idx.sn", "key" + std::to_string(i), "ids").ok());
    REQUIRE(store->Put("idx.cn", "key" + std::to_string(i), "ids").ok());
  }
  // A cursor open on the dropped table sees it gone.
  std::unique_ptr<Cursor> c = store->NewCursor("idx.sn");
  c->SeekToFirst();
  REQUIRE(c->valid());

  REQUIRE(store->DropTable("idx.sn").ok());  // commits the pending writes first
  CHECK(GetOrEmpty(store.get(), "idx.sn", "key1") == "<absent>");
  CHECK(GetOrEmpty(store.get(), "idx.cn", "key1") == "ids");
  Result<std::vector<std::string>> tables = store->ListTables();
  REQUIRE(tables.ok());
  CHECK(*tables == std::vector<std::string>{"idx.cn"});
  c->Next();
  CHECK_FALSE(c->valid());
  CHECK(c->status().ok());

  CHECK(store->DropTable("idx.sn").ok());  // already gone: not an error
  CHECK(store->DropTable("never.was").ok());

  // The name can be used again, and starts empty.
  REQUIRE(store->Append("idx.sn", "a", "1").ok());
  REQUIRE(store->Commit().ok());
  CHECK(Keys(store.get(), "idx.sn") == std::vector<std::string>{"a"});
  Result<StoreStats> stats = store->Statistics();
  REQUIRE(stats.ok());
  CHECK(EntriesOf(*stats, "idx.sn") == 1);
}

TEST_CASE_TEMPLATE("reopen after Sync sees the data", E, ENGINES) {
  TempDir tmp;
  StoreOptions options = CreateOptions();
  SUBCASE("batched") {}
  SUBCASE("durable") { options.durable = true; }
  {
    auto store = OpenOrDie(E::kBackend, tmp.File("db"), options);
    for (uint64_t id = 1; id <= 2000; ++id) {
      REQUIRE(store->Append(kId2EntryTable, IdKey(id), "entry" + std::to_string(id)).ok());
      REQUIRE(store->Put(kDn2IdTable, "uid=" + std::to_string(id), IdKey(id)).ok());
      if (id % 300 == 0) REQUIRE(store->Commit().ok());
    }
    REQUIRE(store->Put(kMetaTable, "state", "complete").ok());
    REQUIRE(store->Sync().ok());
  }
  Result<Backend> detected = DetectBackend(tmp.File("db"));
  REQUIRE(detected.ok());
  CHECK(*detected == E::kBackend);

  options.create = false;
  auto store = OpenOrDie(E::kBackend, tmp.File("db"), options);
  CHECK(GetOrEmpty(store.get(), kMetaTable, "state") == "complete");
  CHECK(GetOrEmpty(store.get(), kId2EntryTable, IdKey(1234)) == "entry1234");
  CHECK(GetOrEmpty(store.get(), kDn2IdTable, "uid=2000") == IdKey(2000));
  Result<StoreStats> stats = store->Statistics();
  REQUIRE(stats.ok());
  CHECK(EntriesOf(*stats, kId2EntryTable) == 2000);
  CHECK(EntriesOf(*stats, kDn2IdTable) == 2000);
  CHECK(EntriesOf(*stats, kMetaTable) == 1);
}

TEST_CASE_TEMPLATE("closing without Commit rolls back where there are transactions", E, ENGINES) {
  TempDir tmp;
  StoreOptions options = CreateOptions();
  // LMDB always has transactions; Berkeley DB only when durable.
  options.durable = E::kBackend == Backend::kBdb;
  {
    auto store = OpenOrDie(E::kBackend, tmp.File("db"), options);
    REQUIRE(store->Put(kMetaTable, "kept", "1").ok());
    REQUIRE(store->Commit().ok());
    REQUIRE(store->Put(kMetaTable, "lost", "1").ok());
  }
  options.create = false;
  auto store = OpenOrDie(E::kBackend, tmp.File("db"), options);
  CHECK(GetOrEmpty(store.get(), kMetaTable, "kept") == "1");
  CHECK(GetOrEmpty(store.get(), kMetaTable, "lost") == "<absent>");
}

TEST_CASE_TEMPLATE("many appends and large values across commits", E, ENGINES) {
  TempDir tmp;
  StoreOptions options = CreateOptions();
  options.lmdb_map_size = 1 << 20;  // far too small: the map must grow
  options.bdb_cache_size = 8 << 20;
  auto store = OpenOrDie(E::kBackend, tmp.File("db"), options);

  constexpr uint64_t kEntries = 200000;
  std::string value;
  for (uint64_t id = 1; id <= kEntries; ++id) {
    value = "entry-" + std::to_string(id * 7919);
    REQUIRE(store->Append(kId2EntryTable, IdKey(id), value).ok());
    if (id % 40000 == 0) REQUIRE(store->Commit().ok());
  }
  std::string big(1 << 20, '\0');
  for (int i = 0; i < 4; ++i) {
    for (size_t j = 0; j < big.size(); ++j) big[j] = static_cast<char>((j * 31 + i) & 0xff);
    REQUIRE(store->Append("blobs", IdKey(i + 1), big).ok());
  }
  REQUIRE(store->Sync().ok());

  Result<StoreStats> stats = store->Statistics();
  REQUIRE(stats.ok());
  CHECK(EntriesOf(*stats, kId2EntryTable) == kEntries);
  CHECK(EntriesOf(*stats, "blobs") == 4);
  const TableStats* blobs = FindTableStats(*stats, "blobs");
  REQUIRE(blobs != nullptr);
  CHECK(blobs->overflow_pages * blobs->page_size >= 4u << 20);
  if (E::kBackend == Backend::kLmdb) {
    CHECK(stats->map_growths > 0);
    CHECK(stats->early_commits > 0);
    CHECK(stats->map_size > (1u << 20));
    CHECK(stats->map_used <= stats->map_size);
  }

  store.reset();
  store = OpenOrDie(E::kBackend, tmp.File("db"), ReadOnlyOptions());
  std::unique_ptr<Cursor> c = store->NewCursor(kId2EntryTable);
  uint64_t id = 0;
  for (c->SeekToFirst(); c->valid(); c->Next()) {
    ++id;
    if (c->key() != IdKey(id) || c->value() != "entry-" + std::to_string(id * 7919)) break;
  }
  CHECK(c->status().ok());
  CHECK(id == kEntries);
  std::string got;
  Result<bool> found = store->Get("blobs", IdKey(4), &got);
  REQUIRE(found.ok());
  REQUIRE(*found);
  CHECK(got == big);
}

TEST_CASE_TEMPLATE("random writes across commits match a model", E, ENGINES) {
  TempDir tmp;
  StoreOptions options = CreateOptions();
  options.lmdb_map_size = 1 << 20;  // grows, with batches split on the way
  options.bdb_cache_size = 1 << 20;
  auto store = OpenOrDie(E::kBackend, tmp.File("db"), options);
  constexpr uint32_t kSeed = 20240611;
  INFO("seed " << kSeed);
  std::mt19937 rng(kSeed);
  std::map<std::string, std::string> model;
  for (int op = 0; op < 30000; ++op) {
    std::string key = "k" + std::to_string(rng() % 8000);
    uint32_t kind = rng() % 10;
    if (kind < 6) {
      // Mostly small values, now and then one that needs overflow pages.
      size_t size = rng() % 20 == 0 ? 3000 + rng() % 20000 : rng() % 300;
      std::string value(size, static_cast<char>('a' + rng() % 26));
      REQUIRE(store->Put("t", key, value).ok());
      model[key] = value;
    } else if (kind < 9) {
      REQUIRE(store->Delete("t", key).ok());
      model.erase(key);
    } else if (rng() % 50 == 0) {
      REQUIRE(store->Commit().ok());
    }
  }
  REQUIRE(store->Commit().ok());
  std::unique_ptr<Cursor> c = store->NewCursor("t");
  auto it = model.begin();
  for (c->SeekToFirst(); c->valid(); c->Next(), ++it) {
    REQUIRE(it != model.end());
    REQUIRE(c->key() == it->first);
    REQUIRE(c->value() == it->second);
  }
  CHECK(c->status().ok());
  CHECK(it == model.end());
  Result<StoreStats> stats = store->Statistics();
  REQUIRE(stats.ok());
  CHECK(EntriesOf(*stats, "t") == model.size());
  if (E::kBackend == Backend::kLmdb) CHECK(stats->map_growths > 0);
}

TEST_CASE_TEMPLATE("statistics count entries per table", E, ENGINES) {
  TempDir tmp;
  auto store = OpenOrDie(E::kBackend, tmp.File("db"), CreateOptions());
  for (uint64_t id = 1; id <= 5000; ++id) {
    REQUIRE(store->Append(kId2EntryTable, IdKey(id), std::string(200, 'x')).ok());
  }
  for (int i = 0; i < 300; ++i)
    REQUIRE(store->Put(kDn2IdTable, "dn" + std::to_string(i), "i").ok());
  REQUIRE(store->Sync().ok());
  Result<StoreStats> stats = store->Statistics();
  REQUIRE(stats.ok());
  CHECK(stats->backend == E::kBackend);
  REQUIRE(stats->tables.size() == 2);
  CHECK(stats->tables[0].name == kDn2IdTable);  // sorted by name
  CHECK(stats->tables[1].name == kId2EntryTable);
  const TableStats& id2entry = stats->tables[1];
  CHECK(id2entry.entries == 5000);
  CHECK(id2entry.page_size > 0);
  CHECK(id2entry.depth >= 2);
  CHECK(id2entry.bytes >= 5000u * 200);
  CHECK(id2entry.bytes == (id2entry.branch_pages + id2entry.leaf_pages + id2entry.overflow_pages) *
                              id2entry.page_size);
  CHECK(stats->tables[0].entries == 300);
  CHECK(stats->file_bytes >= id2entry.bytes);

  Result<CacheStats> cache = store->CacheStatistics();
  REQUIRE(cache.ok());
  CHECK(cache->available == (E::kBackend == Backend::kBdb));
  CHECK(stats->cache.available == cache->available);
  if (E::kBackend == Backend::kBdb) {
    CHECK(id2entry.file_bytes >= id2entry.bytes);
    CHECK(id2entry.cache.available);
    CHECK(id2entry.cache.pages_created + id2entry.cache.pages_read > 0);
    CHECK(cache->pages_written > 0);  // Sync wrote them
  }
}

TEST_CASE_TEMPLATE("read-only open reads and refuses writes", E, ENGINES) {
  TempDir tmp;
  {
    auto store = OpenOrDie(E::kBackend, tmp.File("db"), CreateOptions());
    for (uint64_t id = 1; id <= 100; ++id) {
      REQUIRE(store->Append(kId2EntryTable, IdKey(id), "e" + std::to_string(id)).ok());
    }
    REQUIRE(store->Sync().ok());
  }
  auto store = OpenOrDie(E::kBackend, tmp.File("db"), ReadOnlyOptions());
  CHECK(GetOrEmpty(store.get(), kId2EntryTable, IdKey(42)) == "e42");
  CHECK(Keys(store.get(), kId2EntryTable).size() == 100);
  CHECK(GetOrEmpty(store.get(), "idx.none", "x") == "<absent>");
  Status s = store->Put(kId2EntryTable, IdKey(101), "x");
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(s.message().find("read-only") != std::string::npos);
  CHECK(store->Append(kId2EntryTable, IdKey(101), "x").code() == StatusCode::kInvalidArgument);
  CHECK(store->Delete(kId2EntryTable, IdKey(1)).code() == StatusCode::kInvalidArgument);
  CHECK(store->DropTable(kId2EntryTable).code() == StatusCode::kInvalidArgument);
  CHECK(store->Commit().ok());
  CHECK(store->Sync().ok());
  Result<StoreStats> stats = store->Statistics();
  REQUIRE(stats.ok());
  CHECK(EntriesOf(*stats, kId2EntryTable) == 100);
  Result<EngineSettings> settings = store->Settings();
  REQUIRE(settings.ok());
  CHECK(settings->read_only);
  CHECK_FALSE(settings->sync_on_commit);
}

TEST_CASE_TEMPLATE("opening what is not there fails by name", E, ENGINES) {
  TempDir tmp;
  Result<std::unique_ptr<Store>> r = Store::Open(E::kBackend, tmp.File("db"), ExistingOptions());
  CHECK(r.status().code() == StatusCode::kNotFound);
  CHECK(r.status().message().find(tmp.File("db")) != std::string::npos);
  r = Store::Open(E::kBackend, tmp.path().string(), ReadOnlyOptions());  // exists, but empty
  CHECK(r.status().code() == StatusCode::kNotFound);
  StoreOptions both = CreateOptions();
  both.read_only = true;
  CHECK(Store::Open(E::kBackend, tmp.File("db"), both).status().code() ==
        StatusCode::kInvalidArgument);
  CHECK(DetectBackend(tmp.path().string()).status().code() == StatusCode::kNotFound);
}

TEST_CASE_TEMPLATE("a table reopened read-only is still readable, not writable", E, ENGINES) {
  TempDir tmp;
  StoreOptions options = CreateOptions();
  options.bdb_mmap_size = 64 << 20;
  SUBCASE("batched") {}
  SUBCASE("durable") { options.durable = true; }
  auto store = OpenOrDie(E::kBackend, tmp.File("db"), options);
  for (uint64_t id = 1; id <= 3000; ++id) {
    REQUIRE(store->Append(kId2EntryTable, IdKey(id), std::string(300, 'e')).ok());
  }
  std::unique_ptr<Cursor> c = store->NewCursor(kId2EntryTable);
  c->SeekToFirst();
  REQUIRE(store->ReopenReadOnly(kId2EntryTable).ok());
  REQUIRE(c->valid());
  c->Next();
  REQUIRE(c->valid());
  CHECK(c->key() == IdKey(2));

  uint64_t n = 0;
  for (c->SeekToFirst(); c->valid(); c->Next()) ++n;
  CHECK(n == 3000);
  CHECK(c->status().ok());
  Status s = store->Append(kId2EntryTable, IdKey(3001), "x");
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(s.message().find("reopened read-only") != std::string::npos);
  CHECK(store->Put("idx.cn", "k", "v").ok());  // other tables stay writable

  Result<EngineSettings> settings = store->Settings();
  REQUIRE(settings.ok());
  bool seen = false;
  for (const TableSettings& t : settings->tables) {
    if (t.name == kId2EntryTable) {
      seen = true;
      CHECK(t.read_only);
    }
  }
  CHECK(seen);

  if (E::kBackend == Backend::kBdb && !options.durable) {
    // The file fits in bdb_mmap_size: the scan came from the mapping.
    Result<StoreStats> stats = store->Statistics();
    REQUIRE(stats.ok());
    const TableStats* t = FindTableStats(*stats, kId2EntryTable);
    REQUIRE(t != nullptr);
    CHECK(t->cache.pages_mapped >= t->leaf_pages);
  }
}

TEST_CASE_TEMPLATE("a cursor that outlives its store reports an error", E, ENGINES) {
  TempDir tmp;
  auto store = OpenOrDie(E::kBackend, tmp.File("db"), CreateOptions());
  REQUIRE(store->Put(kMetaTable, "a", "1").ok());
  REQUIRE(store->Put(kMetaTable, "b", "2").ok());
  std::unique_ptr<Cursor> c = store->NewCursor(kMetaTable);
  c->SeekToFirst();
  REQUIRE(c->valid());
  store.reset();
  c->Next();
  CHECK_FALSE(c->valid());
  CHECK(c->status().code() == StatusCode::kInternal);
}

TEST_CASE("LMDB settings read back") {
  TempDir tmp;
  StoreOptions options = CreateOptions();
  options.lmdb_map_size = 256ull << 20;
  options.lmdb_no_readahead = true;
  options.lmdb_write_map = true;
  auto store = OpenOrDie(Backend::kLmdb, tmp.File("db"), options);
  REQUIRE(store->Put(kMetaTable, "k", "v").ok());
  Result<EngineSettings> s = store->Settings();
  REQUIRE(s.ok());
  CHECK(s->backend == Backend::kLmdb);
  CHECK(s->map_size == 256ull << 20);
  CHECK(s->no_readahead);
  CHECK(s->write_map);
  CHECK(s->transactional);
  CHECK_FALSE(s->sync_on_commit);
  CHECK(s->cache_bytes == 0);
  REQUIRE(s->tables.size() == 1);
  CHECK(s->tables[0].page_size >= 4096);

  store.reset();
  options.durable = true;
  options.create = false;
  store = OpenOrDie(Backend::kLmdb, tmp.File("db"), options);
  s = store->Settings();
  REQUIRE(s.ok());
  CHECK(s->sync_on_commit);
  CHECK_FALSE(s->write_map);
  Result<CacheStats> cache = store->CacheStatistics();
  REQUIRE(cache.ok());
  CHECK_FALSE(cache->available);
}

// A created environment asked to write through its map does: the file is the
// map's size while open, grows with the map, and is cut to the pages in use
// on close.
TEST_CASE("LMDB: a created store writes through its map and closes to its pages") {
  TempDir tmp;
  StoreOptions options = CreateOptions();
  options.lmdb_write_map = true;
  options.lmdb_map_size = 1ull << 20;  // so that the writes below grow it
  const std::string file = tmp.File("db") + "/data.mdb";
  const std::string value(3000, 'v');
  {
    auto store = OpenOrDie(Backend::kLmdb, tmp.File("db"), options);
    for (uint64_t i = 1; i <= 8000; ++i) {
      REQUIRE(store->Append(kId2EntryTable, IdKey(i), value).ok());
      if (i % 1000 == 0) REQUIRE(store->Commit().ok());
    }
    REQUIRE(store->Sync().ok());
    Result<EngineSettings> s = store->Settings();
    REQUIRE(s.ok());
    CHECK(s->write_map);
    CHECK(s->map_size > 24ull << 20);  // grew from 1 MB
    CHECK(std::filesystem::file_size(file) == s->map_size);
  }
  const uint64_t closed = std::filesystem::file_size(file);
  // A 3000-byte value takes an overflow page of its own; the map had grown
  // past that by doubling, the closed file has not.
  CHECK(closed >= 8000 * 4096);
  CHECK(closed < 8000 * 4096 * 11 / 10);
  CHECK(closed % 4096 == 0);

  // An existing file is written in place through heap copies (a damaged page
  // must fault inside the engine), and reads back whole.
  options.create = false;
  options.lmdb_map_size = 0;
  auto store = OpenOrDie(Backend::kLmdb, tmp.File("db"), options);
  Result<EngineSettings> s = store->Settings();
  REQUIRE(s.ok());
  CHECK_FALSE(s->write_map);
  CHECK(GetOrEmpty(store.get(), kId2EntryTable, IdKey(1)) == value);
  CHECK(GetOrEmpty(store.get(), kId2EntryTable, IdKey(8000)) == value);
  Result<StoreStats> stats = store->Statistics();
  REQUIRE(stats.ok());
  CHECK(EntriesOf(*stats, kId2EntryTable) == 8000);
}

TEST_CASE("Berkeley DB settings read back") {
  TempDir tmp;
  StoreOptions options = CreateOptions();
  options.bdb_cache_size = 32 << 20;
  options.bdb_mmap_size = 48 << 20;
  options.bdb_page_size = 16384;
  options.bdb_id2entry_priority = CachePriority::kVeryLow;
  auto store = OpenOrDie(Backend::kBdb, tmp.File("db"), options);
  REQUIRE(store->Append(kId2EntryTable, IdKey(1), "e").ok());
  REQUIRE(store->Put(kDn2IdTable, "dn", "1").ok());
  Result<EngineSettings> s = store->Settings();
  REQUIRE(s.ok());
  CHECK(s->backend == Backend::kBdb);
  CHECK_FALSE(s->transactional);
  // Berkeley DB adds its own overhead to caches under 500 MB.
  CHECK(s->cache_bytes >= 32u << 20);
  CHECK(s->cache_bytes <= 48u << 20);
  CHECK(s->mmap_size == 48u << 20);
  REQUIRE(s->tables.size() == 2);
  CHECK(s->tables[0].name == kDn2IdTable);
  CHECK(s->tables[0].page_size == 16384);
  CHECK(s->tables[0].priority == CachePriority::kDefault);
  CHECK(s->tables[1].name == kId2EntryTable);
  CHECK(s->tables[1].page_size == 16384);
  CHECK(s->tables[1].priority == CachePriority::kVeryLow);

  store.reset();
  options.create = false;
  options.durable = true;
  options.bdb_page_size = 0;  // existing files keep theirs
  options.bdb_id2entry_priority = CachePriority::kVeryHigh;
  store = OpenOrDie(Backend::kBdb, tmp.File("db"), options);
  CHECK(GetOrEmpty(store.get(), kId2EntryTable, IdKey(1)) == "e");
  s = store->Settings();
  REQUIRE(s.ok());
  CHECK(s->transactional);
  CHECK(s->sync_on_commit);
  REQUIRE(s->tables.size() == 1);
  CHECK(s->tables[0].page_size == 16384);
  CHECK(s->tables[0].priority == CachePriority::kVeryHigh);
}

TEST_CASE("Berkeley DB: id2entry gets larger pages by default") {
  TempDir tmp;
  auto store = OpenOrDie(Backend::kBdb, tmp.File("db"), CreateOptions());
  REQUIRE(store->Append(kId2EntryTable, IdKey(1), "e").ok());
  REQUIRE(store->Put(kDn2IdTable, "dn", "1").ok());
  Result<EngineSettings> s = store->Settings();
  REQUIRE(s.ok());
  REQUIRE(s->tables.size() == 2);
  CHECK(s->tables[0].page_size < kBdbId2EntryPageSize);  // the file system's block
  CHECK(s->tables[1].page_size == kBdbId2EntryPageSize);
}

// Loads the same keys into a fresh store with the given cache and reads them
// back in a random order; returns the cache figures of the whole run.
CacheStats RandomWorkload(const std::string& dir, uint64_t cache_size) {
  StoreOptions options = CreateOptions();
  options.bdb_cache_size = cache_size;
  auto store = OpenOrDie(Backend::kBdb, dir, options);
  constexpr int kKeys = 20000;
  std::vector<int> order(kKeys);
  for (int i = 0; i < kKeys; ++i) order[i] = i;
  std::mt19937 rng(42);
  std::shuffle(order.begin(), order.end(), rng);
  for (int i : order)
    REQUIRE(store->Put("idx.cn", "key" + std::to_string(i), std::string(200, 'v')).ok());
  std::shuffle(order.begin(), order.end(), rng);
  std::string value;
  for (int i : order) {
    Result<bool> found = store->Get("idx.cn", "key" + std::to_string(i), &value);
    REQUIRE(found.ok());
    REQUIRE(*found);
  }
  Result<CacheStats> cache = store->CacheStatistics();
  REQUIRE(cache.ok());
  return *cache;
}

TEST_CASE("Berkeley DB: a small cache misses and evicts more than a large one") {
  TempDir tmp;
  CacheStats small = RandomWorkload(tmp.File("small"), 256 << 10);
  CacheStats large = RandomWorkload(tmp.File("large"), 64 << 20);
  INFO("small: misses " << small.misses << " evictions " << small.clean_evictions << "+"
                        << small.dirty_evictions << "; large: misses " << large.misses
                        << " evictions " << large.clean_evictions << "+" << large.dirty_evictions);
  CHECK(small.cache_bytes < large.cache_bytes);
  CHECK(small.misses > 10 * (large.misses + 1));
  CHECK(small.clean_evictions + small.dirty_evictions > 1000);
  CHECK(large.clean_evictions + large.dirty_evictions == 0);
  CHECK(small.pages_read > large.pages_read);
}

TEST_CASE("names of backends and priorities parse back") {
  for (Backend b : {Backend::kLmdb, Backend::kBdb}) {
    Result<Backend> parsed = ParseBackend(BackendName(b));
    REQUIRE(parsed.ok());
    CHECK(*parsed == b);
  }
  CHECK(ParseBackend("hdb").status().code() == StatusCode::kInvalidArgument);
  for (CachePriority p : {CachePriority::kDefault, CachePriority::kVeryLow, CachePriority::kLow,
                          CachePriority::kHigh, CachePriority::kVeryHigh}) {
    Result<CachePriority> parsed = ParseCachePriority(CachePriorityName(p));
    REQUIRE(parsed.ok());
    CHECK(*parsed == p);
  }
  CHECK(ParseCachePriority("urgent").status().code() == StatusCode::kInvalidArgument);
  CHECK(IndexTableName("givenName") == "idx.givenname");
  CHECK(ValidateTableName(IndexTableName("2.5.4.3")).ok());
}

}  // namespace
}  // namespace dirload
