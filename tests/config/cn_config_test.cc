#include "lib/config/cn_config.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "lib/config/database_config.h"
#include "lib/index/index_spec.h"
#include "tests/support/child_process.h"
#include "tests/support/openldap.h"
#include "tests/support/slapd_conf.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

std::string ConfText(const TempDir& dir) {
  return testing::SlapdConf()
      .Include(testing::kExampleSchemas)
      .ModulePath("/usr/lib/ldap")
      .ModuleLoad("back_mdb")
      .ModuleLoad("ppolicy.la")
      .Lines({"index_substr_if_minlen 3", "index_intlen 6", "attributeoptions x-foo lang-"})
      .Database("mdb")
      .Suffix("dc=example,dc=org")
      .RootDn("cn=admin,dc=example,dc=org")
      .Directory(dir.File("db1"))
      .Indexes({"objectClass eq", "cn pres,eq,sub", "uidNumber eq"})
      .MaxSize(1073741824)
      .Line("overlay ppolicy")
      .Database("mdb")
      .Suffix("dc=example,dc=com")
      .Directory(dir.File("db2"))
      .Index("uid eq")
      .MaxSize(2147483648)
      .Line("lastmod off")
      .Text();
}

// Writes slapd.conf into `dir` and has slaptest convert it into dir/slapd.d.
// Returns why not when slaptest is not installed (the test then skips).
std::string MakeSlapdD(const TempDir& dir) {
  if (testing::FindProgram("slaptest").empty()) return "slaptest is not installed";
  for (const char* d : {"db1", "db2", "slapd.d"}) fs::create_directories(dir.File(d));
  dir.Write("slapd.conf", ConfText(dir));
  // slaptest writes the directory, then fails to open the empty databases:
  // its exit status says nothing about the files.
  testing::ProcessResult r =
      testing::RunSlaptest({"-f", dir.File("slapd.conf"), "-F", dir.File("slapd.d")}, 60);
  REQUIRE_MESSAGE(fs::exists(dir.File("slapd.d/cn=config.ldif")), r.Describe());
  REQUIRE(fs::exists(dir.File("slapd.d/cn=config/olcDatabase={2}mdb.ldif")));
  return "";
}

TEST_CASE("cn=config written by slaptest reads like the slapd.conf it came from") {
  TempDir dir;
  std::string skip = MakeSlapdD(dir);
  if (!skip.empty()) {
    MESSAGE("skipped: " << skip);
    return;
  }
  Result<SlapdConfig> f = ReadSlapdConfig(dir.File("slapd.conf"));
  REQUIRE_MESSAGE(f.ok(), f.status().message());
  Result<SlapdConfig> d = ReadCnConfig(dir.File("slapd.d"));
  REQUIRE_MESSAGE(d.ok(), d.status().message());
  CHECK(d->from_directory);
  CHECK(d->schema_names == std::vector<std::string>{"core", "cosine", "inetorgperson", "nis"});
  CHECK(d->schema_names == f->schema_names);
  CHECK(d->schema_files.empty());
  CHECK(d->schema_definitions.size() > 100);
  CHECK(d->modules == std::vector<std::string>{"back_mdb", "ppolicy"});
  CHECK(d->modules == f->modules);
  CHECK(d->index_tuning.substr_if_minlen == 3);
  CHECK(d->index_tuning.intlen == 6);
  CHECK(d->index_tuning == f->index_tuning);
  CHECK(d->attribute_options.names() == std::vector<std::string>{"lang-", "x-foo"});
  CHECK(d->attribute_options == f->attribute_options);

  REQUIRE(d->databases.size() == f->databases.size());
  for (size_t i = 0; i < d->databases.size(); ++i) {
    const SlapdDatabase& a = f->databases[i];
    const SlapdDatabase& b = d->databases[i];
    CAPTURE(b.where);
    CHECK(a.number == b.number);
    CHECK(a.type == b.type);
    CHECK(a.suffixes == b.suffixes);
    CHECK(a.directory == b.directory);
    if (a.number > 0) CHECK(a.rootdn == b.rootdn);  // slapd.d spells out cn=config's
    CHECK(a.lastmod == b.lastmod);
    CHECK(a.overlays == b.overlays);
    REQUIRE(a.index_lines.size() == b.index_lines.size());
    for (size_t k = 0; k < a.index_lines.size(); ++k) {
      CHECK(a.index_lines[k].text == b.index_lines[k].text);
    }
    if (a.supported()) CHECK(a.maxsize == b.maxsize);
  }
  const SlapdDatabase* second = d->FindDatabase(2);
  REQUIRE(second != nullptr);
  CHECK(second->suffixes == std::vector<std::string>{"dc=example,dc=com"});
  CHECK(second->directory == dir.File("db2"));
  CHECK_FALSE(second->lastmod);
  // Index values name their file and line.
  REQUIRE(second->index_lines.size() == 1);
  CHECK(second->index_lines[0].file == dir.File("slapd.d/cn=config/olcDatabase={2}mdb.ldif"));
  CHECK(second->index_lines[0].line > 3);
  CHECK(d->FindDatabase(1)->overlays == std::vector<std::string>{"ppolicy"});
  CHECK(d->FindDatabase(0)->type == "config");
  CHECK(d->FindDatabase(-1)->type == "frontend");
}

TEST_CASE("-F and -f resolve every database to the same settings, schema and indexes") {
  TempDir dir;
  std::string skip = MakeSlapdD(dir);
  if (!skip.empty()) {
    MESSAGE("skipped: " << skip);
    return;
  }
  for (int number : {1, 2}) {
    CAPTURE(number);
    DatabaseOptions with_file, with_dir;
    with_file.config_file = dir.File("slapd.conf");
    with_dir.config_dir = dir.File("slapd.d");
    with_file.database_number = with_dir.database_number = number;
    Result<ResolvedDatabase> a = ResolveDatabase(with_file, /*creating=*/true);
    Result<ResolvedDatabase> b = ResolveDatabase(with_dir, /*creating=*/true);
    REQUIRE_MESSAGE(a.ok(), a.status().message());
    REQUIRE_MESSAGE(b.ok(), b.status().message());
    CHECK(a->suffix == b->suffix);
    CHECK(a->dir == b->dir);
    CHECK(a->rootdn == b->rootdn);
    CHECK(a->lastmod == b->lastmod);
    CHECK(a->modules == b->modules);
    CHECK(a->schema_names == b->schema_names);
    CHECK(a->index_tuning == b->index_tuning);
    CHECK(a->store_options.lmdb_map_size == b->store_options.lmdb_map_size);
    CHECK(b->config_path == dir.File("slapd.d"));
    Result<std::unique_ptr<Schema>> sa = BuildSchema(*a);
    Result<std::unique_ptr<Schema>> sb = BuildSchema(*b);
    REQUIRE_MESSAGE(sa.ok(), sa.status().message());
    REQUIRE_MESSAGE(sb.ok(), sb.status().message());
    CHECK((*sa)->Fingerprint() == (*sb)->Fingerprint());
    CHECK((*sb)->FindObjectClass("inetOrgPerson") != nullptr);
    CHECK((*sb)->FindObjectClass("posixAccount") != nullptr);
    CHECK((*sb)->FindAttribute("pwdChangedTime") != nullptr);  // the ppolicy module
    Result<IndexConfig> ia = BuildIndexConfig(**sa, *a);
    Result<IndexConfig> ib = BuildIndexConfig(**sb, *b);
    REQUIRE(ia.ok());
    REQUIRE(ib.ok());
    CHECK(ia->Canonical() == ib->Canonical());
    CHECK_FALSE(ib->empty());
  }
  // -b selects in slapd.d too.
  DatabaseOptions by_dn;
  by_dn.config_dir = dir.File("slapd.d");
  by_dn.suffix = "ou=people,dc=Example,dc=COM";
  Result<ResolvedDatabase> db = ResolveDatabase(by_dn, /*creating=*/true);
  REQUIRE_MESSAGE(db.ok(), db.status().message());
  CHECK(db->database_number == 2);
  CHECK(db->dir == dir.File("db2"));
}

// A minimal slapd.d written by hand, for the error cases.
class HandWritten {
 public:
  HandWritten() {
    fs::create_directories(dir_.File("d/cn=config"));
    Put("cn=config.ldif", "dn: cn=config\nobjectClass: olcGlobal\ncn: config\n");
    Put("cn=config/olcDatabase={0}config.ldif",
        "dn: olcDatabase={0}config\nobjectClass: olcDatabaseConfig\n"
        "olcDatabase: {0}config\n");
    Put("cn=config/olcDatabase={1}mdb.ldif", kMdb);
  }
  static constexpr const char* kMdb =
      "# AUTO-GENERATED FILE - DO NOT EDIT!! Use ldapmodify.\n"
      "# CRC32 00000000\n"
      "dn: olcDatabase={1}mdb\n"
      "objectClass: olcDatabaseConfig\n"
      "objectClass: olcMdbConfig\n"
      "olcDatabase: {1}mdb\n"
      "olcSuffix: dc=example,dc=com\n"
      "olcDbDirectory: /var/lib/ldap\n"
      "olcDbIndex: objectClass eq\n"
      "olcDbIndex: cn,sn\n"
      "  eq\n"
      "olcDbMaxSize: 1048576\n";
  std::string Put(const std::string& name, const std::string& text) {
    return dir_.Write("d/" + name, text);
  }
  std::string path() const { return dir_.File("d"); }
  std::string File(const std::string& name) const { return dir_.File("d/" + name); }

 private:
  TempDir dir_;
};

Status ReadError(const std::string& dir) {
  Result<SlapdConfig> c = ReadCnConfig(dir);
  REQUIRE_FALSE(c.ok());
  CHECK(c.status().origin() == ErrorOrigin::kConfiguration);
  return c.status();
}

TEST_CASE("a hand-written slapd.d: values, lines and schema entries") {
  HandWritten h;
  h.Put("cn=config/cn=schema.ldif", "dn: cn=schema,cn=config\nobjectClass: olcSchemaConfig\n");
  fs::create_directories(h.File("cn=config/cn=schema"));
  // Values out of {N} order are applied in {N} order; OID macros first.
  h.Put("cn=config/cn=schema/cn={0}local.ldif",
        "dn: cn={0}local,cn=schema,cn=config\n"
        "objectClass: olcSchemaConfig\n"
        "cn: {0}local\n"
        "olcObjectClasses: {1}( myOID:3 NAME 'second' SUP first AUXILIARY )\n"
        "olcObjectClasses: {0}( myOID:2 NAME 'first' SUP top AUXILIARY MAY myAttr )\n"
        "olcAttributeTypes: {0}( myOID:1 NAME 'myAttr' EQUALITY caseIgnoreMatch SYNTAX 1.3.6.1\n"
        " .4.1.1466.115.121.1.15 )\n"
        "olcObjectIdentifier: {0}myOID 1.3.6.1.4.1.99999\n");
  Result<SlapdConfig> c = ReadCnConfig(h.path());
  REQUIRE_MESSAGE(c.ok(), c.status().message());
  CHECK(c->schema_names == std::vector<std::string>{"local"});
  REQUIRE(c->schema_definitions.size() == 4);
  CHECK(c->schema_definitions[0].keyword == "objectidentifier");
  CHECK(c->schema_definitions[0].text == "myOID 1.3.6.1.4.1.99999");
  CHECK(c->schema_definitions[1].keyword == "attributetype");
  CHECK(c->schema_definitions[1].text.find("1.3.6.1.4.1.1466.115.121.1.15 )") != std::string::npos);
  CHECK(c->schema_definitions[2].text.find("'first'") != std::string::npos);
  CHECK(c->schema_definitions[3].text.find("'second'") != std::string::npos);
  CHECK(c->schema_definitions[1].source == h.File("cn=config/cn=schema/cn={0}local.ldif") + ":6");
  const SlapdDatabase* db = c->FindDatabase(1);
  REQUIRE(db != nullptr);
  CHECK(db->suffixes == std::vector<std::string>{"dc=example,dc=com"});
  CHECK(db->directory == "/var/lib/ldap");
  REQUIRE(db->index_lines.size() == 2);
  CHECK(db->index_lines[1].text == "cn,sn eq");
  CHECK(db->index_lines[1].line == 10);
  CHECK(*db->maxsize == 1048576);
  CHECK(db->lastmod);
  // The definitions load into a schema.
  ResolvedDatabase rd;
  rd.schema_definitions = c->schema_definitions;
  Result<std::unique_ptr<Schema>> schema = BuildSchema(rd);
  REQUIRE_MESSAGE(schema.ok(), schema.status().message());
  CHECK((*schema)->FindObjectClass("second") != nullptr);
  CHECK((*schema)->FindAttribute("1.3.6.1.4.1.99999.1") != nullptr);

  // A bad definition is a configuration error naming the file and line.
  h.Put("cn=config/cn=schema/cn={1}bad.ldif",
        "dn: cn={1}bad,cn=schema,cn=config\nobjectClass: olcSchemaConfig\ncn: {1}bad\n"
        "olcAttributeTypes: {0}( 1.2.3.4 NAME 'broken' SUP nosuch )\n");
  c = ReadCnConfig(h.path());
  REQUIRE(c.ok());
  rd.schema_definitions = c->schema_definitions;
  schema = BuildSchema(rd);
  REQUIRE_FALSE(schema.ok());
  CHECK(schema.status().origin() == ErrorOrigin::kConfiguration);
  CHECK(schema.status().message().find("cn={1}bad.ldif:4: ") != std::string::npos);
}

TEST_CASE("slapd.d: the settings a load does not use are noted once per attribute, for -v") {
  HandWritten h;
  h.Put("cn=config.ldif",
        "dn: cn=config\nobjectClass: olcGlobal\ncn: config\nolcLogLevel: stats\n"
        "olcIndexIntLen: 5\nolcPidFile: /run/slapd/slapd.pid\n");
  h.Put("cn=config/olcDatabase={1}mdb.ldif",
        std::string(HandWritten::kMdb) +
            "olcAccess: {0}to * by self write\nolcAccess: {1}to * by * read\nolcDbMode: 0600\n");
  Result<SlapdConfig> c = ReadCnConfig(h.path());
  REQUIRE_MESSAGE(c.ok(), c.status().message());
  auto noted = [&](const std::string& text) {
    return std::count_if(c->notes.begin(), c->notes.end(),
                         [&](const std::string& n) { return n.find(text) != std::string::npos; });
  };
  CHECK(noted(h.File("cn=config.ldif") + ":4: ignored olcLogLevel") == 1);
  CHECK(noted(h.File("cn=config.ldif") + ":6: ignored olcPidFile") == 1);
  // Two values, one note, at the first one's line; spelled as written.
  CHECK(noted(h.File("cn=config/olcDatabase={1}mdb.ldif") + ":13: ignored olcAccess") == 1);
  CHECK(noted("ignored olcAccess") == 1);
  CHECK(noted(":15: ignored olcDbMode") == 1);
  // What a load reads is never called ignored.
  for (const char* read : {"olcIndexIntLen", "olcDbIndex", "olcSuffix", "olcDbDirectory",
                           "olcDbMaxSize", "olcDatabase"}) {
    CAPTURE(read);
    CHECK(noted(std::string("ignored ") + read) == 0);
  }
}

TEST_CASE("slapd.d: a third party's module takes the olc attributes slapd 2.5 lacks, warned of") {
  HandWritten h;
  h.Put("cn=config/olcDatabase={1}mdb.ldif",
        std::string(HandWritten::kMdb) + "olcAcmeAuditLog: /var/log/acme\n");
  Result<SlapdConfig> refused = ReadCnConfig(h.path());
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.status().message().find("'olcAcmeAuditLog' is undefined") != std::string::npos);
  h.Put("cn=config/cn=module{0}.ldif",
        "dn: cn=module{0},cn=config\nobjectClass: olcModuleList\ncn: module{0}\n"
        "olcModuleLoad: {0}back_mdb\nolcModuleLoad: {1}acme_audit.la\n");
  Result<SlapdConfig> c = ReadCnConfig(h.path());
  REQUIRE_MESSAGE(c.ok(), c.status().message());
  REQUIRE(c->warnings.size() == 1);
  CHECK(c->warnings[0].find(h.File("cn=config/olcDatabase={1}mdb.ldif") +
                            ":13: attribute type 'olcAcmeAuditLog' is not slapd 2.5's: taken as "
                            "one of module 'acme_audit'") != std::string::npos);
  REQUIRE(c->FindDatabase(1) != nullptr);
  CHECK(c->FindDatabase(1)->suffixes == std::vector<std::string>{"dc=example,dc=com"});
}

TEST_CASE("slapd.d: olcAttributeOptions values are words of attributeoptions lines") {
  HandWritten h;
  Result<SlapdConfig> plain = ReadCnConfig(h.path());
  REQUIRE_MESSAGE(plain.ok(), plain.status().message());
  CHECK(plain->attribute_options.is_default());

  h.Put("cn=config.ldif",
        "dn: cn=config\nobjectClass: olcGlobal\ncn: config\n"
        "olcAttributeOptions: x-foo\nolcAttributeOptions: a- phonetic\n");
  Result<SlapdConfig> c = ReadCnConfig(h.path());
  REQUIRE_MESSAGE(c.ok(), c.status().message());
  CHECK(c->attribute_options.names() == std::vector<std::string>{"a-", "phonetic", "x-foo"});
  CHECK_FALSE(c->attribute_options.Accepts("lang-de"));  // not declared: gone

  h.Put("cn=config.ldif",
        "dn: cn=config\nobjectClass: olcGlobal\ncn: config\n"
        "olcAttributeOptions: x-foo\nolcAttributeOptions: x-\n");
  Status s = ReadError(h.path());
  CHECK_MESSAGE(s.message().find("cn=config.ldif:5: olcAttributeOptions: attribute option "
                                 "\"x-\" overrides previous option") != std::string::npos,
                s.message());
}

TEST_CASE("slapd.d errors name the directory or file, and the line") {
  HandWritten h;
  SUBCASE("a missing directory") {
    Status s = ReadError(h.path() + "/nothere");
    CHECK(s.message().find("nothere: no such configuration directory") != std::string::npos);
  }
  SUBCASE("a file instead of a directory") {
    Status s = ReadError(h.File("cn=config.ldif"));
    CHECK(s.message().find("is not a directory") != std::string::npos);
  }
  SUBCASE("no cn=config.ldif") {
    fs::remove(h.File("cn=config.ldif"));
    Status s = ReadError(h.path());
    CHECK(s.message().find("cn=config.ldif: missing") != std::string::npos);
  }
  SUBCASE("a malformed entry") {
    h.Put("cn=config/olcDatabase={1}mdb.ldif",
          std::string(HandWritten::kMdb) + "this line has no colon\n");
    Status s = ReadError(h.path());
    CHECK_MESSAGE(
        s.message().find(h.File("cn=config/olcDatabase={1}mdb.ldif") + ":13") != std::string::npos,
        s.message());
  }
  SUBCASE("a bad boolean") {
    h.Put("cn=config/olcDatabase={1}mdb.ldif",
          std::string(HandWritten::kMdb) + "olcLastMod: sometimes\n");
    Status s = ReadError(h.path());
    CHECK(s.message().find("olcDatabase={1}mdb.ldif:13: olclastmod: 'sometimes'") !=
          std::string::npos);
  }
  SUBCASE("an overlay directory without its database file") {
    fs::create_directories(h.File("cn=config/olcDatabase={2}mdb"));
    h.Put("cn=config/olcDatabase={2}mdb/olcOverlay={0}ppolicy.ldif",
          "dn: olcOverlay={0}ppolicy,olcDatabase={2}mdb,cn=config\nolcOverlay: {0}ppolicy\n");
    Status s = ReadError(h.path());
    CHECK(s.message().find("olcDatabase={2}mdb.ldif: missing") != std::string::npos);
  }
  SUBCASE("no config database") {
    fs::remove(h.File("cn=config/olcDatabase={0}config.ldif"));
    Status s = ReadError(h.path());
    CHECK(s.message().find("olcDatabase={0}config.ldif: missing") != std::string::npos);
  }
  SUBCASE("a configuration attribute slapd does not define") {
    // slapadd: "str2ad(olcFrobnicate): attribute type undefined".
    h.Put("cn=config/olcDatabase={1}mdb.ldif",
          std::string(HandWritten::kMdb) + "olcFrobnicate: yes\n");
    Status s = ReadError(h.path());
    CHECK(s.origin() == ErrorOrigin::kConfiguration);
    CHECK_MESSAGE(s.message().find("olcDatabase={1}mdb.ldif:13: attribute type 'olcFrobnicate' "
                                   "is undefined") != std::string::npos,
                  s.message());
  }
  SUBCASE("an empty file") {
    h.Put("cn=config/olcDatabase={1}mdb.ldif", "# nothing\n");
    Status s = ReadError(h.path());
    CHECK(s.message().find("olcDatabase={1}mdb.ldif: no entry") != std::string::npos);
  }
}

// Debian's slapd package writes this slapd.d on installation: slapd's
// attributes dirload does not need are accepted.
TEST_CASE("slapd.d: the installed /etc/ldap/slapd.d reads, when there is one") {
  if (!fs::exists("/etc/ldap/slapd.d/cn=config.ldif")) return;
  Result<SlapdConfig> c = ReadCnConfig("/etc/ldap/slapd.d");
  CHECK_MESSAGE(c.ok(), c.status().message());
}

TEST_CASE("slapd.d in memory: read apart from interpreted, with the same result") {
  TempDir dir;
  std::string skip = MakeSlapdD(dir);
  if (!skip.empty()) {
    MESSAGE("skipped: " << skip);
    return;
  }
  Result<CnConfigTree> tree = ReadCnConfigTree(dir.File("slapd.d"));
  REQUIRE_MESSAGE(tree.ok(), tree.status().message());
  CHECK(tree->files.count("cn=config.ldif") == 1);
  CHECK(tree->files.count("cn=config/olcDatabase={1}mdb/olcOverlay={0}ppolicy.ldif") == 1);
  CHECK(tree->directories.count("cn=config/olcDatabase={1}mdb") == 1);
  Result<SlapdConfig> parsed = ParseCnConfig(*tree);
  Result<SlapdConfig> read = ReadCnConfig(dir.File("slapd.d"));
  REQUIRE_MESSAGE(parsed.ok(), parsed.status().message());
  REQUIRE(read.ok());
  CHECK(parsed->schema_names == read->schema_names);
  REQUIRE(parsed->databases.size() == read->databases.size());
  const SlapdDatabase* db = parsed->FindDatabase(1);
  REQUIRE(db != nullptr);
  CHECK(db->overlays == std::vector<std::string>{"ppolicy"});
  CHECK(db->index_lines.size() == read->FindDatabase(1)->index_lines.size());

  // A tree that exists only in memory: its messages name files under its
  // dir, as if it had been read from there.
  CnConfigTree mem;
  mem.dir = "/etc/ldap/slapd.d";
  mem.files["cn=config.ldif"] = "dn: cn=config\nobjectClass: olcGlobal\ncn: config\n";
  mem.directories.insert("cn=config");
  Result<SlapdConfig> no_config_db = ParseCnConfig(mem);
  REQUIRE_FALSE(no_config_db.ok());
  CHECK(no_config_db.status().message() ==
        "/etc/ldap/slapd.d/cn=config/olcDatabase={0}config.ldif: missing");
  mem.files["cn=config/olcDatabase={0}config.ldif"] =
      "dn: olcDatabase={0}config,cn=config\nobjectClass: olcDatabaseConfig\n"
      "olcDatabase: {0}config\n";
  mem.files["cn=config/olcDatabase={1}mdb.ldif"] =
      "dn: olcDatabase={1}mdb,cn=config\nobjectClass: olcMdbConfig\nolcDatabase: {1}mdb\n"
      "olcSuffix: o=mem\nolcDbIndex: uid eq\n";
  Result<SlapdConfig> c = ParseCnConfig(mem);
  REQUIRE_MESSAGE(c.ok(), c.status().message());
  REQUIRE(c->FindDatabase(1) != nullptr);
  CHECK(c->FindDatabase(1)->suffixes == std::vector<std::string>{"o=mem"});
  CHECK(c->FindDatabase(1)->index_lines[0].line == 5);
  CHECK(c->FindDatabase(1)->where == "/etc/ldap/slapd.d/cn=config/olcDatabase={1}mdb.ldif");
}

}  // namespace
}  // namespace dirload
