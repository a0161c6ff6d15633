// `dirload add -n 0 -F DIR` on a bootstrap configuration LDIF, the form
// OpenLDAP's own test scripts and administrators write: cn=schema,cn=config
// bare (slapd has its configuration schema built in), the user schema
// pulled in by `include: file://` lines, and modules, overlays and
// databases numbered or not. Checked against slapadd -n 0 on the same LDIF:
// the same files (but for what slapadd takes from the clock), which slaptest
// accepts, and a database loaded through them that slapd serves.
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "tests/integration/dirload_process.h"
#include "tests/integration/slapd_server.h"
#include "tests/support/openldap.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

namespace fs = std::filesystem;
using testing::ProcessResult;
using testing::RunDirload;
using testing::RunResult;
using testing::TempDir;

// A configuration as OpenLDAP's test scripts write it (its8800's, cut down):
// an mdb database with syncprov, a monitor database.
std::string BootstrapLdif(const TempDir& dir) {
  fs::create_directories(dir.File("db"));
  return "dn: cn=config\nobjectClass: olcGlobal\ncn: config\nolcLogLevel: Sync\n"
         "olcLogLevel: Stats\n\n"
         "dn: cn=schema,cn=config\nobjectClass: olcSchemaConfig\ncn: schema\n\n"
         "include: file:///etc/ldap/schema/core.ldif\n"
         "include: file:///etc/ldap/schema/cosine.ldif\n"
         "include: file:///etc/ldap/schema/inetorgperson.ldif\n\n"
         "dn: cn=module,cn=config\nobjectClass: olcModuleList\ncn: module\n"
         "olcModulePath: /usr/lib/ldap\nolcModuleLoad: back_mdb.la\n"
         "olcModuleLoad: syncprov.la\n\n"
         "dn: olcDatabase={-1}frontend,cn=config\nobjectClass: olcDatabaseConfig\n"
         "objectClass: olcFrontendConfig\nolcDatabase: {-1}frontend\n"
         "olcAccess: to dn=\"\" by * read\nolcAccess: to * by * read\n\n"
         "dn: olcDatabase={0}config,cn=config\nobjectClass: olcDatabaseConfig\n"
         "olcDatabase: {0}config\nolcRootPW: secret\n\n"
         "dn: olcDatabase={1}mdb,cn=config\nobjectClass: olcDatabaseConfig\n"
         "objectClass: olcMdbConfig\nolcDatabase: {1}mdb\nolcSuffix: dc=example,dc=com\n"
         "olcRootDN: cn=Manager,dc=example,dc=com\nolcRootPW: secret\n"
         "olcDbDirectory: " +
         dir.File("db") +
         "\nolcDbIndex: objectClass eq\nolcDbIndex: cn,sn eq,sub\nolcDbMaxSize: 10485760\n\n"
         "dn: olcOverlay=syncprov,olcDatabase={1}mdb,cn=config\n"
         "objectClass: olcOverlayConfig\nobjectClass: olcSyncProvConfig\n"
         "olcOverlay: syncprov\nolcSpCheckpoint: 100 10\n\n"
         "dn: olcDatabase=monitor,cn=config\nobjectClass: olcDatabaseConfig\n"
         "olcDatabase: monitor\n";
}

// Every file under `dir` by relative path, the values slapadd takes from the
// clock (and the CRC over them) masked.
std::map<std::string, std::string> Tree(const std::string& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    std::string rel = fs::relative(e.path(), dir).string();
    if (e.is_directory()) {
      files[rel + "/"] = "";
      continue;
    }
    files[rel] = std::regex_replace(
        testing::ReadFile(e.path().string()),
        std::regex("(^|\n)(# CRC32|entryUUID:|entryCSN:|createTimestamp:|modifyTimestamp:)"
                   " [^\n]*"),
        "$1$2 MASKED");
  }
  return files;
}

// slapadd -n 0 and dirload add -n 0 of `ldif` into DIR/slapadd.d and
// DIR/dirload.d, both required to succeed; slapadd's files, as Tree gives them.
std::map<std::string, std::string> AddWithBoth(const TempDir& dir, const std::string& ldif) {
  for (const char* d : {"slapadd.d", "dirload.d"}) fs::create_directories(dir.File(d));
  ProcessResult oracle = testing::RunSlapadd({"-n", "0", "-F", dir.File("slapadd.d"), "-l", ldif});
  REQUIRE_MESSAGE(oracle.exit_code == 0, oracle.Describe());
  RunResult add = RunDirload({"add", "-n", "0", "-F", dir.File("dirload.d"), "-l", ldif});
  REQUIRE_MESSAGE(add.exit_code == 0, add.Describe());
  return Tree(dir.File("slapadd.d"));
}

TEST_CASE("add -n 0 of a bootstrap LDIF (bare cn=schema, include: lines) writes slapadd's files") {
  DIRLOAD_SKIP_WITHOUT_OPENLDAP("slaptest", "slapd", "ldapsearch");
  for (const char* f : {"core", "cosine", "inetorgperson"}) {
    if (!fs::exists(std::string("/etc/ldap/schema/") + f + ".ldif")) {
      MESSAGE("skipped: /etc/ldap/schema/" << f << ".ldif is not installed");
      return;
    }
  }
  TempDir dir;
  const std::string ldif = dir.Write("config.ldif", BootstrapLdif(dir));

  std::map<std::string, std::string> want = AddWithBoth(dir, ldif);
  std::map<std::string, std::string> got = Tree(dir.File("dirload.d"));
  std::vector<std::string> want_names, got_names;
  for (const auto& [k, v] : want) want_names.push_back(k);
  for (const auto& [k, v] : got) got_names.push_back(k);
  REQUIRE(got_names == want_names);
  // The schema files the include: lines read are there, numbered as slapadd numbers them.
  CHECK(got.count("cn=config/cn=schema/cn={2}inetorgperson.ldif") == 1);
  for (const auto& [name, text] : want) {
    INFO("file " << name);
    CHECK(got[name] == text);
  }
  ProcessResult test = testing::RunSlaptest({"-F", dir.File("dirload.d"), "-u"}, 60);
  CHECK_MESSAGE(test.exit_code == 0, test.Describe());
  CHECK_MESSAGE(test.err.find("checksum error") == std::string::npos, test.err);

  // The database's configuration came through: load it and let slapd serve it.
  const std::string data = dir.Write(
      "data.ldif",
      "dn: dc=example,dc=com\nobjectClass: dcObject\nobjectClass: organization\n"
      "dc: example\no: Example\n\n"
      "dn: cn=Some One,dc=example,dc=com\nobjectClass: inetOrgPerson\ncn: Some One\nsn: One\n");
  RunResult load =
      RunDirload({"add", "-F", dir.File("dirload.d"), "-b", "dc=example,dc=com", "-l", data});
  REQUIRE_MESSAGE(load.exit_code == 0, load.Describe());
  testing::Slapd slapd(dir, "served", dir.File("dirload.d"), "0", "-F");
  testing::Slapd::Answer people = slapd.Search("dc=example,dc=com", "sub", "(sn=one)");
  CHECK(people.exit_code == 0);
  CHECK(people.entries.size() == 1);
}

TEST_CASE("add -n 0 of cn=config and the config database alone: frontend and schema as slapadd") {
  // test049-sync-config's bootstrap: no cn=schema,cn=config, no frontend;
  // slapadd writes the frontend with slapd's defaults and no schema entry.
  DIRLOAD_SKIP_WITHOUT_OPENLDAP("slaptest");
  TempDir dir;
  const std::string ldif =
      dir.Write("config.ldif",
                "dn: cn=config\nobjectClass: olcGlobal\ncn: config\n\n"
                "dn: olcDatabase={0}config,cn=config\nobjectClass: olcDatabaseConfig\n"
                "olcDatabase: {0}config\nolcRootPW: secret\n");
  std::map<std::string, std::string> want = AddWithBoth(dir, ldif);
  CHECK(want.count("cn=config/olcDatabase={-1}frontend.ldif") == 1);
  CHECK(Tree(dir.File("dirload.d")) == want);
  ProcessResult test = testing::RunSlaptest({"-F", dir.File("dirload.d"), "-u"}, 60);
  CHECK_MESSAGE(test.exit_code == 0, test.Describe());
}

TEST_CASE("add -n 0: two cn=module entries, and a child naming its parent as numbered") {
  // test063-delta-multiprovider's form: cn=module twice (slapd writes
  // cn=module{0} and {1}); an overlay under olcDatabase={1}mdb given as
  // olcDatabase=mdb.
  DIRLOAD_SKIP_WITHOUT_OPENLDAP("slaptest");
  TempDir dir;
  fs::create_directories(dir.File("db"));
  const std::string ldif =
      dir.Write("config.ldif",
                "dn: cn=config\nobjectClass: olcGlobal\ncn: config\n\n"
                "dn: cn=module,cn=config\nobjectClass: olcModuleList\ncn: module\n"
                "olcModulePath: /usr/lib/ldap\nolcModuleLoad: back_mdb.la\n\n"
                "dn: cn=module,cn=config\nobjectClass: olcModuleList\ncn: module\n"
                "olcModuleLoad: syncprov.la\n\n"
                "dn: olcDatabase={0}config,cn=config\nobjectClass: olcDatabaseConfig\n"
                "olcDatabase: {0}config\nolcRootPW: secret\n\n"
                "dn: olcDatabase=mdb,cn=config\nobjectClass: olcDatabaseConfig\n"
                "objectClass: olcMdbConfig\nolcDatabase: mdb\nolcSuffix: dc=example,dc=com\n"
                "olcDbDirectory: " +
                    dir.File("db") +
                    "\n\n"
                    "dn: olcOverlay=syncprov,olcDatabase={1}mdb,cn=config\n"
                    "objectClass: olcOverlayConfig\nobjectClass: olcSyncProvConfig\n"
                    "olcOverlay: syncprov\n");
  std::map<std::string, std::string> want = AddWithBoth(dir, ldif);
  CHECK(want.count("cn=config/cn=module{1}.ldif") == 1);
  CHECK(want.count("cn=config/olcDatabase={1}mdb/olcOverlay={0}syncprov.ldif") == 1);
  CHECK(Tree(dir.File("dirload.d")) == want);
  // The same entry twice by the name it is written under is still refused.
  fs::create_directories(dir.File("twice.d"));
  const std::string twice =
      dir.Write("twice.ldif",
                "dn: cn=config\nobjectClass: olcGlobal\ncn: config\n\n"
                "dn: olcDatabase={0}config,cn=config\nobjectClass: olcDatabaseConfig\n"
                "olcDatabase: {0}config\n\n"
                "dn: olcDatabase={0}config,cn=config\nobjectClass: olcDatabaseConfig\n"
                "olcDatabase: {0}config\n");
  RunResult again = RunDirload({"add", "-n", "0", "-F", dir.File("twice.d"), "-l", twice});
  CHECK(again.exit_code != 0);
  CHECK_MESSAGE(again.err.find("given twice") != std::string::npos, again.Describe());
}

TEST_CASE("add -n 0: olcDatabase={1}mdb named by olcDatabase: mdb keeps that value") {
  // test064-constraint's form; slapd keeps the naming value as given.
  DIRLOAD_SKIP_WITHOUT_OPENLDAP("slaptest");
  TempDir dir;
  fs::create_directories(dir.File("db"));
  const std::string ldif =
      dir.Write("config.ldif",
                "dn: cn=config\nobjectClass: olcGlobal\ncn: config\n\n"
                "dn: olcDatabase=config,cn=config\nobjectClass: olcDatabaseConfig\n"
                "olcDatabase: config\n\n"
                "dn: cn=module,cn=config\nobjectClass: olcModuleList\ncn: module\n"
                "olcModulePath: /usr/lib/ldap\nolcModuleLoad: back_mdb.la\n\n"
                "dn: olcDatabase={1}mdb,cn=config\nobjectClass: olcDatabaseConfig\n"
                "objectClass: olcmdbConfig\nolcDatabase: mdb\nolcSuffix: dc=example,dc=com\n"
                "olcDbDirectory: " +
                    dir.File("db") + "\n");
  std::map<std::string, std::string> want = AddWithBoth(dir, ldif);
  CHECK(want["cn=config/olcDatabase={1}mdb.ldif"].find("\nolcDatabase: mdb\n") !=
        std::string::npos);
  CHECK(Tree(dir.File("dirload.d")) == want);
}

TEST_CASE("add -n 0: numbers larger than the next one are replaced as slapd replaces them") {
  // its8427's form: the first database given as olcDatabase={2}mdb is
  // stored as {1}mdb (slapd's check_name_index), a second module given as
  // cn=module{4} as cn=module{4}{1}; a child naming the database by the
  // number it was given has no parent then, and slapadd refuses it too.
  DIRLOAD_SKIP_WITHOUT_OPENLDAP("slaptest");
  TempDir dir;
  fs::create_directories(dir.File("db"));
  const std::string config =
      "dn: cn=config\nobjectClass: olcGlobal\ncn: config\n\n"
      "dn: cn=module,cn=config\nobjectClass: olcModuleList\ncn: module\n"
      "olcModulePath: /usr/lib/ldap\nolcModuleLoad: back_mdb.la\n\n"
      "dn: cn=module{4},cn=config\nobjectClass: olcModuleList\ncn: module{4}\n"
      "olcModuleLoad: syncprov.la\n\n"
      "dn: olcDatabase={0}config,cn=config\nobjectClass: olcDatabaseConfig\n"
      "olcDatabase: {0}config\n\n"
      "dn: olcDatabase={2}mdb,cn=config\nobjectClass: olcDatabaseConfig\n"
      "objectClass: olcMdbConfig\nolcDatabase: {2}mdb\nolcSuffix: dc=example,dc=com\n"
      "olcDbDirectory: " +
      dir.File("db") + "\n";
  const std::string ldif = dir.Write("config.ldif", config);
  for (const char* d : {"slapadd-child.d", "dirload-child.d"}) fs::create_directories(dir.File(d));
  std::map<std::string, std::string> want = AddWithBoth(dir, ldif);
  CHECK(want.count("cn=config/olcDatabase={1}mdb.ldif") == 1);
  CHECK(want.count("cn=config/cn=module{4}{1}.ldif") == 1);
  CHECK(Tree(dir.File("dirload.d")) == want);

  const std::string child =
      dir.Write("child.ldif", config +
                                  "\ndn: olcOverlay=syncprov,olcDatabase={2}mdb,cn=config\n"
                                  "objectClass: olcOverlayConfig\nobjectClass: olcSyncProvConfig\n"
                                  "olcOverlay: syncprov\n");
  ProcessResult oracle_child =
      testing::RunSlapadd({"-n", "0", "-F", dir.File("slapadd-child.d"), "-l", child});
  CHECK(oracle_child.exit_code == 1);
  RunResult add_child =
      RunDirload({"add", "-n", "0", "-F", dir.File("dirload-child.d"), "-l", child});
  CHECK_MESSAGE(add_child.exit_code == oracle_child.exit_code, add_child.Describe());
  CHECK(add_child.err.find("its parent is not given before it") != std::string::npos);
  // slapadd wrote the entries before the refused one; dirload writes none.
  CHECK(fs::is_empty(dir.File("dirload-child.d")));
}

TEST_CASE("add -n 0 refuses a cn=schema,cn=config with attribute types but no classes") {
  DIRLOAD_SKIP_WITHOUT_OPENLDAP("slaptest");
  TempDir dir;
  const std::string ldif =
      dir.Write("config.ldif",
                "dn: cn=config\nobjectClass: olcGlobal\ncn: config\n\n"
                "dn: cn=schema,cn=config\nobjectClass: olcSchemaConfig\ncn: schema\n"
                "olcAttributeTypes: ( 1.1.1 NAME 'x' SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )\n");
  fs::create_directories(dir.File("dirload.d"));
  RunResult add = RunDirload({"add", "-n", "0", "-F", dir.File("dirload.d"), "-l", ldif});
  CHECK(add.exit_code != 0);
  CHECK_MESSAGE(add.err.find("cn=schema,cn=config") != std::string::npos, add.Describe());
  CHECK(!fs::exists(dir.File("dirload.d/cn=config.ldif")));
}

}  // namespace
}  // namespace dirload
