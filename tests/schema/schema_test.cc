#include "lib/schema/schema.h"

#include <doctest/doctest.h>

#include "lib/schema/schema_loader.h"
#include "tests/schema/builtin_fixture.h"

namespace dirload {
namespace {

using testing::BuiltinSchema;

TEST_CASE("lookups by any name or OID, names case-insensitive") {
  const Schema& s = BuiltinSchema();
  const AttributeType* cn = s.FindAttribute("cn");
  REQUIRE(cn != nullptr);
  CHECK(s.FindAttribute("CN") == cn);
  CHECK(s.FindAttribute("commonName") == cn);
  CHECK(s.FindAttribute("COMMONNAME") == cn);
  CHECK(s.FindAttribute("2.5.4.3") == cn);
  CHECK(s.FindAttribute("2.5.4.03") == nullptr);  // OIDs are exact, as in slapd
  CHECK(s.FindAttribute("cn ") == nullptr);
  CHECK(s.FindAttribute("") == nullptr);
  CHECK(s.FindAttribute("nosuchattribute") == nullptr);
  CHECK(cn->name() == "cn");

  const ObjectClass* iop = s.FindObjectClass("inetOrgPerson");
  REQUIRE(iop != nullptr);
  CHECK(s.FindObjectClass("INETORGPERSON") == iop);
  CHECK(s.FindObjectClass("2.16.840.1.113730.3.2.2") == iop);
  CHECK(s.FindObjectClass("cn") == nullptr);  // separate namespaces
  CHECK(s.FindAttribute("inetOrgPerson") == nullptr);

  // A name longer than the lookup's stack buffer still works.
  CHECK(s.FindAttribute(std::string(200, 'x')) == nullptr);
}

TEST_CASE("attribute types inherit matching rules and syntax along SUP") {
  const Schema& s = BuiltinSchema();
  const AttributeType* name = s.FindAttribute("name");
  const AttributeType* cn = s.FindAttribute("cn");
  const AttributeType* sn = s.FindAttribute("sn");
  const AttributeType* c = s.FindAttribute("c");
  REQUIRE((name && cn && sn && c));
  CHECK(cn->sup == name);
  CHECK(cn->equality == FindMatchingRule("caseIgnoreMatch"));
  CHECK(cn->substr == FindMatchingRule("caseIgnoreSubstringsMatch"));
  CHECK(cn->ordering == nullptr);
  CHECK(cn->syntax->oid == "1.3.6.1.4.1.1466.115.121.1.15");
  CHECK(cn->syntax_len == 32768);
  CHECK(cn->definition.equality.empty());  // as written: nothing of its own
  // c overrides the syntax but keeps name's rules.
  CHECK(c->syntax->kind == SyntaxKind::kCountryString);
  CHECK(c->equality == FindMatchingRule("caseIgnoreMatch"));
  CHECK(c->single_value);
  CHECK_FALSE(name->single_value);

  CHECK(Schema::IsSubtypeOf(cn, name));
  CHECK(Schema::IsSubtypeOf(sn, name));
  CHECK(Schema::IsSubtypeOf(cn, cn));
  CHECK_FALSE(Schema::IsSubtypeOf(name, cn));
  CHECK_FALSE(Schema::IsSubtypeOf(s.FindAttribute("mail"), name));
  CHECK(Schema::IsSubtypeOf(s.FindAttribute("member"), s.FindAttribute("distinguishedName")));
  CHECK(s.FindAttribute("member")->equality == FindMatchingRule("distinguishedNameMatch"));
}

TEST_CASE("object classes flatten MUST and MAY over their superclasses") {
  const Schema& s = BuiltinSchema();
  const ObjectClass* iop = s.FindObjectClass("inetOrgPerson");
  const ObjectClass* org_person = s.FindObjectClass("organizationalPerson");
  const ObjectClass* person = s.FindObjectClass("person");
  const ObjectClass* top = s.FindObjectClass("top");
  REQUIRE((iop && org_person && person && top));
  CHECK(iop->superclasses == std::vector<const ObjectClass*>{org_person, person, top});
  CHECK(iop->IsSubclassOf(person));
  CHECK(iop->IsSubclassOf(iop));
  CHECK_FALSE(person->IsSubclassOf(iop));
  CHECK(iop->kind == ObjectClassKind::kStructural);
  CHECK(top->kind == ObjectClassKind::kAbstract);

  CHECK(iop->must.empty());
  CHECK(iop->Requires(s.FindAttribute("sn")));
  CHECK(iop->Requires(s.FindAttribute("cn")));
  CHECK(iop->Requires(s.FindAttribute("objectClass")));
  CHECK(iop->all_must.size() == 3);
  CHECK(iop->Allows(s.FindAttribute("mail")));             // own MAY
  CHECK(iop->Allows(s.FindAttribute("title")));            // organizationalPerson
  CHECK(iop->Allows(s.FindAttribute("telephoneNumber")));  // person
  CHECK_FALSE(iop->Allows(s.FindAttribute("uidNumber")));
  CHECK_FALSE(iop->Allows(s.FindAttribute("name")));  // no widening to subtypes' supertype
  for (const AttributeType* at : iop->all_may) CHECK_FALSE(iop->Requires(at));

  // Multiple superclasses.
  const ObjectClass* pilot_org = s.FindObjectClass("pilotOrganization");
  REQUIRE(pilot_org != nullptr);
  CHECK(pilot_org->sup.size() == 2);
  CHECK(pilot_org->Requires(s.FindAttribute("o")));
  CHECK(pilot_org->Requires(s.FindAttribute("ou")));
  CHECK(pilot_org->Allows(s.FindAttribute("buildingName")));
}

TEST_CASE("redefinitions: identical is accepted, conflicting names both") {
  Result<Schema> r = Schema::SystemOnly();
  REQUIRE(r.ok());
  Schema& s = r.value();
  auto def = [&](std::string_view text) {
    Result<AttributeTypeDescription> d = ParseAttributeTypeDescription(s, text);
    REQUIRE_MESSAGE(d.ok(), d.status().ToString());
    return std::move(d).value();
  };
  REQUIRE(s.AddAttributeType(def("( 1.2.3.4 NAME ( 'fooName' 'fooAlias' ) SUP name )")).ok());
  const size_t count = s.attribute_types().size();
  const AttributeType* foo = s.FindAttribute("fooName");

  // Same definition again, even with another DESC and name case: accepted, no change.
  CHECK(
      s.AddAttributeType(def("( 1.2.3.4 NAME ( 'FOONAME' 'fooAlias' ) DESC 'x' SUP name )")).ok());
  CHECK(s.attribute_types().size() == count);
  CHECK(s.FindAttribute("fooName") == foo);

  Status st = s.AddAttributeType(def("( 1.2.3.4 NAME 'fooName' SUP name SINGLE-VALUE )"));
  CHECK(st.code() == StatusCode::kAlreadyExists);
  CHECK(st.message() ==
        "attribute type 'fooName' (1.2.3.4) conflicts with 'fooName' (1.2.3.4): same OID, "
        "different definition");

  st = s.AddAttributeType(def("( 1.2.3.5 NAME ( 'barName' 'CN' ) SUP name )"));
  CHECK(st.code() == StatusCode::kAlreadyExists);
  CHECK(st.message() ==
        "attribute type 'barName' (1.2.3.5) conflicts with 'cn' (2.5.4.3): name 'CN' is already "
        "taken");
  CHECK(s.FindAttribute("barName") == nullptr);  // nothing half-added

  auto oc = [&](std::string_view text) {
    Result<ObjectClassDescription> d = ParseObjectClassDescription(s, text);
    REQUIRE(d.ok());
    return std::move(d).value();
  };
  REQUIRE(s.AddObjectClass(oc("( 1.2.3.6 NAME 'fooClass' SUP top MUST fooName )")).ok());
  CHECK(s.AddObjectClass(oc("( 1.2.3.6 NAME 'fooClass' SUP top MUST fooAlias )")).ok());
  st = s.AddObjectClass(oc("( 1.2.3.6 NAME 'fooClass' SUP top MAY fooName )"));
  CHECK(st.message() ==
        "object class 'fooClass' (1.2.3.6) conflicts with 'fooClass' (1.2.3.6): same OID, "
        "different definition");
  st = s.AddObjectClass(oc("( 1.2.3.7 NAME 'Top' AUXILIARY )"));
  CHECK(st.message() ==
        "object class 'Top' (1.2.3.7) conflicts with 'top' (2.5.6.0): name 'Top' is already "
        "taken");
}

TEST_CASE("attribute descriptions follow slapadd's option rules") {
  const Schema& s = BuiltinSchema();
  struct Ok {
    const char* text;
    const char* canonical;
  };
  const Ok accepted[] = {
      {"cn", "cn"},
      {"CN", "cn"},
      {"commonName", "cn"},
      {"2.5.4.3", "cn"},
      {"cn;lang-en", "cn;lang-en"},
      {"CN;LANG-EN", "cn;lang-en"},
      {"cn;lang-", "cn;lang-"},
      {"cn;lang-en-us", "cn;lang-en-us"},
      {"cn;lang-fr;lang-en", "cn;lang-en;lang-fr"},
      {"cn;lang-en;lang-EN", "cn;lang-en"},
      {"2.5.4.3;lang-en", "cn;lang-en"},
      {"userCertificate;binary", "userCertificate;binary"},
      // slapd sorts ";binary" among the tags.
      {"usercertificate;BINARY;lang-en", "userCertificate;binary;lang-en"},
      {"cn;lang-a.b", "cn;lang-a.b"},  // '.' is allowed after the first character
  };
  for (const Ok& c : accepted) {
    Result<AttributeDescription> ad = s.ParseAttributeDescription(c.text);
    REQUIRE_MESSAGE(ad.ok(), c.text, ": ", ad.status().ToString());
    CHECK(ad->ToString() == c.canonical);
  }
  CHECK(s.ParseAttributeDescription("userCertificate;binary")->binary);

  struct Bad {
    const char* text;
    StatusCode code;
    const char* message;
  };
  const Bad rejected[] = {
      {"cn;x-foo", StatusCode::kInvalidArgument, "unrecognized option 'x-foo'"},
      {"givenname;lang-ja;phonetic", StatusCode::kInvalidArgument, "unrecognized option"},
      {"cn;lang", StatusCode::kInvalidArgument, "unrecognized option 'lang'"},
      {"cn;", StatusCode::kInvalidArgument, "zero length option is invalid"},
      {"cn;lang-e_n", StatusCode::kInvalidArgument, "inappropriate characters"},
      {"c_n", StatusCode::kInvalidArgument, "inappropriate characters"},
      {"cn;binary", StatusCode::kInvalidArgument, "option \"binary\" not supported with type 'cn'"},
      {"", StatusCode::kInvalidArgument, "empty"},
      {";lang-en", StatusCode::kInvalidArgument, "empty attribute type"},
      {"version", StatusCode::kNotFound, "attribute type undefined"},
      {"1cn", StatusCode::kNotFound, "attribute type undefined"},
      {"2.5.4.03", StatusCode::kNotFound, "attribute type undefined"},
      // The type is looked up first: an undefined type is NotFound whatever
      // its options.
      {"version;x-foo", StatusCode::kNotFound, "attribute type undefined"},
      {"userCertificate;binary;BINARY", StatusCode::kInvalidArgument,
       "option \"binary\" specified multiple times"},
      {"createTimestamp;lang-en", StatusCode::kInvalidArgument,
       "operational attribute with options undefined"},
      {"entryUUID;binary", StatusCode::kInvalidArgument,
       "operational attribute with options undefined"},
      {"cn;lang-x=y", StatusCode::kInvalidArgument, "inappropriate characters"},
  };
  for (const Bad& c : rejected) {
    Result<AttributeDescription> ad = s.ParseAttributeDescription(c.text);
    INFO(c.text);
    REQUIRE_FALSE(ad.ok());
    CHECK(ad.status().code() == c.code);
    CHECK_MESSAGE(ad.status().message().find(c.message) != std::string::npos,
                  ad.status().message());
  }
}

TEST_CASE("declared attribute options replace lang- and canonicalise as slapd does") {
  Result<Schema> built = Schema::Builtin();
  REQUIRE(built.ok());
  Schema& s = *built;
  AttributeOptions options;
  REQUIRE(options.Define("X-Foo").ok());
  REQUIRE(options.Define("a-").ok());
  s.SetAttributeOptions(options);
  CHECK(s.attribute_options() == options);

  struct Ok {
    const char* text;
    const char* canonical;
  };
  const Ok accepted[] = {
      {"description;x-foo", "description;x-foo"},
      {"description;X-FOO", "description;x-foo"},
      {"cn;x-foo;A-Z;x-Foo", "cn;a-z;x-foo"},
      {"cn;a-", "cn;a-"},  // the prefix alone: a range
      {"cn;a-b.c", "cn;a-b.c"},
      {"userCertificate;x-foo;binary;a-b", "userCertificate;a-b;binary;x-foo"},
      {"userCertificate;binary;x-foo", "userCertificate;binary;x-foo"},
      {"userCertificate;a-b;binary", "userCertificate;a-b;binary"},
  };
  for (const Ok& c : accepted) {
    Result<AttributeDescription> ad = s.ParseAttributeDescription(c.text);
    REQUIRE_MESSAGE(ad.ok(), c.text, ": ", ad.status().ToString());
    CHECK(ad->ToString() == c.canonical);
  }
  // Declaring dropped the default lang- prefix.
  for (const char* text : {"cn;lang-de", "cn;x-foobar", "cn;x-fo", "cn;a", "cn;x-"}) {
    Result<AttributeDescription> ad = s.ParseAttributeDescription(text);
    INFO(text);
    REQUIRE_FALSE(ad.ok());
    CHECK(ad.status().code() == StatusCode::kInvalidArgument);
    CHECK(ad.status().message().find("unrecognized option") != std::string::npos);
  }

  // An option ending in '=' lets '=' into descriptions.
  AttributeOptions range;
  REQUIRE(range.Define("range=").ok());
  s.SetAttributeOptions(range);
  CHECK(s.ParseAttributeDescription("member;Range=0-9")->ToString() == "member;range=0-9");
  CHECK_FALSE(s.ParseAttributeDescription("member;x=1").ok());

  // slapd's limits: 128 distinct tags, 1024 bytes of them (duplicates count).
  AttributeOptions any;
  REQUIRE(any.Define("t").ok());
  REQUIRE(any.Define("t-").ok());
  s.SetAttributeOptions(any);
  std::string many = "cn";
  for (int i = 0; i < 128; ++i) many += ";t-" + std::to_string(i);
  CHECK(s.ParseAttributeDescription(many).ok());
  CHECK(s.ParseAttributeDescription(many + ";t")
            .status()
            .message()
            .find("too many tagging options") != std::string::npos);
  std::string long_tags = "cn";
  for (int i = 0; i < 60; ++i) long_tags += ";t-0123456789abcdef";  // 19 bytes each
  CHECK(s.ParseAttributeDescription(long_tags).status().message().find(
            "tagging options too long") != std::string::npos);
  CHECK(s.ParseAttributeDescription(long_tags.substr(0, 2 + 50 * 19))->options.size() == 1);
}

TEST_CASE("OID macros") {
  Schema s;
  CHECK(s.AddOidMacro("root", "1.2.3").ok());
  CHECK(s.AddOidMacro("sub", "root:4.5").ok());
  CHECK(*s.ExpandOid("sub") == "1.2.3.4.5");
  CHECK(*s.ExpandOid("SUB:6") == "1.2.3.4.5.6");
  CHECK(*s.ExpandOid("2.5.4.3") == "2.5.4.3");
  CHECK(s.ExpandOid("nosuch:1").status().code() == StatusCode::kNotFound);
  CHECK(s.ExpandOid("root:x").status().code() == StatusCode::kInvalidArgument);
  bool again = false;
  CHECK(s.AddOidMacro("root", "1.2.3", &again).ok());
  CHECK(again);
  CHECK(s.AddOidMacro("root", "1.2.4").code() == StatusCode::kAlreadyExists);
  CHECK_FALSE(s.AddOidMacro("bad_name", "1.2").ok());
}

TEST_CASE("fingerprint tracks what affects keys, not descriptions or order") {
  Result<Schema> a = Schema::Builtin();
  Result<Schema> b = Schema::Builtin();
  Result<Schema> sys = Schema::SystemOnly();
  REQUIRE((a.ok() && b.ok() && sys.ok()));
  CHECK(a->Fingerprint() == b->Fingerprint());
  CHECK(a->Fingerprint() != sys->Fingerprint());

  Schema x, y;
  const char* one =
      "attributetype ( 1.2.3.1 NAME 'one' DESC 'first' SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )\n";
  const char* two =
      "attributetype ( 1.2.3.2 NAME 'two' EQUALITY caseIgnoreMatch SYNTAX "
      "1.3.6.1.4.1.1466.115.121.1.15 )\n";
  REQUIRE(LoadSchemaText(&x, std::string(one) + two, "x").ok());
  REQUIRE(LoadSchemaText(&y, two, "y").ok());
  const uint64_t y_without_one = y.Fingerprint();
  REQUIRE(LoadSchemaText(&y,
                         "attributetype ( 1.2.3.1 NAME 'one' DESC 'other' SYNTAX "
                         "1.3.6.1.4.1.1466.115.121.1.15 )\n",
                         "y")
              .ok());
  CHECK(x.Fingerprint() == y.Fingerprint());
  CHECK(y_without_one != y.Fingerprint());

  Schema z;
  REQUIRE(LoadSchemaText(&z,
                         std::string(one) +
                             "attributetype ( 1.2.3.2 NAME 'two' EQUALITY "
                             "caseExactMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )\n",
                         "z")
              .ok());
  CHECK(z.Fingerprint() != x.Fingerprint());
}

TEST_CASE("pointers survive moving the schema; ids are dense") {
  Result<Schema> r = Schema::Builtin();
  REQUIRE(r.ok());
  const AttributeType* cn = r->FindAttribute("cn");
  Schema moved = std::move(r).value();
  CHECK(moved.FindAttribute("cn") == cn);
  CHECK(cn->sup == moved.FindAttribute("name"));
  for (size_t i = 0; i < moved.attribute_types().size(); ++i) {
    CHECK(moved.attribute_types()[i]->id == i);
  }
  for (size_t i = 0; i < moved.object_classes().size(); ++i) {
    CHECK(moved.object_classes()[i]->id == i);
  }
}

TEST_CASE("operational attributes and usage") {
  const Schema& s = BuiltinSchema();
  CHECK(s.FindAttribute("createTimestamp")->operational());
  CHECK(s.FindAttribute("createTimestamp")->usage == AttributeUsage::kDirectoryOperation);
  CHECK(s.FindAttribute("createTimestamp")->no_user_modification);
  CHECK(s.FindAttribute("contextCSN")->usage == AttributeUsage::kDsaOperation);
  CHECK(s.FindAttribute("ref")->usage == AttributeUsage::kDistributedOperation);
  CHECK_FALSE(s.FindAttribute("cn")->operational());
  CHECK(AttributeUsageName(AttributeUsage::kDsaOperation) == "dSAOperation");
  CHECK(ObjectClassKindName(ObjectClassKind::kAuxiliary) == "AUXILIARY");
}

}  // namespace
}  // namespace dirload
