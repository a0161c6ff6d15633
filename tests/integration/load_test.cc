// End-to-end tests of `dirload add` and `dirload cat` as a user runs them:
// the real binary, real files, both engines. Round trip of generated data,
// a load killed mid-run, and each kind of bad input with its exit status and
// message (file:line and reason), -c with a reject file, -u and -s.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "bench/ldif_generator.h"
#include "ldif/writer.h"
#include "lib/util/ascii.h"
#include "tests/integration/dirload_process.h"
#include "tests/integration/ldif_compare.h"
#include "tests/support/mini_json.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

namespace fs = std::filesystem;
using testing::LdifFile;
using testing::RunDirload;
using testing::RunResult;
using testing::TempDir;

constexpr char kSuffix[] = "dc=example,dc=com";
const std::vector<std::string> kBackends = {"lmdb", "bdb"};

// Writes `entries` generated entries (fixed seed) to `path`.
void Generate(const std::string& path, uint64_t entries, bool gzip = false) {
  bench::GeneratorOptions options;
  options.entries = entries;
  options.seed = 42;
  options.suffix = kSuffix;
  Status s = bench::GenerateLdifFile(options, path, gzip);
  REQUIRE_MESSAGE(s.ok(), s.message());
}

bool ContainsNoCase(const std::string& haystack, const std::string& needle) {
  return AsciiLowerCopy(haystack).find(AsciiLowerCopy(needle)) != std::string::npos;
}

// `word` appears in `text` (ignoring case) with no letter, digit or '-' on
// either side: "sn" in "attribute 'sn' is required" but not in "snake".
bool ContainsWord(const std::string& text, const std::string& word) {
  std::string t = AsciiLowerCopy(text), w = AsciiLowerCopy(word);
  auto is_word_char = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  };
  for (size_t at = t.find(w); at != std::string::npos; at = t.find(w, at + 1)) {
    bool left = at == 0 || !is_word_char(t[at - 1]);
    bool right = at + w.size() == t.size() || !is_word_char(t[at + w.size()]);
    if (left && right) return true;
  }
  return false;
}

// Reads a `dirload cat` output file, failing the test when it does not parse.
std::vector<ldif::Record> ReadOutput(const std::string& path) {
  LdifFile f = testing::ReadLdifFile(path);
  REQUIRE_MESSAGE(f.ok(), path << ": " << f.error);
  return std::move(f.records);
}

// The database directory a test loads into, and the commands on it.
struct Db {
  std::string dir;
  std::string backend = "lmdb";

  RunResult Add(const std::string& ldif, std::vector<std::string> extra = {}) const {
    std::vector<std::string> args = {"add",   "--db", dir,  "--suffix",   kSuffix, "--backend",
                                     backend, "-l",   ldif, "--progress", "never"};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunDirload(args, 300);
  }
  RunResult Cat(std::vector<std::string> extra = {}) const {
    std::vector<std::string> args = {"cat", "--db", dir};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunDirload(args, 300);
  }
};

// ------------------------------------------------------------------ round trip

TEST_CASE("round trip: generated LDIF -> dirload add -> dirload cat gives the same records") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir t;
  std::string input = t.File("gen.ldif");
  Generate(input, 3000);
  LdifFile want = testing::ReadLdifFile(input);
  REQUIRE(want.ok());
  REQUIRE(want.records.size() == 3000);
  testing::CompareOptions exact;
  exact.ignore_description_case = false;
  exact.drop_operational = true;  // added by the load, as slapadd adds them

  for (const std::string& backend : kBackends) {
    CAPTURE(backend);
    Db db{t.File(std::string("db-") + backend), backend};
    std::string stats = t.File(std::string("stats-") + backend + ".json");
    RunResult add = db.Add(input, {"--stats", stats});
    REQUIRE_MESSAGE(add.exit_code == 0, add.Describe());

    std::string out = t.File(std::string("out-") + backend + ".ldif");
    RunResult cat = db.Cat({"-l", out});
    REQUIRE_MESSAGE(cat.exit_code == 0, cat.Describe());
    std::vector<ldif::Record> got = ReadOutput(out);
    CHECK_MESSAGE(testing::CompareRecords(got, want.records, exact) == "",
                  testing::CompareRecords(got, want.records, exact));

    // --stats writes JSON that says how many entries phase 1 loaded.
    testing::JsonValue json;
    std::string error;
    std::string stats_text = testing::ReadFile(stats);
    CHECK_MESSAGE(testing::ParseJson(stats_text, &json, &error), error << "\n" << stats_text);
    CHECK(json.is_object());
    CHECK_MESSAGE(stats_text.find("3000") != std::string::npos, stats_text);
    // Phase 1's CPU time by stage and by thread: every stage measured, and
    // together no more than the process spent.
    const testing::JsonValue* phases = json.Find("phases");
    REQUIRE(phases != nullptr);
    REQUIRE(phases->is_array());
    REQUIRE(!phases->array().empty());
    const testing::JsonValue& load = phases->array()[0];
    const testing::JsonValue* cpu = load.Find("cpu_seconds");
    const testing::JsonValue* stages = load.Find("stages");
    REQUIRE(cpu != nullptr);
    REQUIRE(stages != nullptr);
    double counted = 0;
    std::set<std::string> names;
    for (const testing::JsonValue& s : stages->array()) {
      names.insert(s.Find("name")->string());
      CHECK(s.Find("cpu_seconds")->number() >= 0);
      counted += s.Find("cpu_seconds")->number();
    }
    CHECK(names == std::set<std::string>{"read", "check", "names", "store", "finish"});
    CHECK(counted > 0);
    CHECK(counted <= cpu->number() * 1.05 + 0.02);
    const testing::JsonValue* threads = load.Find("threads");
    REQUIRE(threads != nullptr);
    std::set<std::string> roles;
    for (const testing::JsonValue& r : threads->array()) roles.insert(r.Find("role")->string());
    CHECK(roles.contains("writer"));

    // Standard output carries the same bytes as -l.
    RunResult to_stdout = db.Cat();
    REQUIRE_MESSAGE(to_stdout.exit_code == 0, to_stdout.Describe());
    CHECK(to_stdout.out == testing::ReadFile(out));
  }

  {
    INFO("--gzip and --no-wrap output hold the same records");
    Db db{t.File("db-lmdb"), "lmdb"};
    std::string gz = t.File("out.ldif.gz");
    RunResult cat = db.Cat({"--gzip", "-l", gz});
    REQUIRE_MESSAGE(cat.exit_code == 0, cat.Describe());
    std::string bytes = testing::ReadFile(gz);
    REQUIRE(bytes.size() > 2);
    CHECK(static_cast<unsigned char>(bytes[0]) == 0x1f);
    CHECK(static_cast<unsigned char>(bytes[1]) == 0x8b);
    std::vector<ldif::Record> got = ReadOutput(gz);
    CHECK(testing::CompareRecords(got, want.records, exact) == "");

    std::string flat = t.File("flat.ldif");
    cat = db.Cat({"--no-wrap", "-l", flat});
    REQUIRE_MESSAGE(cat.exit_code == 0, cat.Describe());
    std::string text = testing::ReadFile(flat);
    CHECK_MESSAGE(text.find("\n ") == std::string::npos, "--no-wrap output has a folded line");
    got = ReadOutput(flat);
    CHECK(testing::CompareRecords(got, want.records, exact) == "");
  }

  {
    INFO("-q from gzip input loads the same records");
    std::string gz_input = t.File("gen.ldif.gz");
    Generate(gz_input, 3000, /*gzip=*/true);
    Db db{t.File("db-quick"), "lmdb"};
    RunResult add = db.Add(gz_input, {"-q"});
    REQUIRE_MESSAGE(add.exit_code == 0, add.Describe());
    std::string out = t.File("quick.ldif");
    RunResult cat = db.Cat({"-l", out});
    REQUIRE_MESSAGE(cat.exit_code == 0, cat.Describe());
    std::vector<ldif::Record> got = ReadOutput(out);
    CHECK(testing::CompareRecords(got, want.records, exact) == "");
  }
}

// ------------------------------------------------------------ interrupted load

void SleepSeconds(double s) {
  timespec ts{static_cast<time_t>(s), static_cast<long>((s - static_cast<time_t>(s)) * 1e9)};
  ::nanosleep(&ts, nullptr);
}

// Bytes allocated on disk under `dir` (blocks, so a sparse or preallocated
// file counts only what was written). Files may come and go while a load
// runs, so errors just leave them out.
uint64_t DiskBytes(const std::string& dir) {
  uint64_t total = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    struct stat st;
    if (::stat(it->path().c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      total += static_cast<uint64_t>(st.st_blocks) * 512;
    }
  }
  return total;
}

// How many generated entries this build of dirload needs about `seconds` to
// load: measured, so the test kills a load mid-run in a sanitizer build and
// stays cheap in a release build.
uint64_t EntriesForSeconds(const TempDir& t, double seconds) {
  // Large enough that start-up does not dominate. The probe's time includes
  // it, so the estimate errs on the small side; with 2,000 entries a release
  // build's probe ran at a seventh of a long load's rate (64 ms for 2,000
  // entries, 0.9 s for 185,000) and the load could end before the last kill.
  constexpr uint64_t kProbe = 20000;
  std::string probe = t.File("probe.ldif");
  Generate(probe, kProbe);
  auto start = std::chrono::steady_clock::now();
  RunResult r = Db{t.File("probe-db")}.Add(probe);
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  fs::remove(probe);
  auto n = static_cast<uint64_t>(static_cast<double>(kProbe) / took * seconds);
  // At least enough for the loader's first intermediate commit (every 20,000
  // entries) to happen well before the end.
  return std::clamp<uint64_t>(n, 45000, 400000);
}

// Starts `dirload add` of `input` into `db`, waits until `when` says to kill
// it (checking that it is still running), and kills it with SIGKILL.
template <typename When>
void KillMidLoad(const TempDir& t, const Db& db, const std::string& input,
                 const std::vector<std::string>& extra, When when) {
  std::vector<std::string> args = {"add",      "--db", db.dir, "--suffix",   kSuffix, "--backend",
                                   db.backend, "-l",   input,  "--progress", "never"};
  args.insert(args.end(), extra.begin(), extra.end());
  testing::Child child;
  std::string error;
  REQUIRE_MESSAGE(child.Start(args, t.File("add.out"), t.File("add.err"), &error), error);
  when(child);
  REQUIRE_MESSAGE(child.Running(),
                  "dirload add finished before it was killed; the input is too "
                  "small for this test: "
                      << testing::ReadFile(t.File("add.err")));
  child.Kill(SIGKILL);
  RunResult killed;
  child.Wait(30, &killed);
  REQUIRE(killed.signal == SIGKILL);
}

// What a killed load left: `cat` and `add` must both refuse it. Returns true
// when the database was marked 'loading' (false: killed before it existed).
bool CheckRefused(const TempDir& t, const Db& db, const std::string& small) {
  std::string partial = t.File("partial.ldif");
  fs::remove(partial);
  RunResult cat = db.Cat({"-l", partial});
  CHECK_MESSAGE(cat.exit_code == 3, cat.Describe());
  bool loading = cat.err.find("did not finish") != std::string::npos;
  bool absent = cat.err.find("no dirload database") != std::string::npos;
  CHECK_MESSAGE((loading || absent), cat.Describe());
  CHECK_MESSAGE(testing::ReadFile(partial).empty(), "cat wrote entries of an incomplete database");
  if (!loading) return false;
  CHECK_MESSAGE(cat.err.find("run 'dirload recover'") != std::string::npos, cat.Describe());
  // Loading more into it is refused too: it would hide the hole.
  RunResult again = db.Add(small);
  CHECK_MESSAGE(again.exit_code == 3, again.Describe());
  CHECK_MESSAGE(again.err.find("did not finish") != std::string::npos, again.Describe());
  // recover removes the unfinished load (there was nothing before it), and
  // the directory takes a new load.
  RunResult recovered =
      RunDirload({"recover", "--db", db.dir, "--backend", db.backend, "--suffix", kSuffix}, 300);
  CHECK_MESSAGE(recovered.exit_code == 0, recovered.Describe());
  CHECK_MESSAGE(recovered.out.find("removed the unfinished load") != std::string::npos,
                recovered.Describe());
  RunResult gone = db.Cat();
  CHECK_MESSAGE(gone.exit_code == 3, gone.Describe());
  CHECK_MESSAGE(gone.err.find("no dirload database") != std::string::npos, gone.Describe());
  RunResult fresh = db.Add(small);
  CHECK_MESSAGE(fresh.exit_code == 0, fresh.Describe());
  return true;
}

TEST_CASE("interrupted load: a killed dirload add leaves a database every command refuses") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir t;
  uint64_t entries = EntriesForSeconds(t, 6);
  MESSAGE("interrupted load: " << entries << " entries");
  std::string input = t.File("big.ldif");
  Generate(input, entries);
  std::string small = t.Write("small.ldif",
                              "dn: dc=example,dc=com\nobjectClass: dcObject\n"
                              "objectClass: organization\ndc: example\no: Example\n");
  // Kill points, seconds after the start. Where each lands depends on the
  // machine (start-up alone can take longer than the first two in a sanitizer
  // build on a busy machine), so each may find no database yet or one marked
  // 'loading'; both must be refused. The kill below, once data is on disk, is
  // the one that must find 'loading'.
  constexpr double kDelays[] = {0.05, 0.3, 1.0};

  for (const std::string& backend : kBackends) {
    CAPTURE(backend);
    for (double delay : kDelays) {
      CAPTURE(delay);
      Db db{t.File("db-" + backend + "-" + std::to_string(static_cast<int>(delay * 1000))),
            backend};
      KillMidLoad(t, db, input, {}, [&](testing::Child&) { SleepSeconds(delay); });
      CheckRefused(t, db, small);
    }

    // Once entries are on disk the database is still refused as a whole. LMDB
    // writes at a commit (the loader commits every 20,000 entries); Berkeley
    // DB writes pages out when its cache is full, so a small cache makes it
    // leave a half-written B-tree behind.
    INFO("killed after data reached the disk");
    Db db{t.File("db-" + backend + "-written"), backend};
    std::vector<std::string> extra;
    if (backend == "bdb") extra = {"--cache-size", "1M"};
    constexpr uint64_t kOnDisk = 8 << 20;
    uint64_t seen = 0;
    KillMidLoad(t, db, input, extra, [&](testing::Child& child) {
      auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(240);
      while (child.Running() && std::chrono::steady_clock::now() < deadline &&
             (seen = DiskBytes(db.dir)) < kOnDisk) {
        SleepSeconds(0.02);
      }
    });
    CHECK_MESSAGE(seen >= kOnDisk, "killed before " << kOnDisk << " bytes were written");
    CHECK(CheckRefused(t, db, small));
  }
}

// -------------------------------------------------------------------- bad input

// The suffix entry and ou=People: lines 1-10, so a record appended after them
// starts at line 11.
constexpr char kBase[] =
    "dn: dc=example,dc=com\n"
    "objectClass: dcObject\n"
    "objectClass: organization\n"
    "dc: example\n"
    "o: Example\n"
    "\n"
    "dn: ou=People,dc=example,dc=com\n"
    "objectClass: organizationalUnit\n"
    "ou: People\n"
    "\n";
constexpr uint64_t kFirstLine = 11;

// A valid person under ou=People, with `extra` lines added.
std::string Person(const std::string& uid, const std::string& extra = "") {
  return "dn: uid=" + uid +
         ",ou=People,dc=example,dc=com\n"
         "objectClass: inetOrgPerson\n"
         "uid: " +
         uid +
         "\n"
         "cn: " +
         uid +
         " Person\n"
         "sn: Person\n" +
         extra;
}

struct BadInput {
  const char* name;
  std::string record;              // appended after kBase
  uint64_t line;                   // the line the message must name
  std::vector<std::string> words;  // what the message must say (case ignored)
};

std::vector<BadInput> BadInputs() {
  return {
      {"duplicate DN",
       "dn: ou=people,dc=example,dc=com\nobjectClass: organizationalUnit\nou: people\n",
       kFirstLine,
       {"duplicate DN: already given at line 7"}},
      {"entry not under the suffix",
       "dn: ou=Elsewhere,dc=example,dc=org\nobjectClass: organizationalUnit\nou: Elsewhere\n",
       kFirstLine,
       {"not under the suffix"}},
      {"parent never appears",
       "dn: uid=lost,ou=Nowhere,dc=example,dc=com\nobjectClass: inetOrgPerson\nuid: lost\n"
       "cn: Lost\nsn: Lost\n",
       kFirstLine,
       {"parent entry 'ou=nowhere,dc=example,dc=com' does not exist"}},
      {"change record",
       "dn: ou=People,dc=example,dc=com\nchangetype: modify\nadd: description\n"
       "description: x\n-\n",
       kFirstLine,
       {"change record"}},
      {"unknown attribute", Person("unknown", "fooBarBaz: 1\n"), kFirstLine, {"fooBarBaz"}},
      {"missing MUST attribute (person without sn)",
       "dn: cn=No Surname,ou=People,dc=example,dc=com\nobjectClass: person\ncn: No Surname\n",
       kFirstLine,
       {"sn", "person"}},
      {"SINGLE-VALUE attribute with two values",
       Person("twice", "displayName: One\ndisplayName: Two\n"),
       kFirstLine,
       {"displayName"}},
      {"no structural object class",
       "dn: dc=aux,ou=People,dc=example,dc=com\nobjectClass: dcObject\ndc: aux\n",
       kFirstLine,
       {"structural"}},
      {"value not in the attribute's syntax (uidNumber: abc)",
       "dn: uid=posix,ou=People,dc=example,dc=com\nobjectClass: account\n"
       "objectClass: posixAccount\nuid: posix\ncn: posix\nuidNumber: abc\ngidNumber: 100\n"
       "homeDirectory: /home/posix\n",
       kFirstLine,
       {"uidNumber"}},
      {"invalid DN syntax",
       "dn: this is not a DN\nobjectClass: organizationalUnit\nou: x\n",
       kFirstLine,
       {"invalid DN"}},
      {"entry without objectClass",
       "dn: ou=Classless,dc=example,dc=com\nou: Classless\n",
       kFirstLine,
       {"objectClass"}},
      {"bad base64 value",
       Person("base64", "description:: !!!not base64!!!\n"),
       kFirstLine + 5,
       {"base64"}},
      {"file: URL to a file that does not exist",
       Person("photo", "jpegPhoto:< file:///nonexistent/dirload/photo.jpg\n"),
       kFirstLine + 5,
       {"/nonexistent/dirload/photo.jpg"}},
  };
}

bool SaysAll(const std::string& message, const std::vector<std::string>& words) {
  for (const std::string& w : words) {
    bool single_word = w.find(' ') == std::string::npos && w.find('/') == std::string::npos;
    if (single_word ? !ContainsWord(message, w) : !ContainsNoCase(message, w)) return false;
  }
  return true;
}

TEST_CASE("bad input: each kind of bad record stops the load with exit 1 and says where and why") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  for (const BadInput& bad : BadInputs()) {
    CAPTURE(bad.name);
    TempDir t;
    std::string input =
        t.Write("input.ldif", std::string(kBase) + bad.record + "\n" + Person("after"));
    Db db{t.File("db")};
    RunResult add = db.Add(input);
    CHECK_MESSAGE(add.exit_code == 1, add.Describe());
    std::string where = "input.ldif:" + std::to_string(bad.line) + ":";
    CHECK_MESSAGE(add.err.find(where) != std::string::npos, "message does not name "
                                                                << where << "\n"
                                                                << add.Describe());
    CHECK_MESSAGE(SaysAll(add.err, bad.words), "message does not say why\n" << add.Describe());
    // The stopped load is never shown as a database.
    RunResult cat = db.Cat();
    CHECK_MESSAGE(cat.exit_code == 3, cat.Describe());
    CHECK(cat.out.empty());
  }
}

TEST_CASE("bad input: a child before its parent is accepted and cat shows the parent first") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir t;
  std::string input =
      t.Write("input.ldif",
              std::string(kBase) +
                  "dn: cn=Grandchild,uid=kid,ou=Later,dc=example,dc=com\nobjectClass: device\n"
                  "cn: Grandchild\n\n"
                  "dn: uid=kid,ou=Later,dc=example,dc=com\nobjectClass: account\nuid: kid\n\n"
                  "dn: ou=Later,dc=example,dc=com\nobjectClass: organizationalUnit\nou: Later\n\n" +
                  Person("alice"));
  for (const std::string& backend : kBackends) {
    CAPTURE(backend);
    Db db{t.File(std::string("db-") + backend), backend};
    RunResult add = db.Add(input);
    REQUIRE_MESSAGE(add.exit_code == 0, add.Describe());
    RunResult cat = db.Cat({"-l", t.File("out.ldif")});
    REQUIRE_MESSAGE(cat.exit_code == 0, cat.Describe());
    std::vector<std::string> dns = testing::Dns(ReadOutput(t.File("out.ldif")));
    std::vector<std::string> want = {"dc=example,dc=com",
                                     "ou=People,dc=example,dc=com",
                                     "ou=Later,dc=example,dc=com",
                                     "uid=kid,ou=Later,dc=example,dc=com",
                                     "cn=Grandchild,uid=kid,ou=Later,dc=example,dc=com",
                                     "uid=alice,ou=People,dc=example,dc=com"};
    CHECK(dns == want);
  }
}

// An entry 10,000 levels deep whose ancestors never come: rejected in about
// a tenth of a second on every format (it once ran for minutes), with -c
// the rest still loads.
TEST_CASE("bad input: a 10,000-level chain of missing ancestors is rejected at once") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir t;
  std::string dn;
  for (int i = 10000; i >= 1; --i) dn += "ou=l" + std::to_string(i) + ",";
  dn += kSuffix;
  const std::string input = t.Write(
      "deep.ldif", std::string(kBase) + "dn: " + dn +
                       "\nobjectClass: organizationalUnit\nou: l10000\n\n" + Person("alice"));
  for (const std::vector<std::string>& kind : {std::vector<std::string>{"--format", "native"},
                                               {"--format", "native", "--backend", "bdb"},
                                               {"--format", "mdb"}}) {
    for (bool cont : {true, false}) {
      CAPTURE(kind[1]);
      CAPTURE(kind.size());
      CAPTURE(cont);
      Db db{t.File("db-" + std::to_string(kind.size()) + kind[1] + (cont ? "-c" : ""))};
      if (kind.size() > 2) db.backend = "bdb";
      std::vector<std::string> extra = {kind[0], kind[1]};
      if (cont) extra.push_back("-c");
      const auto start = std::chrono::steady_clock::now();
      RunResult add = db.Add(input, extra);
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      CHECK_MESSAGE(seconds < 10.0, seconds);
      CHECK_MESSAGE(add.exit_code == 1, add.Describe());
      CHECK_MESSAGE(add.err.find("parent entry 'ou=l1,dc=example,dc=com' does not exist") !=
                        std::string::npos,
                    add.err.substr(0, 2000));
      if (!cont) continue;
      const std::string out = t.File("out.ldif");
      RunResult cat = db.Cat({"-l", out});
      REQUIRE_MESSAGE(cat.exit_code == 0, cat.Describe());
      CHECK(testing::Dns(ReadOutput(out)) ==
            std::vector<std::string>{"dc=example,dc=com", "ou=People,dc=example,dc=com",
                                     "uid=alice,ou=People,dc=example,dc=com"});
    }
  }
}

// The input's own faults are input errors (exit 1), each named.
TEST_CASE("bad input: a byte order mark, a directory, and a failed load that kept nothing") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir t;
  // slapadd refuses a file that starts with a BOM ("could not parse entry
  // (line=1)"); dirload refuses it too, and says why.
  const std::string bom = t.Write("bom.ldif", "\xEF\xBB\xBF" + std::string(kBase));
  Db db{t.File("db")};
  RunResult add = db.Add(bom);
  CHECK_MESSAGE(add.exit_code == 1, add.Describe());
  CHECK_MESSAGE(
      add.err.find("bom.ldif:1: the line starts with a UTF-8 byte order mark") != std::string::npos,
      add.err);
  // A load that failed kept nothing, and says -j cannot resume it.
  CHECK_MESSAGE(add.err.find("no entry of this input was kept, so load the whole input again") !=
                    std::string::npos,
                add.err);
  add = db.Add(t.path().string());
  CHECK_MESSAGE(add.exit_code == 1, add.Describe());
  CHECK_MESSAGE(add.err.find("is a directory, not an LDIF file") != std::string::npos, add.err);
  Db mdb{t.File("mdb")};
  add = mdb.Add(bom, {"--format", "mdb"});
  CHECK_MESSAGE(add.exit_code == 1, add.Describe());
  CHECK_MESSAGE(add.err.find("no entry of this input was kept") != std::string::npos, add.err);
}

TEST_CASE("-c: good records load, bad ones go to the reject file with line and reason, exit 1") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir t;
  // Lines: kBase 1-10, then each record below followed by a blank line.
  struct Part {
    std::string text;
    bool good;
    std::string reason;   // for a bad record: what its reject comment must say
    uint64_t offset = 0;  // the line named, counted from the record's first
  };
  std::vector<Part> parts = {
      {Person("alice"), true, ""},
      {"dn: ou=people,dc=example,dc=com\nobjectClass: organizationalUnit\nou: people\n", false,
       "duplicate DN: already given at line 7"},
      {Person("bob"), true, ""},
      {Person("carol", "fooBarBaz: 1\n"), false, "fooBarBaz"},
      {"dn: uid=lost,ou=Nowhere,dc=example,dc=com\nobjectClass: account\nuid: lost\n", false,
       "does not exist"},
      {Person("dave"), true, ""},
      {"dn: uid=alice,ou=People,dc=example,dc=com\nchangetype: delete\n", false, "change record"},
      // The reader names the offending line, not the record's first.
      {Person("erin", "description:: !!!\n"), false, "base64", 5},
      {Person("frank"), true, ""},
  };
  std::string text = kBase;
  std::vector<uint64_t> lines;
  uint64_t line = kFirstLine;
  for (const Part& p : parts) {
    lines.push_back(line);
    text += p.text + "\n";
    line += static_cast<uint64_t>(std::count(p.text.begin(), p.text.end(), '\n')) + 1;
  }
  std::string input = t.Write("input.ldif", text);
  std::string rejects = t.File("rejects.ldif");

  for (const std::string& backend : kBackends) {
    CAPTURE(backend);
    Db db{t.File(std::string("db-") + backend), backend};
    RunResult add = db.Add(input, {"-c", "--reject-file", rejects});
    CHECK_MESSAGE(add.exit_code == 1, add.Describe());

    // Every good record is loaded, in input order, and nothing else.
    std::string want_text = kBase;
    for (const Part& p : parts) {
      if (p.good) want_text += p.text + "\n";
    }
    LdifFile want = testing::ReadLdifText(want_text);
    REQUIRE(want.ok());
    RunResult cat = db.Cat({"-l", t.File("out.ldif")});
    REQUIRE_MESSAGE(cat.exit_code == 0, cat.Describe());
    std::vector<ldif::Record> got = ReadOutput(t.File("out.ldif"));
    testing::CompareOptions exact;
    exact.ignore_description_case = false;
    exact.drop_operational = true;  // added by the load, as slapadd adds them
    CHECK_MESSAGE(testing::CompareRecords(got, want.records, exact) == "",
                  testing::CompareRecords(got, want.records, exact));

    // Each bad record is in the reject file, after a comment with its line
    // and reason.
    std::string rejected = testing::ReadFile(rejects);
    for (size_t i = 0; i < parts.size(); ++i) {
      if (parts[i].good) continue;
      CAPTURE(parts[i].text);
      std::string where = "input.ldif:" + std::to_string(lines[i] + parts[i].offset) + ":";
      size_t comment = rejected.find(where);
      REQUIRE_MESSAGE(comment != std::string::npos, "reject file does not name " << where << ":\n"
                                                                                 << rejected);
      std::string comment_line = rejected.substr(comment, rejected.find('\n', comment) - comment);
      CHECK_MESSAGE(ContainsNoCase(comment_line, parts[i].reason), comment_line);
      std::string dn_line = parts[i].text.substr(0, parts[i].text.find('\n') + 1);
      CHECK_MESSAGE(rejected.find(dn_line) != std::string::npos, "reject file lacks the record "
                                                                     << dn_line << ":\n"
                                                                     << rejected);
    }
  }
}

TEST_CASE("-u: a dry run checks everything and writes no database") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir t;
  std::string good = t.Write("good.ldif", std::string(kBase) + Person("alice"));
  std::string bad = t.Write("bad.ldif", std::string(kBase) + Person("bob", "fooBarBaz: 1\n"));
  for (const std::string& backend : kBackends) {
    CAPTURE(backend);
    Db db{t.File(std::string("db-") + backend), backend};
    RunResult add = db.Add(good, {"-u"});
    CHECK_MESSAGE(add.exit_code == 0, add.Describe());
    bool nothing = !fs::exists(db.dir) || fs::is_empty(db.dir);
    CHECK_MESSAGE(nothing, "-u left files in " << db.dir);

    add = db.Add(bad, {"-u"});
    CHECK_MESSAGE(add.exit_code == 1, add.Describe());
    CHECK_MESSAGE(add.err.find("bad.ldif:11:") != std::string::npos, add.Describe());
    nothing = !fs::exists(db.dir) || fs::is_empty(db.dir);
    CHECK_MESSAGE(nothing, "-u left files in " << db.dir);

    RunResult cat = db.Cat();
    CHECK_MESSAGE(cat.exit_code == 3, cat.Describe());
  }
}

TEST_CASE("-s: without schema checks an unknown attribute loads") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir t;
  std::string input = t.Write("input.ldif", std::string(kBase) + Person("alice", "fooBarBaz: 1\n"));
  for (const std::string& backend : kBackends) {
    CAPTURE(backend);
    Db db{t.File(std::string("db-") + backend), backend};
    RunResult add = db.Add(input, {"-s"});
    REQUIRE_MESSAGE(add.exit_code == 0, add.Describe());
    RunResult cat = db.Cat({"-l", t.File("out.ldif")});
    REQUIRE_MESSAGE(cat.exit_code == 0, cat.Describe());
    LdifFile want = testing::ReadLdifText(testing::ReadFile(input));
    REQUIRE(want.ok());
    std::vector<ldif::Record> got = ReadOutput(t.File("out.ldif"));
    testing::CompareOptions loose;
    loose.drop_operational = true;  // added by the load, as slapadd adds them
    CHECK(testing::CompareRecords(got, want.records, loose) == "");
  }
}

TEST_CASE("cat -a writes exactly the entries search finds, in ID order") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir t;
  std::string input = t.Write("input.ldif", std::string(kBase) + Person("alice") + "\n" +
                                                Person("bob") + "\n" + Person("alina"));
  Db db{t.File("db")};
  RunResult add = db.Add(input, {"--index", "uid eq,sub"});
  REQUIRE_MESSAGE(add.exit_code == 0, add.Describe());
  RunResult cat = db.Cat({"-a", "(uid=al*)"});
  REQUIRE_MESSAGE(cat.exit_code == 0, cat.Describe());
  LdifFile got = testing::ReadLdifText(cat.out);
  REQUIRE(got.ok());
  REQUIRE(got.records.size() == 2);
  CHECK(got.records[0].dn().find("uid=alice,") == 0);
  CHECK(got.records[1].dn().find("uid=alina,") == 0);
  RunResult search = RunDirload({"search", "--db", db.dir, "(uid=al*)", "--dn"});
  REQUIRE_MESSAGE(search.exit_code == 0, search.Describe());
  CHECK(search.out ==
        std::string(got.records[0].dn()) + "\n" + std::string(got.records[1].dn()) + "\n");
}

TEST_CASE("usage and refusal exit statuses") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir t;
  std::string input = t.Write("input.ldif", kBase);

  SUBCASE("no database directory is a usage error") {
    RunResult r = RunDirload({"add", "--suffix", kSuffix, "-l", input});
    CHECK_MESSAGE(r.exit_code == 2, r.Describe());
  }
  SUBCASE("no suffix is a usage error") {
    RunResult r = RunDirload({"add", "--db", t.File("db"), "-l", input});
    CHECK_MESSAGE(r.exit_code == 2, r.Describe());
  }
  SUBCASE("an unknown option is a usage error") {
    RunResult r = RunDirload({"add", "--no-such-option", "--db", t.File("db")});
    CHECK_MESSAGE(r.exit_code == 2, r.Describe());
  }
  SUBCASE("an unknown backend is a usage error") {
    RunResult r = RunDirload(
        {"add", "--db", t.File("db"), "--suffix", kSuffix, "--backend", "nosuch", "-l", input});
    CHECK_MESSAGE(r.exit_code == 2, r.Describe());
  }
  SUBCASE("cat of a directory without a database is refused") {
    fs::create_directory(t.File("empty"));
    RunResult r = RunDirload({"cat", "--db", t.File("empty")});
    CHECK_MESSAGE(r.exit_code == 3, r.Describe());
    CHECK_MESSAGE(r.err.find("no dirload database") != std::string::npos, r.Describe());
    r = RunDirload({"cat", "--db", t.File("missing")});
    CHECK_MESSAGE(r.exit_code == 3, r.Describe());
  }
  SUBCASE("a database directory that cannot be created is a storage error") {
    std::string file = t.Write("plain-file", "x");
    RunResult r = RunDirload(
        {"add", "--db", file + "/db", "--suffix", kSuffix, "-l", input, "--progress", "never"});
    CHECK_MESSAGE(r.exit_code == 4, r.Describe());
  }
  SUBCASE("a missing input file is an I/O error") {
    RunResult r = RunDirload({"add", "--db", t.File("db"), "--suffix", kSuffix, "-l",
                              t.File("no-such.ldif"), "--progress", "never"});
    CHECK_MESSAGE(r.exit_code == 4, r.Describe());
    CHECK_MESSAGE(r.err.find("no-such.ldif") != std::string::npos, r.Describe());
  }
  SUBCASE("add with -f takes the directory and suffix from slapd.conf, cat reads it back") {
    fs::create_directory(t.File("confdb"));
    std::string conf = t.Write("slapd.conf",
                               "database mdb\nsuffix \"dc=example,dc=com\"\n"
                               "directory " +
                                   t.File("confdb") + "\n");
    RunResult r = RunDirload({"add", "-f", conf, "-l", input, "--progress", "never"});
    REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
    r = RunDirload({"cat", "-f", conf});
    REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
    LdifFile got = testing::ReadLdifText(r.out);
    REQUIRE(got.ok());
    CHECK(testing::Dns(got.records) ==
          std::vector<std::string>{"dc=example,dc=com", "ou=People,dc=example,dc=com"});
  }
}

}  // namespace
}  // namespace dirload

namespace dirload {
namespace {

// The stage names and thread roles `--stats` gives the phase named `phase`.
void PhaseCpu(const std::string& stats_file, const std::string& phase,
              std::set<std::string>* stages, std::set<std::string>* roles, double* counted,
              double* cpu) {
  testing::JsonValue json;
  std::string error;
  const std::string text = testing::ReadFile(stats_file);
  REQUIRE_MESSAGE(testing::ParseJson(text, &json, &error), error << "\n" << text);
  const testing::JsonValue* phases = json.Find("phases");
  REQUIRE(phases != nullptr);
  for (const testing::JsonValue& p : phases->array()) {
    if (p.Find("name")->string() != phase) continue;
    *cpu = p.Find("cpu_seconds")->number();
    if (const testing::JsonValue* s = p.Find("stages")) {
      for (const testing::JsonValue& st : s->array()) {
        stages->insert(st.Find("name")->string());
        *counted += st.Find("cpu_seconds")->number();
      }
    }
    if (const testing::JsonValue* t = p.Find("threads")) {
      for (const testing::JsonValue& r : t->array()) roles->insert(r.Find("role")->string());
    }
    return;
  }
  FAIL("no phase '" << phase << "' in " << text);
}

TEST_CASE("--stats says where phase 2's CPU time goes, on both formats") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir t;
  const std::string input = t.File("gen.ldif");
  Generate(input, 2000);
  for (const char* format : {"native", "mdb"}) {
    CAPTURE(format);
    Db db{t.File(std::string("db-") + format)};
    const std::string stats = t.File(std::string("stats-") + format + ".json");
    RunResult add = db.Add(input, {"--format", format, "--index", "cn,sn eq,sub", "--index",
                                   "uid eq", "--stats", stats});
    REQUIRE_MESSAGE(add.exit_code == 0, add.Describe());
    std::set<std::string> stages, roles;
    double counted = 0, cpu = 0;
    PhaseCpu(stats, "index", &stages, &roles, &counted, &cpu);
    CHECK(stages.contains("keys"));
    CHECK(stages.contains("write"));
    CHECK(roles.contains("index"));
    CHECK(counted > 0);
    CHECK(counted <= cpu * 1.05 + 0.02);
  }
}

}  // namespace
}  // namespace dirload
