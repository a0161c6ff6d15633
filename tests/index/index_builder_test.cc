#include "lib/index/index_builder.h"

#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include "bench/ldif_generator.h"
#include "lib/idl/idl_store.h"
#include "lib/index/index_keys.h"
#include "lib/index/index_reader.h"
#include "lib/index/sorted_runs.h"
#include "lib/store/tables.h"
#include "lib/util/coding.h"
#include "tests/schema/builtin_fixture.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

using testing::BuiltinSchema;
using testing::TempDir;

// The 15 indexes of DESIGN.md, plus presence keys on two of them and an index
// on `name` that collects the values of its subtypes (cn, sn, givenName, ou,
// l, title).
const std::vector<std::string> kIndexLines = {
    "objectClass pres,eq",
    "uid eq",
    "mail eq,sub",
    "cn eq,sub",
    "sn eq,sub",
    "givenName eq,sub",
    "telephoneNumber pres,eq",
    "employeeNumber eq",
    "departmentNumber eq",
    "title eq",
    "l eq",
    "ou eq",
    "member eq",
    "manager eq",
    "postalCode eq",
    "name sub",
};

std::vector<IndexSpec> Specs(const std::vector<std::string>& lines = kIndexLines) {
  IndexConfig config;
  for (size_t i = 0; i < lines.size(); ++i) {
    Status s = config.AddLine(BuiltinSchema(), lines[i], "--index " + std::to_string(i + 1));
    REQUIRE(s.ok());
  }
  return config.specs();
}

// Generated entries, encoded as id2entry holds them.
struct Corpus {
  AttributeDictionary dict;
  std::vector<std::string> encoded;  // entry i has ID i + 1
};

const Corpus& GeneratedCorpus(uint64_t entries) {
  static std::map<uint64_t, Corpus> cache;
  auto it = cache.find(entries);
  if (it != cache.end()) return it->second;
  Corpus& c = cache[entries];
  bench::GeneratorOptions o;
  o.entries = entries;
  o.seed = 7;
  auto gen = bench::LdifGenerator::Create(o);
  REQUIRE(gen.ok());
  ldif::Record r;
  std::vector<ValueRef> values;
  while ((*gen)->Next(&r)) {
    values.clear();
    for (size_t i = 0; i < r.size(); ++i) {
      values.push_back({c.dict.Intern(r.attribute(i).description), r.attribute(i).value});
    }
    std::string bytes;
    EncodeEntry(r.dn(), values, &bytes);
    c.encoded.push_back(std::move(bytes));
  }
  return c;
}

std::unique_ptr<Store> OpenStore(Backend backend, const std::string& dir) {
  StoreOptions o;
  o.create = true;
  auto s = Store::Open(backend, dir, o);
  REQUIRE(s.ok());
  return std::move(s).value();
}

BuilderStats Build(Store* store, IndexMethod method, const BuilderOptions& options,
                   const Corpus& corpus, const std::vector<IndexSpec>& specs) {
  auto b = IndexBuilder::Create(method, specs, BuiltinSchema(), store, options);
  REQUIRE(b.ok());
  EntryView view;
  for (size_t i = 0; i < corpus.encoded.size(); ++i) {
    REQUIRE(DecodeEntry(corpus.encoded[i], &view).ok());
    Status s = (*b)->Add(i + 1, view, corpus.dict);
    REQUIRE(s.ok());
  }
  REQUIRE((*b)->Finish().ok());
  return (*b)->stats();
}

using TableDump = std::vector<std::pair<std::string, std::string>>;

std::map<std::string, TableDump> DumpIndexTables(Store* store) {
  std::map<std::string, TableDump> out;
  auto tables = store->ListTables();
  REQUIRE(tables.ok());
  for (const std::string& t : *tables) {
    if (t.rfind(kIndexTablePrefix, 0) != 0) continue;
    auto c = store->NewCursor(t);
    for (c->SeekToFirst(); c->valid(); c->Next()) out[t].emplace_back(c->key(), c->value());
    REQUIRE(c->status().ok());
  }
  return out;
}

// What the tables must hold, computed naively from the same key functions.
std::map<std::string, std::map<std::string, std::vector<EntryId>>> Model(
    const Corpus& corpus, const std::vector<IndexSpec>& specs) {
  std::map<std::string, std::map<std::string, std::vector<EntryId>>> model;
  const Schema& schema = BuiltinSchema();
  EntryView view;
  KeyList keys;
  std::string scratch;
  for (size_t i = 0; i < corpus.encoded.size(); ++i) {
    EntryId id = i + 1;
    REQUIRE(DecodeEntry(corpus.encoded[i], &view).ok());
    std::map<std::string, std::set<std::string>> entry_keys;
    for (const ValueRef& v : view.values) {
      auto ad = schema.ParseAttributeDescription(corpus.dict.Name(v.description));
      if (!ad.ok()) continue;
      for (const IndexSpec* s : IndexTargets(specs, ad->type)) {
        if (s->Has(kIndexPresence)) entry_keys[s->table()].insert(PresenceKey());
        keys.Clear();
        if (!AddValueKeys(schema, *s, v.value, &keys, &scratch).ok()) continue;
        for (size_t k = 0; k < keys.size(); ++k) entry_keys[s->table()].emplace(keys[k]);
      }
    }
    for (const auto& [table, ks] : entry_keys) {
      for (const std::string& k : ks) model[table][k].push_back(id);
    }
  }
  return model;
}

TEST_CASE("both methods and every cache size build identical, correct tables") {
  const uint64_t kEntries = 400;
  const Corpus& corpus = GeneratedCorpus(kEntries);
  const std::vector<IndexSpec> specs = Specs();
  TempDir dir;

  struct Variant {
    std::string name;
    IndexMethod method;
    uint64_t cache_size;
    uint64_t sort_memory;
    Backend backend = Backend::kLmdb;
    unsigned threads = 2;  // kSort: the indexes shared out between two workers
  };
  const Variant variants[] = {
      {"cache 1e6", IndexMethod::kCache, 1000000, 0},
      {"cache 10", IndexMethod::kCache, 10, 0},
      {"cache 1000", IndexMethod::kCache, 1000, 0},
      {"cache 0", IndexMethod::kCache, 0, 0},
      {"sort in memory", IndexMethod::kSort, 0, 1ull << 30},
      {"sort with spills", IndexMethod::kSort, 0, 1},  // clamped to 1 MB: several runs
      {"sort in memory, one thread", IndexMethod::kSort, 0, 1ull << 30, Backend::kLmdb, 1},
      {"sort with spills, one thread", IndexMethod::kSort, 0, 1, Backend::kLmdb, 1},
      {"sort in memory, three threads", IndexMethod::kSort, 0, 1ull << 30, Backend::kLmdb, 3},
      {"sort with spills, three threads", IndexMethod::kSort, 0, 1, Backend::kLmdb, 3},
      {"bdb cache 1000", IndexMethod::kCache, 1000, 0, Backend::kBdb},
      {"bdb sort with spills", IndexMethod::kSort, 0, 1, Backend::kBdb},
  };
  std::map<std::string, TableDump> reference;
  BuilderStats reference_stats;
  for (const Variant& v : variants) {
    INFO("variant " << v.name);
    std::string db = dir.File("db" + std::to_string(&v - variants));
    auto store = OpenStore(v.backend, db);
    BuilderOptions o;
    o.idl_cache_size = v.cache_size;
    o.sort_memory = v.sort_memory;
    o.tmpdir = dir.path().string();
    o.commit_bytes = 1 << 20;  // exercise mid-build commits
    o.threads = v.threads;
    BuilderStats st = Build(store.get(), v.method, o, corpus, specs);
    REQUIRE(store->Commit().ok());
    auto dump = DumpIndexTables(store.get());
    CHECK(dump.size() == specs.size());
    if (reference.empty()) {
      reference = dump;
      reference_stats = st;
      // Check the first build against the naive model, list by list.
      auto model = Model(corpus, specs);
      for (const IndexSpec& s : specs) {
        size_t lists = 0;
        const auto& want = model[s.table()];
        REQUIRE(ForEachIdList(store.get(), s.table(), [&](std::string_view k, const IdList& ids) {
                  auto it = want.find(std::string(k));
                  REQUIRE(it != want.end());
                  CHECK(ids.vector() == it->second);
                  ++lists;
                  return true;
                }).ok());
        CHECK(lists == want.size());
        const IndexBuildStats& is = st.indexes[&s - specs.data()];
        CHECK(is.keys == want.size());
      }
    } else {
      // Byte-identical, table by table, and counted alike (however the
      // indexes were shared out between threads).
      for (const auto& [table, rows] : reference) {
        INFO("table " << table);
        CHECK(dump[table].size() == rows.size());
        CHECK(dump[table] == rows);
      }
      REQUIRE(st.indexes.size() == reference_stats.indexes.size());
      for (size_t i = 0; i < st.indexes.size(); ++i) {
        INFO("index " << st.indexes[i].table);
        CHECK(st.indexes[i].values == reference_stats.indexes[i].values);
        CHECK(st.indexes[i].unnormalizable == reference_stats.indexes[i].unnormalizable);
        CHECK(st.indexes[i].keys == reference_stats.indexes[i].keys);
        CHECK(st.indexes[i].ids == reference_stats.indexes[i].ids);
      }
    }
    CHECK(st.entries == kEntries);
    CHECK(st.pairs > kEntries * 20);
    if (v.method == IndexMethod::kCache && v.cache_size > 0 && v.cache_size < 2000) {
      CHECK(st.cache.evictions > 0);
      CHECK(st.cache.flushes >= st.cache.evictions);
      CHECK(st.cache.max_lists == v.cache_size);
    }
    if (v.method == IndexMethod::kCache && v.cache_size == 1000000) {
      CHECK(st.cache.evictions == 0);
      CHECK(st.cache.hits > 0);
    }
    if (v.name.find("sort with spills") != std::string::npos) {
      CHECK(st.runs_spilled > 1);
      CHECK(st.spill_bytes > 0);
    }
    if (v.name == "sort in memory") CHECK(st.runs_spilled == 0);
    // The spill directory is gone.
    for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
      CHECK(e.path().filename().string().rfind("dirload-sort-", 0) != 0);
    }
  }
}

TEST_CASE("index lookups find entries by normalised value and subtype") {
  const Corpus& corpus = GeneratedCorpus(300);
  const std::vector<IndexSpec> specs = Specs();
  for (Backend backend : {Backend::kLmdb, Backend::kBdb}) {
    INFO("backend " << BackendName(backend));
    TempDir dir;
    auto store = OpenStore(backend, dir.File("db"));
    BuilderOptions o;
    o.idl_cache_size = 50;  // evictions on BDB too
    Build(store.get(), IndexMethod::kCache, o, corpus, specs);
    const Schema& schema = BuiltinSchema();
    auto spec = [&](std::string_view n) -> const IndexSpec& {
      for (const IndexSpec& s : specs) {
        if (s.type == schema.FindAttribute(n)) return s;
      }
      FAIL("no spec");
      return specs[0];
    };
    // Every entry has objectClass.
    auto all = LookupPresence(store.get(), spec("objectClass"));
    REQUIRE(all.ok());
    CHECK(all->size() == corpus.encoded.size());
    auto people = LookupEquality(store.get(), schema, spec("objectClass"), "INETORGPERSON");
    REQUIRE(people.ok());
    CHECK(people->size() > 200);
    CHECK(people->size() < corpus.encoded.size());

    // Find one person's values and look them up in other spellings.
    EntryView view;
    size_t checked = 0;
    for (size_t i = 0; i < corpus.encoded.size() && checked < 20; ++i) {
      REQUIRE(DecodeEntry(corpus.encoded[i], &view).ok());
      for (const ValueRef& v : view.values) {
        std::string_view d = corpus.dict.Name(v.description);
        if (d != "sn" || v.value.size() < 4) continue;
        std::string upper(v.value);
        for (char& c : upper) {
          if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
        }
        auto eq = LookupEquality(store.get(), schema, spec("sn"), "  " + upper + " ");
        REQUIRE(eq.ok());
        CHECK(eq->Contains(i + 1));
        bool narrowed = false;
        SubstringAssertion a;
        a.has_initial = true;
        a.initial = std::string(v.value.substr(0, 2));
        a.has_final = true;
        a.final = std::string(v.value.substr(v.value.size() - 2));
        auto sub = LookupSubstring(store.get(), schema, spec("sn"), a, &narrowed);
        REQUIRE(sub.ok());
        CHECK(narrowed);
        CHECK(sub->Contains(i + 1));
        // sn values also went into the `name` index (sn is a subtype).
        auto by_name = LookupSubstring(store.get(), schema, spec("name"), a, &narrowed);
        REQUIRE(by_name.ok());
        CHECK(by_name->Contains(i + 1));
        ++checked;
      }
    }
    CHECK(checked == 20);
    auto none = LookupEquality(store.get(), schema, spec("sn"), "no such surname anywhere");
    REQUIRE(none.ok());
    CHECK(none->empty());
  }
}

TEST_CASE("builder refuses IDs out of order and misuse") {
  TempDir dir;
  auto store = OpenStore(Backend::kLmdb, dir.File("db"));
  auto b = IndexBuilder::Create(IndexMethod::kSort, Specs(), BuiltinSchema(), store.get(), {});
  REQUIRE(b.ok());
  const AttributeType* cn = BuiltinSchema().FindAttribute("cn");
  TypedValue v{cn, "x"};
  REQUIRE((*b)->AddValues(5, {&v, 1}).ok());
  CHECK((*b)->AddValues(5, {&v, 1}).code() == StatusCode::kInvalidArgument);
  // Errors are sticky.
  CHECK_FALSE((*b)->AddValues(6, {&v, 1}).ok());
  CHECK_FALSE((*b)->Finish().ok());

  CHECK(ParseIndexMethod("SORT").ok());
  CHECK_FALSE(ParseIndexMethod("hash").ok());
}

TEST_CASE("typed values index like encoded entries") {
  TempDir dir;
  auto a = OpenStore(Backend::kLmdb, dir.File("a"));
  const Corpus& corpus = GeneratedCorpus(300);
  const std::vector<IndexSpec> specs = Specs();
  Build(a.get(), IndexMethod::kSort, {}, corpus, specs);

  auto b = OpenStore(Backend::kLmdb, dir.File("b"));
  auto builder = IndexBuilder::Create(IndexMethod::kCache, specs, BuiltinSchema(), b.get(), {});
  REQUIRE(builder.ok());
  EntryView view;
  std::vector<TypedValue> typed;
  for (size_t i = 0; i < corpus.encoded.size(); ++i) {
    REQUIRE(DecodeEntry(corpus.encoded[i], &view).ok());
    typed.clear();
    for (const ValueRef& v : view.values) {
      auto ad = BuiltinSchema().ParseAttributeDescription(corpus.dict.Name(v.description));
      typed.push_back({ad.ok() ? ad->type : nullptr, v.value});
    }
    REQUIRE((*builder)->AddValues(i + 1, typed).ok());
  }
  REQUIRE((*builder)->Finish().ok());
  CHECK(DumpIndexTables(a.get()) == DumpIndexTables(b.get()));
}

// A timing of phase 2 over a real id2entry scan; run by hand with
// DIRLOAD_INDEX_BENCH_ENTRIES=285000 (Release build).
TEST_CASE("builder speed" * doctest::skip()) {
  const char* env = std::getenv("DIRLOAD_INDEX_BENCH_ENTRIES");
  uint64_t entries = env ? std::strtoull(env, nullptr, 10) : 20000;
  const char* m = std::getenv("DIRLOAD_INDEX_BENCH_METHOD");
  IndexMethod method = (m && std::string(m) == "sort") ? IndexMethod::kSort : IndexMethod::kCache;
  const char* cs = std::getenv("DIRLOAD_INDEX_BENCH_CACHE");
  TempDir dir;
  auto store = OpenStore(Backend::kLmdb, dir.File("db"));
  {
    bench::GeneratorOptions o;
    o.entries = entries;
    auto gen = bench::LdifGenerator::Create(o);
    REQUIRE(gen.ok());
    AttributeDictionary dict;
    ldif::Record r;
    std::vector<ValueRef> values;
    std::string bytes;
    EntryId id = 0;
    while ((*gen)->Next(&r)) {
      values.clear();
      for (size_t i = 0; i < r.size(); ++i) {
        values.push_back({dict.Intern(r.attribute(i).description), r.attribute(i).value});
      }
      bytes.clear();
      EncodeEntry(r.dn(), values, &bytes);
      REQUIRE(store->Append(kId2EntryTable, BigEndian64(++id), bytes).ok());
    }
    REQUIRE(store->Put(kMetaTable, "dict", dict.Serialize()).ok());
    REQUIRE(store->Sync().ok());
  }
  auto t0 = std::chrono::steady_clock::now();
  std::clock_t c0 = std::clock();
  AttributeDictionary dict;
  std::string d;
  REQUIRE(*store->Get(kMetaTable, "dict", &d));
  REQUIRE(dict.Load(d).ok());
  BuilderOptions o;
  if (cs) o.idl_cache_size = std::strtoull(cs, nullptr, 10);
  if (const char* sm = std::getenv("DIRLOAD_INDEX_BENCH_SORT_MB")) {
    o.sort_memory = std::strtoull(sm, nullptr, 10) << 20;
  }
  auto b = IndexBuilder::Create(method, Specs(bench::kWorkloadIndexLines), BuiltinSchema(),
                                store.get(), o);
  REQUIRE(b.ok());
  auto c = store->NewCursor(kId2EntryTable);
  EntryView view;
  for (c->SeekToFirst(); c->valid(); c->Next()) {
    REQUIRE(DecodeEntry(c->value(), &view).ok());
    REQUIRE((*b)->Add(GetBigEndian64(c->key()), view, dict).ok());
  }
  auto t1 = std::chrono::steady_clock::now();
  std::clock_t c1 = std::clock();
  REQUIRE((*b)->Finish().ok());
  auto t2 = std::chrono::steady_clock::now();
  std::clock_t c2 = std::clock();
  REQUIRE(store->Sync().ok());
  auto t3 = std::chrono::steady_clock::now();
  auto cpu = [](std::clock_t a, std::clock_t b) { return double(b - a) / CLOCKS_PER_SEC; };
  MESSAGE("cpu: scan+keys " << cpu(c0, c1) << " s, finish " << cpu(c1, c2) << " s");
  BuilderStats st = (*b)->stats();
  auto sec = [](auto a, auto b) { return std::chrono::duration<double>(b - a).count(); };
  MESSAGE("entries " << entries << " method " << IndexMethodName(method) << " scan+keys "
                     << sec(t0, t1) << " s, finish " << sec(t1, t2) << " s, sync " << sec(t2, t3)
                     << " s, total " << sec(t0, t3) << " s; pairs " << st.pairs << ", bytes "
                     << st.bytes_written << ", cache hits " << st.cache.hits << " misses "
                     << st.cache.misses << " evictions " << st.cache.evictions << ", runs "
                     << st.runs_spilled);
  for (const IndexBuildStats& i : st.indexes) {
    MESSAGE(i.table << " " << i.kinds << ": keys " << i.keys << " ids " << i.ids
                    << " unnormalizable " << i.unnormalizable);
  }
}

}  // namespace
}  // namespace dirload

namespace dirload {
namespace {

TEST_CASE("an abandoned sort build removes its spill directory") {
  TempDir dir;
  auto store = OpenStore(Backend::kLmdb, dir.File("db"));
  const Corpus& corpus = GeneratedCorpus(400);
  BuilderOptions o;
  o.sort_memory = 1;  // 1 MB: spills
  o.tmpdir = dir.path().string();
  auto spill_dirs = [&] {
    int n = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
      n += e.path().filename().string().rfind("dirload-sort-", 0) == 0;
    }
    return n;
  };
  auto add_all = [&](IndexBuilder* b) {
    EntryView view;
    for (size_t i = 0; i < corpus.encoded.size(); ++i) {
      REQUIRE(DecodeEntry(corpus.encoded[i], &view).ok());
      REQUIRE(b->Add(i + 1, view, corpus.dict).ok());
    }
  };
  {
    // On the calling thread alone, the spills can be watched as they come.
    o.threads = 1;
    auto b = IndexBuilder::Create(IndexMethod::kSort, Specs(), BuiltinSchema(), store.get(), o);
    REQUIRE(b.ok());
    add_all(b->get());
    CHECK((*b)->stats().runs_spilled > 0);
    CHECK(spill_dirs() == 1);
  }  // destroyed without Finish()
  CHECK(spill_dirs() == 0);
  {
    // With the grouping thread: it is stopped and joined, and its spills go.
    o.threads = 2;
    auto b = IndexBuilder::Create(IndexMethod::kSort, Specs(), BuiltinSchema(), store.get(), o);
    REQUIRE(b.ok());
    add_all(b->get());
  }
  CHECK(spill_dirs() == 0);
}

TEST_CASE("sorted runs merge in key order, concatenating IDs in run order") {
  TempDir dir;
  auto write = [&](const std::string& name,
                   std::vector<std::tuple<uint32_t, std::string, std::vector<EntryId>>> recs) {
    auto w = RunWriter::Create(dir.File(name));
    REQUIRE(w.ok());
    for (auto& [t, k, ids] : recs) REQUIRE((*w)->Add(t, k, ids).ok());
    REQUIRE((*w)->Finish().ok());
    return dir.File(name);
  };
  std::string long_key(300, 'k');
  std::vector<EntryId> many;
  for (EntryId i = 1; i <= 100000; ++i) many.push_back(i * 3);
  std::vector<std::string> runs = {
      write("r1", {{0, "a", {1, 2}}, {0, "b", {3}}, {1, "a", {4}}, {1, long_key, many}}),
      write("r2", {{0, "a", {400000}}, {0, "c", {400001}}}),
      write("r3", {{0, "b", {500000, 500001}}, {1, long_key, {600000}}}),
  };
  std::vector<std::tuple<uint32_t, std::string, std::vector<EntryId>>> got;
  REQUIRE(
      MergeRuns(runs, 64 << 10, [&](uint32_t t, std::string_view k, std::span<const EntryId> ids) {
        got.emplace_back(t, std::string(k), std::vector<EntryId>(ids.begin(), ids.end()));
        return Status::Ok();
      }).ok());
  std::vector<EntryId> long_ids = many;
  long_ids.push_back(600000);
  std::vector<std::tuple<uint32_t, std::string, std::vector<EntryId>>> want = {
      {0, "a", {1, 2, 400000}},
      {0, "b", {3, 500000, 500001}},
      {0, "c", {400001}},
      {1, "a", {4}},
      {1, long_key, long_ids}};
  CHECK(got == want);

  // A truncated run is reported, not misread.
  std::string bytes = testing::ReadFile(runs[0]);
  std::string cut = dir.Write("cut", bytes.substr(0, bytes.size() - 3));
  Status s = MergeRuns({cut}, 64 << 10, [](uint32_t, std::string_view, std::span<const EntryId>) {
    return Status::Ok();
  });
  CHECK(s.code() == StatusCode::kCorruption);
}

}  // namespace
}  // namespace dirload

namespace dirload {
namespace {

TEST_CASE("a second build with drop_existing off extends the tables") {
  TempDir dir;
  const Corpus& corpus = GeneratedCorpus(400);
  const std::vector<IndexSpec> specs = Specs();
  auto whole = OpenStore(Backend::kLmdb, dir.File("whole"));
  Build(whole.get(), IndexMethod::kSort, {}, corpus, specs);
  const auto want = DumpIndexTables(whole.get());

  for (IndexMethod second : {IndexMethod::kSort, IndexMethod::kCache}) {
    INFO("second method " << IndexMethodName(second));
    auto store =
        OpenStore(Backend::kLmdb, dir.File("parts" + std::string(IndexMethodName(second))));
    EntryView view;
    size_t half = corpus.encoded.size() / 2;
    for (int part = 0; part < 2; ++part) {
      BuilderOptions o;
      o.drop_existing = part == 0;
      auto b = IndexBuilder::Create(part == 0 ? IndexMethod::kCache : second, specs,
                                    BuiltinSchema(), store.get(), o);
      REQUIRE(b.ok());
      for (size_t i = part == 0 ? 0 : half; i < (part == 0 ? half : corpus.encoded.size()); ++i) {
        REQUIRE(DecodeEntry(corpus.encoded[i], &view).ok());
        REQUIRE((*b)->Add(i + 1, view, corpus.dict).ok());
      }
      REQUIRE((*b)->Finish().ok());
    }
    CHECK(DumpIndexTables(store.get()) == want);
  }
}

}  // namespace
}  // namespace dirload
