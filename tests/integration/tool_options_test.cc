// The slapadd/slapcat/slapindex options people type, and the exit statuses
// scripts rely on (0 ok, 1 bad input, 2 usage or configuration, 3 database
// refused, 4 storage), through the real binary. Where slapcat is installed,
// cat's folding and URL scopes are compared with its output on the same data.
#include <doctest/doctest.h>
#include <zlib.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "tests/integration/dirload_process.h"
#include "tests/support/child_process.h"
#include "tests/support/openldap.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

namespace fs = std::filesystem;
using testing::RunDirload;
using testing::RunResult;
using testing::TempDir;

constexpr char kSuffix[] = "dc=example,dc=com";

// A small tree of 21 lines; one value is long enough to fold at every width
// tested.
constexpr char kLdif[] =
    "dn: dc=example,dc=com\n"
    "objectClass: dcObject\n"
    "objectClass: organization\n"
    "o: Example\n"
    "dc: example\n"
    "description: aaaaaaaaaabbbbbbbbbbccccccccccddddddddddeeeeeeeeeeffffffffffgggggggggg"
    "hhhhhhhhhhiiiiiiiiiijjjjjjjjjj\n"
    "\n"
    "dn: ou=People,dc=example,dc=com\n"
    "objectClass: organizationalUnit\n"
    "ou: People\n"
    "\n"
    "dn: uid=ann,ou=People,dc=example,dc=com\n"
    "objectClass: inetOrgPerson\n"
    "uid: ann\n"
    "cn: Ann Smith\n"
    "sn: Smith\n"
    "\n"
    "dn: ou=Groups,dc=example,dc=com\n"
    "objectClass: organizationalUnit\n"
    "ou: Groups\n"
    "\n";

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::vector<std::string> Dns(const std::string& ldif) {
  std::vector<std::string> out;
  for (const std::string& l : Lines(ldif)) {
    if (l.rfind("dn: ", 0) == 0) out.push_back(l.substr(4));
  }
  return out;
}

struct Loaded {
  TempDir dir;
  std::string db = dir.File("db");
  std::string ldif = dir.Write("in.ldif", kLdif);
};

void Load(const Loaded& l, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"add", "--db", l.db, "--suffix", kSuffix, "-l", l.ldif};
  args.insert(args.end(), extra.begin(), extra.end());
  RunResult r = RunDirload(args);
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
}

TEST_CASE("exit status 2: configuration errors") {
  REQUIRE(testing::DirloadMissing().empty());
  TempDir t;
  std::string ldif = t.Write("in.ldif", kLdif);
  SUBCASE("a missing slapd.conf") {
    RunResult r = RunDirload({"add", "-f", t.File("nope.conf"), "-l", ldif});
    CHECK_MESSAGE(r.exit_code == 2, r.Describe());
    CHECK(r.err.find("nope.conf") != std::string::npos);
  }
  SUBCASE("-f naming a directory") {
    fs::create_directories(t.File("slapd.d"));
    RunResult r = RunDirload({"add", "-f", t.File("slapd.d"), "-l", ldif});
    CHECK_MESSAGE(r.exit_code == 2, r.Describe());
  }
  SUBCASE("a bad --index line") {
    RunResult r = RunDirload(
        {"add", "--db", t.File("db"), "--suffix", kSuffix, "-l", ldif, "--index", "cn frobnicate"});
    CHECK_MESSAGE(r.exit_code == 2, r.Describe());
  }
  SUBCASE("an index line in slapd.conf naming an unknown attribute") {
    std::string conf = t.Write("slapd.conf",
                               "database mdb\nsuffix \"dc=example,dc=com\"\n"
                               "directory " +
                                   t.File("db") + "\nindex noSuchAttribute eq\n");
    RunResult r = RunDirload({"add", "-f", conf, "-l", ldif});
    CHECK_MESSAGE(r.exit_code == 2, r.Describe());
    CHECK(r.err.find("slapd.conf:4") != std::string::npos);
  }
  SUBCASE("an unknown -o option and a bad debug level") {
    RunResult o =
        RunDirload({"add", "--db", t.File("db"), "--suffix", kSuffix, "-l", ldif, "-o", "frob=1"});
    CHECK_MESSAGE(o.exit_code == 2, o.Describe());
    CHECK(o.err.find("frob") != std::string::npos);
    RunResult d =
        RunDirload({"add", "--db", t.File("db"), "--suffix", kSuffix, "-l", ldif, "-d", "chatty"});
    CHECK_MESSAGE(d.exit_code == 2, d.Describe());
    CHECK(!fs::exists(t.File("db")));
  }
}

TEST_CASE("exit status 1: bad input, including a corrupt gzip stream") {
  REQUIRE(testing::DirloadMissing().empty());
  TempDir t;
  SUBCASE("corrupt gzip") {
    // A valid gzip header and then garbage: inflate fails on the data.
    std::string bytes = "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03";
    bytes += std::string(200, '\xff');
    std::string gz = t.Write("bad.ldif.gz", bytes);
    RunResult r = RunDirload({"add", "--db", t.File("db"), "--suffix", kSuffix, "-l", gz});
    CHECK_MESSAGE(r.exit_code == 1, r.Describe());
    CHECK(r.err.find("gzip") != std::string::npos);
  }
  SUBCASE("a record that is not valid LDIF") {
    std::string bad = t.Write("bad.ldif", std::string(kLdif) +
                                              "dn: cn=x,dc=example,dc=com\n"
                                              "objectClass person\n\n");
    RunResult r = RunDirload({"add", "--db", t.File("db"), "--suffix", kSuffix, "-l", bad});
    CHECK_MESSAGE(r.exit_code == 1, r.Describe());
    CHECK(r.err.find("bad.ldif:") != std::string::npos);
  }
}

TEST_CASE("exit status 3: a database that is not there or not complete") {
  REQUIRE(testing::DirloadMissing().empty());
  TempDir t;
  fs::create_directories(t.File("empty"));
  RunResult r = RunDirload({"cat", "--db", t.File("empty")});
  CHECK_MESSAGE(r.exit_code == 3, r.Describe());
}

TEST_CASE("exit status 4: storage that cannot be written") {
  REQUIRE(testing::DirloadMissing().empty());
  TempDir t;
  std::string ldif = t.Write("in.ldif", kLdif);
  std::string file = t.Write("plain-file", "x");
  RunResult r = RunDirload({"add", "--db", file + "/db", "--suffix", kSuffix, "-l", ldif});
  CHECK_MESSAGE(r.exit_code == 4, r.Describe());
}

TEST_CASE("-c without a reject file names each rejected record's line and reason on stderr") {
  REQUIRE(testing::DirloadMissing().empty());
  TempDir t;
  std::string ldif = t.Write("in.ldif", std::string(kLdif) +
                                            "dn: cn=orphan,ou=Nowhere,o=elsewhere\n"
                                            "objectClass: person\ncn: orphan\nsn: o\n\n"
                                            "dn: uid=bob,ou=People,dc=example,dc=com\n"
                                            "objectClass: inetOrgPerson\nuid: bob\ncn: Bob\n\n");
  RunResult r = RunDirload({"add", "--db", t.File("db"), "--suffix", kSuffix, "-l", ldif, "-c"});
  CHECK_MESSAGE(r.exit_code == 1, r.Describe());
  // Line 22 starts the record outside the suffix, line 27 the one without sn.
  CHECK_MESSAGE(r.err.find("in.ldif:22:") != std::string::npos, r.err);
  CHECK(r.err.find("suffix") != std::string::npos);
  CHECK_MESSAGE(r.err.find("in.ldif:27:") != std::string::npos, r.err);
  CHECK(r.err.find("'sn'") != std::string::npos);
  RunResult cat = RunDirload({"cat", "--db", t.File("db")});
  REQUIRE_MESSAGE(cat.exit_code == 0, cat.Describe());
  CHECK(Dns(cat.out).size() == 4);
}

// OpenLDAP's test scripts run `slapadd -f ./testrun/slapd.1.conf` from the
// tests directory, the file naming `./schema/...` and `./testrun/db.1.a`:
// slapd and slapadd open those relative to the current directory, and so
// does dirload, whichever directory the configuration file is in.
TEST_CASE("relative paths in slapd.conf are the current directory's, as slapadd takes them") {
  REQUIRE(testing::DirloadMissing().empty());
  DIRLOAD_SKIP_UNLESS_OPENLDAP("slapadd", "slapcat");
  TempDir t;
  fs::create_directories(t.File("testrun/db.1.a"));
  fs::create_directories(t.File("testrun/db.2.a"));
  fs::create_directories(t.File("schema"));
  fs::copy_file("/etc/ldap/schema/core.schema", t.File("schema/core.schema"));
  fs::copy_file("/etc/ldap/schema/cosine.schema", t.File("schema/cosine.schema"));
  fs::copy_file("/etc/ldap/schema/inetorgperson.schema", t.File("schema/inetorgperson.schema"));
  auto conf = [&](const std::string& name, const std::string& db) {
    return t.Write("testrun/" + name,
                   "include ./schema/core.schema\ninclude ./schema/cosine.schema\n"
                   "include ./schema/inetorgperson.schema\n"
                   "modulepath /usr/lib/ldap\nmoduleload back_mdb\n"
                   "database mdb\nsuffix dc=example,dc=com\ndirectory ./testrun/" +
                       db + "\nmaxsize 33554432\nindex objectClass eq\n");
  };
  conf("slapd.1.conf", "db.1.a");
  conf("slapd.2.conf", "db.2.a");
  const std::string ldif = t.Write("in.ldif", kLdif);
  const testing::InDirectory here(t.path());
  testing::ProcessResult theirs =
      testing::RunSlapadd({"-q", "-f", "./testrun/slapd.1.conf", "-l", ldif});
  REQUIRE_MESSAGE(theirs.exit_code == 0, theirs.Describe());
  RunResult mine = RunDirload({"add", "-q", "-f", "./testrun/slapd.2.conf", "-l", ldif});
  REQUIRE_MESSAGE(mine.exit_code == 0, mine.Describe());
  CHECK(fs::exists(t.File("testrun/db.1.a/data.mdb")));
  CHECK(fs::exists(t.File("testrun/db.2.a/data.mdb")));
  CHECK_FALSE(fs::exists(t.File("testrun/testrun")));
  RunResult cat = RunDirload({"cat", "-f", "./testrun/slapd.2.conf"});
  REQUIRE_MESSAGE(cat.exit_code == 0, cat.Describe());
  CHECK(Dns(cat.out).size() == 4);
}

TEST_CASE("-d is slapadd's debug level, never a directory") {
  REQUIRE(testing::DirloadMissing().empty());
  Loaded l;
  fs::current_path(l.dir.path());
  Load(l, {"-d", "256"});
  CHECK(!fs::exists(l.dir.File("256")));
  RunResult cat = RunDirload({"cat", "--db", l.db, "-d", "stats", "-d", "0x4"});
  CHECK_MESSAGE(cat.exit_code == 0, cat.Describe());
  CHECK(Dns(cat.out).size() == 4);
}

TEST_CASE("add -o schema-check=no is -s; value-check and -g are accepted") {
  REQUIRE(testing::DirloadMissing().empty());
  TempDir t;
  // `frobnitz` is in no schema: refused with the schema check, loaded without.
  std::string ldif = t.Write("in.ldif", std::string(kLdif) +
                                            "dn: cn=odd,dc=example,dc=com\n"
                                            "objectClass: device\ncn: odd\nfrobnitz: 1\n\n");
  RunResult checked = RunDirload({"add", "--db", t.File("a"), "--suffix", kSuffix, "-l", ldif});
  CHECK_MESSAGE(checked.exit_code == 1, checked.Describe());
  RunResult unchecked = RunDirload({"add", "--db", t.File("b"), "--suffix", kSuffix, "-l", ldif,
                                    "-o", "schema-check=no", "-o", "value-check=yes", "-g"});
  CHECK_MESSAGE(unchecked.exit_code == 0, unchecked.Describe());
}

TEST_CASE("cat -o ldif-wrap folds at the width asked, and 'no' does not fold") {
  REQUIRE(testing::DirloadMissing().empty());
  Loaded l;
  Load(l);
  for (std::string width : {"40", "10", "78"}) {
    CAPTURE(width);
    RunResult r = RunDirload({"cat", "--db", l.db, "-o", "ldif-wrap=" + width});
    REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
    size_t w = std::stoul(width);
    bool folded = false;
    for (const std::string& line : Lines(r.out)) {
      // A description and its colon are never split, as in slapcat.
      size_t head = line.find(':');
      if (head != std::string::npos) {
        ++head;
        if (head < line.size() && line[head] == ':') ++head;
        if (head < line.size() && line[head] == ' ') ++head;
      }
      size_t limit = line[0] == ' ' || head == std::string::npos ? w : std::max(w, head);
      CHECK_MESSAGE(line.size() <= limit, line);
      folded |= line[0] == ' ';
    }
    CHECK(folded);
  }
  RunResult no = RunDirload({"cat", "--db", l.db, "-o", "ldif_wrap=no"});
  REQUIRE_MESSAGE(no.exit_code == 0, no.Describe());
  for (const std::string& line : Lines(no.out)) CHECK(line[0] != ' ');
  RunResult bad = RunDirload({"cat", "--db", l.db, "-o", "ldif-wrap=abc"});
  CHECK_MESSAGE(bad.exit_code == 2, bad.Describe());
}

TEST_CASE("cat -s and -H select entries as slapcat does") {
  REQUIRE(testing::DirloadMissing().empty());
  Loaded l;
  Load(l);
  auto dns = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"cat", "--db", l.db};
    args.insert(args.end(), extra.begin(), extra.end());
    RunResult r = RunDirload(args);
    REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
    return Dns(r.out);
  };
  using V = std::vector<std::string>;
  CHECK(dns({"-s", "ou=People,dc=example,dc=com"}) ==
        V{"ou=People,dc=example,dc=com", "uid=ann,ou=People,dc=example,dc=com"});
  CHECK(dns({"-H", "ldap:///dc=example,dc=com??one"}) ==
        V{"ou=People,dc=example,dc=com", "ou=Groups,dc=example,dc=com"});
  // No base: the suffix; no scope: the subtree; a percent-encoded filter.
  CHECK(dns({"-H", "ldap:///???%28ou=groups%29"}) == V{"ou=Groups,dc=example,dc=com"});
  CHECK(dns({"-H", "ldap:///dc=example,dc=com??base"}) == V{"dc=example,dc=com"});
  // children (also "subordinate"): the subtree without its base.
  CHECK(dns({"-H", "ldap:///ou=People,dc=example,dc=com??children"}) ==
        V{"uid=ann,ou=People,dc=example,dc=com"});
  CHECK(dns({"-H", "ldap:///dc=example,dc=com??subordinate?(objectClass=organizationalUnit)"}) ==
        V{"ou=People,dc=example,dc=com", "ou=Groups,dc=example,dc=com"});
  // -a wins over the URL's filter, as in slapcat.
  CHECK(dns({"-H", "ldap:///dc=example,dc=com??sub?(ou=*)", "-a", "(uid=ann)"}) ==
        V{"uid=ann,ou=People,dc=example,dc=com"});
  for (const char* bad : {"ldap://host/dc=example,dc=com", "ldap:///dc=example,dc=com?cn",
                          "http:///x", "ldap:///dc=example,dc=com??sideways"}) {
    CAPTURE(bad);
    RunResult r = RunDirload({"cat", "--db", l.db, "-H", bad});
    CHECK_MESSAGE(r.exit_code == 2, r.Describe());
  }
}

TEST_CASE("index takes slapindex's -q and -t and says what they mean here") {
  REQUIRE(testing::DirloadMissing().empty());
  Loaded l;
  Load(l, {"--index", "cn eq"});
  RunResult r = RunDirload({"index", "--db", l.db, "--all", "-q", "-t"});
  CHECK_MESSAGE(r.exit_code == 0, r.Describe());
  CHECK(r.err.find("-q") != std::string::npos);
  CHECK(r.err.find("-t") != std::string::npos);
}

}  // namespace
}  // namespace dirload
