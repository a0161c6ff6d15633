// The experiment options reach the engine, shown through the real binary's
// --stats: the Berkeley DB cache size (from --cache-size and from slapd.conf's
// dbconfig set_cachesize), id2entry's cache priority, the mmap size and
// whether phase 2 really read id2entry through the mapping, transactions with
// --durable; a tiny cache thrashes where a large one does not, visibly in the
// counters; on LMDB each option says it has no effect.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/ldif_generator.h"
#include "tests/integration/dirload_process.h"
#include "tests/support/mini_json.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

using testing::JsonValue;
using testing::RunDirload;
using testing::RunResult;
using testing::TempDir;

constexpr char kSuffix[] = "dc=example,dc=com";
const std::vector<std::string> kIndexes = {"--index", "objectClass eq", "--index", "cn eq,sub",
                                           "--index", "mail eq,sub",    "--index", "sn eq,sub"};

void Generate(const std::string& path, uint64_t entries) {
  bench::GeneratorOptions options;
  options.entries = entries;
  options.seed = 7;
  options.suffix = kSuffix;
  Status s = bench::GenerateLdifFile(options, path);
  REQUIRE_MESSAGE(s.ok(), s.message());
}

// A --stats file, parsed.
struct Stats {
  JsonValue json;
  std::string text;

  explicit Stats(const std::string& path) : text(testing::ReadFile(path)) {
    std::string error;
    REQUIRE_MESSAGE(testing::ParseJson(text, &json, &error), error << "\n" << text);
  }
  // A counter of the named phase; -1 when the phase or the counter is missing.
  double Counter(const std::string& phase, const std::string& name) const {
    const JsonValue* phases = json.Find("phases");
    if (phases == nullptr || !phases->is_array()) return -1;
    for (const JsonValue& p : phases->array()) {
      const JsonValue* n = p.Find("name");
      if (n == nullptr || n->string() != phase) continue;
      const JsonValue* v = p.Find(name);
      return v != nullptr && v->is_number() ? v->number() : -1;
    }
    return -1;
  }
  // A setting read back from the engine; "" when missing.
  std::string Setting(const std::string& name) const {
    const JsonValue* v = json.Get({"settings", name});
    return v != nullptr && v->is_string() ? v->string() : "";
  }
};

RunResult Add(const std::string& ldif, const std::string& db, const std::string& backend,
              std::vector<std::string> extra) {
  std::vector<std::string> args = {"add",   "--db", db,   "--suffix",   kSuffix, "--backend",
                                   backend, "-l",   ldif, "--progress", "never"};
  args.insert(args.end(), extra.begin(), extra.end());
  args.insert(args.end(), kIndexes.begin(), kIndexes.end());
  return RunDirload(args, 600);
}

RunResult Index(const std::string& db, std::vector<std::string> extra) {
  std::vector<std::string> args = {"index", "--all", "--db", db, "--progress", "never"};
  args.insert(args.end(), extra.begin(), extra.end());
  args.insert(args.end(), kIndexes.begin(), kIndexes.end());
  return RunDirload(args, 600);
}

TEST_CASE("bdb: a tiny cache thrashes where a large one does not, and the counters show it") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir t;
  std::string input = t.File("in.ldif");
  Generate(input, 2000);
  // The cache method with no IDL cache writes every ID into its list's last
  // chunk: index pages are touched at random, the worst case for a pool.
  std::vector<std::string> cache_method = {"--index-method", "cache", "--idl-cache-size", "0"};
  auto run = [&](const std::string& size) {
    std::string stats = t.File("stats-" + size + ".json");
    std::vector<std::string> extra = cache_method;
    extra.insert(extra.end(), {"--cache-size", size, "--stats", stats});
    RunResult r = Add(input, t.File("db-" + size), "bdb", extra);
    REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
    return Stats(stats);
  };
  Stats tiny = run("256K");
  Stats large = run("64M");

  // The sizes asked for are what the engine runs with (get_cachesize; it adds
  // its own overhead to small pools, never takes less).
  double tiny_bytes = std::stod(tiny.Setting("cache_bytes"));
  double large_bytes = std::stod(large.Setting("cache_bytes"));
  CHECK(tiny_bytes >= 256 * 1024);
  CHECK(tiny_bytes < 1024 * 1024);
  CHECK(large_bytes >= 64.0 * 1024 * 1024);
  CHECK(tiny.Counter("index", "cache.bytes") == tiny_bytes);

  INFO("tiny: " << tiny.text << "\nlarge: " << large.text);
  double tiny_misses = tiny.Counter("index", "cache.misses");
  double large_misses = large.Counter("index", "cache.misses");
  CHECK(tiny_misses > 20 * (large_misses + 1));
  double tiny_evictions = tiny.Counter("index", "cache.dirty_evictions") +
                          tiny.Counter("index", "cache.clean_evictions");
  CHECK(tiny_evictions > 1000);
  CHECK(large.Counter("index", "cache.dirty_evictions") == 0);
  CHECK(large.Counter("index", "cache.clean_evictions") == 0);
  CHECK(tiny.Counter("index", "cache.pages_written") >
        10 * (large.Counter("index", "cache.pages_written") + 1));
  // The thrashing is in the index tables' own figures (memp_fstat).
  CHECK(tiny.Counter("index", "cache.table.idx.cn.pages_read") >
        10 * (large.Counter("index", "cache.table.idx.cn.pages_read") + 1));
  // Both built the same indexes.
  CHECK(tiny.Counter("index", "pairs") == large.Counter("index", "pairs"));
  CHECK(tiny.Counter("index", "pairs") > 10000);
}

TEST_CASE("bdb: slapd.conf's dbconfig set_cachesize sizes the pool; --cache-size wins over it") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir t;
  std::string input = t.File("in.ldif");
  Generate(input, 200);
  std::string conf =
      t.Write("slapd.conf", std::string("database bdb\nsuffix \"") + kSuffix + "\"\ndirectory " +
                                t.File("db") + "\ndbconfig set_cachesize 0 33554432 1\n");
  std::string stats = t.File("a.json");
  RunResult r = RunDirload(
      {"add", "-f", conf, "-l", input, "--progress", "never", "--no-index", "--stats", stats});
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  Stats a(stats);
  double bytes = std::stod(a.Setting("cache_bytes"));
  CHECK(bytes >= 32.0 * 1024 * 1024);
  CHECK(bytes < 48.0 * 1024 * 1024);

  stats = t.File("b.json");
  r = RunDirload({"index", "--all", "-f", conf, "--cache-size", "8M", "--index", "cn eq",
                  "--progress", "never", "--stats", stats});
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  Stats b(stats);
  bytes = std::stod(b.Setting("cache_bytes"));
  CHECK(bytes >= 8.0 * 1024 * 1024);
  CHECK(bytes < 16.0 * 1024 * 1024);
}

TEST_CASE("bdb: a DB_CONFIG file in the directory wins over --cache-size, with a warning") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir t;
  std::string input = t.File("in.ldif");
  Generate(input, 100);
  std::string db = t.File("db");
  std::filesystem::create_directories(db);
  t.Write("db/DB_CONFIG", "set_cachesize 0 16777216 1\n");
  std::string stats = t.File("s.json");
  RunResult r = Add(input, db, "bdb", {"--cache-size", "64M", "--stats", stats});
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  CHECK(r.err.find("DB_CONFIG") != std::string::npos);
  CHECK(r.err.find("--cache-size") != std::string::npos);
  // What the engine runs with is what --stats reports: DB_CONFIG's size.
  double bytes = std::stod(Stats(stats).Setting("cache_bytes"));
  CHECK(bytes >= 16.0 * 1024 * 1024);
  CHECK(bytes < 32.0 * 1024 * 1024);
}

TEST_CASE("bdb: id2entry priority and page size are read back from the engine") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir t;
  std::string input = t.File("in.ldif");
  Generate(input, 300);
  for (std::string priority : {"very_low", "high"}) {
    CAPTURE(priority);
    std::string stats = t.File(priority + ".json");
    RunResult r = Add(input, t.File("db-" + priority), "bdb",
                      {"--id2entry-priority", priority, "--page-size", "8192", "--stats", stats});
    REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
    Stats s(stats);
    CHECK(s.Setting("table.id2entry.priority") == priority);
    // Only id2entry's pages get the priority.
    CHECK(s.Setting("table.dn2id.priority") == "default");
    CHECK(s.Setting("table.idx.cn.priority") == "default");
    CHECK(s.Setting("table.idx.cn.page_size") == "8192");
    CHECK(s.Setting("transactional") == "false");
  }
  std::string stats = t.File("default.json");
  RunResult r = Add(input, t.File("db-default"), "bdb", {"--durable", "--stats", stats});
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  Stats s(stats);
  CHECK(s.Setting("table.id2entry.priority") == "default");
  CHECK(s.Setting("transactional") == "true");
  CHECK(s.Setting("sync_on_commit") == "true");
}

TEST_CASE("bdb: --mmap makes phase 2 read id2entry through the mapping, not the pool") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir t;
  std::string input = t.File("in.ldif");
  Generate(input, 1500);
  std::string db = t.File("db");
  RunResult r = Add(input, db, "bdb", {"--no-index"});
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());

  // A mapping limit below id2entry's size: it is read page by page into the pool.
  std::string off = t.File("off.json");
  r = Index(db, {"--mmap-size", "64K", "--stats", off});
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  Stats unmapped(off);
  INFO(unmapped.text);
  CHECK(unmapped.Setting("mmap_size") == "65536");
  CHECK(unmapped.Setting("table.id2entry.read_only") == "true");
  CHECK(unmapped.Counter("index", "cache.table.id2entry.pages_mapped") == 0);
  CHECK(unmapped.Counter("index", "cache.table.id2entry.pages_read") > 100);

  std::string on = t.File("on.json");
  r = Index(db, {"--mmap", "--stats", on});
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  Stats mapped(on);
  INFO(mapped.text);
  CHECK(std::stod(mapped.Setting("mmap_size")) >= 1024.0 * 1024 * 1024);
  CHECK(mapped.Counter("index", "cache.table.id2entry.pages_mapped") > 100);
  CHECK(mapped.Counter("index", "cache.table.id2entry.pages_read") == 0);
  // The same indexes either way.
  CHECK(mapped.Counter("index", "pairs") == unmapped.Counter("index", "pairs"));
}

TEST_CASE("lmdb: the Berkeley DB options say they have no effect; --durable syncs commits") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir t;
  std::string input = t.File("in.ldif");
  Generate(input, 100);
  std::string stats = t.File("s.json");
  RunResult r = Add(input, t.File("db"), "lmdb",
                    {"-v", "--cache-size", "8M", "--mmap", "--id2entry-priority", "very_low",
                     "--page-size", "8192", "--durable", "--stats", stats});
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  for (const char* option : {"--cache-size", "--mmap", "--id2entry-priority", "--page-size"}) {
    CAPTURE(option);
    CHECK(r.err.find(std::string(option)) != std::string::npos);
  }
  CHECK(r.err.find("no effect on LMDB") != std::string::npos);
  Stats s(stats);
  CHECK(s.Setting("sync_on_commit") == "true");
  CHECK(s.Setting("cache_bytes").empty());
  CHECK(!s.Setting("map_size").empty());
  // No buffer pool, so no pool figures.
  CHECK(s.Counter("load", "cache.misses") == -1);
}

TEST_CASE(
    "--one-pass: phase 1 makes the keys of a new native database; elsewhere it says why not") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir t;
  std::string input = t.File("in.ldif");
  Generate(input, 2000);
  std::string more = t.File("more.ldif");
  {
    bench::GeneratorOptions options;
    options.entries = 50;
    options.seed = 8;
    options.suffix = "ou=more,dc=example,dc=com";
    REQUIRE(bench::GenerateLdifFile(options, more).ok());
  }
  for (const std::string backend : {"lmdb", "bdb"}) {
    CAPTURE(backend);
    std::string two = t.File("two-" + backend), one = t.File("one-" + backend);
    RunResult r = Add(input, two, backend, {"--stats", t.File("two.json")});
    REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
    r = Add(input, one, backend, {"--one-pass", "--stats", t.File("one.json")});
    REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
    Stats fed(t.File("one.json")), read_back(t.File("two.json"));
    CHECK(fed.Counter("index", "keys_made_in_phase_1") == 1);
    CHECK(read_back.Counter("index", "keys_made_in_phase_1") == 0);
    CHECK(fed.Counter("index", "pairs") > 10000);
    CHECK(fed.Counter("index", "pairs") == read_back.Counter("index", "pairs"));
    CHECK(fed.Counter("index", "index.sn.keys") == read_back.Counter("index", "index.sn.keys"));
    // Recorded as built: nothing is stale.
    RunResult check = Index(one, {"--check"});
    CHECK_MESSAGE(check.exit_code == 0, check.Describe());
    // The same answers from both databases.
    for (const char* filter : {"(sn=Sm*)", "(cn=*an*)", "(objectClass=groupOfNames)"}) {
      CAPTURE(filter);
      RunResult a = RunDirload({"search", "--db", one, "-b", kSuffix, filter, "dn"}, 300);
      RunResult b = RunDirload({"search", "--db", two, "-b", kSuffix, filter, "dn"}, 300);
      REQUIRE_MESSAGE(a.exit_code == 0, a.Describe());
      CHECK(a.out.size() > 100);
      CHECK(a.out == b.out);
    }
    // An append reads the entries back, and says so.
    r = Add(more, one, backend, {"--one-pass", "--stats", t.File("append.json")});
    CHECK_MESSAGE(r.exit_code == 0, r.Describe());
    CHECK(r.err.find("--one-pass applies to a new database") != std::string::npos);
    CHECK(Stats(t.File("append.json")).Counter("index", "keys_made_in_phase_1") == 0);
  }
}

// A load of `input` with `name`=`value` in the environment (none when name
// is null): what its --stats says of `setting`.
std::string SettingWith(TempDir& t, const std::string& input, const char* name, const char* value,
                        const std::string& run, const std::string& setting) {
  if (name != nullptr) REQUIRE(setenv(name, value, 1) == 0);
  std::string stats = t.File(run + ".json");
  RunResult r = Add(input, t.File("db-" + run), "lmdb", {"--stats", stats});
  if (name != nullptr) REQUIRE(unsetenv(name) == 0);
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  return Stats(stats).Setting(setting);
}

TEST_CASE("the heap is asked for huge pages, unless DIRLOAD_MALLOC_HUGEPAGES=0 says not to") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir t;
  std::string input = t.File("in.ldif");
  Generate(input, 20);
  // dirload starts itself again with the tunable, whatever this test's environment holds.
  REQUIRE(unsetenv("GLIBC_TUNABLES") == 0);
  REQUIRE(unsetenv("DIRLOAD_MALLOC_HUGEPAGES") == 0);
  auto setting_with = [&](const char* name, const char* value, const std::string& run) {
    return SettingWith(t, input, name, value, run, "malloc_huge_pages");
  };
  CHECK(setting_with(nullptr, nullptr, "on") == "true");
  CHECK(setting_with("DIRLOAD_MALLOC_HUGEPAGES", "0", "off") == "false");
  // A user's own setting of the tunable is kept, not overridden.
  CHECK(setting_with("GLIBC_TUNABLES", "glibc.malloc.hugetlb=0", "user") == "false");
}

TEST_CASE("the heap keeps 64 MB of headroom, unless GLIBC_TUNABLES sets glibc.malloc.top_pad") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir t;
  std::string input = t.File("in.ldif");
  Generate(input, 20);
  REQUIRE(unsetenv("GLIBC_TUNABLES") == 0);
  auto setting_with = [&](const char* tunables, const std::string& run) {
    return SettingWith(t, input, tunables == nullptr ? nullptr : "GLIBC_TUNABLES", tunables, run,
                       "malloc_top_pad");
  };
#ifdef __SANITIZE_ADDRESS__
  // AddressSanitizer's allocator stands in for glibc's and refuses mallopt:
  // dirload then says it left the allocator's default.
  const std::string ours = "default";
#else
  const std::string ours = std::to_string(64 << 20);
#endif
  CHECK(setting_with(nullptr, "ours") == ours);
  CHECK(setting_with("glibc.malloc.top_pad=131072", "user") == "tunable");
}

}  // namespace
}  // namespace dirload
