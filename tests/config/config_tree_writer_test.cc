#include "lib/config/config_tree_writer.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>

#include "lib/config/config_schema.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

// Definitions as slapcat -n 0 writes them in cn=schema,cn=config.
ConfigSchema TestSchema() {
  Result<ConfigSchema> s = ConfigSchema::FromDefinitions(
      {"( 2.5.4.0 NAME 'objectClass' EQUALITY objectIdentifierMatch SYNTAX "
       "1.3.6.1.4.1.1466.115.121.1.38 )",
       "( OLcfgGlAt:1 NAME 'olcAccess' DESC 'Access Control List' EQUALITY caseIgnoreMatch "
       "SYNTAX OMsDirectoryString X-ORDERED 'VALUES' )",
       "( OLcfgDbAt:0.1 NAME 'olcDatabase' DESC 'The backend type for a database instance' "
       "SUP olcBackend SINGLE-VALUE X-ORDERED 'SIBLINGS' )",
       "( OLcfgDbAt:0.10 NAME 'olcSuffix' EQUALITY distinguishedNameMatch SYNTAX OMsDN )",
       "( OLcfgDbAt:0.8 NAME 'olcRootDN' EQUALITY distinguishedNameMatch SYNTAX OMsDN "
       "SINGLE-VALUE )",
       "( OLcfgDbAt:0.1 NAME 'olcDbDirectory' DESC 'Directory for database content' "
       "EQUALITY caseIgnoreMatch SYNTAX OMsDirectoryString SINGLE-VALUE )",
       "( OLcfgDbAt:0.2 NAME 'olcDbIndex' EQUALITY caseIgnoreMatch SYNTAX OMsDirectoryString )",
       "( 1.3.6.1.1.16.4 NAME 'entryUUID' DESC 'UUID of the entry' EQUALITY UUIDMatch SYNTAX "
       "1.3.6.1.1.16.1 SINGLE-VALUE NO-USER-MODIFICATION USAGE directoryOperation )"},
      {"( 2.5.6.0 NAME 'top' DESC 'top of the superclass chain' ABSTRACT MUST objectClass )",
       "( OLcfgGlOc:0 NAME 'olcConfig' DESC 'OpenLDAP configuration object' SUP top ABSTRACT )",
       "( OLcfgGlOc:4 NAME 'olcDatabaseConfig' DESC 'OpenLDAP Database-specific options' SUP "
       "olcConfig STRUCTURAL MUST olcDatabase MAY ( olcSuffix $ olcAccess $ olcRootDN ) )",
       "( OLcfgDbOc:12.1 NAME 'olcMdbConfig' DESC 'MDB database configuration' SUP "
       "olcDatabaseConfig STRUCTURAL MUST olcDbDirectory MAY ( olcDbIndex ) )"});
  REQUIRE(s.ok());
  return std::move(*s);
}

TEST_CASE("ConfigSchema: names, X-ORDERED values and the structural class") {
  ConfigSchema s = TestSchema();
  CHECK(s.CanonicalAttribute("OLCACCESS") == "olcAccess");
  CHECK(s.CanonicalAttribute("1.3.6.1.1.16.4") == "entryUUID");
  CHECK_FALSE(s.CanonicalAttribute("olcFrobnicate").has_value());
  CHECK(s.OrderedValues("olcaccess"));
  CHECK_FALSE(s.OrderedValues("olcDatabase"));  // SIBLINGS: ordered by RDN, not values
  CHECK_FALSE(s.OrderedValues("olcDbIndex"));
  CHECK(s.StructuralClass({"olcDatabaseConfig", "olcMdbConfig"}) == "olcMdbConfig");
  CHECK(s.StructuralClass({"olcMdbConfig", "olcDatabaseConfig"}) == "olcMdbConfig");
}

TEST_CASE("ConfigSchema sorts attributes as slapd's configuration backend does") {
  ConfigSchema s = TestSchema();
  std::vector<ConfigAttribute> attrs = {
      {"olcDbIndex", {"cn eq"}},
      {"olcRootDN", {"cn=admin"}},
      {"entryUUID", {"x"}},
      {"olcSuffix", {"dc=example"}},
      {"olcDbIndex;x-foo", {"sn eq"}},
      {"olcDbDirectory", {"/db"}},
      {"olcDatabase", {"{1}mdb"}},
      {"objectClass", {"olcDatabaseConfig", "olcMdbConfig"}},
  };
  s.SortConfigAttributes(&attrs);
  std::vector<std::string> order;
  for (const ConfigAttribute& a : attrs) order.push_back(a.description);
  // Required (top's, the database's, mdb's), then allowed (inherited first);
  // the rest, options included, in their order.
  CHECK(order == std::vector<std::string>{"objectClass", "olcDatabase", "olcDbDirectory",
                                          "olcSuffix", "olcRootDN", "olcDbIndex", "entryUUID",
                                          "olcDbIndex;x-foo"});
}

TEST_CASE("config files: header, CRC32, the RDN as DN, slapd's folding and base64") {
  CHECK(ConfigFileCrc32("123456789") == 0xcbf43926u);
  ConfigTreeEntry e;
  e.rdns = {"olcDatabase={1}mdb", "cn=config"};
  e.attributes = {{"objectClass", {"olcDatabaseConfig"}},
                  {"olcRootPW", {"secret"}},
                  {"olcAccess", {"{0}to * by * read", std::string(90, 'a')}}};
  const std::string body =
      "dn: olcDatabase={1}mdb\n"
      "objectClass: olcDatabaseConfig\n"
      "olcRootPW:: c2VjcmV0\n"
      "olcAccess: {0}to * by * read\n"
      "olcAccess: " +
      std::string(67, 'a') + "\n " + std::string(23, 'a') + "\n";
  char crc[32];
  std::snprintf(crc, sizeof crc, "# CRC32 %08x\n", ConfigFileCrc32(body));
  CHECK(FormatConfigFile(e) ==
        "# AUTO-GENERATED FILE - DO NOT EDIT!! Use ldapmodify.\n" + std::string(crc) + body);
  CHECK(ConfigFilePath(e) == "cn=config/olcDatabase={1}mdb.ldif");
}

TEST_CASE("WriteConfigTree writes the tree and refuses a directory with a configuration") {
  TempDir dir;
  ConfigTreeEntry root{{"cn=config"}, {{"objectClass", {"olcGlobal"}}, {"cn", {"config"}}}};
  ConfigTreeEntry db{{"olcDatabase={1}mdb", "cn=config"},
                     {{"objectClass", {"olcDatabaseConfig"}}, {"olcDatabase", {"{1}mdb"}}}};
  ConfigTreeEntry overlay{{"olcOverlay={0}syncprov", "olcDatabase={1}mdb", "cn=config"},
                          {{"objectClass", {"olcOverlayConfig"}}, {"olcOverlay", {"{0}syncprov"}}}};
  REQUIRE(WriteConfigTree(dir.path().string(), {root, db, overlay}).ok());
  CHECK(fs::is_regular_file(dir.File("cn=config.ldif")));
  CHECK(fs::is_regular_file(dir.File("cn=config/olcDatabase={1}mdb.ldif")));
  CHECK(fs::is_regular_file(dir.File("cn=config/olcDatabase={1}mdb/olcOverlay={0}syncprov.ldif")));
  size_t names = 0;
  for (const auto& e : fs::directory_iterator(dir.path())) {
    (void)e;
    ++names;
  }
  CHECK(names == 2);  // nothing left of the temporary tree

  Status again = WriteConfigTree(dir.path().string(), {root});
  CHECK(again.code() == StatusCode::kAlreadyExists);
  CHECK(again.origin() == ErrorOrigin::kInput);

  ConfigTreeEntry dotted{{"cn=a.b", "cn=config"}, {{"cn", {"a.b"}}}};
  TempDir other;
  CHECK(WriteConfigTree(other.path().string(), {root, dotted}).code() == StatusCode::kUnsupported);
  CHECK_FALSE(fs::exists(other.File("cn=config.ldif")));
}

}  // namespace
}  // namespace dirload
