// What `dirload add` checks of replication, read from slapd.conf (-f) and
// from the slapd.d slaptest makes of it (-F): with several providers
// (several serverIDs) the load's server ID must be one of theirs; -v names
// the database's syncprov, syncrepl and accesslog; -w warns when it
// overwrites the contextCSN the input gives (and writes what slapadd -w
// writes); -o remove-sids replaces those server IDs' CSNs, and slapd finds
// the entries by their new entryCSN through its index.
#include <doctest/doctest.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

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

constexpr char kTop[] =
    "dn: dc=example,dc=com\nobjectClass: dcObject\nobjectClass: organization\ndc: example\n"
    "o: Example\n";

std::string Ou(const std::string& name, const std::string& csn = "") {
  std::string r =
      "dn: ou=" + name + ",dc=example,dc=com\nobjectClass: organizationalUnit\nou: " + name + "\n";
  if (!csn.empty()) r += "entryCSN: " + csn + "\n";
  return r + "\n";
}

// The example database in DIR/db, with `global` lines before it and `db`
// lines at its end.
std::string Conf(const TempDir& tmp, const std::vector<std::string>& modules,
                 const std::vector<std::string>& global, const std::vector<std::string>& db) {
  fs::create_directories(tmp.File("db"));
  testing::SlapdConf conf;
  conf.LoadBackMdb().Include(testing::kExampleSchemas);
  for (const std::string& m : modules) conf.ModuleLoad(m);
  return conf.Lines(global)
      .Line("sizelimit unlimited")
      .Database("mdb")
      .Suffix(testing::kExampleSuffix)
      .RootDn(testing::kExampleRootDn)
      .Line("rootpw secret")
      .Directory(tmp.File("db"))
      .MaxSize(uint64_t{1} << 30)
      .Indexes({"objectClass eq", "entryCSN,entryUUID eq"})
      .Lines(db)
      .Write(tmp, "slapd.conf");
}

const std::vector<std::string> kMultiProvider = {"serverID 1 ldap://a.example:389/",
                                                 "serverID 2 ldap://b.example:389/"};

std::string Consumer(const std::string& rid, const std::string& provider) {
  return "syncrepl rid=" + rid + " provider=" + provider +
         " bindmethod=simple binddn=\"cn=admin,dc=example,dc=com\" credentials=topsecret "
         "searchbase=\"dc=example,dc=com\" type=refreshAndPersist retry=\"5 +\"";
}

// slaptest's slapd.d of `conf` in DIR/slapd.d: OpenLDAP's own reading of it.
std::string SlapdD(const TempDir& tmp, const std::string& conf) {
  const std::string dir = tmp.File("slapd.d");
  fs::create_directories(dir);
  RunResult r = testing::RunSlaptest({"-f", conf, "-F", dir}, 60);
  REQUIRE_MESSAGE(fs::exists(dir + "/cn=config.ldif"), r.Describe());
  return dir;
}

std::vector<std::string> ValuesOf(const std::string& ldif, const std::string& name) {
  std::vector<std::string> out;
  const std::string key = "\n" + name + ": ";
  const std::string text = "\n" + ldif;
  for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + 1)) {
    const size_t from = at + key.size();
    out.push_back(text.substr(from, text.find('\n', from) - from));
  }
  return out;
}

TEST_CASE("several providers: the load's server ID must be one of theirs, from -f and -F") {
  DIRLOAD_SKIP_WITHOUT_OPENLDAP("slaptest");
  TempDir tmp;
  const std::string conf = Conf(tmp, {"syncprov"}, kMultiProvider,
                                {"overlay syncprov", Consumer("001", "ldap://a.example:389/"),
                                 Consumer("002", "ldap://b.example:389/"), "multiprovider on"});
  // OpenLDAP takes this configuration.
  RunResult checked = testing::RunSlaptest({"-f", conf, "-u"}, 60);
  REQUIRE_MESSAGE(checked.exit_code == 0, checked.Describe());
  const std::string slapd_d = SlapdD(tmp, conf);
  const std::string ldif = tmp.Write("in.ldif", std::string(kTop) + "\n" + Ou("a"));
  const std::string ids =
      "configures several providers, serverID 1 (ldap://a.example:389/), 2 "
      "(ldap://b.example:389/)";
  for (const std::vector<std::string>& config :
       {std::vector<std::string>{"-f", conf}, std::vector<std::string>{"-F", slapd_d}}) {
    CAPTURE(config[0]);
    auto add = [&](std::vector<std::string> more) {
      std::vector<std::string> args = {"add", config[0], config[1], "-l", ldif};
      args.insert(args.end(), more.begin(), more.end());
      return RunDirload(args);
    };
    for (const std::vector<std::string>& zero :
         {std::vector<std::string>{}, std::vector<std::string>{"-S", "0"}}) {
      RunResult r = add(zero);
      CHECK(r.exit_code == 2);
      CHECK_MESSAGE(
          r.err.find("dirload: server ID 0 (-S 0, the default): " + config[1] + " " + ids +
                     "; CSNs with ID 0 belong to none of them: give -S 1 or "
                     "-S 2\n") != std::string::npos,
          r.err);
      CHECK_FALSE(fs::exists(tmp.File("db/data.mdb")));
    }
    RunResult other = add({"-S", "3"});
    CHECK(other.exit_code == 2);
    CHECK_MESSAGE(other.err.find("dirload: -S 3: " + config[1] + " " + ids +
                                 ", and none is 3: give -S 1 or -S 2\n") != std::string::npos,
                  other.err);
    CHECK_FALSE(fs::exists(tmp.File("db/data.mdb")));
    // A dry run checks the same.
    CHECK(add({"-S", "3", "-u"}).exit_code == 2);

    RunResult ok = add({"-S", "2"});
    REQUIRE_MESSAGE(ok.exit_code == 0, ok.Describe());
    RunResult cat = testing::RunSlapcat({"-f", conf}, 60);
    REQUIRE(cat.exit_code == 0);
    for (const std::string& csn : ValuesOf(cat.out, "entryCSN"))
      CHECK(csn.substr(29, 5) == "#002#");
    fs::remove_all(tmp.File("db"));
    fs::create_directories(tmp.File("db"));
  }

  // One serverID (this server's own): any -S, 0 by default, as slapadd.
  TempDir single;
  const std::string single_conf = Conf(single, {}, {"serverID 5"}, {});
  RunResult r = RunDirload({"add", "-f", single_conf, "-l", ldif});
  CHECK_MESSAGE(r.exit_code == 0, r.Describe());
}

TEST_CASE("-v names the database's serverIDs, syncprov, syncrepl consumers and accesslog") {
  DIRLOAD_SKIP_WITHOUT_OPENLDAP("slaptest");
  TempDir tmp;
  for (const char* d : {"db", "log"}) fs::create_directories(tmp.File(d));
  // The accesslog database comes first: `logdb` names one defined before.
  const std::string conf =
      testing::SlapdConf()
          .LoadBackMdb()
          .Include(testing::kExampleSchemas)
          .ModuleLoad("syncprov")
          .ModuleLoad("accesslog")
          .Lines(kMultiProvider)
          .Database("mdb")
          .Suffix("cn=accesslog")
          .RootDn(testing::kExampleRootDn)
          .Directory(tmp.File("log"))
          .Line("overlay syncprov")
          .Database("mdb")
          .Suffix(testing::kExampleSuffix)
          .RootDn(testing::kExampleRootDn)
          .Directory(tmp.File("db"))
          .Lines({"overlay syncprov", "overlay accesslog", "logdb cn=accesslog", "logops writes",
                  Consumer("001", "ldap://a.example:389/"), "multiprovider on"})
          .Write(tmp, "slapd.conf");
  RunResult checked = testing::RunSlaptest({"-f", conf, "-u"}, 60);
  REQUIRE_MESSAGE(checked.exit_code == 0, checked.Describe());
  const std::string ldif = tmp.Write("in.ldif", std::string(kTop));
  RunResult v =
      RunDirload({"add", "-f", conf, "-b", "dc=example,dc=com", "-l", ldif, "-u", "-S", "1", "-v"});
  REQUIRE_MESSAGE(v.exit_code == 0, v.Describe());
  CHECK_MESSAGE(
      v.err.find(": replication: serverID 1 (ldap://a.example:389/), 2 (ldap://b.example:389/) "
                 "(several providers: -S must be one of them); syncprov overlay; 1 syncrepl "
                 "consumer (rid=001 provider=ldap://a.example:389/); multiprovider; accesslog "
                 "overlay\n") != std::string::npos,
      v.err);
  CHECK(v.err.find("topsecret") == std::string::npos);
  RunResult quiet =
      RunDirload({"add", "-f", conf, "-b", "dc=example,dc=com", "-l", ldif, "-u", "-S", "1"});
  REQUIRE(quiet.exit_code == 0);
  CHECK(quiet.err.find("replication:") == std::string::npos);

  // The accesslog database has a syncprov of its own and nothing else.
  const std::string log_ldif =
      tmp.Write("log.ldif", "dn: cn=accesslog\nobjectClass: auditContainer\ncn: accesslog\n");
  RunResult log = RunDirload(
      {"add", "-f", conf, "-b", "cn=accesslog", "-l", log_ldif, "-u", "-S", "1", "-v", "-s"});
  CHECK_MESSAGE(log.err.find(": replication: serverID 1 (ldap://a.example:389/), 2 "
                             "(ldap://b.example:389/) (several providers: -S must be one of "
                             "them); syncprov overlay; no syncrepl consumer; no accesslog "
                             "overlay\n") != std::string::npos,
                log.err);
}

TEST_CASE("-w warns when it overwrites the input's contextCSN, and writes what slapadd -w does") {
  DIRLOAD_SKIP_WITHOUT_OPENLDAP();
  struct Case {
    std::string context_csn;
    bool overwritten;
  } cases[] = {{"20250101000000.000000Z#000000#003#000000", true},
               {"20400101000000.000000Z#000000#003#000000", false}};
  for (const Case& c : cases) {
    CAPTURE(c.context_csn);
    // Every entryCSN given: both tools' contextCSN can be compared exactly.
    const std::string input = std::string(kTop) +
                              "entryCSN: 20240101000000.000000Z#000000#003#000000\n"
                              "contextCSN: " +
                              c.context_csn + "\n\n" +
                              Ou("a", "20300101000000.000000Z#000000#003#000000") +
                              Ou("b", "20300101000000.000000Z#000000#004#000000");
    TempDir slap, dl;
    const std::string slap_conf = Conf(slap, {}, {}, {});
    const std::string dl_conf = Conf(dl, {}, {}, {});
    const std::string ldif = dl.Write("in.ldif", input);
    RunResult sa = testing::RunSlapadd({"-f", slap_conf, "-l", ldif, "-w"}, 60);
    REQUIRE_MESSAGE(sa.exit_code == 0, sa.Describe());
    RunResult da = RunDirload({"add", "-f", dl_conf, "-l", ldif, "-w"});
    REQUIRE_MESSAGE(da.exit_code == 0, da.Describe());
    const std::string warning = "dirload: warning: " + ldif +
                                ":1: dc=example,dc=com: -w overwrites the contextCSN the input "
                                "gives (" +
                                c.context_csn + "; now ";
    CHECK_MESSAGE((da.err.find(warning) != std::string::npos) == c.overwritten, da.err);
    RunResult want = testing::RunSlapcat({"-f", slap_conf}, 60);
    RunResult got = testing::RunSlapcat({"-f", dl_conf}, 60);
    REQUIRE(want.exit_code == 0);
    REQUIRE(got.exit_code == 0);
    CHECK(ValuesOf(got.out, "contextCSN") == ValuesOf(want.out, "contextCSN"));
    CHECK((ValuesOf(got.out, "contextCSN") == std::vector<std::string>{c.context_csn}) ==
          !c.overwritten);
  }
  // Without -w nothing is overwritten and nothing said.
  TempDir plain;
  const std::string ldif = plain.Write(
      "in.ldif", std::string(kTop) + "contextCSN: 20250101000000.000000Z#000000#003#000000\n");
  RunResult da = RunDirload({"add", "-f", Conf(plain, {}, {}, {}), "-l", ldif});
  REQUIRE(da.exit_code == 0);
  CHECK(da.err.find("warning") == std::string::npos);
}

TEST_CASE("-o remove-sids: those server IDs' CSNs replaced in place; slapd finds them by index") {
  DIRLOAD_SKIP_WITHOUT_OPENLDAP("slapd", "ldapsearch");
  TempDir tmp;
  const std::string conf = Conf(tmp, {}, {}, {});
  const std::string ldif =
      tmp.Write("in.ldif", std::string(kTop) +
                               "contextCSN: 20250101000000.000000Z#000000#002#000000\n"
                               "contextCSN: 20250101000000.000000Z#000000#003#000000\n\n" +
                               Ou("a", "20250102000000.000000Z#000000#002#000000") +
                               Ou("b", "20250103000000.000000Z#000000#003#000000") +
                               Ou("c", "20250104000000.000000Z#000000#002#000000"));
  // The refusals first: nothing is written.
  struct Refused {
    std::vector<std::string> args;
    std::string message;
  } refused[] = {
      {{"-S", "2", "-o", "remove-sids=3,2"},
       "-o remove-sids holds 2, the server ID (-S) of the CSNs this load makes"},
      {{"-o", "remove-sids=2,x"}, "-o remove-sids=2,x: 'x' is not a server ID (0 to 4095)"},
      {{"-o", "remove-sids=4096"}, "-o remove-sids=4096: '4096' is not a server ID (0 to 4095)"},
      {{"-o", "remove-sids="}, "-o remove-sids needs server IDs (remove-sids=1,2)"},
  };
  for (const Refused& r : refused) {
    CAPTURE(r.message);
    std::vector<std::string> args = {"add", "-f", conf, "-l", ldif};
    args.insert(args.end(), r.args.begin(), r.args.end());
    RunResult da = RunDirload(args);
    CHECK(da.exit_code == 2);
    CHECK_MESSAGE(da.err.find("dirload: " + r.message + "\n") != std::string::npos, da.err);
    CHECK_FALSE(fs::exists(tmp.File("db/data.mdb")));
  }

  // No -w: remove-sids implies it.
  RunResult da = RunDirload({"add", "-f", conf, "-l", ldif, "-S", "1", "-o", "remove-sids=2", "-o",
                             "csn-time=20260101000000Z", "-v"});
  REQUIRE_MESSAGE(da.exit_code == 0, da.Describe());
  CHECK_MESSAGE(da.err.find("-o remove-sids: 2 entryCSN(s) replaced") != std::string::npos, da.err);
  RunResult cat = testing::RunSlapcat({"-f", conf}, 60);
  REQUIRE_MESSAGE(cat.exit_code == 0, cat.Describe());
  const std::vector<std::string> records = testing::SplitRecords(cat.out);
  REQUIRE(records.size() == 4);
  // Where each stood: the entryCSN right after the entry's own values.
  CHECK(records[1].find("ou: a\nentryCSN: 20260101000000.000000Z#000001#001#000000\n") !=
        std::string::npos);
  CHECK(ValuesOf(records[2], "entryCSN") ==
        std::vector<std::string>{"20250103000000.000000Z#000000#003#000000"});
  CHECK(ValuesOf(records[3], "entryCSN") ==
        std::vector<std::string>{"20260101000000.000000Z#000003#001#000000"});
  CHECK(ValuesOf(records[0], "contextCSN") ==
        std::vector<std::string>{"20260101000000.000000Z#000003#001#000000",
                                 "20250103000000.000000Z#000000#003#000000"});
  CHECK(cat.out.find("#002#") == std::string::npos);

  // The database is whole, its entryCSN index included, and slapd finds
  // the entries by their new CSNs.
  RunResult verified = RunDirload({"verify", "-f", conf});
  CHECK_MESSAGE(verified.exit_code == 0, verified.Describe());
  testing::Slapd slapd(tmp, "slapd", conf);
  testing::Slapd::Answer found = slapd.Search(
      testing::kExampleSuffix, "sub", "(entryCSN=20260101000000.000000Z#000003#001#000000)");
  REQUIRE(found.exit_code == 0);
  CHECK(testing::LowerCaseDns(found.entries) == std::set<std::string>{"ou=c,dc=example,dc=com"});
  testing::Slapd::Answer gone = slapd.Search(testing::kExampleSuffix, "sub",
                                             "(entryCSN=20250104000000.000000Z#000000#002#000000)");
  REQUIRE(gone.exit_code == 0);
  CHECK(gone.entries.empty());
}

}  // namespace
}  // namespace dirload
