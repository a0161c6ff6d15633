#include <doctest/doctest.h>

#include <map>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "ldif/reader.h"
#include "lib/format/database_report_json.h"
#include "lib/format/native/database_meta.h"
#include "lib/format/native/native_indexer.h"
#include "lib/format/native/native_report.h"
#include "lib/format/native/native_sink.h"
#include "lib/idl/idl_format.h"
#include "lib/idl/idl_store.h"
#include "lib/load/entry_checker.h"
#include "lib/load/loader.h"
#include "lib/store/tables.h"
#include "tests/schema/builtin_fixture.h"
#include "tests/support/mini_json.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

using testing::TempDir;

constexpr const char* kSuffix = "dc=example,dc=com";

// What a test expects of one index table, computed from the lists it wrote
// (or the entries it loaded) without the code under test.
struct Expected {
  uint64_t keys = 0, ids = 0, longest = 0, hashed = 0;
  std::map<std::string, std::pair<uint64_t, uint64_t>> kinds;  // name -> (keys, ids)
  std::vector<uint64_t> histogram;
};

// Bucket of a list length, counted the slow way: 1 -> 0, 2..3 -> 1, 4..7 -> 2.
size_t SlowBucket(uint64_t n) {
  size_t b = 0;
  while ((uint64_t{2} << b) <= n) ++b;
  return b;
}

std::string KindName(const std::string& key) {
  char tag = key[0] == '#' ? key[1] : key[0];
  switch (tag) {
    case '+':
      return "pres";
    case '=':
      return "eq";
    case '^':
      return "subinitial";
    case '*':
      return "subany";
    case '$':
      return "subfinal";
  }
  return "other";
}

// From list lengths per index key.
Expected Expect(const std::map<std::string, uint64_t>& lengths) {
  Expected e;
  for (const auto& [key, n] : lengths) {
    ++e.keys;
    e.ids += n;
    e.longest = std::max(e.longest, n);
    if (key[0] == '#') ++e.hashed;
    auto& k = e.kinds[KindName(key)];
    ++k.first;
    k.second += n;
    size_t b = SlowBucket(n);
    if (e.histogram.size() <= b) e.histogram.resize(b + 1, 0);
    ++e.histogram[b];
  }
  return e;
}

const IndexReport* FindIndex(const DatabaseReport& r, const std::string& table) {
  for (const IndexReport& ix : r.indexes) {
    if (ix.table == table) return &ix;
  }
  return nullptr;
}

const TableReport* FindTable(const DatabaseReport& r, const std::string& table) {
  for (const TableReport& t : r.tables) {
    if (t.name == table) return &t;
  }
  return nullptr;
}

void CheckIndex(const DatabaseReport& r, const std::string& table, const Expected& e) {
  CAPTURE(table);
  const IndexReport* ix = FindIndex(r, table);
  REQUIRE(ix != nullptr);
  CHECK(ix->table_exists);
  CHECK(ix->keys == e.keys);
  CHECK(ix->ids == e.ids);
  CHECK(ix->longest_ids() == e.longest);
  CHECK(ix->hashed_keys == e.hashed);
  CHECK(ix->histogram == e.histogram);
  // Every kind with keys, in the order of IndexKeyKind, and no other.
  REQUIRE(ix->kinds.has_value());
  std::vector<std::string> order;
  for (size_t k = 0; k < kIndexKeyKinds; ++k) {
    std::string name(IndexKeyKindName(static_cast<IndexKeyKind>(k)));
    if (e.kinds.count(name)) order.push_back(name);
  }
  REQUIRE(ix->kinds->size() == order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    const IndexKindReport& got = (*ix->kinds)[i];
    CAPTURE(got.kind);
    CHECK(got.kind == order[i]);
    CHECK(got.keys == e.kinds.at(order[i]).first);
    CHECK(got.ids == e.kinds.at(order[i]).second);
  }
  // The longest lists, longest first, the first of them the longest.
  CHECK(ix->longest.size() == std::min<uint64_t>(e.keys, kReportLongestLists));
  for (size_t i = 1; i < ix->longest.size(); ++i) {
    CHECK(ix->longest[i - 1].ids >= ix->longest[i].ids);
  }
}

std::unique_ptr<Store> Open(Backend backend, const std::string& dir, bool create) {
  StoreOptions o;
  o.create = create;
  o.read_only = !create;
  Result<std::unique_ptr<Store>> s = Store::Open(backend, dir, o);
  REQUIRE_MESSAGE(s.ok(), s.status().message());
  return std::move(s).value();
}

// Loads `ldif` (phase 1) into the empty `store`; REQUIREs every entry.
void LoadEntries(Store* store, const std::string& ldif, uint64_t entries) {
  EntryChecker checker(&testing::BuiltinSchema(), true);
  LoadOptions lo;
  lo.suffix = kSuffix;
  NativeSink sink(store, NativeSinkOptions{});
  Loader loader(lo, &sink, &checker, nullptr, nullptr);
  ldif::Reader reader(ldif::MemoryByteSource(ldif, "people.ldif"));
  Result<LoadSummary> loaded = loader.Run(&reader);
  REQUIRE_MESSAGE(loaded.ok(), loaded.status().message());
  REQUIRE(loaded->entries_loaded == entries);
}

void WriteReadyMeta(Store* store, uint64_t entries) {
  DatabaseMeta meta;
  meta.state = DatabaseState::kReady;
  meta.suffix = kSuffix;
  meta.entries = entries;
  meta.next_id = entries + 1;
  REQUIRE(WriteMeta(store, meta).ok());
}

TEST_CASE("the report counts keys, IDs, kinds and list lengths of lists written directly") {
  // idx.cn: every kind, a hashed key with 0x00 and 0x01 in its digest (they
  // are escaped in the stored key), and one list of 3000 IDs 1000 apart, which
  // takes several chunks (2-byte deltas, 960-byte chunk bodies).
  std::string hashed = std::string("#=") + std::string("\x00\x01\x02zzzzzzzzzzzzz", 16);
  std::map<std::string, std::vector<EntryId>> cn = {
      {"+", {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
      {"=alice", {1}},
      {"=bob", {2, 3}},
      {"=carol", {4, 5, 6, 7}},
      {"^al", {1, 5, 9}},
      {"^bo", {2}},
      {"*lice", {1, 8}},
      {"$ce", {}},
      {hashed, {4}},
  };
  for (EntryId id = 1000; id <= 3000000; id += 1000) cn["$ce"].push_back(id);
  // idx.mail: 20 keys of one ID each and one of 16 IDs.
  std::map<std::string, std::vector<EntryId>> mail;
  for (int i = 0; i < 20; ++i) mail["=m" + std::to_string(i)] = {static_cast<EntryId>(i + 1)};
  for (EntryId id = 1; id <= 16; ++id) mail["=all"].push_back(id);

  auto lengths = [](const std::map<std::string, std::vector<EntryId>>& lists) {
    std::map<std::string, uint64_t> out;
    for (const auto& [k, ids] : lists) out[k] = ids.size();
    return out;
  };
  Expected want_cn = Expect(lengths(cn));
  Expected want_mail = Expect(lengths(mail));
  // The expectations themselves, as worked out by hand.
  CHECK(want_cn.keys == 9);
  CHECK(want_cn.ids == 10 + 1 + 2 + 4 + 3 + 1 + 2 + 3000 + 1);
  CHECK(want_cn.histogram == std::vector<uint64_t>{3, 3, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1});

  for (Backend backend : {Backend::kLmdb, Backend::kBdb}) {
    CAPTURE(BackendName(backend));
    TempDir t;
    std::string dir = t.File("db");
    {
      std::unique_ptr<Store> store = Open(backend, dir, /*create=*/true);
      WriteReadyMeta(store.get(), 3000);
      // Lists grow by appends in batches, the way the cache builder writes.
      for (const auto& [key, ids] : cn) {
        for (size_t at = 0; at < ids.size(); at += 700) {
          size_t n = std::min<size_t>(700, ids.size() - at);
          REQUIRE(AppendIds(store.get(), "idx.cn", key, std::span(ids).subspan(at, n)).ok());
        }
      }
      for (const auto& [key, ids] : mail) {
        REQUIRE(AppendIds(store.get(), "idx.mail", key, ids).ok());
      }
      REQUIRE(AppendIds(store.get(), "idx.title", "=boss", std::vector<EntryId>{7}).ok());
      REQUIRE(store->Put(kMetaTable, "index.idx.cn", "cn eq,sub").ok());
      REQUIRE(store->Put(kMetaTable, "index.idx.mail", "building").ok());
      REQUIRE(store->Put(kMetaTable, "index.idx.sn", "sn eq").ok());  // no table
      REQUIRE(store->Sync().ok());
    }
    std::unique_ptr<Store> store = Open(backend, dir, /*create=*/false);
    Result<DatabaseReport> r = BuildNativeReport(store.get());
    REQUIRE_MESSAGE(r.ok(), r.status().message());

    CHECK(r->backend == backend);
    CHECK(r->format == DatabaseFormat::kNative);
    CHECK(r->state == std::string(DatabaseStateName(DatabaseState::kReady)));
    CHECK(r->entries == 3000);
    CHECK(r->next_id == 3001);
    CHECK(r->suffix == kSuffix);
    CHECK_FALSE(r->max_id.has_value());
    CHECK_FALSE(r->descriptions.has_value());

    REQUIRE(r->indexes.size() == 4);  // sorted by table name
    CHECK(r->indexes[0].table == "idx.cn");
    CHECK(r->indexes[1].table == "idx.mail");
    CHECK(r->indexes[2].table == "idx.sn");
    CHECK(r->indexes[3].table == "idx.title");

    CheckIndex(*r, "idx.cn", want_cn);
    CheckIndex(*r, "idx.mail", want_mail);
    REQUIRE_FALSE(FindIndex(*r, "idx.cn")->longest.empty());
    CHECK(FindIndex(*r, "idx.cn")->longest[0].key == "sub$:ce");
    CHECK(FindIndex(*r, "idx.cn")->longest[1].key == "pres");
    CHECK(FindIndex(*r, "idx.cn")->longest[1].ids == 10);
    CHECK(FindIndex(*r, "idx.cn")->attribute == "cn");
    CHECK(FindIndex(*r, "idx.cn")->record == IndexRecord::kBuilt);
    CHECK(FindIndex(*r, "idx.cn")->config == "cn eq,sub");
    CHECK(FindIndex(*r, "idx.mail")->record == IndexRecord::kBuilding);
    CHECK(FindIndex(*r, "idx.mail")->config == "");
    CHECK(FindIndex(*r, "idx.mail")->average() == doctest::Approx(36.0 / 21));

    const IndexReport* sn = FindIndex(*r, "idx.sn");
    CHECK_FALSE(sn->table_exists);
    CHECK(sn->record == IndexRecord::kBuilt);
    CHECK(sn->keys == 0);
    CHECK(sn->histogram.empty());
    const IndexReport* title = FindIndex(*r, "idx.title");
    CHECK(title->table_exists);
    CHECK(title->record == IndexRecord::kUnrecorded);
    CHECK(title->keys == 1);
    CHECK(title->histogram == std::vector<uint64_t>{1});

    // The long list really is chunked: the table holds more records than keys.
    const TableReport* cn_table = FindTable(*r, "idx.cn");
    REQUIRE(cn_table != nullptr);
    CHECK(cn_table->entries > want_cn.keys + 4);
    CHECK(cn_table->page_size > 0);
    CHECK(cn_table->bytes > 0);
    CHECK(FindTable(*r, "meta") != nullptr);

    // Engine figures: what each engine can say.
    REQUIRE(r->engine.has_value());
    const EngineReport& engine = *r->engine;
    CHECK(engine.settings.backend == backend);
    CHECK(engine.settings.read_only);
    CHECK(r->file_bytes > 0);
    if (backend == Backend::kBdb) {
      CHECK(engine.cache_before.available);
      CHECK(engine.settings.cache_bytes > 0);
      CHECK(cn_table->file_bytes > 0);
      // Walking the tables went through the pool: a read-only file this
      // small is mapped (under the default mmap size), so its pages show as
      // mapped rather than as hits or misses.
      CHECK(engine.cache_after.hits + engine.cache_after.misses + engine.cache_after.pages_mapped >
            engine.cache_before.hits + engine.cache_before.misses +
                engine.cache_before.pages_mapped);
      bool has_id_pages = false;
      for (const TableSettings& ts : engine.settings.tables) has_id_pages |= ts.name == "idx.cn";
      CHECK(has_id_pages);
    } else {
      CHECK_FALSE(engine.cache_before.available);
      CHECK(engine.map_size.value_or(0) > 0);
      CHECK(engine.map_used.value_or(0) > 0);
    }

    // The JSON says the same.
    testing::JsonValue json;
    std::string error;
    std::string text = DatabaseReportToJson(*r);
    REQUIRE_MESSAGE(testing::ParseJson(text, &json, &error), error << "\n" << text);
    CHECK(json.Find("backend")->string() == BackendName(backend));
    CHECK(json.Find("entries")->number() == 3000);
    const testing::JsonValue* indexes = json.Find("indexes");
    REQUIRE(indexes != nullptr);
    REQUIRE(indexes->array().size() == 4);
    const testing::JsonValue& jcn = indexes->array()[0];
    CHECK(jcn.Find("table")->string() == "idx.cn");
    CHECK(jcn.Find("keys")->number() == static_cast<double>(want_cn.keys));
    CHECK(jcn.Find("ids")->number() == static_cast<double>(want_cn.ids));
    CHECK(jcn.Find("longest")->number() == 3000);
    CHECK(jcn.Find("longest_key")->string() == "sub$:ce");
    CHECK(jcn.Find("longest_lists")->array().size() == kReportLongestLists);
    CHECK(jcn.Get({"kinds", "eq", "keys"})->number() == 4);
    CHECK(jcn.Get({"kinds", "eq", "ids"})->number() == 1 + 2 + 4 + 1);
    CHECK(jcn.Get({"kinds", "subfinal", "ids"})->number() == 3000);
    CHECK(jcn.Find("kinds")->Find("other") == nullptr);
    const auto& hist = jcn.Find("histogram")->array();
    REQUIRE(hist.size() == want_cn.histogram.size());
    CHECK(hist[11].Find("min")->number() == 2048);
    CHECK(hist[11].Find("max")->number() == 4095);
    CHECK(hist[11].Find("lists")->number() == 1);
    CHECK(hist[1].Find("lists")->number() == 3);
  }
}

// ------------------------------------------------ through the loader and indexer

// Index keys of one lower-case ASCII value under "eq,sub": the layout of
// lib/index/index_keys.h spelled out (initial and final fragments of 2..4
// characters, any fragments of 4 at every position).
std::set<std::string> EqSubKeys(const std::string& v) {
  std::set<std::string> keys = {"=" + v};
  for (size_t k = 2; k <= std::min<size_t>(4, v.size()); ++k) {
    keys.insert("^" + v.substr(0, k));
    keys.insert("$" + v.substr(v.size() - k));
  }
  for (size_t at = 0; at + 4 <= v.size(); ++at) keys.insert("*" + v.substr(at, 4));
  return keys;
}

TEST_CASE("the report of a loaded and indexed database matches the entries") {
  // 40 people; sn from a short list so that equality lists have several IDs.
  const std::vector<std::string> surnames = {"smith", "jones", "li", "garcia", "kowalski"};
  std::string ldif = std::string("dn: ") + kSuffix +
                     "\nobjectClass: dcObject\nobjectClass: organization\ndc: example\n"
                     "o: Example\n\n"
                     "dn: ou=people," +
                     kSuffix + "\nobjectClass: organizationalUnit\nou: people\n\n";
  std::map<std::string, uint64_t> sn_lengths, cn_lengths;
  uint32_t seed = 12345;  // fixed: the report must match whatever the draw
  for (int i = 0; i < 40; ++i) {
    seed = seed * 1103515245u + 12345u;
    std::string sn = surnames[(seed >> 16) % surnames.size()];
    std::string cn = "user" + std::to_string(i % 13) + sn.substr(0, 2);
    std::string uid = "u" + std::to_string(i);
    ldif += "dn: uid=" + uid + ",ou=people," + kSuffix +
            "\nobjectClass: inetOrgPerson\nuid: " + uid + "\ncn: " + cn + "\nsn: " + sn + "\n\n";
    ++sn_lengths["+"];
    ++sn_lengths["=" + sn];
    for (const std::string& k : EqSubKeys(cn)) ++cn_lengths[k];
  }
  Expected want_sn = Expect(sn_lengths);
  Expected want_cn = Expect(cn_lengths);
  CHECK(want_sn.longest == 40);

  for (Backend backend : {Backend::kLmdb, Backend::kBdb}) {
    for (IndexMethod method : {IndexMethod::kSort, IndexMethod::kCache}) {
      CAPTURE(BackendName(backend));
      CAPTURE(IndexMethodName(method));
      TempDir t;
      std::string dir = t.File("db");
      {
        std::unique_ptr<Store> store = Open(backend, dir, /*create=*/true);
        LoadEntries(store.get(), ldif, 42);
        Result<IndexConfig> config = IndexConfig::Parse(
            testing::BuiltinSchema(), {{"sn pres,eq", "test:1"}, {"cn eq,sub", "test:2"}});
        REQUIRE(config.ok());
        NativeIndexer indexer(store.get(), &testing::BuiltinSchema(), &*config, nullptr);
        IndexRunOptions options;
        options.method = method;
        options.builder.tmpdir = t.path().string();
        options.builder.idl_cache_size = 8;  // evictions, so lists grow by appends
        Result<IndexRunSummary> indexed = indexer.Run(options);
        REQUIRE_MESSAGE(indexed.ok(), indexed.status().message());
      }
      std::unique_ptr<Store> store = Open(backend, dir, /*create=*/false);
      Result<DatabaseReport> r = BuildNativeReport(store.get());
      REQUIRE_MESSAGE(r.ok(), r.status().message());
      CHECK(r->entries == 42);
      REQUIRE(r->schema_fingerprint.has_value());
      CHECK_FALSE(r->schema_fingerprint->empty());
      REQUIRE(r->indexes.size() == 2);
      CheckIndex(*r, "idx.sn", want_sn);
      CheckIndex(*r, "idx.cn", want_cn);
      CHECK(FindIndex(*r, "idx.sn")->config == "sn pres,eq");
      CHECK(FindIndex(*r, "idx.sn")->longest.at(0).key == "pres");
      const TableReport* id2entry = FindTable(*r, std::string(kId2EntryTable));
      REQUIRE(id2entry != nullptr);
      CHECK(id2entry->entries == 42);
    }
  }
}

TEST_CASE("approx indexes: phonetic keys, reported as approx; one built before them is stale") {
  std::string ldif = std::string("dn: ") + kSuffix +
                     "\nobjectClass: dcObject\nobjectClass: organization\ndc: example\n"
                     "o: Example\n\n";
  for (const char* cn : {"John Smith", "Jon Smyth", "Hans Schmidt"}) {
    ldif += std::string("dn: cn=") + cn + "," + kSuffix + "\nobjectClass: person\ncn: " + cn +
            "\nsn: x\n\n";
  }
  TempDir t;
  const std::string dir = t.File("db");
  Result<IndexConfig> config =
      IndexConfig::Parse(testing::BuiltinSchema(), {{"cn eq,approx", "test:1"}});
  REQUIRE(config.ok());
  {
    std::unique_ptr<Store> store = Open(Backend::kLmdb, dir, /*create=*/true);
    LoadEntries(store.get(), ldif, 4);
    NativeIndexer indexer(store.get(), &testing::BuiltinSchema(), &*config, nullptr);
    IndexRunOptions options;
    options.builder.tmpdir = t.path().string();
    Result<IndexRunSummary> indexed = indexer.Run(options);
    REQUIRE_MESSAGE(indexed.ok(), indexed.status().message());
  }
  {
    std::unique_ptr<Store> store = Open(Backend::kLmdb, dir, /*create=*/false);
    Result<DatabaseReport> r = BuildNativeReport(store.get());
    REQUIRE_MESSAGE(r.ok(), r.status().message());
    const IndexReport* cn = FindIndex(*r, "idx.cn");
    REQUIRE(cn != nullptr);
    REQUIRE(cn->kinds.has_value());
    std::map<std::string, uint64_t> keys;
    for (const IndexKindReport& k : *cn->kinds) keys[k.kind] = k.keys;
    // JN, SM0 (john, jon, smith, smyth), HNS, SKMT (hans schmidt).
    CHECK(keys == std::map<std::string, uint64_t>{{"eq", 3}, {"approx", 4}});
    Result<std::vector<IndexStatus>> st =
        CheckIndexes(store.get(), testing::BuiltinSchema(), *config);
    REQUIRE(st.ok());
    REQUIRE(st->size() == 1);
    CHECK(st->front().fresh);
  }
  {
    // As a dirload that wrote equality keys for approx left it: no marker.
    std::unique_ptr<Store> store = Open(Backend::kLmdb, dir, /*create=*/true);
    REQUIRE(store->Delete(kMetaTable, std::string(kApproxKeysMetaPrefix) + "idx.cn").ok());
    REQUIRE(store->Sync().ok());
    Result<std::vector<IndexStatus>> st =
        CheckIndexes(store.get(), testing::BuiltinSchema(), *config);
    REQUIRE(st.ok());
    REQUIRE(st->size() == 1);
    CHECK_FALSE(st->front().fresh);
    CHECK(st->front().why.find("equality keys") != std::string::npos);
  }
}

TEST_CASE("a database that is missing or unfinished gets no report") {
  for (Backend backend : {Backend::kLmdb, Backend::kBdb}) {
    CAPTURE(BackendName(backend));
    TempDir t;
    std::string dir = t.File("db");
    {
      std::unique_ptr<Store> store = Open(backend, dir, /*create=*/true);
      REQUIRE(store->Put(kMetaTable, "unrelated", "x").ok());
      REQUIRE(store->Sync().ok());
    }
    {
      std::unique_ptr<Store> store = Open(backend, dir, /*create=*/false);
      Result<DatabaseReport> r = BuildNativeReport(store.get());
      CHECK(r.status().code() == StatusCode::kNotFound);
    }
    {
      std::unique_ptr<Store> store = Open(backend, dir, /*create=*/true);
      REQUIRE(WriteState(store.get(), DatabaseState::kLoading).ok());
      REQUIRE(store->Sync().ok());
    }
    std::unique_ptr<Store> store = Open(backend, dir, /*create=*/false);
    Result<DatabaseReport> r = BuildNativeReport(store.get());
    CHECK(r.status().code() == StatusCode::kCorruption);
    CHECK(r.status().message().find("loading") != std::string::npos);
  }
}

TEST_CASE("a malformed ID list is reported, not miscounted") {
  for (Backend backend : {Backend::kLmdb, Backend::kBdb}) {
    CAPTURE(BackendName(backend));
    TempDir t;
    std::string dir = t.File("db");
    {
      std::unique_ptr<Store> store = Open(backend, dir, /*create=*/true);
      WriteReadyMeta(store.get(), 5);
      REQUIRE(AppendIds(store.get(), "idx.cn", "=a", std::vector<EntryId>{1, 2}).ok());
      // A full chunk with no tail after it.
      REQUIRE(store->Put("idx.cn", StoredKey("=b", 0), std::string("\x03", 1)).ok());
      REQUIRE(store->Sync().ok());
    }
    std::unique_ptr<Store> store = Open(backend, dir, /*create=*/false);
    Result<DatabaseReport> r = BuildNativeReport(store.get());
    CHECK(r.status().code() == StatusCode::kCorruption);
    CHECK(r.status().message().find("idx.cn") != std::string::npos);
  }
}

TEST_CASE("histogram buckets are powers of two") {
  CHECK(IdlHistogramBucket(1) == 0);
  CHECK(IdlHistogramBucket(2) == 1);
  CHECK(IdlHistogramBucket(3) == 1);
  CHECK(IdlHistogramBucket(4) == 2);
  CHECK(IdlHistogramBucket(7) == 2);
  CHECK(IdlHistogramBucket(8) == 3);
  CHECK(IdlHistogramBucket(uint64_t{1} << 40) == 40);
  for (uint64_t n = 1; n < 5000; ++n) {
    size_t b = IdlHistogramBucket(n);
    REQUIRE(b == SlowBucket(n));
    REQUIRE(IdlHistogramBucketMin(b) <= n);
    REQUIRE(n <= IdlHistogramBucketMax(b));
  }
  CHECK(KindOfIndexKey("+") == IndexKeyKind::kPresence);
  CHECK(KindOfIndexKey(std::string("#^") + std::string(16, 'x')) == IndexKeyKind::kSubInitial);
  CHECK(KindOfIndexKey("?x") == IndexKeyKind::kOther);
}

}  // namespace
}  // namespace dirload
