// `dirload add -n 0 -F DIR`: the cn=config database written into an empty
// slapd.d directory, against slapadd -n 0 on the same LDIF (a configuration
// slaptest made from a slapd.conf with an mdb database, schema includes and
// indexes, read back with slapcat -n 0): the same files, byte for byte but
// for what slapadd takes from the clock; slaptest and slapd accept them;
// entries given again to a directory that holds a configuration are
// refused as slapadd refuses them, and new ones added as slapadd adds them.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/integration/dirload_process.h"
#include "tests/integration/slapd_server.h"
#include "tests/support/openldap.h"
#include "tests/support/slapd_conf.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

namespace fs = std::filesystem;
using testing::ProcessResult;
using testing::RunDirload;
using testing::RunResult;
using testing::TempDir;

// The config LDIF slapcat -n 0 writes for a slaptest-made slapd.d.
std::string MakeConfigLdif(const TempDir& dir) {
  fs::create_directories(dir.File("db"));
  fs::create_directories(dir.File("source.d"));
  dir.Write("slapd.conf", testing::SlapdConf()
                              .Include({"core", "cosine", "inetorgperson", "nis"})
                              .ModulePath("/usr/lib/ldap")
                              .ModuleLoad("back_mdb")
                              .Database("config")
                              .Line("rootpw secret")
                              .Database("mdb")
                              .Suffix("dc=example,dc=com")
                              .RootDn("cn=Manager,dc=example,dc=com")
                              .Line("rootpw secret")
                              .Directory(dir.File("db"))
                              .MaxSize(10 << 20)
                              .Index("objectClass eq")
                              .Index("cn,sn eq,sub")
                              .Line("access to attrs=userPassword by self write by * auth")
                              .Line("access to * by * read")
                              .Text());
  // slaptest writes slapd.d, then may fail to open the empty database.
  ProcessResult made =
      testing::RunSlaptest({"-f", dir.File("slapd.conf"), "-F", dir.File("source.d")}, 60);
  REQUIRE_MESSAGE(fs::exists(dir.File("source.d/cn=config.ldif")), made.Describe());
  ProcessResult cat = testing::RunSlapcat({"-n", "0", "-F", dir.File("source.d")}, 60);
  REQUIRE_MESSAGE(cat.exit_code == 0, cat.Describe());
  return cat.out;
}

// The same configuration as a person would write it: no operational
// attributes, no {N} prefixes, the attributes of each entry in reverse order
// (the values of each in their order: slapd reads schema definitions in
// value order, and a definition may use an earlier one).
std::string Unnumbered(const std::string& ldif) {
  std::string unfolded = std::regex_replace(ldif, std::regex("\n "), "");
  std::istringstream in(unfolded);
  std::string out, line;
  std::vector<std::vector<std::string>> attrs;  // lines, by attribute
  auto flush = [&] {
    std::reverse(attrs.begin(), attrs.end());
    for (const std::vector<std::string>& a : attrs) {
      for (const std::string& l : a) out += l + "\n";
    }
    attrs.clear();
  };
  const std::regex oper(
      "^(entryUUID|entryCSN|createTimestamp|modifyTimestamp|creatorsName|"
      "modifiersName|structuralObjectClass):");
  while (std::getline(in, line)) {
    if (line.empty()) {
      flush();
      out += "\n";
    } else if (line.starts_with("dn: ")) {
      out += std::regex_replace(line, std::regex("\\{-?[0-9]+\\}"), "") + "\n";
    } else if (!std::regex_search(line, oper)) {
      line = std::regex_replace(line, std::regex("^([A-Za-z]+): \\{-?[0-9]+\\}"), "$1: ");
      line = std::regex_replace(line, std::regex("^cn: (module|include)\\{[0-9]+\\}$"), "cn: $1");
      const std::string type = line.substr(0, line.find(':'));
      if (attrs.empty() || attrs.back().front().substr(0, attrs.back().front().find(':')) != type) {
        attrs.emplace_back();
      }
      attrs.back().push_back(line);
    }
  }
  flush();
  return out;
}

// Every file under `dir`, by relative path; with `mask`, the values slapadd
// takes from the clock (and the CRC over them) replaced.
std::map<std::string, std::string> Tree(const std::string& dir, bool mask) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    std::string rel = fs::relative(e.path(), dir).string();
    if (e.is_directory()) {
      files[rel + "/"] = "";
      continue;
    }
    std::string text = testing::ReadFile(e.path().string());
    if (mask) {
      text = std::regex_replace(
          text,
          std::regex("(^|\n)(# CRC32|entryUUID:|entryCSN:|createTimestamp:|modifyTimestamp:)"
                     " [^\n]*"),
          "$1$2 MASKED");
    }
    files[rel] = text;
  }
  return files;
}

void CheckSameTree(const std::string& slapadd_dir, const std::string& dirload_dir, bool mask) {
  std::map<std::string, std::string> want = Tree(slapadd_dir, mask);
  std::map<std::string, std::string> got = Tree(dirload_dir, mask);
  std::vector<std::string> want_names, got_names;
  for (const auto& [k, v] : want) want_names.push_back(k);
  for (const auto& [k, v] : got) got_names.push_back(k);
  REQUIRE(got_names == want_names);
  for (const auto& [name, text] : want) {
    INFO("file " << name);
    CHECK(got[name] == text);
  }
}

// slaptest reads every file back and checks each CRC.
void CheckSlaptestAccepts(const std::string& dir) {
  ProcessResult r = testing::RunSlaptest({"-F", dir, "-u"}, 60);
  CHECK_MESSAGE(r.exit_code == 0, r.Describe());
  CHECK_MESSAGE(r.err.find("checksum error") == std::string::npos, r.err);
}

TEST_CASE("add -n 0 writes slapcat's config LDIF as the files slapadd writes") {
  DIRLOAD_SKIP_WITHOUT_OPENLDAP("slaptest", "slapd", "ldapsearch");
  TempDir dir;
  const std::string ldif = dir.Write("config.ldif", MakeConfigLdif(dir));
  for (const char* d : {"slapadd.d", "dirload.d"}) fs::create_directories(dir.File(d));
  ProcessResult oracle = testing::RunSlapadd({"-n", "0", "-F", dir.File("slapadd.d"), "-l", ldif});
  REQUIRE_MESSAGE(oracle.exit_code == 0, oracle.Describe());
  RunResult add = RunDirload({"add", "-n", "0", "-F", dir.File("dirload.d"), "-l", ldif});
  REQUIRE_MESSAGE(add.exit_code == 0, add.Describe());
  // The input carries its operational attributes: nothing comes from the
  // clock, and every byte, CRC included, is slapadd's.
  CheckSameTree(dir.File("slapadd.d"), dir.File("dirload.d"), /*mask=*/false);
  CheckSlaptestAccepts(dir.File("dirload.d"));

  SUBCASE("slapd serves the configuration and the database loaded through it") {
    constexpr char kData[] =
        "dn: dc=example,dc=com\nobjectClass: dcObject\nobjectClass: organization\n"
        "dc: example\no: Example\n\n"
        "dn: cn=Some One,dc=example,dc=com\nobjectClass: person\ncn: Some One\nsn: One\n";
    const std::string data = dir.Write("data.ldif", kData);
    RunResult load = RunDirload({"add", "-F", dir.File("dirload.d"), "-n", "1", "-l", data});
    REQUIRE_MESSAGE(load.exit_code == 0, load.Describe());
    testing::Slapd slapd(dir, "served", dir.File("dirload.d"), "0", "-F");
    testing::Slapd::Answer people = slapd.Search("dc=example,dc=com", "sub", "(sn=one)");
    CHECK(people.exit_code == 0);
    CHECK(people.entries.size() == 1);
    // The config database's rootdn and rootpw came through olcRootPW.
    ProcessResult config = testing::RunProcess(
        {testing::FindProgram("ldapsearch"), "-x", "-LLL", "-H", slapd.url(), "-D", "cn=config",
         "-w", "secret", "-b", "cn=config", "-s", "one", "(olcDatabase=*)", "1.1"},
        60);
    CHECK_MESSAGE(config.exit_code == 0, config.Describe());
    CHECK(config.out.find("dn: olcDatabase={1}mdb,cn=config") != std::string::npos);
  }

  SUBCASE("a directory that holds a configuration is refused, as slapadd refuses it") {
    const auto before = Tree(dir.File("dirload.d"), false);
    RunResult again = RunDirload({"add", "-n", "0", "-F", dir.File("dirload.d"), "-l", ldif});
    ProcessResult slapadd_again =
        testing::RunSlapadd({"-n", "0", "-F", dir.File("slapadd.d"), "-l", ldif});
    CHECK(slapadd_again.exit_code == 1);
    CHECK_MESSAGE(again.exit_code == slapadd_again.exit_code, again.Describe());
    CHECK(again.err.find("already exists") != std::string::npos);
    CHECK(Tree(dir.File("dirload.d"), false) == before);
  }

  SUBCASE("entries new to a directory that holds a configuration are added, as slapadd adds them") {
    // OpenLDAP's its8427 adds an overlay so. The module comes with it: slapd
    // knows olcSyncProvConfig from the module only.
    constexpr char kMore[] =
        "dn: cn=module,cn=config\nobjectClass: olcModuleList\ncn: module\n"
        "olcModuleLoad: syncprov\n\n"
        "dn: olcOverlay=syncprov,olcDatabase={1}mdb,cn=config\nobjectClass: olcOverlayConfig\n"
        "objectClass: olcSyncProvConfig\nolcOverlay: syncprov\n\n"
        "dn: cn=extra,cn=schema,cn=config\nobjectClass: olcSchemaConfig\ncn: extra\n"
        "olcAttributeTypes: ( 1.3.6.1.4.1.4203.666.11.99 NAME 'dirloadTest' SUP name )\n";
    const std::string more = dir.Write("more.ldif", kMore);
    ProcessResult slapadd_more =
        testing::RunSlapadd({"-n", "0", "-F", dir.File("slapadd.d"), "-l", more});
    REQUIRE_MESSAGE(slapadd_more.exit_code == 0, slapadd_more.Describe());
    RunResult add_more = RunDirload({"add", "-n", "0", "-F", dir.File("dirload.d"), "-l", more});
    REQUIRE_MESSAGE(add_more.exit_code == 0, add_more.Describe());
    CHECK(
        fs::exists(dir.File("dirload.d/cn=config/olcDatabase={1}mdb/olcOverlay={0}syncprov.ldif")));
    CheckSameTree(dir.File("slapadd.d"), dir.File("dirload.d"), /*mask=*/true);
    CheckSlaptestAccepts(dir.File("dirload.d"));

    // Given again, the module is loaded and the overlay configured: both
    // refuse, and nothing is added.
    const auto before = Tree(dir.File("dirload.d"), false);
    ProcessResult slapadd_again =
        testing::RunSlapadd({"-n", "0", "-F", dir.File("slapadd.d"), "-l", more});
    RunResult again = RunDirload({"add", "-n", "0", "-F", dir.File("dirload.d"), "-l", more});
    CHECK(slapadd_again.exit_code == 1);
    CHECK_MESSAGE(again.exit_code == slapadd_again.exit_code, again.Describe());
    CHECK(again.err.find("already loaded") != std::string::npos);
    CHECK(Tree(dir.File("dirload.d"), false) == before);
    const std::string overlay = dir.Write(
        "overlay.ldif", std::string(kMore).substr(std::string(kMore).find("dn: olcOverlay")));
    RunResult overlay_again =
        RunDirload({"add", "-n", "0", "-F", dir.File("dirload.d"), "-l", overlay});
    CHECK(overlay_again.exit_code == 1);
    CHECK(overlay_again.err.find("already in list") != std::string::npos);
    CHECK(Tree(dir.File("dirload.d"), false) == before);
  }
}

TEST_CASE("add -b cn=config from stdin numbers, orders and stamps entries as slapadd does") {
  DIRLOAD_SKIP_WITHOUT_OPENLDAP("slaptest");
  TempDir dir;
  const std::string plain = dir.Write("plain.ldif", Unnumbered(MakeConfigLdif(dir)));
  for (const char* d : {"slapadd.d", "dirload.d"}) fs::create_directories(dir.File(d));
  ProcessResult oracle =
      testing::RunSlapadd({"-b", "cn=config", "-F", dir.File("slapadd.d"), "-l", plain});
  REQUIRE_MESSAGE(oracle.exit_code == 0, oracle.Describe());
  ProcessResult add =
      testing::RunProcess({"/bin/sh", "-c", "exec \"$0\" add -b cn=config -F \"$1\" < \"$2\"",
                           testing::DirloadPath(), dir.File("dirload.d"), plain},
                          120);
  REQUIRE_MESSAGE(add.exit_code == 0, add.Describe());
  CheckSameTree(dir.File("slapadd.d"), dir.File("dirload.d"), /*mask=*/true);
  CheckSlaptestAccepts(dir.File("dirload.d"));
}

}  // namespace
}  // namespace dirload
