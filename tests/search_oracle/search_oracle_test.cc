// Offline search and the indexes behind it, judged by OpenLDAP: one generated
// LDIF loaded by `slapadd -q` (back-mdb, the 15 indexes of DESIGN.md) and by
// `dirload add` with the same indexes, in each of the three formats (dirload's
// own on LMDB and on Berkeley DB, slapd's back-mdb) and with both index build
// methods; for every query (filter, base and scope) the DN set of `dirload
// search` must equal slapcat's, with and without indexes. Then the rebuild in
// dirload's format: `dirload index` after a --no-index load builds what a load
// with indexes builds (table by table on LMDB), and a changed configuration is
// detected as stale and fixed by rebuilding only what changed. (slapd's format
// records no index state to be stale; tests/format/mdb/mdb_search_test.cc holds
// its rebuild to slapindex's.)
//
// Without slapadd/slapcat the comparisons with OpenLDAP are skipped (the rest
// still runs), except when $CI is set: there a missing oracle fails the test.
// DIRLOAD_ORACLE_ENTRIES and DIRLOAD_ORACLE_SEED change the data,
// DIRLOAD_ORACLE_JOBS how many searches run at once (2);
// DIRLOAD_ORACLE_VERBOSE=1 prints every query with both DN counts.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "bench/ldif_generator.h"
#include "tests/search_oracle/oracle_world.h"
#include "tests/support/child_process.h"
#include "tests/support/mini_json.h"
#include "tests/support/openldap.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

namespace fs = std::filesystem;
using testing::DnSet;
using testing::Env;
using testing::LoadConfig;
using testing::OracleWorld;
using testing::Plan;
using testing::ProcessResult;
using testing::Query;
using testing::SearchOutcome;

// Whether slapcat's answers can be compared with. In CI a missing OpenLDAP is
// a failure: the oracle is the point of these tests.
bool OpenLdapAvailable(const OracleWorld& world) {
  if (world.openldap_missing().empty()) return true;
  if (!Env("CI").empty()) {
    FAIL_CHECK(world.openldap_missing() << "; CI is set, so the OpenLDAP oracle must run");
  } else {
    MESSAGE("not comparing with OpenLDAP: " << world.openldap_missing());
  }
  return false;
}

std::string Where(const Query& q) {
  return q.what + ": -b '" + q.base + "' -s " + q.scope + " '" + q.filter + "'";
}

// Sizes of both sets and a few DNs only one of them holds.
std::string Difference(const char* want_name, const DnSet& want, const char* got_name,
                       const DnSet& got) {
  std::string s = std::string(want_name) + " " + std::to_string(want.size()) + " DNs, " + got_name +
                  " " + std::to_string(got.size()) + " DNs";
  int shown = 0;
  for (const std::string& dn : want) {
    if (!got.count(dn) && shown++ < 5) s += "\n  only " + std::string(want_name) + ": " + dn;
  }
  shown = 0;
  for (const std::string& dn : got) {
    if (!want.count(dn) && shown++ < 5) s += "\n  only " + std::string(got_name) + ": " + dn;
  }
  return s;
}

// The plan check: a query that must use indexes says "indexed:" in --explain,
// one that cannot says "scan:".
void CheckPlan(const Query& q, const SearchOutcome& got) {
  if (q.plan == Plan::kIndexed) {
    CHECK_MESSAGE(got.summary.rfind("indexed:", 0) == 0,
                  Where(q) << ": expected an indexed plan; --explain said:\n"
                           << got.run.err);
  } else if (q.plan == Plan::kScan) {
    CHECK_MESSAGE(got.summary.rfind("scan:", 0) == 0, Where(q)
                                                          << ": expected a scan; --explain said:\n"
                                                          << got.run.err);
  }
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// Every query on the database `config` builds, against slapcat; with
// `no_index_too`, also with --no-index, which must give the same DNs.
void CheckAgainstOpenLdap(const LoadConfig& config, bool no_index_too) {
  auto start = std::chrono::steady_clock::now();
  OracleWorld& world = OracleWorld::Get();
  bool oracle = OpenLdapAvailable(world);
  std::string db = world.Database(config);
  bool verbose = !Env("DIRLOAD_ORACLE_VERBOSE").empty();
  INFO("database " << config.Name() << " in " << db);

  const std::vector<Query>& queries = world.queries();
  std::vector<SearchOutcome> indexed = OracleWorld::SearchAll(db, queries);
  std::vector<SearchOutcome> scans;
  if (no_index_too) scans = OracleWorld::SearchAll(db, queries, {"--no-index"});
  // Without OpenLDAP the cache method is held to the sort method's answers.
  std::vector<SearchOutcome> sorted;
  if (!oracle && config.method != "sort") {
    sorted = OracleWorld::SearchAll(world.Database({.backend = config.backend, .method = "sort"}),
                                    queries);
  }
  size_t agree = 0, disagree = 0;
  for (size_t i = 0; i < queries.size(); ++i) {
    const Query& q = queries[i];
    const SearchOutcome& got = indexed[i];
    CHECK_MESSAGE(got.ok(), got.run.Describe());
    if (!got.ok()) continue;
    CheckPlan(q, got);
    if (oracle) {
      const DnSet& want = world.expected()[i];
      if (want == got.dns) {
        ++agree;
      } else {
        ++disagree;
      }
      CHECK_MESSAGE(want == got.dns, config.Name()
                                         << ": disagrees with slapcat: " << Where(q) << "\n"
                                         << Difference("slapcat", want, "dirload", got.dns));
      if (verbose) {
        MESSAGE(config.Name() << " | " << q.what << " | -s " << q.scope << " " << q.filter
                              << " | slapcat " << want.size() << " | dirload " << got.dns.size()
                              << " | " << got.summary);
      }
    }
    if (!sorted.empty()) {
      CHECK_MESSAGE(sorted[i].dns == got.dns,
                    config.Name() << ": differs from the sort method: " << Where(q) << "\n"
                                  << Difference("sort", sorted[i].dns, "cache", got.dns));
    }
    if (no_index_too) {
      const SearchOutcome& scan = scans[i];
      CHECK_MESSAGE(scan.ok(), scan.run.Describe());
      CHECK_MESSAGE(scan.summary.rfind("scan:", 0) == 0,
                    Where(q) << ": --no-index did not scan; --explain said:\n"
                             << scan.run.err);
      CHECK_MESSAGE(scan.dns == got.dns,
                    config.Name() << ": --no-index differs: " << Where(q) << "\n"
                                  << Difference("indexed", got.dns, "--no-index", scan.dns));
    }
  }
  MESSAGE(config.Name() << ": " << world.queries().size() << " queries on " << world.entries()
                        << " entries; agree with slapcat: " << agree << ", disagree: " << disagree
                        << std::string(no_index_too ? "; --no-index compared too" : "") << "; "
                        << Seconds(start) << " s");
}

// The phase figures of a `--stats` JSON file, or null.
const testing::JsonValue* IndexPhase(const testing::JsonValue& stats) {
  const testing::JsonValue* phases = stats.Find("phases");
  if (phases == nullptr || !phases->is_array()) return nullptr;
  for (const testing::JsonValue& p : phases->array()) {
    const testing::JsonValue* name = p.Find("name");
    if (name != nullptr && name->is_string() && name->string() == "index") return &p;
  }
  return nullptr;
}

testing::JsonValue ReadJson(const std::string& path) {
  testing::JsonValue json;
  std::string error;
  std::string text = testing::ReadFile(path);
  REQUIRE_MESSAGE(testing::ParseJson(text, &json, &error), path << ": " << error << "\n" << text);
  return json;
}

TEST_CASE("search oracle: LMDB, sort method, agrees with slapcat with and without indexes") {
  CheckAgainstOpenLdap({.backend = "lmdb", .method = "sort"}, /*no_index_too=*/true);
}

TEST_CASE("search oracle: Berkeley DB, sort method, agrees with slapcat with and without indexes") {
  CheckAgainstOpenLdap({.backend = "bdb", .method = "sort"}, /*no_index_too=*/true);
}

TEST_CASE(
    "search oracle: slapd's format, sort method, agrees with slapcat with and without indexes") {
  CheckAgainstOpenLdap({.backend = "mdb", .method = "sort"}, /*no_index_too=*/true);
}

// The cache method with a cache far smaller than the number of keys, so lists
// are evicted and flushed into the tables again and again during the build.
void CheckCacheMethod(const std::string& backend) {
  LoadConfig config{.backend = backend, .method = "cache", .idl_cache_size = 1000};
  CheckAgainstOpenLdap(config, /*no_index_too=*/false);
  std::string db = OracleWorld::Get().Database(config);
  testing::JsonValue stats = ReadJson(OracleWorld::StatsPath(db));
  const testing::JsonValue* phase = IndexPhase(stats);
  REQUIRE_MESSAGE(phase != nullptr, "no 'index' phase in " << OracleWorld::StatsPath(db));
  const testing::JsonValue* evictions = phase->Find("idl_cache.evictions");
  REQUIRE(evictions != nullptr);
  CHECK_MESSAGE(evictions->number() > 0, "the IDL cache of 1000 lists never evicted");
}

TEST_CASE("search oracle: LMDB, cache method evicting, agrees with slapcat") {
  CheckCacheMethod("lmdb");
}

TEST_CASE("search oracle: Berkeley DB, cache method evicting, agrees with slapcat") {
  CheckCacheMethod("bdb");
}

// The same cache on slapd's format. Its --stats leave out the IDL cache's
// counters, so that the lists were evicted is not checked here.
TEST_CASE("search oracle: slapd's format, cache method, agrees with slapcat") {
  CheckAgainstOpenLdap({.backend = "mdb", .method = "cache", .idl_cache_size = 1000},
                       /*no_index_too=*/false);
}

// OpenLDAP folds case one code point at a time (ß stays ß, final sigma stays
// final sigma); RFC 4518 folds by table B.2 of RFC 3454 (ß -> ss, final sigma
// -> sigma). The oracle is OpenLDAP, so dirload must give its answers.
void CheckFolding(const std::string& backend) {
  OracleWorld& world = OracleWorld::Get();
  if (!OpenLdapAvailable(world)) return;
  if (world.folding_queries().empty()) {
    MESSAGE("the generated data has no surname with ß or final sigma");
    return;
  }
  std::string db = world.Database({.backend = backend, .method = "sort"});
  for (size_t i = 0; i < world.folding_queries().size(); ++i) {
    const Query& q = world.folding_queries()[i];
    SearchOutcome got = OracleWorld::Search(db, q);
    REQUIRE_MESSAGE(got.ok(), got.run.Describe());
    const DnSet& want = world.folding_expected()[i];
    CHECK_MESSAGE(want == got.dns, backend << ": disagrees with slapcat: " << Where(q) << "\n"
                                           << Difference("slapcat", want, "dirload", got.dns));
  }
}

TEST_CASE("search oracle: Unicode case folding of ß and final sigma agrees with slapcat, LMDB") {
  CheckFolding("lmdb");
}

TEST_CASE(
    "search oracle: Unicode case folding of ß and final sigma agrees with slapcat, Berkeley DB") {
  CheckFolding("bdb");
}

TEST_CASE(
    "search oracle: Unicode case folding of ß and final sigma agrees with slapcat, slapd's "
    "format") {
  CheckFolding("mdb");
}

// ------------------------------------------------------------------- rebuild

std::vector<std::string> IndexArgs(const std::vector<std::string>& indexes) {
  std::vector<std::string> args;
  for (const std::string& i : indexes) args.insert(args.end(), {"--index", i});
  return args;
}

ProcessResult IndexCommand(const std::string& db, const std::vector<std::string>& indexes,
                           std::vector<std::string> extra) {
  std::vector<std::string> args = {"index", "--db", db, "--progress", "never"};
  std::vector<std::string> index_args = IndexArgs(indexes);
  args.insert(args.end(), index_args.begin(), index_args.end());
  args.insert(args.end(), extra.begin(), extra.end());
  return OracleWorld::Dirload(args, 1800);
}

// Each idx.* table of an LMDB database as mdb_dump prints its records (the
// header, which names the map size, left out). Empty when mdb_dump is missing.
std::map<std::string, std::string> DumpIndexTables(const std::string& db) {
  std::map<std::string, std::string> tables;
  if (testing::FindProgram("mdb_dump").empty()) return tables;
  ProcessResult list = testing::RunMdbDump({"-l", db});
  REQUIRE_MESSAGE(list.exit_code == 0, list.Describe());
  size_t start = 0;
  while (start < list.out.size()) {
    size_t end = list.out.find('\n', start);
    if (end == std::string::npos) end = list.out.size();
    std::string name = list.out.substr(start, end - start);
    start = end + 1;
    if (name.rfind("idx.", 0) != 0) continue;
    ProcessResult dump = testing::RunMdbDump({"-s", name, db});
    REQUIRE_MESSAGE(dump.exit_code == 0, dump.Describe());
    size_t body = dump.out.find("HEADER=END\n");
    REQUIRE_MESSAGE(body != std::string::npos, "no header in mdb_dump output for " << name);
    tables[name] = dump.out.substr(body);
  }
  return tables;
}

// The idx.* tables of a database: on LMDB the named databases mdb_dump lists,
// on Berkeley DB the files (one per table, NAME.bdb). Empty on LMDB without
// mdb_dump.
std::set<std::string> IndexTableNames(const std::string& backend, const std::string& db) {
  std::set<std::string> names;
  if (backend == "lmdb") {
    for (const auto& [name, dump] : DumpIndexTables(db)) names.insert(name);
    return names;
  }
  for (const fs::directory_entry& e : fs::directory_iterator(db)) {
    std::string file = e.path().filename().string();
    const std::string suffix = ".bdb";
    if (file.rfind("idx.", 0) == 0 && file.size() > suffix.size() &&
        file.compare(file.size() - suffix.size(), suffix.size(), suffix) == 0) {
      names.insert(file.substr(0, file.size() - suffix.size()));
    }
  }
  return names;
}

std::set<std::string> Names(const std::map<std::string, std::string>& tables) {
  std::set<std::string> names;
  for (const auto& [name, dump] : tables) names.insert(name);
  return names;
}

void CheckSameTables(const std::map<std::string, std::string>& want, const char* want_name,
                     const std::map<std::string, std::string>& got, const char* got_name) {
  CHECK(Names(want) == Names(got));
  for (const auto& [name, dump] : want) {
    auto it = got.find(name);
    if (it == got.end()) continue;
    CHECK_MESSAGE(dump == it->second, name << " differs between " << want_name << " and "
                                           << got_name << " (" << dump.size() << " vs "
                                           << it->second.size() << " bytes of mdb_dump output)");
  }
}

TEST_CASE("rebuild: sort and cache methods build byte-identical LMDB index tables") {
  OracleWorld& world = OracleWorld::Get();
  if (testing::FindProgram("mdb_dump").empty()) {
    MESSAGE("mdb_dump (lmdb-utils) is missing: tables not compared byte for byte");
    return;
  }
  auto sort = DumpIndexTables(world.Database({.backend = "lmdb", .method = "sort"}));
  auto cache = DumpIndexTables(
      world.Database({.backend = "lmdb", .method = "cache", .idl_cache_size = 1000}));
  CHECK(sort.size() == bench::kWorkloadIndexLines.size());
  CheckSameTables(sort, "sort method", cache, "cache method");
}

// `dirload index` over a database loaded with --no-index must build exactly
// what a load with indexes builds.
void CheckRebuild(const std::string& backend, const std::vector<std::string>& method_args) {
  auto start = std::chrono::steady_clock::now();
  OracleWorld& world = OracleWorld::Get();
  bool oracle = OpenLdapAvailable(world);
  std::string reference = world.Database({.backend = backend, .method = "sort"});
  std::string db = world.Database({.backend = backend, .no_index = true});

  ProcessResult check = IndexCommand(db, bench::kWorkloadIndexLines, {"--check"});
  CHECK_MESSAGE(check.exit_code == 3, "indexes never built must be stale\n" << check.Describe());
  // Searching before the indexes exist is a scan with the right answers.
  SearchOutcome early = OracleWorld::Search(db, world.queries()[0]);
  REQUIRE_MESSAGE(early.ok(), early.run.Describe());
  CHECK(early.summary.rfind("scan:", 0) == 0);
  if (oracle) CHECK(early.dns == world.expected()[0]);

  ProcessResult index = IndexCommand(db, bench::kWorkloadIndexLines, method_args);
  REQUIRE_MESSAGE(index.exit_code == 0, index.Describe());
  check = IndexCommand(db, bench::kWorkloadIndexLines, {"--check"});
  CHECK_MESSAGE(check.exit_code == 0, check.Describe());

  CHECK(IndexTableNames(backend, db) == IndexTableNames(backend, reference));
  // On LMDB the tables themselves are compared; elsewhere (or without
  // mdb_dump) the answers of every query are.
  if (backend == "lmdb" && !testing::FindProgram("mdb_dump").empty()) {
    CheckSameTables(DumpIndexTables(reference), "a load with indexes", DumpIndexTables(db),
                    "--no-index + dirload index");
  } else {
    const std::vector<Query>& queries = world.queries();
    std::vector<SearchOutcome> rebuilt = OracleWorld::SearchAll(db, queries);
    std::vector<SearchOutcome> loaded;
    if (!oracle) loaded = OracleWorld::SearchAll(reference, queries);
    for (size_t i = 0; i < queries.size(); ++i) {
      const Query& q = queries[i];
      const SearchOutcome& got = rebuilt[i];
      CHECK_MESSAGE(got.ok(), got.run.Describe());
      if (!got.ok()) continue;
      CheckPlan(q, got);
      const DnSet& want = oracle ? world.expected()[i] : loaded[i].dns;
      CHECK_MESSAGE(got.dns == want, "rebuilt " << backend << " database: " << Where(q) << "\n"
                                                << Difference(oracle ? "slapcat" : "loaded", want,
                                                              "rebuilt", got.dns));
    }
  }
  MESSAGE("rebuild on " << backend << ": " << Seconds(start) << " s");
}

TEST_CASE(
    "rebuild: dirload index (sort) after a --no-index load equals a load with indexes, LMDB") {
  CheckRebuild("lmdb", {"--index-method", "sort"});
}

TEST_CASE(
    "rebuild: dirload index (cache) after a --no-index load equals a load with indexes, Berkeley "
    "DB") {
  CheckRebuild("bdb", {"--index-method", "cache", "--idl-cache-size", "1000"});
}

// The workload configuration with `l eq` dropped and `title eq` grown to
// `title eq,sub`.
std::vector<std::string> ChangedIndexes() {
  std::vector<std::string> changed;
  for (const std::string& i : bench::kWorkloadIndexLines) {
    if (i == "l eq") continue;
    changed.push_back(i == "title eq" ? "title eq,sub" : i);
  }
  return changed;
}

// The names of the indexes a `--stats` file says were built ("title" for the
// figures index.title.keys, ...).
std::set<std::string> IndexesBuilt(const std::string& stats_path) {
  testing::JsonValue stats = ReadJson(stats_path);
  const testing::JsonValue* phase = IndexPhase(stats);
  REQUIRE_MESSAGE(phase != nullptr, "no 'index' phase in " << stats_path);
  std::set<std::string> built;
  for (const auto& [key, value] : phase->members()) {
    const std::string prefix = "index.", suffix = ".keys";
    if (key.size() > prefix.size() + suffix.size() && key.rfind(prefix, 0) == 0 &&
        key.compare(key.size() - suffix.size(), suffix.size(), suffix) == 0) {
      built.insert(key.substr(prefix.size(), key.size() - prefix.size() - suffix.size()));
    }
  }
  return built;
}

// A fragment from inside the longest word of a title, for a substring filter.
std::string TitleFragment(const std::string& title) {
  std::string longest, word;
  for (char c : title + " ") {
    if (c == ' ') {
      if (word.size() > longest.size()) longest = word;
      word.clear();
    } else {
      word += c;
    }
  }
  return longest.size() >= 6 ? longest.substr(1, 4) : longest;
}

void CheckConfigurationChange(const std::string& backend) {
  auto start = std::chrono::steady_clock::now();
  OracleWorld& world = OracleWorld::Get();
  bool oracle = OpenLdapAvailable(world);
  std::string source = world.Database({.backend = backend, .method = "sort"});
  std::string db = world.ScratchDir("changed-" + backend) + "/db";
  fs::copy(source, db, fs::copy_options::recursive);
  const std::vector<std::string> changed = ChangedIndexes();

  ProcessResult check = IndexCommand(db, bench::kWorkloadIndexLines, {"--check"});
  CHECK_MESSAGE(check.exit_code == 0, "the configuration it was built with\n" << check.Describe());
  check = IndexCommand(db, changed, {"--check"});
  CHECK_MESSAGE(check.exit_code == 3, check.Describe());
  CHECK_MESSAGE(check.err.find("title") != std::string::npos, "the stale index is not named\n"
                                                                  << check.Describe());
  // Only dropping an index leaves a table that `dirload index` will remove.
  std::vector<std::string> dropped_only;
  for (const std::string& i : bench::kWorkloadIndexLines) {
    if (i != "l eq") dropped_only.push_back(i);
  }
  ProcessResult drop_check = IndexCommand(db, dropped_only, {"--check"});
  WARN_MESSAGE(drop_check.exit_code == 3,
               "--check does not report the table of an index no longer configured (idx.l), "
               "which `dirload index` would drop\n"
                   << drop_check.Describe());

  const std::string title = world.picks().at("title");
  const std::string l = world.picks().at("l");
  Query title_sub{"substring on title", testing::kOracleSuffix, "sub",
                  "(title=*" + TitleFragment(title) + "*)", Plan::kEither};
  Query l_eq{"eq on l, no longer indexed", testing::kOracleSuffix, "sub", "(l=" + l + ")",
             Plan::kScan};
  DnSet want_title, want_l;
  if (oracle) {
    want_title = world.Expected(title_sub);
    want_l = world.Expected(l_eq);
  }

  // Searching with the new configuration before the rebuild: the stale index
  // is not trusted, and the answer is still exact.
  SearchOutcome stale = OracleWorld::Search(db, title_sub, IndexArgs(changed));
  REQUIRE_MESSAGE(stale.ok(), stale.run.Describe());
  CHECK_MESSAGE(stale.summary.rfind("scan:", 0) == 0, stale.run.err);
  CHECK_MESSAGE(stale.run.err.find("stale") != std::string::npos,
                "search does not say the title index is stale\n"
                    << stale.run.Describe());
  if (oracle) CHECK(stale.dns == want_title);

  std::map<std::string, std::string> before;
  if (backend == "lmdb") before = DumpIndexTables(db);
  std::set<std::string> tables_before = IndexTableNames(backend, db);

  std::string stats = db + "-title-stats.json";
  ProcessResult index = IndexCommand(db, changed, {"--stats", stats, "title"});
  REQUIRE_MESSAGE(index.exit_code == 0, index.Describe());
  CHECK(IndexesBuilt(stats) == std::set<std::string>{"title"});
  check = IndexCommand(db, changed, {"--check"});
  CHECK_MESSAGE(check.exit_code == 0, check.Describe());
  check = IndexCommand(db, bench::kWorkloadIndexLines, {"--check"});
  CHECK_MESSAGE(check.exit_code == 3, "the old configuration must now be stale\n"
                                          << check.Describe());

  // The rebuilt index answers substring filters; the dropped one is gone.
  SearchOutcome got = OracleWorld::Search(db, title_sub);
  REQUIRE_MESSAGE(got.ok(), got.run.Describe());
  CHECK_MESSAGE(got.summary.rfind("indexed:", 0) == 0, got.run.err);
  SearchOutcome got_l = OracleWorld::Search(db, l_eq);
  REQUIRE_MESSAGE(got_l.ok(), got_l.run.Describe());
  CHECK_MESSAGE(got_l.summary.rfind("scan:", 0) == 0, got_l.run.err);
  if (oracle) {
    CHECK_MESSAGE(got.dns == want_title,
                  Where(title_sub) << "\n"
                                   << Difference("slapcat", want_title, "dirload", got.dns));
    CHECK_MESSAGE(got_l.dns == want_l, Where(l_eq)
                                           << "\n"
                                           << Difference("slapcat", want_l, "dirload", got_l.dns));
  }

  if (!tables_before.empty()) {
    std::set<std::string> tables_after = tables_before;
    tables_after.erase("idx.l");
    CHECK(tables_before.count("idx.l") == 1);
    CHECK_MESSAGE(IndexTableNames(backend, db) == tables_after,
                  "after the rebuild the tables must be those configured, idx.l dropped");
  }
  if (backend == "lmdb" && !before.empty()) {
    std::map<std::string, std::string> after = DumpIndexTables(db);
    CHECK_MESSAGE(after.count("idx.l") == 0, "the table of the dropped index is still there");
    CHECK(after.count("idx.title") == 1);
    CHECK_MESSAGE(after["idx.title"] != before["idx.title"], "idx.title was not rebuilt");
    CHECK(after["idx.title"].size() > before["idx.title"].size());
    for (const auto& [name, dump] : before) {
      if (name == "idx.l" || name == "idx.title") continue;
      CHECK_MESSAGE(after.count(name) == 1, name << " disappeared");
      CHECK_MESSAGE(after[name] == dump, name << " changed though its configuration did not");
    }
  }

  // `dirload index` with no attribute named rebuilds everything configured;
  // afterwards nothing is stale and the tables are those of the named rebuild.
  std::map<std::string, std::string> named;
  if (backend == "lmdb") named = DumpIndexTables(db);
  index = IndexCommand(db, changed, {});
  REQUIRE_MESSAGE(index.exit_code == 0, index.Describe());
  check = IndexCommand(db, changed, {"--check"});
  CHECK_MESSAGE(check.exit_code == 0, check.Describe());
  if (backend == "lmdb" && !named.empty()) {
    CheckSameTables(named, "rebuild of title", DumpIndexTables(db), "rebuild of all");
  }
  MESSAGE("configuration change on " << backend << ": " << Seconds(start) << " s");
}

TEST_CASE("rebuild: a changed index configuration is stale until dirload index fixes it, LMDB") {
  CheckConfigurationChange("lmdb");
}

TEST_CASE(
    "rebuild: a changed index configuration is stale until dirload index fixes it, Berkeley DB") {
  CheckConfigurationChange("bdb");
}

}  // namespace
}  // namespace dirload
