#include "lib/config/replication.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "lib/config/cn_config.h"
#include "lib/config/database_config.h"
#include "lib/config/slapd_config.h"
#include "tests/support/child_process.h"
#include "tests/support/openldap.h"
#include "tests/support/slapd_conf.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

TEST_CASE("serverID: decimal, else hex, 0 to 4095, as slapd reads it") {
  struct Case {
    const char* text;
    int id;  // -1: refused
  } cases[] = {{"1", 1},      {"4095", 4095}, {"0", 0},   {"10", 10},     {"0x1f", 31}, {"1f", 31},
               {"fff", 4095}, {"4096", -1},   {"-1", -1}, {"0x1000", -1}, {"one", -1},  {"", -1}};
  for (const Case& c : cases) {
    CAPTURE(c.text);
    Result<ServerId> s = ParseServerId(c.text, "", "slapd.conf:3");
    if (c.id < 0) {
      REQUIRE_FALSE(s.ok());
      CHECK(s.status().message() == std::string("slapd.conf:3: serverID '") + c.text +
                                        "': illegal server ID (a number from 0 to 4095, decimal "
                                        "or hex)");
    } else {
      REQUIRE(s.ok());
      CHECK(s->id == c.id);
      CHECK(s->where == "slapd.conf:3");
    }
  }
}

TEST_CASE("serverID lines: one without a URL, or each with one, never both") {
  std::vector<ServerId> ids;
  REQUIRE(AddServerId(*ParseServerId("1", "ldap://a/", "f:1"), &ids).ok());
  REQUIRE(AddServerId(*ParseServerId("2", "ldap://b/", "f:2"), &ids).ok());
  Status st = AddServerId(*ParseServerId("3", "", "f:3"), &ids);
  CHECK(st.message() ==
        "f:3: serverID 3 has no URL: unqualified server ID not allowed now (f:1 gives one "
        "already, as slapd says)");
  std::vector<ServerId> single;
  REQUIRE(AddServerId(*ParseServerId("5", "", "f:1"), &single).ok());
  st = AddServerId(*ParseServerId("6", "ldap://b/", "f:2"), &single);
  CHECK(st.message() ==
        "f:2: serverID 6: only one server ID allowed now (f:1 gives one without a URL, as "
        "slapd says)");
}

TEST_CASE("a load's server ID: free with one provider, one of theirs with several") {
  ReplicationSetup r;
  CHECK(CheckLoadServerId(r, 0, "slapd.conf").ok());
  r.server_ids = {*ParseServerId("5", "", "slapd.conf:1")};
  CHECK_FALSE(r.several_providers());
  CHECK(CheckLoadServerId(r, 0, "slapd.conf").ok());
  CHECK(CheckLoadServerId(r, 9, "slapd.conf").ok());

  r.server_ids = {*ParseServerId("1", "ldap://a/", "slapd.conf:1"),
                  *ParseServerId("2", "ldap://b/", "slapd.conf:2"),
                  *ParseServerId("3", "ldap://c/", "slapd.conf:3")};
  CHECK(r.several_providers());
  CHECK(CheckLoadServerId(r, 2, "slapd.conf").ok());
  Status zero = CheckLoadServerId(r, 0, "slapd.conf");
  CHECK(zero.origin() == ErrorOrigin::kUsage);
  CHECK(zero.message() ==
        "server ID 0 (-S 0, the default): slapd.conf configures several providers, serverID 1 "
        "(ldap://a/), 2 (ldap://b/), 3 (ldap://c/); CSNs with ID 0 belong to none of them: give "
        "-S 1, -S 2 or -S 3");
  Status other = CheckLoadServerId(r, 4, "slapd.conf");
  CHECK(other.origin() == ErrorOrigin::kUsage);
  CHECK(other.message() ==
        "-S 4: slapd.conf configures several providers, serverID 1 (ldap://a/), 2 (ldap://b/), "
        "3 (ldap://c/), and none is 4: give -S 1, -S 2 or -S 3");
  // The same ID at two URLs (one server, two names) is one provider.
  r.server_ids = {*ParseServerId("1", "ldap://a/", "f:1"),
                  *ParseServerId("1", "ldap://a2/", "f:2")};
  CHECK_FALSE(r.several_providers());
}

TEST_CASE("a syncrepl line is named by its rid and provider, never its credentials") {
  CHECK(SyncreplConsumer("rid=001 provider=ldap://a:389/ bindmethod=simple "
                         "binddn=\"cn=admin\" credentials=secret type=refreshAndPersist") ==
        "rid=001 provider=ldap://a:389/");
  CHECK(SyncreplConsumer("provider=\"ldap://b/\"  RID=7 credentials=\"x y\"") ==
        "rid=7 provider=ldap://b/");
  CHECK(SyncreplConsumer("type=refreshOnly") == "rid=?");
}

std::string MultiProviderConf(const TempDir& dir) {
  return testing::SlapdConf()
      .Include(testing::kExampleSchemas)
      .ModulePath("/usr/lib/ldap")
      .ModuleLoad("back_mdb")
      .ModuleLoad("syncprov")
      .ModuleLoad("accesslog")
      .Lines({"serverID 1 ldap://a.example:389/", "serverID 0x2 ldap://b.example:389/"})
      .Database("mdb")
      .Suffix("cn=accesslog")
      .RootDn("cn=admin,dc=example,dc=com")
      .Directory(dir.File("log"))
      .Database("mdb")
      .Suffix("dc=example,dc=com")
      .RootDn("cn=admin,dc=example,dc=com")
      .Directory(dir.File("db"))
      .Lines({"overlay syncprov", "overlay accesslog", "logdb cn=accesslog", "logops writes",
              "syncrepl rid=001 provider=ldap://a.example:389/ bindmethod=simple "
              "binddn=\"cn=admin,dc=example,dc=com\" credentials=topsecret "
              "searchbase=\"dc=example,dc=com\" type=refreshAndPersist retry=\"5 +\"",
              "syncrepl rid=002 provider=ldap://b.example:389/ bindmethod=simple "
              "binddn=\"cn=admin,dc=example,dc=com\" credentials=topsecret "
              "searchbase=\"dc=example,dc=com\" type=refreshAndPersist retry=\"5 +\"",
              "multiprovider on"})
      .Text();
}

// slaptest, OpenLDAP's own reader, takes the configuration and writes its
// slapd.d; both forms give the same replication setup.
TEST_CASE("replication from slapd.conf and from the slapd.d slaptest makes of it") {
  TempDir dir;
  for (const char* d : {"db", "log", "slapd.d"}) fs::create_directories(dir.File(d));
  const std::string conf = dir.Write("slapd.conf", MultiProviderConf(dir));
  DatabaseOptions from_file;
  from_file.config_file = conf;
  from_file.suffix = "dc=example,dc=com";
  Result<ResolvedDatabase> f = ResolveDatabase(from_file, true);
  REQUIRE_MESSAGE(f.ok(), f.status().message());
  const ReplicationSetup& r = f->replication;
  CHECK(r.ids() == std::vector<int>{1, 2});
  CHECK(r.server_ids[1].where == conf + ":10");
  CHECK(r.syncprov);
  CHECK(r.accesslog);
  CHECK(r.multiprovider);
  CHECK(r.consumers == std::vector<std::string>{"rid=001 provider=ldap://a.example:389/",
                                                "rid=002 provider=ldap://b.example:389/"});
  const std::string described =
      "serverID 1 (ldap://a.example:389/), 2 (ldap://b.example:389/) (several providers: -S "
      "must be one of them); syncprov overlay; 2 syncrepl consumers (rid=001 "
      "provider=ldap://a.example:389/, rid=002 provider=ldap://b.example:389/); multiprovider; "
      "accesslog overlay";
  CHECK(r.Describe() == described);
  bool noted = false;
  for (const std::string& n : f->notes) {
    noted |= n == "database 2 (mdb, " + conf + ":15): replication: " + described;
    CHECK(n.find("topsecret") == std::string::npos);
  }
  CHECK(noted);

  // The other database has none of it but the global serverIDs.
  DatabaseOptions log = from_file;
  log.suffix = "cn=accesslog";
  Result<ResolvedDatabase> l = ResolveDatabase(log, true);
  REQUIRE(l.ok());
  CHECK(l->replication.Describe() ==
        "serverID 1 (ldap://a.example:389/), 2 (ldap://b.example:389/) (several providers: -S "
        "must be one of them); no syncprov overlay; no syncrepl consumer; no accesslog overlay");

  if (testing::FindProgram("slaptest").empty()) {
    MESSAGE("slaptest is not installed: slapd.d not compared");
    return;
  }
  testing::ProcessResult made = testing::RunSlaptest({"-f", conf, "-F", dir.File("slapd.d")}, 60);
  REQUIRE_MESSAGE(fs::exists(dir.File("slapd.d/cn=config/olcDatabase={2}mdb.ldif")),
                  made.Describe());
  DatabaseOptions from_dir = from_file;
  from_dir.config_file.clear();
  from_dir.config_dir = dir.File("slapd.d");
  Result<ResolvedDatabase> d = ResolveDatabase(from_dir, true);
  REQUIRE_MESSAGE(d.ok(), d.status().message());
  CHECK(d->replication.ids() == r.ids());
  CHECK(d->replication.syncprov);
  CHECK(d->replication.accesslog);
  CHECK(d->replication.multiprovider);
  // slaptest writes the consumers in an order of its own; the set is the same.
  std::vector<std::string> consumers = d->replication.consumers;
  std::sort(consumers.begin(), consumers.end());
  CHECK(consumers == r.consumers);
}

TEST_CASE("serverID errors name the file and line, as slapd refuses them") {
  Result<SlapdConfig> c = ParseSlapdConfig("serverID 5000\n", "/etc/slapd.conf");
  REQUIRE_FALSE(c.ok());
  CHECK(c.status().origin() == ErrorOrigin::kConfiguration);
  CHECK(c.status().message() ==
        "/etc/slapd.conf:1: serverID '5000': illegal server ID (a number from 0 to 4095, "
        "decimal or hex)");
  c = ParseSlapdConfig("serverID 1\nserverID 2 ldap://b/\n", "/etc/slapd.conf");
  REQUIRE_FALSE(c.ok());
  CHECK(c.status().message().find("/etc/slapd.conf:2: serverID 2: only one server ID") == 0);
  c = ParseSlapdConfig("database mdb\nmultiprovider maybe\n", "/etc/slapd.conf");
  REQUIRE_FALSE(c.ok());
  CHECK(c.status().message().find("/etc/slapd.conf:2: multiprovider: ") == 0);

  CnConfigTree tree;
  tree.dir = "/etc/ldap/slapd.d";
  tree.directories = {"cn=config"};
  tree.files["cn=config.ldif"] =
      "dn: cn=config\nobjectClass: olcGlobal\ncn: config\nolcServerID: 1 ldap://a/\n"
      "olcServerID: x ldap://b/\n";
  tree.files["cn=config/olcDatabase={0}config.ldif"] =
      "dn: olcDatabase={0}config,cn=config\nobjectClass: olcDatabaseConfig\n"
      "olcDatabase: {0}config\n";
  Result<SlapdConfig> d = ParseCnConfig(tree);
  REQUIRE_FALSE(d.ok());
  CHECK(d.status().message() ==
        "/etc/ldap/slapd.d/cn=config.ldif:5: serverID 'x': illegal server ID (a number from 0 "
        "to 4095, decimal or hex)");
}

}  // namespace
}  // namespace dirload
