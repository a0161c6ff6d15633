#include "lib/pipeline/slapd_config.h"

#include <doctest/doctest.h>

namespace dirload {
namespace {

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
      "database mdb\n"
      "suffix dc=other\n",
      "/etc/dl/slapd.conf");
  REQUIRE(c.ok());
  CHECK(c->database == "bdb");
  CHECK(c->suffix == "dc=Example, dc=com");
  CHECK(c->directory == "/etc/dl/db");
  REQUIRE(c->schema_files.size() == 2);
  CHECK(c->schema_files[1] == "/etc/dl/local.schema");
  REQUIRE(c->index_lines.size() == 2);
  CHECK(c->index_lines[1].text == "cn,sn pres,eq,sub");
  CHECK(c->index_lines[1].line == 10);
  CHECK(*c->maxsize == (uint64_t{1} << 30));
  CHECK(*c->cache_size == 268435456);
  // moduleload, modulepath, cachesize and the second database are noted.
  CHECK(c->notes.size() == 4);
  CHECK(c->notes[0].find("slapd.conf:4: ignored 'modulepath") != std::string::npos);
}

TEST_CASE("slapd.conf errors name file and line") {
  Result<SlapdConfig> bad = ParseSlapdConfig("database mdb\nsuffix \"dc=x\n", "s.conf");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message().rfind("s.conf:2: ", 0) == 0);
  Result<SlapdConfig> none = ParseSlapdConfig("include x.schema\n", "s.conf");
  CHECK_FALSE(none.ok());
  Result<SlapdConfig> ldap = ParseSlapdConfig("database ldap\n", "s.conf");
  REQUIRE_FALSE(ldap.ok());
  CHECK(ldap.status().message().find("'ldap' is not supported") != std::string::npos);
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

}  // namespace
}  // namespace dirload
