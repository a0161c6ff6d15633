#include "lib/schema/syntax.h"

#include <doctest/doctest.h>

#include "lib/schema/schema.h"
#include "tests/schema/builtin_fixture.h"

namespace dirload {
namespace {

using testing::BuiltinSchema;

bool Valid(std::string_view attribute, std::string_view value) {
  const AttributeType* at = BuiltinSchema().FindAttribute(attribute);
  REQUIRE_MESSAGE(at != nullptr, attribute);
  return ValidateValue(*at, value).ok();
}

TEST_CASE("Directory String: non-empty UTF-8") {
  CHECK(Valid("cn", "Ångström"));
  CHECK(Valid("description", " "));
  CHECK_FALSE(Valid("cn", ""));
  CHECK_FALSE(Valid("cn", "\xC3"));
  CHECK_FALSE(Valid("cn", "\xFF\xFE"));
  Status st = ValidateValue(*BuiltinSchema().FindAttribute("cn"), "");
  CHECK(st.message() == "attribute 'cn': not a valid Directory String: empty");
}

TEST_CASE("IA5, Printable, Country and Numeric strings") {
  CHECK(Valid("mail", "a@b.c"));
  CHECK(Valid("mail", ""));
  CHECK_FALSE(Valid("mail", "ä@b.c"));
  CHECK(Valid("serialNumber", "AB-12 (x)/y:z?=+,.'"));
  CHECK_FALSE(Valid("serialNumber", "a_b"));
  CHECK_FALSE(Valid("serialNumber", ""));
  CHECK(Valid("c", "US"));
  CHECK_FALSE(Valid("c", "USA"));
  CHECK_FALSE(Valid("c", "u"));
  CHECK_FALSE(Valid("c", "u!"));
  CHECK(Valid("x121Address", "1234 5678"));
  CHECK_FALSE(Valid("x121Address", "12a"));
  CHECK_FALSE(Valid("x121Address", ""));
  CHECK(Valid("telephoneNumber", "+1 (555) 123-4567"));
  CHECK_FALSE(Valid("telephoneNumber", "555#1"));
}

TEST_CASE("Integer follows RFC 4517 strictly") {
  for (const char* ok : {"0", "7", "-7", "1234567890123456789012345"}) {
    CHECK_MESSAGE(Valid("uidNumber", ok), ok);
  }
  for (const char* bad : {"", "-", "007", "-0", "+5", " 5", "5 ", "1e3", "--1"}) {
    CHECK_FALSE_MESSAGE(Valid("uidNumber", bad), bad);
  }
}

TEST_CASE("OID, Boolean, Bit String, UUID") {
  CHECK(Valid("objectClass", "inetOrgPerson"));
  CHECK(Valid("objectClass", "2.5.6.6"));
  CHECK_FALSE(Valid("objectClass", "2.5..6"));
  CHECK_FALSE(Valid("objectClass", "a b"));
  CHECK(Valid("hasSubordinates", "TRUE"));
  CHECK(Valid("hasSubordinates", "FALSE"));
  CHECK_FALSE(Valid("hasSubordinates", "true"));
  CHECK(Valid("x500UniqueIdentifier", "''B"));
  CHECK(Valid("x500UniqueIdentifier", "'0110'B"));
  CHECK_FALSE(Valid("x500UniqueIdentifier", "'012'B"));
  CHECK_FALSE(Valid("x500UniqueIdentifier", "'01'H"));
  CHECK(Valid("entryUUID", "12345678-1234-1234-1234-123456789abc"));
  CHECK_FALSE(Valid("entryUUID", "12345678123412341234123456789abc"));
}

TEST_CASE("DN, Name And Optional UID, Postal Address, Generalized Time") {
  CHECK(Valid("member", "cn=x,dc=com"));
  CHECK(Valid("member", ""));  // the empty DN
  CHECK_FALSE(Valid("member", "cn=x,,dc=com"));
  CHECK(Valid("uniqueMember", "cn=x,dc=com#'01'B"));
  CHECK(Valid("uniqueMember", "cn=x\\#y,dc=com"));
  CHECK_FALSE(Valid("uniqueMember", "cn=x,dc=com#'02'B"));
  CHECK(Valid("postalAddress", "1 Main St$Springfield$\\24 and \\5C"));
  // slapd's postalAddressValidate takes empty lines (slapadd stores both).
  CHECK(Valid("postalAddress", "a$$b"));
  CHECK(Valid("postalAddress", "a$"));
  CHECK_FALSE(Valid("postalAddress", "a\\b"));
  CHECK(Valid("createTimestamp", "20240101120000Z"));
  CHECK(Valid("createTimestamp", "2024010112+0100"));
  CHECK_FALSE(Valid("createTimestamp", "20240101120000"));
}

TEST_CASE("syntaxes dirload does not check accept anything") {
  CHECK(Valid("jpegPhoto", std::string("\xFF\xD8\0\x01", 4)));
  CHECK(Valid("userPassword", ""));
  CHECK(Valid("facsimileTelephoneNumber", "anything$at all"));
}

TEST_CASE("the built-in syntax table") {
  const Schema& s = BuiltinSchema();
  CHECK(s.FindSyntax("1.3.6.1.4.1.1466.115.121.1.8")->binary_transfer_required);
  CHECK_FALSE(s.FindSyntax("1.3.6.1.4.1.1466.115.121.1.28")->human_readable);
  CHECK(s.FindSyntax("1.3.6.1.4.1.1466.115.121.1.15")->desc == "Directory String");
  CHECK(s.FindSyntax("1.2.3") == nullptr);
  // Every built-in matching rule's syntax is a known syntax.
  for (const MatchingRule& rule : BuiltinMatchingRules()) {
    CHECK_MESSAGE(s.FindSyntax(rule.syntax_oid) != nullptr, rule.name);
  }
}

}  // namespace
}  // namespace dirload
