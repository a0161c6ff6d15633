// --one-pass: the indexes built from the entries phase 1 hands over
// (IndexFeed) against the indexes built by reading id2entry back
// (NativeIndexer::Run). Every table of the database must be the same, record for
// record, on both engines, with the sort method in memory and with spills;
// where the loader has to change an entry it already handed over, the feed
// is abandoned and the usual pass builds the indexes.
#include <doctest/doctest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench/ldif_generator.h"
#include "ldif/byte_source.h"
#include "ldif/writer.h"
#include "lib/format/native/native_sink.h"
#include "lib/format/native/native_indexer.h"
#include "lib/load/loader.h"
#include "tests/schema/builtin_fixture.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

using Tables = std::map<std::string, std::vector<std::pair<std::string, std::string>>>;

Tables DumpAll(Backend backend, const std::string& dir) {
  StoreOptions so;
  so.read_only = true;
  Result<std::unique_ptr<Store>> store = Store::Open(backend, dir, so);
  REQUIRE(store.ok());
  Result<std::vector<std::string>> names = (*store)->ListTables();
  REQUIRE(names.ok());
  Tables tables;
  for (const std::string& name : *names) {
    auto& records = tables[name];
    std::unique_ptr<Cursor> c = (*store)->NewCursor(name);
    for (c->SeekToFirst(); c->valid(); c->Next()) records.emplace_back(c->key(), c->value());
    REQUIRE(c->status().ok());
  }
  return tables;
}

const IndexConfig& Config() {
  static const IndexConfig config = [] {
    std::vector<IndexConfig::Line> lines;
    for (const char* l : {"objectClass eq", "cn,sn,mail eq,sub", "uid,telephoneNumber eq",
                          "member,manager eq", "title pres,eq", "entryUUID eq"}) {
      lines.push_back({l, "test"});
    }
    Result<IndexConfig> parsed = IndexConfig::Parse(testing::BuiltinSchema(), lines);
    REQUIRE_MESSAGE(parsed.ok(), parsed.status().message());
    return *parsed;
  }();
  return config;
}

struct Built {
  Tables tables;
  IndexRunSummary summary;
  std::string abandoned;  // why the feed was given up
  uint64_t rejected = 0;
};

// Loads `ldif` into a new database in `dir` and builds Config()'s indexes,
// fed by phase 1 (`fed`) or by reading id2entry back.
Built Load(Backend backend, const std::string& dir, const std::string& ldif, bool fed,
           uint64_t sort_memory, bool cont) {
  StoreOptions so;
  so.create = true;
  Result<std::unique_ptr<Store>> store = Store::Open(backend, dir, so);
  REQUIRE(store.ok());
  const Schema& schema = testing::BuiltinSchema();
  EntryChecker checker(&schema, true);
  LoadOptions lo;
  lo.suffix = "dc=example,dc=com";
  lo.continue_on_error = cont;
  NativeSinkOptions sink_options;
  sink_options.commit_every = 50;
  // One checking thread, the writing one (no workers): with two, the order
  // in which they first meet the attribute descriptions, and so the
  // dictionary's ids in id2entry and meta, depends on timing, and two loads
  // would differ byte for byte whichever way their indexes were built.
  lo.threads = 0;
  // The same operational values in both loads, so that id2entry and the
  // entryUUID index can be compared too.
  auto micros = std::make_shared<uint32_t>(0);
  lo.clock = [micros] { return WallTime{1704164645, ++*micros}; };  // 2024-01-02
  lo.uuid_seed = 11;
  IndexRunOptions io;
  io.method = IndexMethod::kSort;
  io.builder.sort_memory = sort_memory;
  NativeIndexer indexer(store->get(), &schema, &Config(), nullptr);
  std::unique_ptr<IndexFeed> feed;
  if (fed) {
    Result<std::unique_ptr<IndexFeed>> begun = indexer.BeginFed(io);
    REQUIRE_MESSAGE(begun.ok(), begun.status().message());
    feed = std::move(*begun);
    sink_options.index_feed = feed.get();
  }
  Built out;
  {
    class Count final : public RejectSink {
     public:
      Status Reject(const std::string&, std::string_view) override { return Status::Ok(); }
    } rejects;
    NativeSink sink(store->get(), sink_options);
    Loader loader(lo, &sink, &checker, &rejects, nullptr);
    ldif::Reader reader(ldif::MemoryByteSource(ldif, "in.ldif"));
    Result<LoadSummary> loaded = loader.Run(&reader);
    REQUIRE_MESSAGE(loaded.ok(), loaded.status().message());
    out.rejected = loaded->rejected;
  }
  if (feed) out.abandoned = feed->why_abandoned();
  Result<IndexRunSummary> built = feed ? indexer.FinishFed(std::move(feed), io) : indexer.Run(io);
  REQUIRE_MESSAGE(built.ok(), built.status().message());
  out.summary = *built;
  store->reset();
  out.tables = DumpAll(backend, dir);
  return out;
}

std::string Generated(uint64_t entries) {
  bench::GeneratorOptions options;
  options.entries = entries;
  options.seed = 5;
  auto gen = bench::LdifGenerator::Create(options);
  REQUIRE(gen.ok());
  std::string text;
  ldif::Record r;
  while ((*gen)->Next(&r)) ldif::AppendRecord(r, ldif::WriterOptions{}, &text);
  return text;
}

void CheckSame(const Built& one, const Built& two) {
  REQUIRE(one.tables.size() == two.tables.size());
  for (const auto& [name, records] : two.tables) {
    CAPTURE(name);
    REQUIRE(one.tables.count(name) == 1);
    CHECK(one.tables.at(name).size() == records.size());
    CHECK(one.tables.at(name) == records);
  }
  CHECK(one.summary.builder.pairs == two.summary.builder.pairs);
  CHECK(one.summary.entries == two.summary.entries);
}

TEST_CASE("one pass: the indexes made from what phase 1 hands over equal those read back") {
  const std::string ldif = Generated(3000);
  for (Backend b : {Backend::kLmdb, Backend::kBdb}) {
    // 1 byte is clamped to the builder's least (1 MB): several runs spilled.
    for (uint64_t memory : {uint64_t{256} << 20, uint64_t{1}}) {
      CAPTURE(BackendName(b));
      CAPTURE(memory);
      testing::TempDir dir;
      Built two = Load(b, dir.File("two"), ldif, false, memory, false);
      Built one = Load(b, dir.File("one"), ldif, true, memory, false);
      CHECK(one.abandoned.empty());
      CHECK(one.summary.fed);
      CHECK_FALSE(two.summary.fed);
      CHECK(one.summary.entries == 3000);
      CHECK(two.tables.count("idx.cn") == 1);
      CHECK(two.tables.at("idx.cn").size() > 1000);
      if (memory == 1) CHECK(one.summary.builder.runs_spilled > 1);
      CheckSame(one, two);
    }
  }
}

TEST_CASE("one pass: an entry changed after it was handed over gives the feed up, not the result") {
  const std::string top =
      "dn: dc=example,dc=com\nobjectClass: dcObject\nobjectClass: organization\n"
      "dc: example\no: Example\n\n";
  auto person = [](const std::string& uid, const std::string& parent) {
    return "dn: uid=" + uid + "," + parent + "\nobjectClass: inetOrgPerson\nuid: " + uid +
           "\ncn: " + uid + "\nsn: S" + uid + "\ntitle: t\n\n";
  };
  const std::string people =
      "dn: ou=people,dc=example,dc=com\nobjectClass: organizationalUnit\nou: people\n\n";
  struct Case {
    const char* name;
    std::string ldif;
    bool cont;
    const char* why;  // in the reason the feed gives
  };
  const std::vector<Case> cases = {
      {"a parent after its child",
       top + person("a", "ou=people,dc=example,dc=com") + people +
           person("b", "ou=people,dc=example,dc=com"),
       false, "came after entry"},
      {"-c removes the entries below a parent that never came",
       top + people + person("a", "ou=people,dc=example,dc=com") +
           person("x", "ou=gone,dc=example,dc=com") + person("b", "ou=people,dc=example,dc=com"),
       true, "removed"},
  };
  for (const Case& c : cases) {
    for (Backend b : {Backend::kLmdb, Backend::kBdb}) {
      CAPTURE(c.name);
      CAPTURE(BackendName(b));
      testing::TempDir dir;
      Built two = Load(b, dir.File("two"), c.ldif, false, uint64_t{64} << 20, c.cont);
      Built one = Load(b, dir.File("one"), c.ldif, true, uint64_t{64} << 20, c.cont);
      CHECK(one.abandoned.find(c.why) != std::string::npos);
      CHECK_FALSE(one.summary.fed);
      CHECK(one.rejected == two.rejected);
      CHECK(two.tables.at("idx.uid").size() == 2);
      CheckSame(one, two);
    }
  }
}

}  // namespace
}  // namespace dirload
