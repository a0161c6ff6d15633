// End-to-end tests of database selection from a configuration: `dirload add`
// and `dirload cat` with -F (a slapd.d written by slaptest) and -f (the
// slapd.conf it came from), two mdb databases, -b and -n choosing between
// them, and the exit status of configuration errors (2).
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/integration/dirload_process.h"
#include "tests/support/openldap.h"
#include "tests/support/slapd_conf.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

namespace fs = std::filesystem;
using testing::RunDirload;
using testing::RunResult;
using testing::TempDir;

std::string ConfText(const TempDir& dir) {
  return testing::SlapdConf()
      .Include({"core", "cosine", "inetorgperson"})
      .ModulePath("/usr/lib/ldap")
      .ModuleLoad("back_mdb")
      .Database("mdb")
      .Suffix("dc=example,dc=org")
      .Directory(dir.File("db1"))
      .Index("objectClass eq")
      .Database("mdb")
      .Suffix("dc=example,dc=com")
      .Directory(dir.File("db2"))
      .Index("uid eq")
      .Text();
}

constexpr char kComLdif[] =
    "dn: dc=example,dc=com\nobjectClass: dcObject\nobjectClass: organization\n"
    "dc: example\no: Example\n\n"
    "dn: uid=u1,dc=example,dc=com\nobjectClass: inetOrgPerson\nuid: u1\ncn: U One\n"
    "sn: One\n";

// slapd.conf in `dir`, and dir/slapd.d written from it by slaptest. Returns
// why not when slaptest is missing.
std::string MakeConfig(const TempDir& dir) {
  for (const char* d : {"db1", "db2", "slapd.d"}) fs::create_directories(dir.File(d));
  dir.Write("slapd.conf", ConfText(dir));
  if (testing::FindProgram("slaptest").empty()) return "slaptest is not installed";
  // slaptest writes slapd.d and then fails to open the empty databases.
  testing::ProcessResult r =
      testing::RunSlaptest({"-f", dir.File("slapd.conf"), "-F", dir.File("slapd.d")}, 60);
  REQUIRE_MESSAGE(fs::exists(dir.File("slapd.d/cn=config/olcDatabase={2}mdb.ldif")), r.Describe());
  return "";
}

bool HasData(const std::string& dir) { return fs::exists(dir) && !fs::is_empty(dir); }

TEST_CASE("dirload add -F DIR -b SUFFIX loads into the database holding the suffix") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir dir;
  std::string skip = MakeConfig(dir);
  if (!skip.empty()) {
    MESSAGE("skipped: " << skip);
    return;
  }
  std::string ldif = dir.Write("com.ldif", kComLdif);
  RunResult add =
      RunDirload({"add", "-F", dir.File("slapd.d"), "-b", "dc=example,dc=com", "-l", ldif, "-q"});
  REQUIRE_MESSAGE(add.exit_code == 0, add.Describe());
  CHECK(HasData(dir.File("db2")));
  CHECK_FALSE(HasData(dir.File("db1")));

  // Reading back: -b below the suffix and -n 2 pick the same database, with
  // -F and with -f.
  for (std::vector<std::string> select :
       {std::vector<std::string>{"-F", dir.File("slapd.d"), "-b", "uid=u1,DC=Example,dc=com"},
        std::vector<std::string>{"-F", dir.File("slapd.d"), "-n", "2"},
        std::vector<std::string>{"-f", dir.File("slapd.conf"), "-n", "2"}}) {
    std::vector<std::string> args = {"cat"};
    args.insert(args.end(), select.begin(), select.end());
    RunResult cat = RunDirload(args);
    REQUIRE_MESSAGE(cat.exit_code == 0, cat.Describe());
    CHECK(cat.out.find("dn: uid=u1,dc=example,dc=com") != std::string::npos);
  }
  // The first database has not been loaded: cat refuses it.
  RunResult first = RunDirload({"cat", "-F", dir.File("slapd.d"), "-n", "1"});
  CHECK(first.exit_code != 0);
  CHECK(first.out.find("uid=u1") == std::string::npos);
}

TEST_CASE("index, search and stat with -F and -b/-n act on the database -f names") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir dir;
  std::string skip = MakeConfig(dir);
  if (!skip.empty()) {
    MESSAGE("skipped: " << skip);
    return;
  }
  std::string ldif = dir.Write("com.ldif", kComLdif);
  RunResult add = RunDirload({"add", "-F", dir.File("slapd.d"), "-n", "2", "-l", ldif});
  REQUIRE_MESSAGE(add.exit_code == 0, add.Describe());
  // The configuration says `database mdb`: slapd's own format, which
  // slapcat reads through the same slapd.d.
  if (!testing::FindProgram("slapcat").empty()) {
    testing::ProcessResult sc =
        testing::RunSlapcat({"-F", dir.File("slapd.d"), "-b", "dc=example,dc=com"}, 60);
    REQUIRE_MESSAGE(sc.exit_code == 0, sc.Describe());
    RunResult cat = RunDirload({"cat", "-F", dir.File("slapd.d"), "-b", "dc=example,dc=com"});
    REQUIRE_MESSAGE(cat.exit_code == 0, cat.Describe());
    CHECK(cat.out == sc.out);
  }
  const std::vector<std::vector<std::string>> selections = {
      {"-F", dir.File("slapd.d"), "-n", "2"},
      {"-F", dir.File("slapd.d"), "-b", "dc=example,dc=com"},
      {"-f", dir.File("slapd.conf"), "-n", "2"},
      {"-f", dir.File("slapd.conf"), "-b", "dc=example,dc=com"}};
  std::vector<std::string> outputs;
  for (const auto& select : selections) {
    CAPTURE(select[0]);
    CAPTURE(select[2]);
    std::vector<std::string> index = {"index"};
    index.insert(index.end(), select.begin(), select.end());
    RunResult ix = RunDirload(index);
    CHECK_MESSAGE(ix.exit_code == 0, ix.Describe());
    // search takes -b as its base, which also picks the database.
    std::vector<std::string> search = {"search", select[0], select[1]};
    if (select[2] == "-n") {
      search.insert(search.end(), {"-n", "2"});
    } else {
      search.insert(search.end(), {"-b", "dc=example,dc=com"});
    }
    search.insert(search.end(), {"--dn", "(uid=u1)"});
    RunResult found = RunDirload(search);
    REQUIRE_MESSAGE(found.exit_code == 0, found.Describe());
    CHECK(found.out.find("uid=u1,dc=example,dc=com") != std::string::npos);
    outputs.push_back(found.out);
    std::vector<std::string> stat = {"stat", select[0], select[1]};
    if (select[2] == "-n") stat.insert(stat.end(), {"-n", "2"});
    if (select[2] == "-b") stat.insert(stat.end(), {"-n", "2"});
    RunResult st = RunDirload(stat);
    CHECK_MESSAGE(st.exit_code == 0, st.Describe());
    CHECK(st.out.find("uid") != std::string::npos);
  }
  for (const std::string& o : outputs) CHECK(o == outputs[0]);
  // The other database was never loaded: search there finds no database.
  RunResult other = RunDirload({"search", "-F", dir.File("slapd.d"), "-n", "1", "(uid=u1)"});
  CHECK(other.exit_code != 0);
}

TEST_CASE("configuration errors exit with status 2") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir dir;
  for (const char* d : {"db1", "db2"}) fs::create_directories(dir.File(d));
  std::string conf = dir.Write("slapd.conf", ConfText(dir));
  std::string ldif = dir.Write("com.ldif", kComLdif);
  std::string bad_index =
      dir.Write("bad.conf", "database mdb\nsuffix dc=example,dc=com\ndirectory " + dir.File("db3") +
                                "\nindex nosuchattr eq\n");
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"-f", dir.path().string()}, "is a directory"},
      {{"-f", dir.File("nothere.conf")}, "nothere.conf"},
      {{"-F", dir.File("nothere.d")}, "nothere.d"},
      {{"-f", bad_index}, "bad.conf:4"},
      {{"-f", conf, "-F", dir.path().string()}, "cannot be used together"},
      {{"-f", conf, "-b", "dc=nowhere"}, "the suffixes there are"},
      {{"-f", conf, "-n", "7"}, "no such database"},
      {{"-f", conf, "-n", "0"}, "config"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"add"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    args.insert(args.end(), {"-l", ldif});
    RunResult r = RunDirload(args);
    CAPTURE(r.Describe());
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(c.says) != std::string::npos);
  }
  CHECK_FALSE(HasData(dir.File("db1")));
  CHECK_FALSE(HasData(dir.File("db2")));
}

// slapadd refuses a directive slapd 2.5 does not know, naming the line
// ("slapd.conf: line 12: unknown directive <frobnicate> inside backend
// database definition."); so does dirload, exit 2, before it reads any
// entry. A cn=config attribute slapd does not define likewise.
TEST_CASE("config oracle: an unknown directive or olc attribute is refused as slapadd refuses it") {
  TempDir dir;
  for (const char* d : {"db1", "db2", "slapd.d"}) fs::create_directories(dir.File(d));
  const std::string ldif = dir.Write("com.ldif", kComLdif);
  const std::string text = ConfText(dir);
  const int lines = static_cast<int>(std::count(text.begin(), text.end(), '\n'));
  const std::string conf = dir.Write("bad.conf", text + "frobnicate yes\n");
  const std::string line =
      "bad.conf:" + std::to_string(lines + 1) + ": unknown directive <frobnicate>";
  RunResult add = RunDirload({"add", "-f", conf, "-b", "dc=example,dc=com", "-l", ldif});
  CHECK_MESSAGE(add.exit_code == 2, add.Describe());
  CHECK_MESSAGE(add.err.find(line) != std::string::npos, add.err);
  CHECK(add.err.find("phase 1") == std::string::npos);
  CHECK_FALSE(HasData(dir.File("db2")));
  if (!testing::FindProgram("slapadd").empty()) {
    testing::ProcessResult sa = testing::RunSlapadd({"-f", conf, "-u", "-l", ldif}, 60);
    CHECK(sa.exit_code != 0);
    CHECK_MESSAGE(sa.err.find("line " + std::to_string(lines + 1) +
                              ": unknown directive <frobnicate>") != std::string::npos,
                  sa.Describe());
  }
  // The same configuration without the bad line, as slapd.d, with an olc
  // attribute slapd does not define.
  dir.Write("slapd.conf", text);
  if (testing::FindProgram("slaptest").empty()) return;
  testing::RunSlaptest({"-f", dir.File("slapd.conf"), "-F", dir.File("slapd.d")}, 60);
  const std::string mdb = dir.File("slapd.d/cn=config/olcDatabase={2}mdb.ldif");
  REQUIRE(fs::exists(mdb));
  std::string entry = testing::ReadFile(mdb);
  entry += "olcFrobnicate: yes\n";
  dir.Write("slapd.d/cn=config/olcDatabase={2}mdb.ldif", entry);
  add = RunDirload({"add", "-F", dir.File("slapd.d"), "-b", "dc=example,dc=com", "-l", ldif});
  CHECK_MESSAGE(add.exit_code == 2, add.Describe());
  CHECK_MESSAGE(add.err.find("attribute type 'olcFrobnicate' is undefined") != std::string::npos,
                add.err);
  testing::ProcessResult sa =
      testing::RunSlapadd({"-F", dir.File("slapd.d"), "-u", "-l", ldif}, 60);
  CHECK(sa.exit_code != 0);
  CHECK_MESSAGE(sa.err.find("str2ad(olcFrobnicate): attribute type undefined") != std::string::npos,
                sa.Describe());
}

// Index lines are checked before phase 1: one the format cannot build stops
// the run before any entry is read.
TEST_CASE("an index slapd's format cannot build is refused before phase 1") {
  TempDir dir;
  fs::create_directories(dir.File("db"));
  const std::string conf = dir.Write("slapd.conf", testing::SlapdConf()
                                                       .Include({"core", "cosine", "inetorgperson"})
                                                       .ModuleLoad("back_mdb")
                                                       .Database("mdb")
                                                       .Suffix("dc=example,dc=com")
                                                       .Directory(dir.File("db"))
                                                       .Index("cn subinitial")
                                                       .Text());
  const std::string ldif = dir.Write("com.ldif", kComLdif);
  RunResult add = RunDirload({"add", "-f", conf, "-l", ldif, "--progress", "never"});
  CHECK_MESSAGE(add.exit_code == 2, add.Describe());
  CHECK_MESSAGE(add.err.find("slapd.conf:") != std::string::npos, add.err);
  CHECK_MESSAGE(add.err.find("phase 1") == std::string::npos, add.err);
}

}  // namespace
}  // namespace dirload
