#include "ldif/record.h"

#include <doctest/doctest.h>

#include <string>

namespace dirload::ldif {
namespace {

Record Person() {
  Record r;
  r.SetDn("uid=jdoe,ou=People,dc=example,dc=com");
  r.Add("objectClass", "inetOrgPerson");
  r.Add("cn;lang-en", "John Doe");
  r.Add("sn", "Doe");
  return r;
}

TEST_CASE("Record holds the dn and attributes in the order added") {
  Record r = Person();
  CHECK(r.dn() == "uid=jdoe,ou=People,dc=example,dc=com");
  CHECK(r.kind() == RecordKind::kContent);
  CHECK(r.changetype().empty());
  REQUIRE(r.size() == 3);
  CHECK_FALSE(r.empty());
  CHECK(r.attribute(0).description == "objectClass");
  CHECK(r.attribute(0).value == "inetOrgPerson");
  CHECK(r.attribute(1).description == "cn;lang-en");
  CHECK(r.attribute(1).value == "John Doe");
  CHECK(r.attribute(2).description == "sn");
  CHECK(r.attribute(2).value == "Doe");
  CHECK(r.byte_size() == std::string("uid=jdoe,ou=People,dc=example,dc=com"
                                     "objectClassinetOrgPersoncn;lang-enJohn DoesnDoe")
                             .size());
}

TEST_CASE("Record values are bytes: NUL and empty values survive") {
  Record r;
  r.SetDn("");
  r.Add("userPassword", std::string("a\0b", 3));
  r.Add("description", "");
  CHECK(r.dn().empty());
  CHECK(r.attribute(0).value == std::string("a\0b", 3));
  CHECK(r.attribute(1).value.empty());
}

TEST_CASE("Record views stay valid as the buffer grows") {
  Record r;
  r.SetDn("dc=example,dc=com");
  for (int i = 0; i < 1000; ++i) r.Add("member", "uid=u" + std::to_string(i) + ",dc=example");
  CHECK(r.dn() == "dc=example,dc=com");
  CHECK(r.attribute(0).value == "uid=u0,dc=example");
  CHECK(r.attribute(999).value == "uid=u999,dc=example");
}

TEST_CASE("Record::Clear empties the record and keeps working") {
  Record r = Person();
  r.SetChangetype("modify");
  r.SetPosition(12, 345);
  r.Clear();
  CHECK(r.empty());
  CHECK(r.size() == 0);
  CHECK(r.dn().empty());
  CHECK(r.changetype().empty());
  CHECK(r.kind() == RecordKind::kContent);
  CHECK(r.line() == 0);
  CHECK(r.offset() == 0);
  CHECK(r.byte_size() == 0);
  CHECK(r == Record());

  r.SetDn("cn=again");
  r.Add("cn", "again");
  CHECK(r.dn() == "cn=again");
  REQUIRE(r.size() == 1);
  CHECK(r.attribute(0).value == "again");
}

TEST_CASE("Record change records carry their changetype") {
  Record r;
  r.SetDn("cn=x,dc=example");
  r.SetChangetype("modify");
  r.Add("replace", "mail");
  r.Add("mail", "x@example.com");
  r.Add("-", "");
  CHECK(r.kind() == RecordKind::kChange);
  CHECK(r.changetype() == "modify");
  CHECK(r.size() == 3);
  CHECK(r.attribute(2).description == "-");
}

TEST_CASE("Record::operator== compares content, not position") {
  Record a = Person();
  Record b = Person();
  CHECK(a == b);
  b.SetPosition(7, 100);
  CHECK(a == b);

  SUBCASE("dn differs") {
    Record c;
    c.SetDn("uid=other,ou=People,dc=example,dc=com");
    c.Add("objectClass", "inetOrgPerson");
    c.Add("cn;lang-en", "John Doe");
    c.Add("sn", "Doe");
    CHECK_FALSE(a == c);
  }
  SUBCASE("a value differs") {
    b.Add("mail", "j@example.com");
    a.Add("mail", "J@example.com");
    CHECK_FALSE(a == b);
  }
  SUBCASE("a description differs") {
    b.Add("mail", "j@example.com");
    a.Add("email", "j@example.com");
    CHECK_FALSE(a == b);
  }
  SUBCASE("one attribute more") {
    b.Add("mail", "j@example.com");
    CHECK_FALSE(a == b);
    CHECK_FALSE(b == a);
  }
  SUBCASE("attribute order counts") {
    Record c;
    c.SetDn(a.dn());
    c.Add("sn", "Doe");
    c.Add("objectClass", "inetOrgPerson");
    c.Add("cn;lang-en", "John Doe");
    CHECK_FALSE(a == c);
  }
  SUBCASE("kind and changetype count") {
    b.SetChangetype("add");
    CHECK_FALSE(a == b);
    a.SetChangetype("modify");
    CHECK_FALSE(a == b);
  }
  SUBCASE("the buffer layout does not count") {
    // Same content built through the span interface, in another byte order.
    Record c;
    Record::Span sn_value = c.Append("Doe");
    Record::Span dn = c.Append("uid=jdoe,ou=People,dc=example,dc=com");
    c.SetDnSpan(dn);
    c.Add("objectClass", "inetOrgPerson");
    c.Add("cn;lang-en", "John Doe");
    c.AddSpans(c.Append("sn"), sn_value);
    CHECK(a == c);
  }
}

TEST_CASE("Record span interface builds values in place") {
  Record r;
  Record::Span d = r.Append("cn");
  Record::Span v = r.Append("value");
  CHECK(d.offset == 0);
  CHECK(d.length == 2);
  CHECK(v.offset == 2);
  CHECK(v.length == 5);
  r.AddSpans(d, v);
  r.SetDnSpan(r.Append("cn=value"));
  CHECK(r.dn() == "cn=value");
  CHECK(r.attribute(0).description == "cn");
  CHECK(r.attribute(0).value == "value");
  r.buffer()[2] = 'V';  // the reader decodes into the buffer directly
  CHECK(r.attribute(0).value == "Value");
}

}  // namespace
}  // namespace dirload::ldif
