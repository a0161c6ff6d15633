// ParseChange: the shapes of RFC 2849 change records, and the refusal of
// malformed ones as protocolError naming the line.
#include "lib/modify/change.h"

#include <doctest/doctest.h>

#include <memory>
#include <string>

#include "ldif/byte_source.h"
#include "ldif/reader.h"

namespace dirload {
namespace {

Result<Change> Parse(const std::string& text) {
  ldif::Reader reader(ldif::MemoryByteSource(text, "changes.ldif"));
  ldif::Record record;
  Result<bool> got = reader.Next(&record);
  REQUIRE(got.ok());
  REQUIRE(*got);
  return ParseChange(record);
}

TEST_CASE("modify records: each modification with its values") {
  Result<Change> c = Parse(
      "dn: cn=a,dc=x\nchangetype: modify\nadd: mail\nmail: a@x\nmail: b@x\n-\n"
      "delete: title\n-\nreplace: sn\nsn: y\n-\nincrement: uidNumber\nuidNumber: 2\n-\n");
  REQUIRE(c.ok());
  CHECK(c->kind == ChangeKind::kModify);
  REQUIRE(c->modifications.size() == 4);
  CHECK(c->modifications[0].op == ModOp::kAdd);
  CHECK(c->modifications[0].values == std::vector<std::string>{"a@x", "b@x"});
  CHECK(c->modifications[1].op == ModOp::kDelete);
  CHECK(c->modifications[1].values.empty());
  CHECK(c->modifications[2].op == ModOp::kReplace);
  CHECK(c->modifications[3].op == ModOp::kIncrement);
}

TEST_CASE("modrdn and moddn, with and without newsuperior") {
  Result<Change> c = Parse(
      "dn: cn=a,dc=x\nchangetype: moddn\nnewrdn: cn=b\ndeleteoldrdn: 1\n"
      "newsuperior: ou=y,dc=x\n");
  REQUIRE(c.ok());
  CHECK(c->kind == ChangeKind::kModRdn);
  CHECK(c->new_rdn == "cn=b");
  CHECK(c->delete_old_rdn);
  CHECK(c->new_superior == std::optional<std::string>("ou=y,dc=x"));
  c = Parse("dn: cn=a,dc=x\nchangetype: modrdn\nnewrdn: cn=b\ndeleteoldrdn: 0\n");
  REQUIRE(c.ok());
  CHECK_FALSE(c->delete_old_rdn);
  CHECK_FALSE(c->new_superior.has_value());
}

TEST_CASE("malformed records are protocolError, naming the line") {
  for (const char* text : {"dn: cn=a,dc=x\nchangetype: modify\nadd: mail\nsn: y\n-\n",
                           "dn: cn=a,dc=x\nchangetype: modify\ntouch: mail\n-\n",
                           "dn: cn=a,dc=x\nchangetype: modrdn\nnewrdn: cn=b\n",
                           "dn: cn=a,dc=x\nchangetype: modrdn\nnewrdn: cn=b\ndeleteoldrdn: 2\n",
                           "dn: cn=a,dc=x\nchangetype: delete\ncn: a\n",
                           "dn: cn=a,dc=x\ncontrol: 1.2.3 true\nchangetype: delete\n"}) {
    CAPTURE(std::string(text));
    Result<Change> c = Parse(text);
    REQUIRE_FALSE(c.ok());
    CHECK((LdapResultOf(c.status()) == LdapResult::kProtocolError ||
           LdapResultOf(c.status()) == LdapResult::kUnwillingToPerform));
    CHECK(c.status().message().find("line ") != std::string::npos);
  }
}

TEST_CASE("an unknown changetype (which the reader refuses too) is protocolError") {
  ldif::Record record;
  record.SetDn("cn=a,dc=x");
  record.SetChangetype("frob");
  Result<Change> c = ParseChange(record);
  REQUIRE_FALSE(c.ok());
  CHECK(LdapResultOf(c.status()) == LdapResult::kProtocolError);
}

}  // namespace
}  // namespace dirload
