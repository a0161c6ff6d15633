// Fault injection through the real binary: a load into an empty database, an
// append into a ready one and an index rebuild, on native LMDB, native
// Berkeley DB and slapd's format, each failed (DIRLOAD_FAULT_INJECT=fail) or
// killed (exit) at its N-th write, commit or sync, for N over the points a
// clean run counts (lib/store/fault_injection.h). After every fault:
//   - the command did not report success;
//   - `dirload cat` serves exactly what was there before, or refuses (exit 3)
//     naming `dirload recover`; never a partial list served as complete;
//   - `dirload recover` exits 0 and says what it did; then cat gives what was
//     there before, `index --check` finds no stale index and an indexed
//     search finds what it found before;
//   - a second recover has nothing to do;
//   - the command run again without a fault gives what a clean run gives.
// Every point is tried when a command has few; otherwise the first ones and
// some spread up to the last (DIRLOAD_FAULT_SWEEP=full tries more; see
// PointsToTry). Each command gets kTimeout seconds, so a hang fails the case.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "lib/util/ascii.h"
#include "tests/integration/dirload_process.h"
#include "tests/integration/ldif_compare.h"
#include "tests/support/child_process.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

namespace fs = std::filesystem;
using testing::ProcessResult;
using testing::RunDirload;
using testing::TempDir;

constexpr char kSuffix[] = "dc=example,dc=com";
constexpr double kTimeout = 60;
constexpr int kBaseEntries = 150;
constexpr int kAppendEntries = 60;
// An entry of the base, found through the uid index before and after.
constexpr char kProbeUid[] = "u0042";
constexpr char kProbeDn[] = "uid=u0042,ou=People,dc=example,dc=com";
// An entry the append adds: absent after a rolled-back append.
constexpr char kAppendedUid[] = "u0170";

const std::vector<std::string> kIndexOptions = {"--index", "objectClass eq", "--index",
                                                "uid eq",  "--index",        "cn eq,sub"};

std::string Person(int i) {
  char uid[16];
  std::snprintf(uid, sizeof uid, "u%04d", i);
  std::string u(uid);
  std::string sn = "Surname" + std::to_string(i % 37);
  return "dn: uid=" + u + ",ou=People," + kSuffix +
         "\n"
         "objectClass: inetOrgPerson\n"
         "uid: " +
         u + "\ncn: Person " + std::to_string(i) + " " + sn + "\nsn: " + sn +
         "\n"
         "givenName: Person" +
         std::to_string(i) + "\nmail: " + u + "@example.com\n\n";
}

std::string BaseLdif() {
  std::string s = std::string("dn: ") + kSuffix +
                  "\n"
                  "objectClass: dcObject\n"
                  "objectClass: organization\n"
                  "dc: example\n"
                  "o: Example\n\n"
                  "dn: ou=People," +
                  kSuffix +
                  "\n"
                  "objectClass: organizationalUnit\n"
                  "ou: People\n\n";
  for (int i = 0; i < kBaseEntries; ++i) s += Person(i);
  return s;
}

std::string AppendLdif() {
  std::string s;
  for (int i = kBaseEntries; i < kBaseEntries + kAppendEntries; ++i) s += Person(i);
  return s;
}

bool Contains(const std::string& text, const std::string& needle) {
  return AsciiLowerCopy(text).find(AsciiLowerCopy(needle)) != std::string::npos;
}

size_t CountEntries(const std::string& ldif) {
  size_t n = 0;
  for (size_t p = ldif.find("dn: "); p != std::string::npos; p = ldif.find("\ndn: ", p + 1)) ++n;
  return n;
}

// The database formats, as `dirload add` is told to make each.
struct Format {
  std::string name;
  std::vector<std::string> add_options;
};

const Format kLmdb = {"native LMDB", {"--backend", "lmdb", "--format", "native"}};
const Format kBdb = {"native Berkeley DB", {"--backend", "bdb", "--format", "native"}};
const Format kMdb = {"slapd's format", {"--format", "mdb"}};

enum class Scenario { kLoad, kAppend, kRebuild };

const char* ScenarioName(Scenario s) {
  switch (s) {
    case Scenario::kLoad:
      return "load into an empty database";
    case Scenario::kAppend:
      return "append into a ready database";
    case Scenario::kRebuild:
      return "index --all on a ready database";
  }
  return "?";
}

// Which of the points 1..total to try in mode number `mode` (0 fail, 1
// exit). DIRLOAD_FAULT_SWEEP=full: every one up to 40, else the first 15 and
// 25 spread evenly up to the last. By default, to keep the test fast under
// AddressSanitizer: three, different in each mode (the first ones, one
// inside, and the last, the final sync, where a run is most exposed).
std::vector<uint64_t> PointsToTry(uint64_t total, int mode) {
  std::vector<uint64_t> points;
  if (testing::Env("DIRLOAD_FAULT_SWEEP") == "full") {
    const uint64_t head = 15, spread = 25;
    if (total <= head + spread) {
      for (uint64_t n = 1; n <= total; ++n) points.push_back(n);
      return points;
    }
    for (uint64_t n = 1; n <= head; ++n) points.push_back(n);
    for (uint64_t i = 1; i <= spread; ++i) {
      uint64_t n = head + (total - head) * i / spread;
      if (n > points.back()) points.push_back(n);
    }
    return points;
  }
  const uint64_t m = static_cast<uint64_t>(mode);
  for (uint64_t n : {1 + m, total * (1 + m) / 3, total}) {
    if (n >= 1 && n <= total && (points.empty() || n > points.back())) points.push_back(n);
  }
  return points;
}

// One format and scenario: the prepared database, the clean run's result,
// and the sweep over the fault points.
class FaultSweep {
 public:
  FaultSweep(const Format& format, Scenario scenario) : format_(format), scenario_(scenario) {
    base_ldif_ = tmp_.Write("base.ldif", BaseLdif());
    append_ldif_ = tmp_.Write("append.ldif", AppendLdif());
    env_ = testing::FindProgram("env");
  }

  void Run() {
    REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
    REQUIRE_MESSAGE(!env_.empty(), "no env program to set a child's environment");
    Prepare();
    Clean();
    Sweep("fail", 0);
    Sweep("exit", 1);
  }

 private:
  // The command under test, on database `dir`.
  std::vector<std::string> Command(const std::string& dir) const {
    std::vector<std::string> args;
    if (scenario_ == Scenario::kRebuild) {
      args = {"index", "--all", "--db", dir, "--progress", "never"};
    } else {
      args = {"add",
              "--db",
              dir,
              "--suffix",
              kSuffix,
              "-l",
              scenario_ == Scenario::kLoad ? base_ldif_ : append_ldif_,
              "--progress",
              "never"};
      args.insert(args.end(), format_.add_options.begin(), format_.add_options.end());
    }
    args.insert(args.end(), kIndexOptions.begin(), kIndexOptions.end());
    return args;
  }

  ProcessResult Cat(const std::string& dir) const {
    return RunDirload({"cat", "--db", dir}, kTimeout);
  }

  ProcessResult Recover(const std::string& dir) const {
    return RunDirload({"recover", "--db", dir}, kTimeout);
  }

  // With the fault plan (or the counting file) in the child's environment.
  ProcessResult WithFault(const std::string& variable, const std::string& dir) const {
    std::vector<std::string> argv = {env_, variable, testing::DirloadPath()};
    std::vector<std::string> args = Command(dir);
    argv.insert(argv.end(), args.begin(), args.end());
    return testing::RunProcess(argv, kTimeout);
  }

  // The database the command starts from: none for a load, the base for
  // the others; before_ is what cat gives of it.
  void Prepare() {
    prepared_ = tmp_.File("prepared");
    if (scenario_ == Scenario::kLoad) return;
    std::vector<std::string> args = {"add", "--db",     prepared_,    "--suffix", kSuffix,
                                     "-l",  base_ldif_, "--progress", "never"};
    args.insert(args.end(), format_.add_options.begin(), format_.add_options.end());
    args.insert(args.end(), kIndexOptions.begin(), kIndexOptions.end());
    ProcessResult load = RunDirload(args, kTimeout);
    REQUIRE_MESSAGE(load.exit_code == 0, load.Describe());
    ProcessResult cat = Cat(prepared_);
    REQUIRE_MESSAGE(cat.exit_code == 0, cat.Describe());
    before_ = cat.out;
    REQUIRE(CountEntries(before_) == kBaseEntries + 2);
  }

  // A fresh copy of the prepared database (nothing for a load).
  std::string Fresh(const std::string& name) const {
    std::string dir = tmp_.File(name);
    std::error_code ec;
    fs::remove_all(dir, ec);
    if (scenario_ != Scenario::kLoad) {
      // slapd's format's data.mdb is sparse (a 64 GB map): holes must stay
      // holes, or every copy writes the whole map.
      ::dirload::testing::ProcessResult cp =
          ::dirload::testing::RunProcess({"/bin/cp", "-a", "--sparse=always", prepared_, dir});
      REQUIRE_MESSAGE(cp.exit_code == 0, cp.Describe());
    }
    return dir;
  }

  // A run without a fault: its result, and how many points it passes.
  void Clean() {
    std::string dir = Fresh("clean");
    std::string counts = tmp_.File("counts");
    ProcessResult run = WithFault("DIRLOAD_FAULT_COUNT=" + counts, dir);
    REQUIRE_MESSAGE(run.exit_code == 0, run.Describe());
    std::string text = testing::ReadFile(counts);
    size_t at = text.find("any ");
    REQUIRE_MESSAGE(at != std::string::npos,
                    "no counts in " << counts << " (built without DIRLOAD_FAULT_INJECTION?)");
    total_ = std::strtoull(text.c_str() + at + 4, nullptr, 10);
    REQUIRE(total_ > 0);
    MESSAGE((format_.name + ", " + ScenarioName(scenario_) + ": ")
            << total_ << " fault points (" << text.substr(0, text.find('\n')) << " ...)");
    ProcessResult cat = Cat(dir);
    REQUIRE_MESSAGE(cat.exit_code == 0, cat.Describe());
    after_ = cat.out;
    size_t want = kBaseEntries + 2 + (scenario_ == Scenario::kAppend ? kAppendEntries : 0);
    REQUIRE(CountEntries(after_) == want);
    after_records_ = testing::ReadLdifText(after_, "clean cat").records;
  }

  // What cat may say of a database that lost the run: exactly what was there
  // before, or a refusal that names the way out.
  void CheckServesBeforeOrRefuses(const ProcessResult& cat, const std::string& when) const {
    INFO(when << ": " << cat.Describe());
    CHECK(cat.signal == 0);
    if (scenario_ == Scenario::kLoad) {
      // Nothing was there: "no database" (exit 3), or a database with no entries.
      if (cat.exit_code == 0) {
        CHECK(CountEntries(cat.out) == 0);
      } else {
        CHECK(cat.exit_code == 3);
      }
      return;
    }
    if (cat.exit_code == 0) {
      CHECK_MESSAGE(cat.out == before_, "served " << CountEntries(cat.out) << " entries, before "
                                                  << CountEntries(before_));
    } else {
      CHECK(cat.exit_code == 3);
      CHECK(Contains(cat.err, "dirload recover"));
    }
  }

  // What the database must give once recovered: what was there before; or,
  // for a first load killed in phase 2 (its entries complete and synced),
  // every entry with the indexes finished. True in that last case.
  bool CheckRecovered(const std::string& dir) const {
    ProcessResult cat = Cat(dir);
    INFO("cat after recover: " << cat.Describe());
    if (scenario_ == Scenario::kLoad) {
      if (cat.exit_code != 0) {
        CHECK(cat.exit_code == 3);
        return false;
      }
      if (CountEntries(cat.out) == 0) return false;
      CHECK(CountEntries(cat.out) == CountEntries(after_));
      std::vector<std::string> check = {"index", "--check", "--db", dir};
      check.insert(check.end(), kIndexOptions.begin(), kIndexOptions.end());
      ProcessResult checked = RunDirload(check, kTimeout);
      CHECK_MESSAGE(checked.exit_code == 0, checked.Describe());
      return true;
    }
    REQUIRE(cat.exit_code == 0);
    CHECK_MESSAGE(cat.out == before_,
                  "gave " << CountEntries(cat.out) << " entries, before " << CountEntries(before_));
    std::vector<std::string> check = {"index", "--check", "--db", dir};
    check.insert(check.end(), kIndexOptions.begin(), kIndexOptions.end());
    ProcessResult checked = RunDirload(check, kTimeout);
    CHECK_MESSAGE(checked.exit_code == 0, checked.Describe());
    ProcessResult found =
        RunDirload({"search", "--db", dir, std::string("(uid=") + kProbeUid + ")"}, kTimeout);
    CHECK_MESSAGE(found.exit_code == 0, found.Describe());
    CHECK_MESSAGE(Contains(found.out, std::string("dn: ") + kProbeDn), found.Describe());
    CHECK(CountEntries(found.out) == 1);
    if (scenario_ == Scenario::kAppend) {
      ProcessResult gone =
          RunDirload({"search", "--db", dir, std::string("(uid=") + kAppendedUid + ")"}, kTimeout);
      CHECK_MESSAGE(CountEntries(gone.out) == 0, gone.Describe());
    }
    return false;
  }

  // The command run again completes as a clean run does; a load recover
  // kept whole is not run again, only compared.
  void CheckCompletes(const std::string& dir, bool kept) const {
    if (!kept) {
      ProcessResult again = RunDirload(Command(dir), kTimeout);
      INFO("the command again, without a fault: " << again.Describe());
      REQUIRE(again.exit_code == 0);
    }
    ProcessResult cat = Cat(dir);
    REQUIRE_MESSAGE(cat.exit_code == 0, cat.Describe());
    testing::LdifFile got = testing::ReadLdifText(cat.out, "cat");
    REQUIRE_MESSAGE(got.ok(), got.error);
    // The times, CSNs and UUIDs a load gives differ from run to run.
    testing::CompareOptions options;
    options.drop_operational = true;
    std::string diff = testing::CompareRecords(got.records, after_records_, options);
    CHECK_MESSAGE(diff.empty(), "differs from a clean run: " << diff);
  }

  void Sweep(const std::string& mode, int mode_number) {
    std::vector<uint64_t> points = PointsToTry(total_, mode_number);
    for (uint64_t n : points) {
      const std::string plan = mode + ":any:" + std::to_string(n);
      const std::string where = format_.name + ", " + ScenarioName(scenario_) + ", " + plan;
      CAPTURE(where);
      std::string dir = Fresh("db");
      ProcessResult run = WithFault("DIRLOAD_FAULT_INJECT=" + plan, dir);
      INFO("faulted run: " << run.Describe());
      CHECK(run.exit_code != 0);
      if (mode == "exit") {
        CHECK(run.exit_code == 137);
      } else {
        CHECK(run.signal == 0);
        CHECK_MESSAGE(Contains(run.err, "injected fault"), "the error does not reach the user");
      }
      CheckServesBeforeOrRefuses(Cat(dir), "cat right after the fault");

      ProcessResult recovered = Recover(dir);
      CHECK_MESSAGE(recovered.exit_code == 0, recovered.Describe());
      CHECK_MESSAGE(!(recovered.out + recovered.err).empty(), "recover said nothing");
      const bool kept = CheckRecovered(dir);

      ProcessResult second = Recover(dir);
      CHECK_MESSAGE(second.exit_code == 0, second.Describe());
      CHECK_MESSAGE(Contains(second.out + second.err, "nothing"),
                    "second recover: " << second.Describe());

      CheckCompletes(dir, kept);
    }
  }

  const Format& format_;
  const Scenario scenario_;
  TempDir tmp_;
  std::string base_ldif_;
  std::string append_ldif_;
  std::string env_;
  std::string prepared_;
  std::string before_;  // cat of the prepared database; empty for a load
  std::string after_;   // cat after a clean run
  std::vector<ldif::Record> after_records_;
  uint64_t total_ = 0;
};

TEST_CASE("faults in a load into an empty database: native LMDB") {
  FaultSweep(kLmdb, Scenario::kLoad).Run();
}
TEST_CASE("faults in a load into an empty database: native Berkeley DB") {
  FaultSweep(kBdb, Scenario::kLoad).Run();
}
TEST_CASE("faults in a load into an empty database: slapd's format") {
  FaultSweep(kMdb, Scenario::kLoad).Run();
}
TEST_CASE("faults in an append: native LMDB") { FaultSweep(kLmdb, Scenario::kAppend).Run(); }
TEST_CASE("faults in an append: native Berkeley DB") { FaultSweep(kBdb, Scenario::kAppend).Run(); }
TEST_CASE("faults in an append: slapd's format") { FaultSweep(kMdb, Scenario::kAppend).Run(); }
TEST_CASE("faults in an index rebuild: native LMDB") {
  FaultSweep(kLmdb, Scenario::kRebuild).Run();
}
TEST_CASE("faults in an index rebuild: native Berkeley DB") {
  FaultSweep(kBdb, Scenario::kRebuild).Run();
}
TEST_CASE("faults in an index rebuild: slapd's format") {
  FaultSweep(kMdb, Scenario::kRebuild).Run();
}

}  // namespace
}  // namespace dirload
