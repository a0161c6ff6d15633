// dirload add --online and index --online beside a running slapd and a
// client writing through it (bench/dirload-ldap-writer): every write slapd
// acknowledged is there after slapd restarts, slapd serves the appended
// entries before it, ad2i numbers keep one meaning each, the indexes are
// slapindex's (slapindex -q -t on a copy changes nothing), and a kill
// leaves whole batches that `dirload recover` reports and -j continues.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/integration/dirload_process.h"
#include "tests/integration/slapd_server.h"
#include "tests/support/child_process.h"
#include "tests/support/mdb_dump.h"
#include "tests/support/openldap.h"
#include "tests/support/slapd_conf.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

namespace fs = std::filesystem;
using testing::RunDirload;
using testing::RunResult;
using testing::TempDir;

constexpr char kRootPw[] = "secret";
constexpr char kPeople[] = "ou=people,dc=example,dc=com";

std::string WriterPath() {
  return (fs::path(testing::DirloadPath()).parent_path().parent_path() / "bench" /
          "dirload-ldap-writer")
      .string();
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

std::string Config(const TempDir& t, const std::string& dir, const std::string& name,
                   const std::vector<std::string>& indexes) {
  return testing::SlapdConf()
      .LoadBackMdb()
      .Include(testing::kExampleSchemas)
      .Database("mdb")
      .Suffix(testing::kExampleSuffix)
      .RootDn(testing::kExampleRootDn)
      .Line(std::string("rootpw ") + kRootPw)
      .Line("sizelimit unlimited")
      .Directory(dir)
      .MaxSize(1073741824)
      .Indexes(indexes)
      .Write(t, name);
}

const std::vector<std::string> kIndexes = {"objectClass eq", "uid eq", "cn eq,sub", "sn eq",
                                           "title eq"};

// `count` people uid=PREFIX-N below `parent`, each with a title when
// `title` is given, and a locality when `locality` is.
std::string People(const std::string& prefix, int count, const std::string& parent,
                   const std::string& title = "", const std::string& locality = "") {
  std::string out;
  for (int i = 0; i < count; ++i) {
    const std::string uid = prefix + "-" + std::to_string(i);
    out += "dn: uid=" + uid + "," + parent + "\nobjectClass: inetOrgPerson\nuid: " + uid +
           "\ncn: " + uid + " person\nsn: " + (i % 7 == 0 ? std::string("common") : uid) + "\n";
    if (!title.empty()) out += "title: " + title + "\n";
    if (!locality.empty()) out += "l: " + locality + "\n";
    out += "\n";
  }
  return out;
}

std::string Base() {
  return "dn: dc=example,dc=com\nobjectClass: dcObject\nobjectClass: organization\no: E\n"
         "dc: example\n\n"
         "dn: ou=people,dc=example,dc=com\nobjectClass: organizationalUnit\nou: people\n\n" +
         People("b", 200, kPeople);
}

// Appended: a new subtree (whose nsubs slapd's subtree searches rely on)
// and people below the existing ou, with descriptions new to the database:
// title from the start, l in the second half.
std::string More(int count) {
  return "dn: ou=staff,dc=example,dc=com\nobjectClass: organizationalUnit\nou: staff\n\n" +
         People("s", count / 2, "ou=staff,dc=example,dc=com", "Engineer") +
         People("m", count - count / 2, kPeople, "Engineer", "Paris");
}

// The client: adds uid=PREFIX-N below ou=people until `count` adds or
// `seconds`.
class Writer {
 public:
  Writer(const TempDir& t, const std::string& url, const std::string& prefix, int count,
         double seconds)
      : acked_(t.File(prefix + ".acked")), out_(t.File(prefix + ".writer.out")) {
    std::string error;
    REQUIRE_MESSAGE(child_.Start({WriterPath(), "--uri", url, "--bind-dn", testing::kExampleRootDn,
                                  "--password", kRootPw, "--base", kPeople, "--prefix", prefix,
                                  "--count", std::to_string(count), "--seconds",
                                  std::to_string(seconds), "--acked", acked_},
                                 out_, t.File(prefix + ".writer.err"), &error),
                    error);
  }
  // Waits for the client; the DNs slapd acknowledged.
  std::vector<std::string> Finish() {
    testing::ProcessResult r;
    child_.Wait(120, &r);
    CHECK_MESSAGE(r.exit_code == 0, r.Describe());
    MESSAGE(ReadFile(out_));
    return Lines(ReadFile(acked_));
  }

 private:
  std::string acked_, out_;
  testing::ChildProcess child_;
};

std::set<std::string> Dns(const testing::Slapd::Answer& a) {
  std::set<std::string> dns;
  for (const std::string& e : a.entries) {
    std::string dn = e.substr(0, e.find('\n'));
    if (dn.rfind("dn: ", 0) == 0) dn = dn.substr(4);
    dns.insert(dn);
  }
  return dns;
}

// slapd as the writer's client sees it: the root DN's searches know no size
// limit.
testing::Slapd::Answer Search(const testing::Slapd& slapd, const std::string& filter) {
  return slapd.Search("dc=example,dc=com", "sub", filter);
}

// slapindex -q -t rebuilds every index of a copy of `dir`: nothing may
// change, in any sub-database.
void CheckSlapindexChangesNothing(const TempDir& t, const std::string& dir) {
  const std::string copy = t.File("copy");
  fs::remove_all(copy);
  fs::create_directory(copy);
  fs::copy_file(dir + "/data.mdb", copy + "/data.mdb");
  const std::string conf = Config(t, copy, "copy.conf", kIndexes);
  std::vector<std::pair<std::string, std::string>> before;
  for (const std::string& db : testing::MdbDatabases(copy)) {
    before.emplace_back(db, testing::MdbDump(copy, db));
  }
  testing::ProcessResult indexed = testing::RunSlapindex({"-q", "-t", "-f", conf});
  REQUIRE_MESSAGE(indexed.exit_code == 0, indexed.Describe());
  for (const auto& [db, dump] : before) {
    CAPTURE(db);
    const std::string after = testing::MdbDump(copy, db);
    CHECK_MESSAGE(after == dump, testing::FirstDifference(dump, after));
  }
}

TEST_CASE("add --online beside slapd and a writing client: nothing lost, indexes slapindex's") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  DIRLOAD_SKIP_UNLESS_OPENLDAP("slapd", "ldapsearch", "slapindex", "mdb_dump");
  if (!fs::exists(WriterPath())) {
    MESSAGE("skipped: " << WriterPath() << " was not built (libldap-dev)");
    return;
  }
  TempDir t;
  const std::string dir = t.File("db");
  fs::create_directory(dir);
  const std::string conf = Config(t, dir, "slapd.conf", kIndexes);
  const std::string base = t.Write("base.ldif", Base());
  const int more_count = 3000;
  const std::string more = t.Write("more.ldif", More(more_count));
  RunResult loaded = RunDirload({"add", "-f", conf, "-l", base});
  REQUIRE_MESSAGE(loaded.exit_code == 0, loaded.Describe());

  std::vector<std::string> acked;
  bool interleaved = false;
  {
    testing::Slapd slapd(t, "slapd", conf);
    Writer writer(t, slapd.url(), "w", 1500, 40);
    // Without --online: refused, naming the way on; nothing of the input written.
    RunResult refused = RunDirload({"add", "-f", conf, "-l", more});
    CHECK_MESSAGE(refused.exit_code == 3, refused.Describe());
    CHECK_MESSAGE(refused.err.find("--online") != std::string::npos, refused.err);
    CHECK(Search(slapd, "(uid=m-0)").entries.empty());

    // Small batches, so that the client's adds land between dirload's.
    testing::Child online;
    std::string error;
    REQUIRE_MESSAGE(online.Start({"add", "--online", "--batch", "20", "-f", conf, "-l", more, "-v"},
                                 t.File("online.out"), t.File("online.err"), &error),
                    error);
    // Once dirload's first batches are in (its new ad2i number for title
    // among them), an entry with a description new to the database through
    // slapd, which numbers it between dirload's batches; dirload numbers l
    // later, in its second half.
    for (int i = 0; i < 300 && Search(slapd, "(uid=s-0)").entries.empty(); ++i) {
      testing::SleepSeconds(0.05);
    }
    const std::string fr =
        t.Write("fr.ldif",
                "dn: uid=fr,ou=people,dc=example,dc=com\nobjectClass: inetOrgPerson\nuid: fr\n"
                "cn: fr\nsn: fr\ndescription;lang-fr: bonjour\n");
    testing::ProcessResult added =
        testing::RunProcess({testing::FindProgram("ldapadd"), "-x", "-H", slapd.url(), "-D",
                             testing::kExampleRootDn, "-w", kRootPw, "-f", fr},
                            30);
    CHECK_MESSAGE(added.exit_code == 0, added.Describe());
    interleaved = online.Running();
    testing::ProcessResult done;
    online.Wait(120, &done);
    CHECK_MESSAGE(done.exit_code == 0, ReadFile(t.File("online.err")));
    // slapd serves the appended entries at once: by name, by index, and in
    // subtree searches of the new subtree and of the suffix.
    CHECK(Search(slapd, "(uid=m-" + std::to_string(more_count - more_count / 2 - 1) + ")")
              .entries.size() == 1);
    CHECK(Search(slapd, "(title=Engineer)").entries.size() == static_cast<size_t>(more_count));
    CHECK(slapd.Search("ou=staff,dc=example,dc=com", "sub", "(objectClass=*)").entries.size() ==
          static_cast<size_t>(more_count / 2 + 1));
    acked = writer.Finish();
    CHECK(!acked.empty());
  }
  // After a restart: every acknowledged write and every appended entry.
  {
    testing::Slapd slapd(t, "restarted", conf);
    std::set<std::string> client = Dns(Search(slapd, "(uid=w-*)"));
    CHECK(client == std::set<std::string>(acked.begin(), acked.end()));
    CHECK(Search(slapd, "(objectClass=inetOrgPerson)").entries.size() ==
          200 + static_cast<size_t>(more_count) + acked.size() + 1);
    CHECK(Search(slapd, "(title=Engineer)").entries.size() == static_cast<size_t>(more_count));
    CHECK(
        Search(slapd, "(sn=common)").entries.size() ==
        static_cast<size_t>(29 + (more_count / 2 + 6) / 7 + (more_count - more_count / 2 + 6) / 7));
    // Each ad2i number kept its meaning: slapd's description and dirload's
    // title and l are read back as written, on their own entries.
    testing::Slapd::Answer fr_entry =
        slapd.Search("uid=fr,ou=people,dc=example,dc=com", "base", "(objectClass=*)",
                     {"description", "title", "l"});
    REQUIRE(fr_entry.entries.size() == 1);
    CHECK(fr_entry.entries[0].find("description;lang-fr: bonjour") != std::string::npos);
    CHECK(fr_entry.entries[0].find("title:") == std::string::npos);
    CHECK(fr_entry.entries[0].find("l:") == std::string::npos);
    testing::Slapd::Answer m = slapd.Search("uid=m-0,ou=people,dc=example,dc=com", "base",
                                            "(objectClass=*)", {"description", "title", "l"});
    REQUIRE(m.entries.size() == 1);
    CHECK(m.entries[0].find("title: Engineer") != std::string::npos);
    CHECK(m.entries[0].find("l: Paris") != std::string::npos);
    CHECK(m.entries[0].find("description") == std::string::npos);
    CHECK(Search(slapd, "(l=Paris)").entries.size() ==
          static_cast<size_t>(more_count - more_count / 2));
  }
  // The numbers were given in turn: dirload's title, slapd's description
  // while dirload ran, then dirload's l.
  const testing::ProcessResult ad2i = testing::RunMdbDump({"-p", "-s", "ad2i", dir});
  REQUIRE_MESSAGE(ad2i.exit_code == 0, ad2i.Describe());
  const size_t title = ad2i.out.find("\n title\n"),
               lang_fr = ad2i.out.find("\n description;lang-fr\n"),
               locality = ad2i.out.find("\n l\n");
  REQUIRE(title != std::string::npos);
  REQUIRE(lang_fr != std::string::npos);
  REQUIRE(locality != std::string::npos);
  if (interleaved) {
    CHECK(title < lang_fr);
    CHECK(lang_fr < locality);
  } else {
    MESSAGE("dirload finished before slapd's add: ad2i's order proves nothing this time");
  }
  CheckSlapindexChangesNothing(t, dir);
}

TEST_CASE("index --online beside slapd and a writing client: never a half index") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  DIRLOAD_SKIP_UNLESS_OPENLDAP("slapd", "ldapsearch", "slapindex", "mdb_dump");
  if (!fs::exists(WriterPath())) {
    MESSAGE("skipped: " << WriterPath() << " was not built (libldap-dev)");
    return;
  }
  TempDir t;
  const std::string dir = t.File("db");
  fs::create_directory(dir);
  // Loaded without cn's and title's indexes; slapd then serves the
  // configuration that has them, empty, until the rebuild.
  const std::string narrow = Config(t, dir, "narrow.conf", {"objectClass eq", "uid eq", "sn eq"});
  const std::string conf = Config(t, dir, "slapd.conf", kIndexes);
  const std::string input = t.Write("all.ldif", Base() + More(3000));
  RunResult loaded = RunDirload({"add", "-f", narrow, "-l", input});
  REQUIRE_MESSAGE(loaded.exit_code == 0, loaded.Describe());

  std::vector<std::string> acked;
  {
    testing::Slapd slapd(t, "slapd", conf);
    Writer writer(t, slapd.url(), "w", 1500, 40);
    RunResult refused = RunDirload({"index", "-f", conf});
    CHECK_MESSAGE(refused.exit_code == 3, refused.Describe());
    RunResult online = RunDirload({"index", "--online", "-f", conf, "-v"});
    CHECK_MESSAGE(online.exit_code == 0, online.Describe());
    CHECK(Search(slapd, "(title=Engineer)").entries.size() == 3000);
    CHECK(Search(slapd, "(cn=s-1*)").entries.size() == 611);
    acked = writer.Finish();
    CHECK(!acked.empty());
  }
  {
    testing::Slapd slapd(t, "restarted", conf);
    std::set<std::string> client = Dns(Search(slapd, "(uid=w-*)"));
    CHECK(client == std::set<std::string>(acked.begin(), acked.end()));
    CHECK(Search(slapd, "(cn=w-*)").entries.size() == acked.size());
  }
  CheckSlapindexChangesNothing(t, dir);
}

TEST_CASE("--online applies to slapd's format only") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir t;
  const std::string dir = t.File("db");
  fs::create_directory(dir);
  const std::string base = t.Write("base.ldif", Base());
  RunResult loaded = RunDirload(
      {"add", "--format", "native", "--suffix", "dc=example,dc=com", "--db", dir, "-l", base});
  REQUIRE_MESSAGE(loaded.exit_code == 0, loaded.Describe());
  const std::string more = t.Write("more.ldif", More(10));
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"add", "--online", "--suffix", "dc=example,dc=com", "--db", dir,
                                 "-l", more},
        std::vector<std::string>{"index", "--online", "--db", dir, "--index", "uid eq"}}) {
    CAPTURE(args[0]);
    RunResult r = RunDirload(args);
    CHECK_MESSAGE(r.exit_code == 2, r.Describe());
    CHECK_MESSAGE(r.err.find("slapd's back-mdb format") != std::string::npos, r.err);
  }
}

#ifdef DIRLOAD_FAULT_INJECTION
TEST_CASE("add --online killed at a commit: whole batches in, recover says where to go on") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  DIRLOAD_SKIP_UNLESS_OPENLDAP("slapd", "ldapsearch", "slapindex", "mdb_dump");
  const int more_count = 1000, batch = 100;
  // Batch k is the k-th commit: killed at commit k, k - 1 batches are in.
  for (int kill_at : {1, 4, 9}) {
    CAPTURE(kill_at);
    TempDir t;
    const std::string dir = t.File("db");
    fs::create_directory(dir);
    const std::string conf = Config(t, dir, "slapd.conf", kIndexes);
    const std::string base = t.Write("base.ldif", Base());
    const std::string more = t.Write("more.ldif", More(more_count));
    RunResult loaded = RunDirload({"add", "-f", conf, "-l", base});
    REQUIRE_MESSAGE(loaded.exit_code == 0, loaded.Describe());
    const std::string plan = "exit:commit:" + std::to_string(kill_at);
    ::setenv("DIRLOAD_FAULT_INJECT", plan.c_str(), 1);
    RunResult killed =
        RunDirload({"add", "--online", "--batch", std::to_string(batch), "-f", conf, "-l", more});
    ::unsetenv("DIRLOAD_FAULT_INJECT");
    REQUIRE_MESSAGE(killed.exit_code == 137, killed.Describe());
    const size_t committed = static_cast<size_t>(kill_at - 1) * batch;

    RunResult refused = RunDirload({"add", "--online", "-f", conf, "-l", more});
    CHECK_MESSAGE(refused.exit_code == 3, refused.Describe());
    CHECK_MESSAGE(refused.err.find("recover") != std::string::npos, refused.err);
    RunResult recovered = RunDirload({"recover", "-f", conf});
    REQUIRE_MESSAGE(recovered.exit_code == 0, recovered.Describe());
    const std::string said = recovered.out + recovered.err;
    CHECK_MESSAGE(said.find("the " + std::to_string(committed) + " entries it had committed") !=
                      std::string::npos,
                  said);
    {
      testing::Slapd slapd(t, "after-kill", conf);
      // The input's first entry is ou=staff; the rest are people.
      CHECK(Search(slapd, "(objectClass=inetOrgPerson)").entries.size() ==
            200 + committed - (committed > 0 ? 1 : 0));
    }
    // Go on from where recover says.
    std::vector<std::string> args = {"add", "--online", "-f", conf, "-l", more};
    const size_t j = said.find("-j ");
    if (committed > 0) {
      REQUIRE_MESSAGE(j != std::string::npos, said);
      args.push_back("-j");
      args.push_back(said.substr(j + 3, said.find_first_not_of("0123456789", j + 3) - j - 3));
    }
    RunResult resumed = RunDirload(args);
    CHECK_MESSAGE(resumed.exit_code == 0, resumed.Describe());
    {
      testing::Slapd slapd(t, "resumed", conf);
      CHECK(Search(slapd, "(objectClass=inetOrgPerson)").entries.size() ==
            200 + static_cast<size_t>(more_count));
      CHECK(slapd.Search("ou=staff,dc=example,dc=com", "sub", "(objectClass=*)").entries.size() ==
            static_cast<size_t>(more_count / 2 + 1));
    }
    CheckSlapindexChangesNothing(t, dir);
  }
}
#endif

}  // namespace
}  // namespace dirload
