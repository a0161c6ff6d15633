#include "lib/config/database_config.h"

#include <doctest/doctest.h>

#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

using testing::TempDir;

// Two mdb databases after a monitor database, so that numbers and "the first
// database" are not the same thing.
std::string TwoDatabases(const TempDir& dir) {
  return "moduleload back_mdb\n"
         "moduleload ppolicy.la\n"
         "index_substr_if_minlen 3\n"
         "database monitor\n"
         "database mdb\n"
         "suffix \"dc=example,dc=org\"\n"
         "rootdn \"cn=admin,dc=example,dc=org\"\n"
         "directory " +
         dir.File("db1") +
         "\n"
         "index cn eq\n"
         "maxsize 1G\n"
         "overlay ppolicy\n"
         "database mdb\n"
         "suffix \"dc=example,dc=com\"\n"
         "directory " +
         dir.File("db2") +
         "\n"
         "index uid eq\n"
         "maxsize 2G\n"
         "lastmod off\n";
}

Result<ResolvedDatabase> Resolve(const DatabaseOptions& o) {
  return ResolveDatabase(o, /*creating=*/true);
}

TEST_CASE("-b picks the database whose suffix holds the DN") {
  TempDir dir;
  DatabaseOptions o;
  o.config_file = dir.Write("slapd.conf", TwoDatabases(dir));
  for (const char* dn :
       {"dc=example,dc=com", "DC=Example, DC=COM", "uid=someone,ou=people,dc=example,dc=com"}) {
    o.suffix = dn;
    Result<ResolvedDatabase> db = Resolve(o);
    REQUIRE_MESSAGE(db.ok(), db.status().message());
    CHECK(db->database_number == 3);
    CHECK(db->dir == dir.File("db2"));
    // With a configuration, -b selects; the suffix stays the database's.
    CHECK(db->suffix == "dc=example,dc=com");
    CHECK(db->store_options.lmdb_map_size == (uint64_t{2} << 30));
    CHECK_FALSE(db->lastmod);
    CHECK(db->rootdn.empty());
    REQUIRE(db->index_lines.size() == 1);
    CHECK(db->index_lines[0].text == "uid eq");
  }
  o.suffix = "dc=example,dc=org";
  Result<ResolvedDatabase> first = Resolve(o);
  REQUIRE(first.ok());
  CHECK(first->database_number == 2);
  CHECK(first->dir == dir.File("db1"));
  CHECK(first->rootdn == "cn=admin,dc=example,dc=org");
  CHECK(first->lastmod);
  CHECK(first->store_options.lmdb_map_size == (uint64_t{1} << 30));
  CHECK(first->modules == std::vector<std::string>{"back_mdb", "ppolicy"});
  CHECK(first->overlays == std::vector<std::string>{"ppolicy"});
  CHECK(first->index_tuning.substr_if_minlen == 3);
}

TEST_CASE("-b prefers the longest suffix holding the DN") {
  Result<SlapdConfig> c = ParseSlapdConfig(
      "database mdb\nsuffix dc=com\n"
      "database mdb\nsuffix \"dc=example,dc=com\"\n"
      "database mdb\nsuffix \"\"\n",
      "s.conf");
  REQUIRE(c.ok());
  auto pick = [&](const std::string& dn) {
    Result<const SlapdDatabase*> db = SelectDatabase(*c, std::nullopt, dn);
    REQUIRE_MESSAGE(db.ok(), db.status().message());
    return (*db)->number;
  };
  CHECK(pick("cn=x,dc=example,dc=com") == 2);
  CHECK(pick("dc=other,dc=com") == 1);
  CHECK(pick("dc=com") == 1);
  CHECK(pick("o=elsewhere") == 3);  // the empty suffix holds every DN
  // Types the built-in schema does not know still compare, case folded.
  CHECK(pick("fooBar=Baz,DC=Example,DC=Com") == 2);
}

TEST_CASE("-n picks by slapadd's numbers; neither picks the first loadable database") {
  TempDir dir;
  DatabaseOptions o;
  o.config_file = dir.Write("slapd.conf", TwoDatabases(dir));
  o.database_number = 3;
  Result<ResolvedDatabase> n3 = Resolve(o);
  REQUIRE(n3.ok());
  CHECK(n3->dir == dir.File("db2"));
  o.database_number.reset();
  Result<ResolvedDatabase> none = Resolve(o);
  REQUIRE(none.ok());
  CHECK(none->database_number == 2);  // database 1 is the monitor
  CHECK(none->dir == dir.File("db1"));
  // A search's base selects like -b.
  o.select_dn = "ou=x,dc=example,dc=com";
  Result<ResolvedDatabase> base = Resolve(o);
  REQUIRE(base.ok());
  CHECK(base->database_number == 3);
}

TEST_CASE("selection errors are configuration errors that say what there is") {
  TempDir dir;
  DatabaseOptions o;
  o.config_file = dir.Write("slapd.conf", TwoDatabases(dir));
  auto fails = [&](const DatabaseOptions& opts, ErrorOrigin origin, const std::string& text) {
    Result<ResolvedDatabase> db = Resolve(opts);
    REQUIRE_FALSE(db.ok());
    CHECK(db.status().origin() == origin);
    CHECK_MESSAGE(db.status().message().find(text) != std::string::npos, db.status().message());
  };
  DatabaseOptions n = o;
  n.database_number = 0;
  fails(n, ErrorOrigin::kConfiguration, "database 0 (config");
  n.database_number = 1;
  fails(n, ErrorOrigin::kConfiguration, "database 1 (monitor");
  n.database_number = 4;
  fails(n, ErrorOrigin::kConfiguration, "numbered 0 to 3");
  n.database_number = -1;
  fails(n, ErrorOrigin::kConfiguration, "-n -1: no such database");
  DatabaseOptions b = o;
  b.suffix = "dc=nowhere";
  fails(b, ErrorOrigin::kConfiguration,
        "the suffixes there are: 'dc=example,dc=org' (database 2, mdb), 'dc=example,dc=com' "
        "(database 3, mdb)");
  b.database_number = 2;
  fails(b, ErrorOrigin::kUsage, "-n and -b");
  DatabaseOptions both = o;
  both.config_dir = dir.path().string();
  fails(both, ErrorOrigin::kUsage, "-f (slapd.conf) and -F (slapd.d)");
  DatabaseOptions no_config;
  no_config.database_number = 1;
  no_config.db_dir = dir.File("db");
  fails(no_config, ErrorOrigin::kUsage, "-n selects a database of a configuration");
  DatabaseOptions missing;
  missing.config_file = dir.File("nothere.conf");
  fails(missing, ErrorOrigin::kConfiguration, "nothere.conf");
  DatabaseOptions directory;
  directory.config_file = dir.path().string();
  fails(directory, ErrorOrigin::kConfiguration, "is a directory");
  DatabaseOptions none;
  none.config_file = dir.Write("empty.conf", "include x.schema\ndatabase monitor\n");
  fails(none, ErrorOrigin::kConfiguration, "no 'database mdb'");
  DatabaseOptions ldif;
  ldif.config_file = dir.Write("ldif.conf", "database ldif\nsuffix dc=l\ndirectory /l\n");
  ldif.suffix = "cn=x,dc=l";
  fails(ldif, ErrorOrigin::kConfiguration, "is held by database 1 (ldif");
  DatabaseOptions two;
  two.config_file = dir.Write("two.conf", "database mdb\nsuffix dc=a\nsuffix dc=b\ndirectory /x\n");
  fails(two, ErrorOrigin::kConfiguration, "has 2 suffixes");
}

TEST_CASE("without a configuration, -b is the suffix and --db the directory") {
  TempDir dir;
  DatabaseOptions o;
  o.db_dir = dir.File("db");
  o.suffix = "dc=example,dc=com";
  o.index_lines = {"cn eq"};
  Result<ResolvedDatabase> db = Resolve(o);
  REQUIRE(db.ok());
  CHECK(db->dir == dir.File("db"));
  CHECK(db->has_suffix);
  CHECK(db->suffix == "dc=example,dc=com");
  CHECK(db->config_path.empty());
  REQUIRE(db->index_lines.size() == 1);
  CHECK(db->index_lines[0].file.empty());
  DatabaseOptions nothing;
  Result<ResolvedDatabase> none = Resolve(nothing);
  REQUIRE_FALSE(none.ok());
  CHECK(none.status().origin() == ErrorOrigin::kUsage);
}

TEST_CASE("--db, --schema and --index override or extend the configuration") {
  TempDir dir;
  DatabaseOptions o;
  o.config_file = dir.Write("slapd.conf", TwoDatabases(dir));
  o.db_dir = dir.File("elsewhere");
  o.index_lines = {"sn eq"};
  Result<ResolvedDatabase> db = Resolve(o);
  REQUIRE(db.ok());
  CHECK(db->dir == dir.File("elsewhere"));
  REQUIRE(db->index_lines.size() == 2);
  CHECK(db->index_lines[1].text == "sn eq");
  Result<std::unique_ptr<Schema>> schema = BuildSchema(*db);
  REQUIRE(schema.ok());
  Result<IndexConfig> index = BuildIndexConfig(**schema, *db);
  REQUIRE_MESSAGE(index.ok(), index.status().message());
  CHECK(index->Canonical() == "cn eq\nsn eq\n");
}

TEST_CASE("bad index lines and .schema files are configuration errors naming the file") {
  TempDir dir;
  const testing::InDirectory here(dir.path());  // the relative includes below
  DatabaseOptions o;
  o.config_file =
      dir.Write("slapd.conf", "database mdb\nsuffix dc=x\ndirectory db\nindex nosuchattr eq\n");
  Result<ResolvedDatabase> db = Resolve(o);
  REQUIRE(db.ok());
  Result<std::unique_ptr<Schema>> schema = BuildSchema(*db);
  REQUIRE(schema.ok());
  Result<IndexConfig> index = BuildIndexConfig(**schema, *db);
  REQUIRE_FALSE(index.ok());
  CHECK(index.status().origin() == ErrorOrigin::kConfiguration);
  CHECK(index.status().message().find(dir.File("slapd.conf") + ":4") != std::string::npos);

  // --index lines are the command line's.
  o.config_file = dir.Write("ok.conf", "database mdb\nsuffix dc=x\ndirectory db\n");
  o.index_lines = {"cn eq", "nosuchattr eq"};
  db = Resolve(o);
  REQUIRE(db.ok());
  index = BuildIndexConfig(**schema, *db);
  REQUIRE_FALSE(index.ok());
  CHECK(index.status().origin() == ErrorOrigin::kUsage);
  CHECK(index.status().message().find("--index 2") != std::string::npos);

  dir.Write("bad.schema", "attributetype ( 1.2.3.4 NAME 'x' SUP nosuchsup )\n");
  o.config_file =
      dir.Write("schema.conf", "include bad.schema\ndatabase mdb\nsuffix dc=x\ndirectory db\n");
  o.index_lines.clear();
  db = Resolve(o);
  REQUIRE(db.ok());
  schema = BuildSchema(*db);
  REQUIRE_FALSE(schema.ok());
  CHECK(schema.status().origin() == ErrorOrigin::kConfiguration);
  CHECK(schema.status().message().find(dir.File("bad.schema") + ":1") != std::string::npos);

  o.config_file =
      dir.Write("gone.conf", "include gone.schema\ndatabase mdb\nsuffix dc=x\ndirectory db\n");
  db = Resolve(o);
  REQUIRE(db.ok());
  schema = BuildSchema(*db);
  REQUIRE_FALSE(schema.ok());
  CHECK(schema.status().origin() == ErrorOrigin::kConfiguration);
  CHECK(schema.status().message().find("gone.schema") != std::string::npos);
}

TEST_CASE("the configuration's attribute options reach the schema") {
  TempDir dir;
  DatabaseOptions o;
  o.config_file = dir.Write("slapd.conf", "attributeoptions x-\n" + TwoDatabases(dir));
  Result<ResolvedDatabase> db = Resolve(o);
  REQUIRE_MESSAGE(db.ok(), db.status().message());
  CHECK(db->attribute_options.Accepts("x-foo"));
  Result<std::unique_ptr<Schema>> schema = BuildSchema(*db);
  REQUIRE_MESSAGE(schema.ok(), schema.status().message());
  Result<AttributeDescription> ad = (*schema)->ParseAttributeDescription("description;X-Foo");
  REQUIRE_MESSAGE(ad.ok(), ad.status().message());
  CHECK(ad->ToString() == "description;x-foo");
  CHECK_FALSE((*schema)->ParseAttributeDescription("cn;lang-de").ok());

  // --schema replaces the schema, not the options.
  o.schema_files = {"/etc/ldap/schema/core.schema"};
  db = Resolve(o);
  REQUIRE(db.ok());
  schema = BuildSchema(*db);
  REQUIRE_MESSAGE(schema.ok(), schema.status().message());
  CHECK((*schema)->ParseAttributeDescription("description;x-foo").ok());

  // Without the directive, slapd's default.
  ResolvedDatabase plain;
  schema = BuildSchema(plain);
  REQUIRE(schema.ok());
  CHECK_FALSE((*schema)->ParseAttributeDescription("description;x-foo").ok());
  CHECK((*schema)->ParseAttributeDescription("cn;lang-de").ok());
}

TEST_CASE("the schema of loaded modules is added (ppolicy)") {
  TempDir dir;
  DatabaseOptions o;
  o.config_file = dir.Write("slapd.conf", TwoDatabases(dir));
  Result<ResolvedDatabase> db = Resolve(o);
  REQUIRE(db.ok());
  Result<std::unique_ptr<Schema>> schema = BuildSchema(*db);
  REQUIRE_MESSAGE(schema.ok(), schema.status().message());
  CHECK((*schema)->FindAttribute("pwdChangedTime") != nullptr);
  // Without the module, the built-in schema has no ppolicy attributes.
  ResolvedDatabase plain;
  Result<std::unique_ptr<Schema>> builtin = BuildSchema(plain);
  REQUIRE(builtin.ok());
  CHECK((*builtin)->FindAttribute("pwdChangedTime") == nullptr);
}

}  // namespace
}  // namespace dirload
