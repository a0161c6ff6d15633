// dirload beside a running slapd (lib/db/lmdb_presence.h): the commands
// that write slapd's database refuse at once, naming slapd, while it has the
// database open, and change nothing; readers go on. While dirload holds the
// environment, an LMDB user that starts (slapcat here, slapd alike) waits for
// it instead of opening the file being replaced.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "lib/db/lmdb_presence.h"
#include "tests/integration/dirload_process.h"
#include "tests/integration/slapd_server.h"
#include "tests/support/child_process.h"
#include "tests/support/openldap.h"
#include "tests/support/slapd_conf.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

namespace fs = std::filesystem;
using testing::RunDirload;
using testing::RunResult;
using testing::TempDir;

constexpr char kBase[] =
    "dn: dc=example,dc=com\nobjectClass: dcObject\nobjectClass: organization\no: E\n"
    "dc: example\n\n"
    "dn: ou=people,dc=example,dc=com\nobjectClass: organizationalUnit\nou: people\n\n";
constexpr char kMore[] =
    "dn: uid=a,ou=people,dc=example,dc=com\nobjectClass: inetOrgPerson\nuid: a\ncn: a\n"
    "sn: a\n\n";

std::string Config(const TempDir& t, const std::string& dir) {
  return testing::SlapdConf()
      .LoadBackMdb()
      .Include(testing::kExampleSchemas)
      .Database("mdb")
      .Suffix(testing::kExampleSuffix)
      .RootDn(testing::kExampleRootDn)
      .Directory(dir)
      .MaxSize(1073741824)
      .Indexes({"objectClass eq", "uid eq"})
      .Write(t, "slapd.conf");
}

TEST_CASE("writers of slapd's database refuse while slapd has it open; readers go on") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  DIRLOAD_SKIP_UNLESS_OPENLDAP("slapd", "ldapsearch");
  TempDir t;
  const std::string dir = t.File("db");
  fs::create_directory(dir);
  const std::string conf = Config(t, dir);
  const std::string base = t.Write("base.ldif", kBase), more = t.Write("more.ldif", kMore);
  RunResult loaded = RunDirload({"add", "-f", conf, "-l", base});
  REQUIRE_MESSAGE(loaded.exit_code == 0, loaded.Describe());
  const std::string before = RunDirload({"cat", "-f", conf}).out;
  {
    testing::Slapd slapd(t, "slapd", conf);
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"add", "-f", conf, "-l", more},
          std::vector<std::string>{"index", "-f", conf, "--all"}}) {
      CAPTURE(args[0]);
      RunResult refused = RunDirload(args);
      CHECK_MESSAGE(refused.exit_code == 3, refused.Describe());
      CHECK_MESSAGE(refused.err.find("(slapd)") != std::string::npos, refused.err);
      CHECK_MESSAGE(refused.err.find("stop it") != std::string::npos, refused.err);
    }
    // Readers are LMDB readers beside slapd, as slapcat is.
    RunResult cat = RunDirload({"cat", "-f", conf});
    CHECK_MESSAGE(cat.exit_code == 0, cat.Describe());
    CHECK(cat.out == before);
    testing::Slapd::Answer a = slapd.Search("dc=example,dc=com", "sub", "(objectClass=*)");
    CHECK(a.exit_code == 0);
    CHECK(a.entries.size() == 2);
  }
  // slapd stopped: the append goes through.
  RunResult appended = RunDirload({"add", "-f", conf, "-l", more});
  CHECK_MESSAGE(appended.exit_code == 0, appended.Describe());
}

TEST_CASE("an LMDB user that starts while dirload holds the environment waits for it") {
  DIRLOAD_SKIP_UNLESS_OPENLDAP("slapcat");
  TempDir t;
  const std::string dir = t.File("db");
  fs::create_directory(dir);
  const std::string conf = Config(t, dir);
  const std::string base = t.Write("base.ldif", kBase);
  RunResult loaded = RunDirload({"add", "-f", conf, "-l", base});
  REQUIRE_MESSAGE(loaded.exit_code == 0, loaded.Describe());

  std::optional<EnvironmentHold> hold;
  {
    Result<EnvironmentHold> taken = EnvironmentHold::Acquire(dir);
    REQUIRE_MESSAGE(taken.ok(), taken.status().message());
    hold.emplace(std::move(*taken));
  }
  testing::ChildProcess slapcat;
  std::string error;
  REQUIRE_MESSAGE(slapcat.Start({testing::FindProgram("slapcat"), "-f", conf},
                                t.File("slapcat.out"), t.File("slapcat.err"), &error),
                  error);
  testing::SleepSeconds(1.0);
  CHECK(slapcat.Running());  // waiting in mdb_env_open
  hold.reset();
  testing::ProcessResult done;
  slapcat.Wait(30, &done);
  auto read = [&](const std::string& name) {
    std::ifstream in(t.File(name));
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  CHECK_MESSAGE(done.exit_code == 0, read("slapcat.err"));
  const std::string out = read("slapcat.out");
  CHECK(out.find("dn: ou=people,dc=example,dc=com") != std::string::npos);
  // Nobody has the environment open any more.
  Result<std::optional<std::string>> user = LmdbEnvironmentUser(dir);
  REQUIRE(user.ok());
  CHECK_FALSE(user->has_value());
}

// The process holding DIR/lock.mdb's first byte in a way that conflicts
// with a lock of `type`: F_WRLCK finds any user of the environment, F_RDLCK
// only one that holds it exclusively (dirload's EnvironmentHold).
std::optional<std::string> LockHolder(const std::string& dir, short type) {
  const int fd = ::open((dir + "/lock.mdb").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct flock l {};
  l.l_type = type;
  l.l_whence = SEEK_SET;
  l.l_start = 0;
  l.l_len = 1;
  const bool asked = ::fcntl(fd, F_GETLK, &l) == 0;
  ::close(fd);
  if (!asked || l.l_type == F_UNLCK) return std::nullopt;
  return testing::ReadFile("/proc/" + std::to_string(l.l_pid) + "/comm");
}

// Waits until `program` has DIR's environment open (held exclusively when
// `exclusively`), while `child` runs. dirload opens the environment briefly
// to learn its format and plan before it takes the exclusive hold; an LMDB
// user started in that moment is one dirload rightly refuses, so the test
// waits for the hold itself. LMDB's own open holds the byte exclusively for
// an instant too: the hold must still be there a little later.
bool SeenHolding(const std::string& dir, const std::string& program, testing::ChildProcess* child,
                 bool exclusively) {
  auto holding = [&] {
    std::optional<std::string> name = LockHolder(dir, exclusively ? F_RDLCK : F_WRLCK);
    return name && name->rfind(program, 0) == 0;
  };
  for (int i = 0; i < 5000 && child->Running(); ++i) {
    if (holding()) {
      if (!exclusively) return true;
      testing::SleepSeconds(0.02);
      if (holding()) return true;
    }
    testing::SleepSeconds(0.002);
  }
  return false;
}

TEST_CASE("an LMDB user that starts during `dirload index` waits and reads the rebuilt file") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  DIRLOAD_SKIP_UNLESS_OPENLDAP("slapcat");
  TempDir t;
  const std::string dir = t.File("db");
  fs::create_directory(dir);
  const std::string conf = Config(t, dir);
  // Enough entries that the rebuild lasts long enough to be caught.
  std::string ldif = kBase;
  for (int i = 0; i < 30000; ++i) {
    const std::string n = std::to_string(i);
    ldif += "dn: uid=p" + n + ",ou=people,dc=example,dc=com\nobjectClass: inetOrgPerson\nuid: p" +
            n + "\ncn: Person " + n + "\nsn: S" + n + "\n\n";
  }
  RunResult loaded = RunDirload({"add", "-f", conf, "-l", t.Write("base.ldif", ldif)});
  REQUIRE_MESSAGE(loaded.exit_code == 0, loaded.Describe());
  const std::string before = RunDirload({"cat", "-f", conf}).out;

  testing::ChildProcess index;
  std::string error;
  REQUIRE_MESSAGE(
      index.Start({testing::DirloadPath(), "index", "-f", conf, "--all", "--progress", "never"},
                  t.File("index.out"), t.File("index.err"), &error),
      error);
  // Wait until the rebuild holds the environment exclusively (its copy
  // and rebuild take a while), then start slapcat.
  REQUIRE_MESSAGE(SeenHolding(dir, "dirload", &index, true),
                  "the rebuild ended before it was seen holding the environment");
  testing::ChildProcess slapcat;
  REQUIRE_MESSAGE(slapcat.Start({testing::FindProgram("slapcat"), "-f", conf},
                                t.File("slapcat.out"), t.File("slapcat.err"), &error),
                  error);
  // Still rebuilding a moment later: slapcat waits in mdb_env_open.
  testing::SleepSeconds(0.2);
  if (index.Running()) CHECK(slapcat.Running());
  testing::ProcessResult indexed, catted;
  index.Wait(120, &indexed);
  CHECK_MESSAGE(indexed.exit_code == 0, testing::ReadFile(t.File("index.err")));
  slapcat.Wait(60, &catted);
  CHECK(catted.exit_code == 0);
  std::ifstream in(t.File("slapcat.out"));
  const std::string out((std::istreambuf_iterator<char>(in)), {});
  // slapcat waited for the install: it read the file that is there now,
  // whole; the old one is gone and the build directory with it.
  CHECK(out.find("dn: uid=p29999,ou=people,dc=example,dc=com") != std::string::npos);
  CHECK(RunDirload({"cat", "-f", conf}).out == before);
  CHECK_FALSE(fs::exists(dir + "/.dirload-build"));
  struct stat st {};
  REQUIRE(::stat((dir + "/data.mdb").c_str(), &st) == 0);
  CHECK(st.st_nlink == 1);
}

// Entries below ou=OU: uid=PREFIX0 ... uid=PREFIX(N-1).
std::string People(const std::string& ou, const std::string& prefix, int n) {
  std::string ldif;
  for (int i = 0; i < n; ++i) {
    const std::string uid = prefix + std::to_string(i);
    ldif += "dn: uid=" + uid + ",ou=" + ou +
            ",dc=example,dc=com\nobjectClass: inetOrgPerson\nuid: " + uid + "\ncn: " + uid +
            "\nsn: " + uid + "\n\n";
  }
  return ldif;
}

TEST_CASE("slapadd beside dirload add: the second waits or is refused, neither loses entries") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  DIRLOAD_SKIP_UNLESS_OPENLDAP("slapadd", "slapcat");
  TempDir t;
  const std::string dir = t.File("db");
  fs::create_directory(dir);
  const std::string conf = Config(t, dir);
  std::string base = kBase;
  for (const char* ou : {"a", "b", "c", "d"}) {
    base += std::string("dn: ou=") + ou +
            ",dc=example,dc=com\nobjectClass: organizationalUnit\nou: " + ou + "\n\n";
  }
  RunResult loaded = RunDirload({"add", "-f", conf, "-l", t.Write("base.ldif", base)});
  REQUIRE_MESSAGE(loaded.exit_code == 0, loaded.Describe());
  auto count = [&] {
    RunResult cat = RunDirload({"cat", "-f", conf});
    REQUIRE_MESSAGE(cat.exit_code == 0, cat.Describe());
    size_t n = 0;
    for (size_t p = cat.out.find("dn: "); p != std::string::npos; p = cat.out.find("\ndn: ", p + 1))
      ++n;
    return n;
  };
  const size_t base_entries = count();
  std::string error;

  // slapadd first, reading its input from a pipe kept open, so that it has
  // the environment open for as long as the test wants: dirload refuses,
  // naming it; once slapadd is done, dirload goes through.
  const std::string fifo = t.File("a.fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  testing::ChildProcess slapadd;
  REQUIRE_MESSAGE(slapadd.Start({testing::FindProgram("slapadd"), "-f", conf, "-l", fifo},
                                t.File("slapadd.out"), t.File("slapadd.err"), &error),
                  error);
  const std::string a = People("a", "a", 400);
  const size_t half = a.find("dn: uid=a200,");
  {
    std::ofstream feed(fifo);  // opens once slapadd opens its end
    feed << a.substr(0, half) << std::flush;
    REQUIRE_MESSAGE(SeenHolding(dir, "slapadd", &slapadd, false),
                    "slapadd ended before it was seen");
    const std::string b = t.Write("b.ldif", People("b", "b", 50));
    RunResult refused = RunDirload({"add", "-f", conf, "-l", b, "--progress", "never"});
    CHECK_MESSAGE(refused.exit_code == 3, refused.Describe());
    CHECK_MESSAGE(refused.err.find("(slapadd)") != std::string::npos, refused.err);
    feed << a.substr(half);
  }
  testing::ProcessResult done;
  slapadd.Wait(300, &done);
  REQUIRE_MESSAGE(done.exit_code == 0, testing::ReadFile(t.File("slapadd.err")));
  const std::string b = t.File("b.ldif");
  RunResult appended = RunDirload({"add", "-f", conf, "-l", b, "--progress", "never"});
  CHECK_MESSAGE(appended.exit_code == 0, appended.Describe());
  CHECK(count() == base_entries + 400 + 50);

  // dirload first: a slapadd started meanwhile waits for its install, then
  // adds to the new file.
  testing::ChildProcess add;
  REQUIRE_MESSAGE(add.Start({testing::DirloadPath(), "add", "-f", conf, "-l",
                             t.Write("c.ldif", People("c", "c", 30000)), "--progress", "never"},
                            t.File("add.out"), t.File("add.err"), &error),
                  error);
  REQUIRE_MESSAGE(SeenHolding(dir, "dirload", &add, true),
                  "dirload ended before it was seen holding");
  testing::ChildProcess late;
  REQUIRE_MESSAGE(late.Start({testing::FindProgram("slapadd"), "-f", conf, "-l",
                              t.Write("d.ldif", People("d", "d", 20))},
                             t.File("late.out"), t.File("late.err"), &error),
                  error);
  testing::ProcessResult added, late_done;
  add.Wait(300, &added);
  CHECK_MESSAGE(added.exit_code == 0, testing::ReadFile(t.File("add.err")));
  late.Wait(300, &late_done);
  CHECK_MESSAGE(late_done.exit_code == 0, testing::ReadFile(t.File("late.err")));
  CHECK(count() == base_entries + 400 + 50 + 30000 + 20);
}

}  // namespace
}  // namespace dirload
