#include "lib/config/slapd_config.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

bool HasNote(const SlapdConfig& c, std::string_view text) {
  for (const std::string& n : c.notes) {
    if (n.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST_CASE("slapd.conf: the lines a loader needs are read, the rest noted") {
  Result<SlapdConfig> c = ParseSlapdConfig(
      "# comment\n"
      "include /etc/ldap/schema/core.schema\n"
      "include   local.schema\n"
      "modulepath /usr/lib/ldap\n"
      "moduleload back_mdb\n"
      "database hdb\n"
      "suffix \"dc=Example, dc=com\"\n"
      "directory db\n"
      "index objectClass eq\n"
      "index cn,sn\n"
      "  pres,eq,sub\n"
      "maxsize 1G\n"
      "dbconfig set_cachesize 0 268435456 1\n"
      "cachesize 10000\n"
      "access to * by * read\n"
      "database mdb\n"
      "suffix dc=other\n",
      "/etc/dl/slapd.conf");
  REQUIRE(c.ok());
  // frontend, config (both implicit), then the two sections.
  REQUIRE(c->databases.size() == 4);
  const SlapdDatabase* first = c->FindDatabase(1);
  REQUIRE(first != nullptr);
  CHECK(first->type == "bdb");
  CHECK(first->supported());
  CHECK(first->where == "/etc/dl/slapd.conf:6");
  REQUIRE(first->suffixes.size() == 1);
  CHECK(first->suffixes[0] == "dc=Example, dc=com");
  // Relative to the current directory, as slapd opens them.
  CHECK(first->directory == (std::filesystem::current_path() / "db").string());
  REQUIRE(first->index_lines.size() == 2);
  CHECK(first->index_lines[1].text == "cn,sn pres,eq,sub");
  CHECK(first->index_lines[1].line == 10);
  CHECK(first->index_lines[1].Where() == "/etc/dl/slapd.conf:10");
  CHECK(*first->maxsize == (uint64_t{1} << 30));
  CHECK(*first->cache_size == 268435456);
  CHECK(first->lastmod);
  REQUIRE(c->schema_files.size() == 2);
  CHECK(c->schema_files[1] == (std::filesystem::current_path() / "local.schema").string());
  CHECK(c->schema_names == std::vector<std::string>{"core", "local"});
  CHECK(c->modules == std::vector<std::string>{"back_mdb"});
  // The second section is kept with its own settings.
  const SlapdDatabase* second = c->FindDatabase(2);
  REQUIRE(second != nullptr);
  CHECK(second->type == "mdb");
  CHECK(second->suffixes == std::vector<std::string>{"dc=other"});
  CHECK(second->index_lines.empty());
  CHECK_FALSE(second->maxsize.has_value());
  // modulepath, cachesize and access are noted.
  CHECK(c->notes.size() == 3);
  CHECK(c->notes[0].find("slapd.conf:4: ignored 'modulepath") != std::string::npos);
  CHECK(HasNote(*c, "slapd.conf:15: ignored 'access to * by * read'"));
}

// slapadd: "slapd.conf: line 5: unknown directive <frobnicate> outside
// backend info and database definitions." and "... inside backend database
// definition.", exit 1 ("bad configuration file!").
TEST_CASE("slapd.conf: a directive slapd 2.5 does not know is an error naming file and line") {
  for (const char* where : {"global", "database"}) {
    CAPTURE(where);
    const std::string text = std::string(where) == "global"
                                 ? "moduleload back_mdb\nfrobnicate yes\ndatabase mdb\n"
                                 : "moduleload back_mdb\ndatabase mdb\nfrobnicate yes\n";
    Result<SlapdConfig> c = ParseSlapdConfig(text, "/etc/dl/slapd.conf");
    REQUIRE_FALSE(c.ok());
    CHECK(c.status().origin() == ErrorOrigin::kConfiguration);
    CHECK_MESSAGE(c.status().message().find("/etc/dl/slapd.conf:") == 0, c.status().message());
    CHECK(c.status().message().find("unknown directive <frobnicate>") != std::string::npos);
    CHECK(c.status().message().find(std::string(where) == "global" ? ":2: " : ":3: ") !=
          std::string::npos);
  }
}

TEST_CASE(
    "slapd.conf: after a third party's moduleload, directives slapd 2.5 lacks are warned of") {
  // A module OpenLDAP does not build brings directives dirload cannot know:
  // slapd (with the module) takes them, so they are taken as its, with a
  // warning shown without -v. The module's file is not on this host, and
  // that is not checked, on purpose: dirload loads on hosts without slapd's
  // modules, where slapadd fails to load it (OpenLDAP's test031 skips
  // itself so, and dirload's load then succeeds).
  Result<SlapdConfig> c = ParseSlapdConfig(
      "moduleload back_mdb\nmoduleload /usr/local/lib/ldap/acme_audit.la\n"
      "database mdb\nsuffix dc=x\nacme-audit-log /var/log/acme\n",
      "/etc/dl/slapd.conf");
  REQUIRE_MESSAGE(c.ok(), c.status().message());
  CHECK(c->modules == std::vector<std::string>{"back_mdb", "acme_audit"});
  REQUIRE(c->warnings.size() == 1);
  CHECK(c->warnings[0].find("slapd.conf:5: directive <acme-audit-log> is not slapd 2.5's: taken "
                            "as one of module 'acme_audit'") != std::string::npos);
  // OpenLDAP's own modules bring nothing unknown: still refused.
  Result<SlapdConfig> own = ParseSlapdConfig(
      "moduleload back_mdb\nmoduleload ppolicy.la\nmoduleload pw-sha2\nmoduleload ppm.so\n"
      "database mdb\nsuffix dc=x\nacme-audit-log /var/log/acme\n",
      "slapd.conf");
  REQUIRE_FALSE(own.ok());
  CHECK(own.status().message().find("slapd.conf:7: unknown directive <acme-audit-log>") == 0);
}

TEST_CASE("slapd.conf: what slapd 2.5 knows and dirload does not need is accepted and noted") {
  // Global, back-mdb, overlay (and their prefix-matched names), another
  // backend's section, and back-bdb's own lines in a bdb section.
  Result<SlapdConfig> c = ParseSlapdConfig(
      "pidfile /run/slapd/slapd.pid\n"
      "argsfile /run/slapd/slapd.args\n"
      "loglevel stats\n"
      "modulepath /usr/lib/ldap\n"
      "moduleload back_mdb\n"
      "moduleload syncprov\n"
      "TLSCACertificateFile /etc/ssl/ca.pem\n"
      "password-hash {SSHA}\n"
      "sizelimit 500\n"
      "tool-threads 2\n"
      "database mdb\n"
      "suffix dc=example,dc=com\n"
      "rootdn cn=admin,dc=example,dc=com\n"
      "rootpw secret\n"
      "directory /var/lib/ldap\n"
      "checkpoint 512 30\n"
      "dbnosync\n"
      "maxreaders 126\n"
      "access to * by * read\n"
      "limits dn.exact=cn=x size=unlimited\n"
      "overlay syncprov\n"
      "syncprov-checkpoint 100 10\n"
      "overlay rwm\n"
      "rwm-rewriteEngine on\n"
      "database monitor\n"
      "database ldap\n"
      "suffix dc=remote\n"
      "uri ldap://remote/\n"
      "database hdb\n"
      "suffix dc=old\n"
      "dbconfig set_lk_max_locks 3000\n"
      "idlcachesize 3000\n",
      "/etc/dl/slapd.conf");
  REQUIRE_MESSAGE(c.ok(), c.status().message());
  CHECK(HasNote(*c, "slapd.conf:1: ignored 'pidfile"));
  CHECK(HasNote(*c, "slapd.conf:24: ignored 'rwm-rewriteEngine on'"));
  CHECK(HasNote(*c, "slapd.conf:31: ignored 'dbconfig set_lk_max_locks 3000'"));
  // back-bdb's directives belong to bdb sections only: 2.5 has no back-bdb.
  Result<SlapdConfig> bad =
      ParseSlapdConfig("database mdb\nsuffix dc=x\nidlcachesize 3000\n", "slapd.conf");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message().find("slapd.conf:3: unknown directive <idlcachesize>") == 0);
}

TEST_CASE("slapd.conf: databases are numbered as slapadd -n counts them") {
  Result<SlapdConfig> c = ParseSlapdConfig(
      "database frontend\n"
      "database config\n"
      "rootdn cn=config\n"
      "database monitor\n"
      "database mdb\n"
      "suffix dc=a\n"
      "directory /a\n"
      "database ldif\n"
      "suffix dc=l\n"
      "database hdb\n"
      "suffix dc=b\n"
      "directory /b\n",
      "s.conf");
  REQUIRE(c.ok());
  std::vector<std::pair<int, std::string>> got;
  for (const SlapdDatabase& d : c->databases) got.emplace_back(d.number, d.type);
  CHECK(got ==
        std::vector<std::pair<int, std::string>>{
            {-1, "frontend"}, {0, "config"}, {1, "monitor"}, {2, "mdb"}, {3, "ldif"}, {4, "bdb"}});
  CHECK(c->FindDatabase(0)->rootdn == "cn=config");
  CHECK_FALSE(c->FindDatabase(3)->supported());
  CHECK(c->FindDatabase(3)->suffixes == std::vector<std::string>{"dc=l"});
  CHECK(c->FindDatabase(4)->directory == "/b");
}

TEST_CASE("slapd.conf: rootdn, lastmod, envflags, overlays, modules and index tuning") {
  Result<SlapdConfig> c = ParseSlapdConfig(
      "moduleload /usr/lib/ldap/back_mdb.la\n"
      "moduleload ppolicy.la\n"
      "moduleload syncprov.so.2\n"
      "index_hash64 on\n"
      "index_substr_if_minlen 3\n"
      "index_substr_if_maxlen 5\n"
      "index_substr_any_len 6\n"
      "index_substr_any_step 3\n"
      "index_intlen 8\n"
      "database mdb\n"
      "suffix dc=a\n"
      "rootdn \"cn=Manager,dc=a\"\n"
      "lastmod off\n"
      "envflags writemap nometasync\n"
      "overlay ppolicy\n"
      "database mdb\n"
      "suffix dc=b\n",
      "s.conf");
  REQUIRE(c.ok());
  CHECK(c->modules == std::vector<std::string>{"back_mdb", "ppolicy", "syncprov"});
  IndexTuning want;
  want.hash64 = true;
  want.substr_if_minlen = 3;
  want.substr_if_maxlen = 5;
  want.substr_any_len = 6;
  want.substr_any_step = 3;
  want.intlen = 8;
  CHECK(c->index_tuning == want);
  const SlapdDatabase* a = c->FindDatabase(1);
  CHECK(a->rootdn == "cn=Manager,dc=a");
  CHECK_FALSE(a->lastmod);
  CHECK(a->envflags == std::vector<std::string>{"writemap", "nometasync"});
  CHECK(a->overlays == std::vector<std::string>{"ppolicy"});
  const SlapdDatabase* b = c->FindDatabase(2);
  CHECK(b->lastmod);
  CHECK(b->overlays.empty());
  CHECK(b->rootdn.empty());
  // Without index_* lines, slapd's defaults.
  Result<SlapdConfig> plain = ParseSlapdConfig("database mdb\n", "s.conf");
  REQUIRE(plain.ok());
  CHECK(plain->index_tuning == IndexTuning{});
  CHECK(plain->index_tuning.substr_if_minlen == 2);
}

TEST_CASE("slapd.conf: attributeoptions replace the lang- default, wherever they stand") {
  Result<SlapdConfig> plain = ParseSlapdConfig("database mdb\nsuffix dc=x\n", "s.conf");
  REQUIRE(plain.ok());
  CHECK(plain->attribute_options.is_default());
  CHECK(plain->attribute_options.Accepts("lang-de"));

  Result<SlapdConfig> c = ParseSlapdConfig(
      "attributeoptions x-hidden\n"
      "database mdb\n"
      "suffix dc=x\n"
      // Still global inside a section, and adding to the earlier line.
      "AttributeOptions lang- \"phonetic\"\n",
      "s.conf");
  REQUIRE_MESSAGE(c.ok(), c.status().message());
  const AttributeOptions& o = c->attribute_options;
  CHECK(o.names() == std::vector<std::string>{"lang-", "phonetic", "x-hidden"});
  CHECK(o.Accepts("lang-de"));
  CHECK(o.Accepts("X-Hidden"));
  CHECK_FALSE(o.Accepts("x-other"));
  CHECK_FALSE(HasNote(*c, "attributeoptions"));

  // The directive alone leaves no option at all, as in slapd.
  Result<SlapdConfig> none = ParseSlapdConfig("attributeoptions\n", "s.conf");
  REQUIRE(none.ok());
  CHECK_FALSE(none->attribute_options.is_default());
  CHECK_FALSE(none->attribute_options.Accepts("lang-de"));

  Result<SlapdConfig> only_x = ParseSlapdConfig("attributeoptions x-\n", "s.conf");
  REQUIRE(only_x.ok());
  CHECK(only_x->attribute_options.Accepts("x-foo"));
  CHECK_FALSE(only_x->attribute_options.Accepts("lang-de"));
}

TEST_CASE("module names drop directories and library suffixes") {
  CHECK(ModuleName("ppolicy") == "ppolicy");
  CHECK(ModuleName("ppolicy.la") == "ppolicy");
  CHECK(ModuleName("/usr/lib/ldap/ppolicy.so") == "ppolicy");
  CHECK(ModuleName("back_mdb.so.2") == "back_mdb");
}

TEST_CASE("slapd.conf errors name file and line and are configuration errors") {
  auto check = [](const std::string& text, const std::string& prefix) {
    Result<SlapdConfig> bad = ParseSlapdConfig(text, "s.conf");
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.status().origin() == ErrorOrigin::kConfiguration);
    CHECK_MESSAGE(bad.status().message().rfind(prefix, 0) == 0, bad.status().message());
  };
  check("database mdb\nsuffix \"dc=x\n", "s.conf:2: ");
  check("database mdb\nlastmod maybe\n", "s.conf:2: lastmod: ");
  check("index_intlen 0\n", "s.conf:1: index_intlen: ");
  check("database mdb\nmaxsize 12X\n", "s.conf:2: ");
  check("database mdb\ndirectory\n", "s.conf:2: 'directory' needs 1 argument");
  check("database config\ndatabase config\n", "s.conf:2: a second 'config' database");
  check("attributeoptions x-foo\nattributeoptions X-FOO\n",
        "s.conf:2: attribute option \"X-FOO\" is already defined");
  check("attributeoptions lang-de lang-\n",
        "s.conf:1: attribute option \"lang-\" overrides previous option");
  check("attributeoptions x_y\n", "s.conf:1: attribute option \"x_y\" is an illegal option name");
  check("attributeoptions binary\n", "s.conf:1: attribute option \"binary\" is already defined");
}

TEST_CASE("reading slapd.conf: a missing file or a directory is a configuration error") {
  testing::TempDir dir;
  Result<SlapdConfig> missing = ReadSlapdConfig(dir.File("nothere.conf"));
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().origin() == ErrorOrigin::kConfiguration);
  CHECK(missing.status().message().find("nothere.conf") != std::string::npos);
  Result<SlapdConfig> directory = ReadSlapdConfig(dir.path().string());
  REQUIRE_FALSE(directory.ok());
  CHECK(directory.status().origin() == ErrorOrigin::kConfiguration);
  CHECK(directory.status().message().find("-F") != std::string::npos);
  std::string path = dir.Write("slapd.conf", "database mdb\nsuffix dc=x\ndirectory db\n");
  Result<SlapdConfig> ok = ReadSlapdConfig(path);
  REQUIRE(ok.ok());
  // slapd's current directory, not the file's, as slapd opens it.
  CHECK(ok->FindDatabase(1)->directory == (std::filesystem::current_path() / "db").string());
  {
    const testing::InDirectory here(dir.path());
    ok = ReadSlapdConfig("slapd.conf");
    REQUIRE(ok.ok());
    CHECK(ok->FindDatabase(1)->directory == dir.File("db"));
  }
}

TEST_CASE("byte sizes take K, M, G and T suffixes") {
  CHECK(*ParseByteSize("512M") == 512ull << 20);
  CHECK(*ParseByteSize("1.5G") == 3ull << 29);
  CHECK(*ParseByteSize("64kb") == 65536);
  CHECK(*ParseByteSize("100") == 100);
  CHECK_FALSE(ParseByteSize("12X").ok());
  CHECK_FALSE(ParseByteSize("").ok());
  CHECK_FALSE(ParseByteSize("-1M").ok());
}

TEST_CASE("slapd.conf: sortvals anywhere, multival per mdb database, thresholds checked") {
  Result<SlapdConfig> c = ParseSlapdConfig(
      "sortvals member cn\n"
      "database mdb\n"
      "suffix dc=example,dc=com\n"
      "multival member,uniqueMember 100,10\n"
      "multival default 5000,20\n"
      "sortvals description\n",
      "/etc/dl/slapd.conf");
  REQUIRE_MESSAGE(c.ok(), c.status().ToString());
  CHECK(c->sortvals == std::vector<std::string>{"member", "cn", "description"});
  const SlapdDatabase* db = c->FindDatabase(1);
  REQUIRE(db != nullptr);
  REQUIRE(db->multival.size() == 2);
  CHECK(db->multival[0].attributes == std::vector<std::string>{"member", "uniqueMember"});
  CHECK(db->multival[0].hi == 100);
  CHECK(db->multival[0].lo == 10);
  CHECK(db->multival[0].where == "/etc/dl/slapd.conf:4");
  CHECK(db->multival[1].attributes == std::vector<std::string>{"default"});
  CHECK(db->multival[1].hi == 5000);

  for (const char* bad : {"10,100", "100", "100,", "x,1", "100,10,1"}) {
    CAPTURE(bad);
    Result<SlapdConfig> r = ParseSlapdConfig(
        std::string("database mdb\nsuffix dc=x\nmultival member ") + bad + "\n", "s.conf");
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().message().find("s.conf:3") != std::string::npos);
    CHECK(r.status().message().find("multival") != std::string::npos);
  }
}

}  // namespace
}  // namespace dirload
