// A database that survives its operator (lib/db/write_guard.h,
// recovery.h), with the real binary on the three formats: an append that
// fails rolls itself back; one killed with -9 is refused by every command
// until `dirload recover` rolls it back, indexes included; appends keep the
// indexes current; recover removes what killed runs left and is idempotent.
#include <doctest/doctest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "bench/ldif_generator.h"
#include "tests/integration/dirload_process.h"
#include "tests/integration/held_load.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

namespace fs = std::filesystem;
using testing::HeldLoad;
using testing::ReadFile;
using testing::RunDirload;
using testing::RunResult;
using testing::SleepMs;
using testing::TempDir;

constexpr char kSuffix[] = "dc=example,dc=com";

struct Format {
  const char* name;
  std::vector<std::string> options;  // for add
};
const Format kNativeLmdb{"native-lmdb", {"--format", "native", "--backend", "lmdb"}};
const Format kNativeBdb{"native-bdb", {"--format", "native", "--backend", "bdb"}};
const Format kMdb{"mdb", {"--format", "mdb"}};

const std::vector<std::string> kIndexes = {"--index", "objectClass eq", "--index",
                                           "uid eq",  "--index",        "cn eq,sub"};

std::string Generate(const TempDir& t, const std::string& name, uint64_t entries, uint64_t seed) {
  bench::GeneratorOptions go;
  go.entries = entries;
  go.seed = seed;
  go.suffix = kSuffix;
  const std::string path = t.File(name);
  REQUIRE(bench::GenerateLdifFile(go, path).ok());
  return path;
}

// The records of `more` whose DN `base` does not hold: entries to append.
std::string NewEntries(const TempDir& t, const std::string& base, const std::string& more) {
  std::set<std::string> dns;
  const std::string b = ReadFile(base);
  for (size_t p = 0; (p = b.find("dn: ", p)) != std::string::npos; ++p) {
    if (p == 0 || b[p - 1] == '\n') dns.insert(b.substr(p, b.find('\n', p) - p));
  }
  const std::string m = ReadFile(more);
  std::string out;
  size_t start = 0;
  while (start < m.size()) {
    size_t end = m.find("\n\n", start);
    end = end == std::string::npos ? m.size() : end + 2;
    const std::string record = m.substr(start, end - start);
    if (record.rfind("dn: ", 0) == 0 && !dns.count(record.substr(0, record.find('\n')))) {
      out += record;
    }
    start = end;
  }
  return t.Write("append.ldif", out);
}

// The first uid: value of an LDIF file.
std::string FirstUid(const std::string& ldif) {
  const std::string text = ReadFile(ldif);
  const size_t p = text.find("\nuid: ");
  REQUIRE(p != std::string::npos);
  return text.substr(p + 6, text.find('\n', p + 6) - p - 6);
}

RunResult Add(const std::string& dir, const Format& f, const std::string& ldif,
              std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"add", "--db", dir,          "--suffix", kSuffix,
                                   "-l",  ldif,   "--progress", "never"};
  args.insert(args.end(), f.options.begin(), f.options.end());
  args.insert(args.end(), extra.begin(), extra.end());
  return RunDirload(args);
}

RunResult Cat(const std::string& dir) { return RunDirload({"cat", "--db", dir}); }

RunResult Search(const std::string& dir, const std::string& filter) {
  return RunDirload({"search", "--db", dir, "-b", kSuffix, filter});
}

size_t Count(const std::string& ldif_text) {
  size_t n = 0;
  for (size_t p = 0; (p = ldif_text.find("dn: ", p)) != std::string::npos; ++p) {
    if (p == 0 || ldif_text[p - 1] == '\n') ++n;
  }
  return n;
}

bool Exists(const std::string& path) {
  std::error_code ec;
  return fs::exists(path, ec);
}

// A ready database with the base entries; returns its cat output.
std::string LoadBase(const std::string& dir, const Format& f, const std::string& base) {
  RunResult add = Add(dir, f, base, kIndexes);
  REQUIRE_MESSAGE(add.exit_code == 0, add.Describe());
  RunResult cat = Cat(dir);
  REQUIRE_MESSAGE(cat.exit_code == 0, cat.Describe());
  return cat.out;
}

std::vector<std::string> Recover(const std::string& dir) { return {"recover", "--db", dir}; }

// The "dn: " lines of an LDIF text, in order: what two loads of one input
// share, their operational values apart.
std::vector<std::string> DnLines(const std::string& ldif_text) {
  std::vector<std::string> out;
  const std::string text = "\n" + ldif_text;
  for (size_t p = 0; (p = text.find("\ndn: ", p)) != std::string::npos; ++p) {
    out.push_back(text.substr(p + 1, text.find('\n', p + 1) - p - 1));
  }
  return out;
}

TEST_CASE("an append that fails rolls itself back: the entries and indexes as before") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir t;
  const std::string base = Generate(t, "base.ldif", 400, 1);
  const std::string more = Generate(t, "more.ldif", 300, 2);  // its first record is the suffix
  const std::string binary =
      t.Write("binary.ldif", std::string("dn: \x01\xff\xfe", 7) + std::string(1, '\0') + "garbage");
  for (const Format& f : {kNativeLmdb, kNativeBdb, kMdb}) {
    CAPTURE(f.name);
    const std::string dir = t.File(std::string("db-") + f.name);
    const std::string before = LoadBase(dir, f, base);
    for (const std::string& input : {more, binary}) {
      CAPTURE(input);
      RunResult add = Add(dir, f, input, kIndexes);
      CHECK_MESSAGE(add.exit_code != 0, add.Describe());
      RunResult cat = Cat(dir);
      CHECK_MESSAGE(cat.exit_code == 0, cat.Describe());
      CHECK(cat.out == before);
      CHECK_FALSE(Exists(dir + "/dirload.pending"));
      CHECK_FALSE(Exists(dir + "/.dirload-undo"));
      CHECK_FALSE(Exists(dir + "/.dirload-build"));
    }
    if (std::string(f.name) != "mdb") {
      RunResult check = RunDirload({"index", "--db", dir, "--check"});
      CHECK_MESSAGE(check.exit_code == 0, check.Describe());
    }
  }
}

TEST_CASE("a killed append is refused by every command until recover rolls it back") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir t;
  const std::string base = Generate(t, "base.ldif", 400, 1);
  const std::string append = NewEntries(t, base, Generate(t, "more.ldif", 3000, 2));
  const std::string old_uid = FirstUid(base);
  for (const Format& f : {kNativeLmdb, kNativeBdb, kMdb}) {
    CAPTURE(f.name);
    const bool mdb = std::string(f.name) == "mdb";
    const std::string dir = t.File(std::string("db-") + f.name);
    const std::string before = LoadBase(dir, f, base);
    {
      std::vector<std::string> args = {"add", "--db", dir, "--suffix", kSuffix};
      args.insert(args.end(), f.options.begin(), f.options.end());
      args.insert(args.end(), kIndexes.begin(), kIndexes.end());
      HeldLoad killed(t, std::string("killed-") + f.name, args, append);
      REQUIRE_MESSAGE(killed.WaitForLock(dir), "the append never took the lock");
      SleepMs(300);  // half its input read and written
      killed.Kill();
    }
    RunResult cat = Cat(dir);
    if (mdb) {
      // Built aside: the database itself was never touched.
      CHECK_MESSAGE(cat.exit_code == 0, cat.Describe());
      CHECK(cat.out == before);
      CHECK(Exists(dir + "/.dirload-build"));
    } else {
      CHECK_MESSAGE(cat.exit_code == 3, cat.Describe());
      CHECK_MESSAGE(cat.err.find("an append did not finish") != std::string::npos, cat.err);
      CHECK_MESSAGE(cat.err.find("run 'dirload recover'") != std::string::npos, cat.err);
      CHECK(cat.out.empty());
      for (const std::vector<std::string>& refused :
           {std::vector<std::string>{"search", "--db", dir, "-b", kSuffix, "(uid=" + old_uid + ")"},
            std::vector<std::string>{"index", "--db", dir, "--progress", "never"},
            std::vector<std::string>{"index", "--db", dir, "--check"},
            std::vector<std::string>{"stat", "--db", dir},
            std::vector<std::string>{"add", "--db", dir, "--suffix", kSuffix, "-l", base}}) {
        CAPTURE(refused[0]);
        RunResult r = RunDirload(refused);
        CHECK_MESSAGE(r.exit_code == 3, r.Describe());
        CHECK_MESSAGE(r.err.find("dirload recover") != std::string::npos, r.err);
      }
    }
    RunResult recovered = RunDirload(Recover(dir));
    CHECK_MESSAGE(recovered.exit_code == 0, recovered.Describe());
    CHECK_MESSAGE(recovered.out.find(mdb ? "removed the unfinished build" : "rolled back") !=
                      std::string::npos,
                  recovered.out);
    RunResult after = Cat(dir);
    CHECK_MESSAGE(after.exit_code == 0, after.Describe());
    CHECK(after.out == before);
    CHECK_FALSE(Exists(dir + "/.dirload-undo"));
    CHECK_FALSE(Exists(dir + "/.dirload-build"));
    if (!mdb) {
      RunResult check = RunDirload({"index", "--db", dir, "--check"});
      CHECK_MESSAGE(check.exit_code == 0, check.Describe());
    }
    RunResult found = Search(dir, "(uid=" + old_uid + ")");
    CHECK_MESSAGE(found.exit_code == 0, found.Describe());
    CHECK(Count(found.out) == 1);
    RunResult again = RunDirload(Recover(dir));
    CHECK_MESSAGE(again.exit_code == 0, again.Describe());
    CHECK_MESSAGE(again.out.find("nothing to recover") != std::string::npos, again.out);
    // And the append goes through afterwards.
    RunResult add = Add(dir, f, append, kIndexes);
    CHECK_MESSAGE(add.exit_code == 0, add.Describe());
    CHECK(Count(Cat(dir).out) == Count(before) + Count(ReadFile(append)));
  }
}

TEST_CASE("appends keep every index current, with the database's own configuration") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir t;
  const std::string base = Generate(t, "base.ldif", 400, 1);
  const std::string append = NewEntries(t, base, Generate(t, "more.ldif", 300, 2));
  const std::string new_uid = FirstUid(append);
  for (const Format& f : {kNativeLmdb, kNativeBdb}) {
    CAPTURE(f.name);
    const std::string dir = t.File(std::string("db-") + f.name);
    LoadBase(dir, f, base);
    // No index configuration given: the recorded one indexes the new entries.
    RunResult add = Add(dir, f, append);
    REQUIRE_MESSAGE(add.exit_code == 0, add.Describe());
    RunResult check = RunDirload({"index", "--db", dir, "--check"});
    CHECK_MESSAGE(check.exit_code == 0, check.Describe());
    RunResult found = Search(dir, "(uid=" + new_uid + ")");
    CHECK_MESSAGE(found.exit_code == 0, found.Describe());
    CHECK(Count(found.out) == 1);
    CHECK_MESSAGE(found.err.find("stale") == std::string::npos, found.err);
  }
  for (const Format& f : {kNativeLmdb}) {
    // --no-index: the indexes lack the new entries and say so, and a plain
    // `dirload index` rebuilds them with their recorded lines.
    const std::string dir = t.File("db-noindex");
    LoadBase(dir, f, base);
    RunResult add = Add(dir, f, append, {"--no-index"});
    REQUIRE_MESSAGE(add.exit_code == 0, add.Describe());
    CHECK_MESSAGE(add.err.find("marked stale") != std::string::npos, add.err);
    RunResult stale = RunDirload({"index", "--db", dir, "--check"});
    CHECK_MESSAGE(stale.exit_code == 3, stale.Describe());
    RunResult index = RunDirload({"index", "--db", dir, "--progress", "never"});
    CHECK_MESSAGE(index.exit_code == 0, index.Describe());
    CHECK_MESSAGE(index.err.find("dropped") == std::string::npos, index.err);
    RunResult fresh = RunDirload({"index", "--db", dir, "--check"});
    CHECK_MESSAGE(fresh.exit_code == 0, fresh.Describe());
    RunResult stat = RunDirload({"stat", "--db", dir});
    CHECK_MESSAGE(stat.out.find("cn eq,sub") != std::string::npos, stat.out);
  }
  {
    // slapd's format records no index configuration: an append without one
    // into a database with indexes is refused, not left unindexed.
    const std::string dir = t.File("db-mdb");
    LoadBase(dir, kMdb, base);
    RunResult refused = Add(dir, kMdb, append);
    CHECK_MESSAGE(refused.exit_code == 2, refused.Describe());
    CHECK_MESSAGE(refused.err.find("no index configuration was given") != std::string::npos,
                  refused.err);
    RunResult add = Add(dir, kMdb, append, kIndexes);
    CHECK_MESSAGE(add.exit_code == 0, add.Describe());
    RunResult found = RunDirload(
        {"search", "--db", dir, "-b", kSuffix, "--index", "uid eq", "(uid=" + new_uid + ")"});
    CHECK_MESSAGE(found.exit_code == 0, found.Describe());
    CHECK(Count(found.out) == 1);
  }
}

#ifdef DIRLOAD_FAULT_INJECTION
// `dirload index` with a fault plan in its environment (lib/store/fault_injection.h).
RunResult IndexWithFault(const std::string& dir, const std::string& plan,
                         std::vector<std::string> extra = {}) {
  ::setenv("DIRLOAD_FAULT_INJECT", plan.c_str(), 1);
  std::vector<std::string> args = {"index", "--db", dir, "--progress", "never"};
  args.insert(args.end(), extra.begin(), extra.end());
  RunResult r = RunDirload(args);
  ::unsetenv("DIRLOAD_FAULT_INJECT");
  return r;
}

TEST_CASE("an interrupted index rebuild keeps its configuration and is finished, never dropped") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir t;
  const std::string base = Generate(t, "base.ldif", 400, 1);
  const std::string uid = FirstUid(base);
  for (const Format& f : {kNativeLmdb, kNativeBdb}) {
    CAPTURE(f.name);
    const std::string dir = t.File(std::string("db-") + f.name);
    const std::string before = LoadBase(dir, f, base);
    // Killed at the rebuild's last sync: every index written, none recorded
    // as built.
    RunResult killed = IndexWithFault(dir, "exit:sync:1", {"--all"});
    REQUIRE_MESSAGE(killed.exit_code == 137, killed.Describe());
    // The entries are whole: cat, search and stat read them, saying the
    // rebuild is unfinished; the search uses none of its indexes.
    RunResult cat = Cat(dir);
    CHECK_MESSAGE(cat.exit_code == 0, cat.Describe());
    CHECK(cat.out == before);
    CHECK_MESSAGE(cat.err.find("did not finish") != std::string::npos, cat.err);
    RunResult read = Search(dir, "(uid=" + uid + ")");
    CHECK_MESSAGE(read.exit_code == 0, read.Describe());
    CHECK(Count(read.out) == 1);
    CHECK_MESSAGE(read.err.find("'dirload recover'") != std::string::npos, read.err);
    CHECK_MESSAGE(RunDirload({"stat", "--db", dir}).exit_code == 0, "stat");
    RunResult check = RunDirload({"index", "--db", dir, "--check"});
    CHECK_MESSAGE(check.exit_code == 3, check.Describe());
    CHECK_MESSAGE(check.err.find("an index rebuild did not finish") != std::string::npos,
                  check.err);
    // Plain `dirload index`, no configuration: the recorded lines, the
    // interrupted ones included.
    RunResult index = RunDirload({"index", "--db", dir, "--progress", "never"});
    CHECK_MESSAGE(index.exit_code == 0, index.Describe());
    CHECK_MESSAGE(index.err.find("dropped") == std::string::npos, index.err);
    RunResult fresh = RunDirload({"index", "--db", dir, "--check"});
    CHECK_MESSAGE(fresh.exit_code == 0, fresh.Describe());
    RunResult stat = RunDirload({"stat", "--db", dir});
    CHECK_MESSAGE(stat.out.find("cn eq,sub") != std::string::npos, stat.out);
    CHECK_MESSAGE(stat.out.find("objectclass eq") != std::string::npos, stat.out);

    // Interrupted again, then a configuration that names only uid: the
    // interrupted cn and objectClass indexes are finished too, not dropped.
    killed = IndexWithFault(dir, "exit:sync:1", {"--all"});
    REQUIRE_MESSAGE(killed.exit_code == 137, killed.Describe());
    index = RunDirload({"index", "--db", dir, "--progress", "never", "--index", "uid eq"});
    CHECK_MESSAGE(index.exit_code == 0, index.Describe());
    CHECK_MESSAGE(index.err.find("is finished too") != std::string::npos, index.err);
    CHECK_MESSAGE(index.err.find("dropped") == std::string::npos, index.err);
    stat = RunDirload({"stat", "--db", dir});
    CHECK_MESSAGE(stat.out.find("cn eq,sub") != std::string::npos, stat.out);

    // And `dirload recover` finishes one just as well.
    killed = IndexWithFault(dir, "exit:sync:1", {"--all"});
    REQUIRE_MESSAGE(killed.exit_code == 137, killed.Describe());
    RunResult recovered = RunDirload(Recover(dir));
    CHECK_MESSAGE(recovered.exit_code == 0, recovered.Describe());
    CHECK_MESSAGE(recovered.out.find("finished the interrupted index rebuild") != std::string::npos,
                  recovered.out);
    fresh = RunDirload({"index", "--db", dir, "--check"});
    CHECK_MESSAGE(fresh.exit_code == 0, fresh.Describe());
    CHECK(Cat(dir).out == before);
    RunResult found = Search(dir, "(uid=" + uid + ")");
    CHECK(Count(found.out) == 1);
    CHECK_MESSAGE(found.err.find("stale") == std::string::npos, found.err);
  }
  {
    // slapd's format: the rebuild works on a copy put in place whole, so a
    // killed one leaves the database as it was, its indexes in use.
    const std::string dir = t.File("db-mdb");
    const std::string before = LoadBase(dir, kMdb, base);
    std::vector<std::string> config = kIndexes;
    RunResult killed = IndexWithFault(dir, "exit:commit:1", config);
    REQUIRE_MESSAGE(killed.exit_code == 137, killed.Describe());
    CHECK(fs::exists(dir + "/.dirload-build/data.mdb"));
    std::vector<std::string> search = {"search", "--db", dir, "-b", kSuffix};
    search.insert(search.end(), kIndexes.begin(), kIndexes.end());
    search.push_back("(uid=" + uid + ")");
    RunResult read = RunDirload(search);
    CHECK_MESSAGE(read.exit_code == 0, read.Describe());
    CHECK(Count(read.out) == 1);
    CHECK_MESSAGE(read.err.find("recover") == std::string::npos, read.err);
    std::vector<std::string> explain = search;
    explain.insert(explain.begin() + 1, "--explain");
    RunResult plan = RunDirload(explain);
    CHECK_MESSAGE(plan.exit_code == 0, plan.Describe());
    CHECK_MESSAGE(plan.err.find("scan:") == std::string::npos, plan.Describe());
    CHECK_MESSAGE(plan.err.find("uid") != std::string::npos, plan.Describe());
    CHECK(Cat(dir).out == before);
    RunResult recovered = RunDirload(Recover(dir));
    CHECK_MESSAGE(recovered.exit_code == 0, recovered.Describe());
    CHECK_MESSAGE(
        recovered.out.find("removed the unfinished build of slapd's format") != std::string::npos,
        recovered.out);
    CHECK(!fs::exists(dir + "/.dirload-build"));
    RunResult found = RunDirload(search);
    CHECK_MESSAGE(found.exit_code == 0, found.Describe());
    CHECK(Count(found.out) == 1);
    CHECK(Cat(dir).out == before);
    // Killed again, the next rebuild starts over from the database itself.
    killed = IndexWithFault(dir, "exit:commit:1", config);
    REQUIRE_MESSAGE(killed.exit_code == 137, killed.Describe());
    std::vector<std::string> index = {"index", "--db", dir, "--progress", "never"};
    index.insert(index.end(), kIndexes.begin(), kIndexes.end());
    RunResult rebuilt = RunDirload(index);
    CHECK_MESSAGE(rebuilt.exit_code == 0, rebuilt.Describe());
    CHECK(!fs::exists(dir + "/.dirload-build"));
    CHECK(Count(RunDirload(search).out) == 1);
    CHECK(Cat(dir).out == before);
  }
}

TEST_CASE("a first load killed in phase 2 keeps its entries: recover finishes the indexes") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir t;
  const std::string base = Generate(t, "base.ldif", 400, 4);
  const std::string uid = FirstUid(base);
  for (const Format& f : {kNativeLmdb, kNativeBdb}) {
    CAPTURE(f.name);
    const std::string clean = t.File(std::string("clean-") + f.name);
    const std::string want = LoadBase(clean, f, base);
    const std::string dir = t.File(std::string("db-") + f.name);
    // Syncs 1 and 2 end phase 1 (the entries, then the mark that they are
    // all there); 3 is phase 2's, every index written and none recorded.
    ::setenv("DIRLOAD_FAULT_INJECT", "exit:sync:3", 1);
    RunResult killed = Add(dir, f, base, kIndexes);
    ::unsetenv("DIRLOAD_FAULT_INJECT");
    REQUIRE_MESSAGE(killed.exit_code == 137, killed.Describe());
    RunResult recovered = RunDirload(Recover(dir));
    CHECK_MESSAGE(recovered.exit_code == 0, recovered.Describe());
    CHECK_MESSAGE(
        recovered.out.find("kept the entries of the interrupted load") != std::string::npos,
        recovered.out);
    // The same entries (their operational values differ between two runs).
    CHECK(DnLines(Cat(dir).out) == DnLines(want));
    CHECK(Count(want) == 400);
    RunResult fresh = RunDirload({"index", "--db", dir, "--check"});
    CHECK_MESSAGE(fresh.exit_code == 0, fresh.Describe());
    RunResult found = Search(dir, "(uid=" + uid + ")");
    CHECK(Count(found.out) == 1);
    CHECK_MESSAGE(found.err.find("stale") == std::string::npos, found.err);
  }
  {
    // slapd's format: built aside, its entries recorded complete once
    // phase 1 is synced. Killed at the last sync (every index written,
    // nothing put in place), the load is finished by recover.
    const std::string clean = t.File("clean-mdb");
    const std::string want = LoadBase(clean, kMdb, base);
    const std::string dir = t.File("db-mdb");
    ::setenv("DIRLOAD_FAULT_INJECT", "exit:sync:1", 1);
    RunResult killed = Add(dir, kMdb, base, kIndexes);
    ::unsetenv("DIRLOAD_FAULT_INJECT");
    REQUIRE_MESSAGE(killed.exit_code == 137, killed.Describe());
    CHECK_FALSE(fs::exists(dir + "/data.mdb"));
    // A new load would throw the entries away: refused, naming recover.
    RunResult again = Add(dir, kMdb, base, kIndexes);
    CHECK_MESSAGE(again.exit_code == 3, again.Describe());
    CHECK_MESSAGE(again.err.find("'dirload recover'") != std::string::npos, again.err);
    // No configuration given: the lines the load recorded are built.
    RunResult recovered = RunDirload(Recover(dir));
    CHECK_MESSAGE(recovered.exit_code == 0, recovered.Describe());
    CHECK_MESSAGE(recovered.out.find("kept the entries of the interrupted load into slapd's") !=
                      std::string::npos,
                  recovered.out);
    CHECK_FALSE(fs::exists(dir + "/.dirload-build"));
    // The same entries, in the same order, and indexed searches find them.
    CHECK(DnLines(Cat(dir).out) == DnLines(want));
    std::vector<std::string> search = {"search", "--db", dir, "-b", kSuffix, "--explain"};
    search.insert(search.end(), kIndexes.begin(), kIndexes.end());
    search.push_back("(uid=" + uid + ")");
    RunResult found = RunDirload(search);
    CHECK_MESSAGE(found.exit_code == 0, found.Describe());
    CHECK(Count(found.out) == 1);
    CHECK_MESSAGE(found.err.find("scan:") == std::string::npos, found.err);
    RunResult second = RunDirload(Recover(dir));
    CHECK_MESSAGE(second.out.find("nothing") != std::string::npos, second.Describe());
  }
}
#endif  // DIRLOAD_FAULT_INJECTION

TEST_CASE("recover removes the spill directories of dead runs and keeps those of live ones") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir t;
  const std::string dir = t.File("db");
  LoadBase(dir, kNativeLmdb, Generate(t, "base.ldif", 50, 1));
  const std::string spill = t.File("spill");
  // Above any pid_max: no such process.
  const std::string dead = spill + "/dirload-sort-99999999-abcdef";
  const std::string live = spill + "/dirload-sort-" + std::to_string(::getpid()) + "-ghijkl";
  const std::string other = spill + "/someone-else";
  for (const std::string& d : {dead, live, other}) fs::create_directories(d);
  t.Write("spill/dirload-sort-99999999-abcdef/run-0", "x");
  RunResult r = RunDirload({"recover", "--db", dir, "--tmpdir", spill});
  CHECK_MESSAGE(r.exit_code == 0, r.Describe());
  CHECK_MESSAGE(r.out.find("removed 1 spill directory") != std::string::npos, r.out);
  CHECK_FALSE(Exists(dead));
  CHECK(Exists(live));
  CHECK(Exists(other));
  RunResult again = RunDirload({"recover", "--db", dir, "--tmpdir", spill});
  CHECK_MESSAGE(again.out.find("nothing to recover") != std::string::npos, again.out);
}

}  // namespace
}  // namespace dirload
