#include "lib/search/evaluate.h"

#include <doctest/doctest.h>

#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/schema/builtin_fixture.h"

namespace dirload {
namespace {

using Avs = std::vector<std::pair<std::string, std::string>>;

// Entries encoded with one shared dictionary, as a database holds them.
class Entries {
 public:
  void Add(std::string name, std::string dn, const Avs& avs) {
    std::vector<ValueRef> refs;
    for (const auto& [desc, value] : avs) refs.push_back({dict_.Intern(desc), value});
    auto e = std::make_unique<Stored>();
    EncodeEntry(dn, refs, &e->bytes);
    REQUIRE(DecodeEntry(e->bytes, &e->view).ok());
    order_.push_back(name);
    entries_[std::move(name)] = std::move(e);
  }

  Truth Eval(std::string_view filter, const std::string& name, const Schema& schema) const {
    Result<Filter> f = ParseFilter(filter);
    REQUIRE(f.ok());
    DescriptionTable table(dict_, schema);
    Result<Truth> t = FilterMatcher(*f, schema).Evaluate(entries_.at(name)->view, table);
    REQUIRE(t.ok());
    return *t;
  }

  // The names of the entries the filter matches, space separated, in order.
  std::string Matching(std::string_view filter,
                       const Schema& schema = testing::BuiltinSchema()) const {
    Result<Filter> f = ParseFilter(filter);
    REQUIRE(f.ok());
    DescriptionTable table(dict_, schema);
    FilterMatcher m(*f, schema);
    std::string out;
    for (const std::string& name : order_) {
      Result<bool> hit = m.Matches(entries_.at(name)->view, table);
      REQUIRE(hit.ok());
      if (*hit) out += (out.empty() ? "" : " ") + name;
    }
    return out;
  }

  const EntryView& view(const std::string& name) const { return entries_.at(name)->view; }
  const AttributeDictionary& dictionary() const { return dict_; }

 private:
  struct Stored {
    std::string bytes;
    EntryView view;
  };
  AttributeDictionary dict_;
  std::vector<std::string> order_;
  std::map<std::string, std::unique_ptr<Stored>> entries_;
};

// The same four entries as the LDIF the expectations below were checked
// against with slapadd + `slapcat -a FILTER` (OpenLDAP 2.5).
Entries Sample() {
  Entries e;
  e.Add("top", "dc=example,dc=com",
        {{"objectClass", "dcObject"},
         {"objectClass", "organization"},
         {"dc", "example"},
         {"o", "Example"}});
  e.Add("a", "uid=a,dc=example,dc=com",
        {{"objectClass", "inetOrgPerson"},
         {"uid", "a"},
         {"cn", "Hans Müller"},
         {"cn;lang-de", "Hans Mueller"},
         {"sn", "Müller"},
         {"description", "x  y"},
         {"telephoneNumber", "+1 555-1234"},
         {"employeeNumber", "0042"}});
  e.Add("b", "uid=b,dc=example,dc=com",
        {{"objectClass", "inetOrgPerson"},
         {"uid", "b"},
         {"cn", "Bob"},
         {"sn", "MÜLLER"},
         {"cn;lang-en-us", "Bobby"}});
  e.Add("c", "uid=c,dc=example,dc=com",
        {{"objectClass", "inetOrgPerson"},
         {"objectClass", "posixAccount"},
         {"uid", "c"},
         {"cn", "Carl"},
         {"sn", "Smith"},
         {"uidNumber", "1005"},
         {"gidNumber", "100"},
         {"homeDirectory", "/home/c"},
         {"mail", "Carl@Example.COM"},
         {"postalAddress", "1 Main St $ Springfield"}});
  return e;
}

// filter -> the entries slapcat -a returned for it.
const std::vector<std::pair<std::string_view, std::string_view>> kSlapdVerdicts = {
    // objectClass matches superclasses; unknown classes are Undefined.
    {"(objectClass=person)", "a b c"},
    {"(objectClass=top)", "top a b c"},
    {"(objectClass=PERSON)", "a b c"},
    {"(objectClass=2.5.6.6)", "a b c"},
    {"(!(objectClass=2.5.6.6))", "top"},
    {"(!(objectClass=person))", "top"},
    {"(objectClass=posixAccount)", "c"},
    {"(objectClass=inetorgperson)", "a b c"},
    {"(objectClass~=person)", "a b c"},
    {"(objectClass=nosuch)", ""},
    {"(!(objectClass=nosuch))", ""},
    {"(objectClass=1.2.3.4)", ""},
    {"(!(objectClass=1.2.3.4))", ""},
    {"(objectClass>=person)", ""},
    {"(objectClass=*person*)", ""},
    {"(objectClass=*)", "top a b c"},
    // Subtypes and options.
    {"(name=bob)", "b"},
    {"(name=*)", "top a b c"},
    {"(name=hans*)", "a"},
    {"(cn;lang-de=*)", "a"},
    {"(cn;lang-en=*)", ""},
    {"(cn;lang-en-=*)", "b"},
    {"(cn;lang-=*)", "a b"},
    {"(cn;LANG-EN-US=bobby)", "b"},
    {"(cn;lang-de=hans mueller)", "a"},
    {"(cn=hans mueller)", "a"},
    {"(!(uid;lang-en=a))", "top a b c"},
    {"(uid;lang-en=*)", ""},
    {"(2.5.4.3=bob)", "b"},
    {"(CN=BOB)", "b"},
    // Case, spaces, UTF-8.
    {"(sn=müller)", "a b"},
    {"(sn=MÜLLER)", "a b"},
    {"(sn=Mu\\cc\\88ller)", "a b"},  // decomposed ü
    {"(!(sn=müller))", "top c"},
    {"(cn=Hans M\\c3\\bcller)", "a"},
    {"(cn=Hans  Müller)", "a"},
    {"(cn= hans müller )", "a"},
    {"(uid=A)", "a"},
    {"(uid=\\61)", "a"},
    {"(!(cn=zzz))", "top a b c"},
    {"(homeDirectory=/HOME/c)", ""},
    {"(mail=carl@example.com)", "c"},
    {"(postalAddress=1 main st$springfield)", "c"},
    {"(postalAddress=1 main st $ springfield)", "c"},
    {"(telephoneNumber=+1 555 1234)", "a"},
    // Substrings.
    {"(description=x y)", "a"},
    {"(description=*x y*)", "a"},
    {"(description=*x  y*)", "a"},
    {"(cn=*  müller)", "a"},
    {"(cn=*ans m*)", "a"},
    {"(cn=*ob)", "b"},
    {"(cn=b*o*b)", "b"},
    {"(cn=bo*ob)", ""},
    {"(telephoneNumber=*5551234*)", "a"},
    {"(telephoneNumber=*555 12*)", "a"},
    {"(mail=*EXAMPLE*)", "c"},
    {"(postalAddress=*main*)", "c"},
    // Ordering: only types with an ORDERING rule.
    {"(uidNumber>=999)", "c"},
    {"(uidNumber<=999)", ""},
    {"(gidNumber<=100)", "c"},
    {"(employeeNumber>=5)", ""},
    {"(!(employeeNumber>=5))", ""},
    {"(sn<=n)", ""},
    {"(cn<=C)", ""},
    {"(!(cn<=))", ""},
    // Presence.
    {"(uid=*)", "a b c"},
    {"(!(uid=*))", "top"},
    {"(!(uidNumber=*))", "top a b"},
    {"(!(description=*))", "top b c"},
    // Assertions outside their rule's syntax are Undefined everywhere.
    {"(cn=)", ""},
    {"(!(cn=))", ""},
    {"(!(uidNumber=abc))", ""},
    {"(uidNumber=01005)", ""},
    {"(!(uidNumber=01005))", ""},
    {"(uidNumber>=+1005)", ""},
    {"(!(uidNumber= 1005))", ""},
    {"(!(mail=ü))", ""},
    {"(!(telephoneNumber=ü))", ""},
    {"(!(telephoneNumber=))", ""},
    {"(!(seeAlso=junk))", ""},
    {"(!(mail=))", "top a b c"},
    {"(!(c=USA))", "top a b c"},
    {"(!(sn=ü))", "top a b c"},
    // Undefined attribute types and three-valued logic.
    {"(nosuchattr=x)", ""},
    {"(!(nosuchattr=x))", ""},
    {"(nosuchattr=*)", ""},
    {"(!(nosuchattr=*))", ""},
    {"(|(nosuchattr=x)(uid=a))", "a"},
    {"(&(nosuchattr=x)(uid=a))", ""},
    {"(!(&(nosuchattr=x)(uid=a)))", "top b c"},
    {"(!(|(nosuchattr=x)(uid=a)))", ""},
    {"(&)", "top a b c"},
    {"(|)", ""},
    {"(!(&))", ""},
    // Approx falls back to equality where it agrees with slapd.
    {"(cn~=bob)", "b"},
    {"(description~=x y)", "a"},
    {"(telephoneNumber~=5551234)", ""},
};

TEST_CASE("evaluation agrees with slapd on every kind of item") {
  Entries e = Sample();
  for (const auto& [filter, expected] : kSlapdVerdicts) {
    INFO(filter);
    CHECK(e.Matching(filter) == expected);
  }
}

TEST_CASE("three-valued logic: items and connectives") {
  Entries e = Sample();
  const Schema& s = testing::BuiltinSchema();
  CHECK(e.Eval("(nosuchattr=x)", "a", s) == Truth::kUndefined);
  CHECK(e.Eval("(!(nosuchattr=x))", "a", s) == Truth::kUndefined);
  CHECK(e.Eval("(&(nosuchattr=x)(uid=a))", "a", s) == Truth::kUndefined);
  CHECK(e.Eval("(&(nosuchattr=x)(uid=a))", "b", s) == Truth::kFalse);
  CHECK(e.Eval("(|(nosuchattr=x)(uid=a))", "a", s) == Truth::kTrue);
  CHECK(e.Eval("(|(nosuchattr=x)(uid=a))", "b", s) == Truth::kUndefined);
  CHECK(e.Eval("(!(|(nosuchattr=x)(uid=a)))", "b", s) == Truth::kUndefined);
  CHECK(e.Eval("(!(!(uid=a)))", "a", s) == Truth::kTrue);
  CHECK(e.Eval("(employeeNumber>=1)", "a", s) == Truth::kUndefined);  // no ORDERING rule
  CHECK(e.Eval("(objectClass=nosuch)", "a", s) == Truth::kUndefined);
  CHECK(e.Eval("(uidNumber=x)", "top", s) == Truth::kUndefined);  // even without uidNumber
  CHECK(e.Eval("(uidNumber=1005)", "top", s) == Truth::kFalse);
  CHECK(e.Eval("(jpegPhoto=x)", "a", s) == Truth::kUndefined);  // no EQUALITY rule
  CHECK(e.Eval("(cn;x-unknown=a)", "a", s) == Truth::kUndefined);

  const Truth kT = Truth::kTrue, kF = Truth::kFalse, kU = Truth::kUndefined;
  CHECK(TruthAnd(kT, kU) == kU);
  CHECK(TruthAnd(kF, kU) == kF);
  CHECK(TruthAnd(kT, kT) == kT);
  CHECK(TruthOr(kT, kU) == kT);
  CHECK(TruthOr(kF, kU) == kU);
  CHECK(TruthOr(kF, kF) == kF);
  CHECK(TruthNot(kU) == kU);
  CHECK(TruthNot(kT) == kF);
  CHECK(TruthName(kU) == "Undefined");
}

TEST_CASE("approximate matching is slapd's phonetic match") {
  // slapcat -a's answers on the sample.
  Entries e = Sample();
  CHECK(e.Matching("(sn~=mÜller)") == "a b");
  CHECK(e.Matching("(sn~=muller)") == "a b");
  CHECK(e.Matching("(cn~=hans mueler)") == "a");
  CHECK(e.Matching("(cn~=mueler hans)") == "");  // the words' order counts
  CHECK(e.Matching("(name~=smyth)") == "c");     // subtypes of name
  CHECK(e.Matching("(cn;lang-de~=hans)") == "a");
  CHECK(e.Matching("(mail~=karl)") == "c");  // IA5: the address up to its '@'
  CHECK(e.Matching("(cn~=中文)") == "");     // no words left: nothing matches
  // Types without an approximate rule compare with their equality rule.
  CHECK(e.Matching("(uidNumber~=1005)") == "c");
  CHECK(e.Matching("(telephoneNumber~=+15551234)") == "a");
}

TEST_CASE("description coverage: subtypes, options, language ranges, binary") {
  const Schema& s = testing::BuiltinSchema();
  auto ad = [&](std::string_view text) { return s.ParseAttributeDescription(text).value(); };
  CHECK(DescriptionCovers(ad("name"), ad("cn")));
  CHECK(DescriptionCovers(ad("name"), ad("sn;lang-fr")));
  CHECK_FALSE(DescriptionCovers(ad("cn"), ad("name")));
  CHECK_FALSE(DescriptionCovers(ad("cn"), ad("sn")));
  CHECK(DescriptionCovers(ad("cn"), ad("cn;lang-en")));
  CHECK(DescriptionCovers(ad("cn;lang-en"), ad("cn;lang-en")));
  CHECK(DescriptionCovers(ad("cn;lang-en"), ad("cn;lang-fr;lang-en")));
  CHECK_FALSE(DescriptionCovers(ad("cn;lang-en"), ad("cn")));
  CHECK_FALSE(DescriptionCovers(ad("cn;lang-en"), ad("cn;lang-en-us")));
  CHECK(DescriptionCovers(ad("cn;lang-en-"), ad("cn;lang-en-us")));
  CHECK(DescriptionCovers(ad("cn;lang-en-"), ad("cn;lang-en")));
  CHECK_FALSE(DescriptionCovers(ad("cn;lang-en-"), ad("cn;lang-eng")));
  CHECK(DescriptionCovers(ad("cn;lang-"), ad("cn;lang-de")));
  CHECK_FALSE(DescriptionCovers(ad("cn;lang-"), ad("cn")));
  CHECK(DescriptionCovers(ad("name;lang-de"), ad("cn;lang-de")));
  CHECK(DescriptionCovers(ad("userCertificate"), ad("userCertificate;binary")));
  CHECK_FALSE(DescriptionCovers(ad("userCertificate;binary"), ad("userCertificate")));
}

TEST_CASE("values of undefined or malformed descriptions are invisible") {
  Entries e;
  e.Add("x", "cn=x,dc=example,dc=com",
        {{"objectClass", "device"}, {"cn", "x"}, {"fooBar", "x"}, {"cn;x-opt", "y"}});
  CHECK(e.Matching("(cn=x)") == "x");
  CHECK(e.Matching("(cn=y)") == "");
  CHECK(e.Matching("(fooBar=x)") == "");
  CHECK(e.Matching("(name=*)") == "x");
}

TEST_CASE("stored values the rule cannot normalise never match") {
  Entries e;
  // slapadd stores a malformed integer (and compares it in ways of its own:
  // it finds "uidNumber: abc" >= 1); here such a value matches nothing.
  e.Add("n", "cn=n,dc=example,dc=com",
        {{"objectClass", "device"},
         {"objectClass", "extensibleObject"},
         {"uidNumber", "abc"},
         {"gidNumber", "7"},
         {"cn", std::string("bad \xff utf8")}});
  CHECK(e.Matching("(gidNumber=7)") == "n");
  CHECK(e.Matching("(gidNumber>=1)") == "n");
  CHECK(e.Matching("(uidNumber>=1)") == "");
  CHECK(e.Matching("(!(uidNumber>=1))") == "n");
  CHECK(e.Matching("(!(uidNumber=1))") == "n");
  CHECK(e.Matching("(uidNumber=*)") == "n");
  CHECK(e.Matching("(cn=*bad*)") == "");
  CHECK(e.Matching("(!(cn=bad))") == "n");
  CHECK(e.Matching("(cn=*)") == "n");
}

TEST_CASE("ordering compares with the ORDERING rule, integers numerically") {
  Entries e;
  for (std::string n : {"-20", "-3", "0", "9", "10", "100"}) {
    e.Add(n, "uid=" + n + ",dc=example,dc=com",
          {{"objectClass", "posixAccount"}, {"uidNumber", n}, {"gidNumber", n}});
  }
  CHECK(e.Matching("(uidNumber>=9)") == "9 10 100");
  CHECK(e.Matching("(uidNumber<=9)") == "-20 -3 0 9");
  CHECK(e.Matching("(uidNumber>=-5)") == "-3 0 9 10 100");
  CHECK(e.Matching("(uidNumber<=-4)") == "-20");
  CHECK(e.Matching("(&(uidNumber>=0)(uidNumber<=10))") == "0 9 10");
  CHECK(e.Matching("(uidNumber=10)") == "10");
}

TEST_CASE("substrings: order, overlap and RFC 4518 spaces") {
  Entries e;
  e.Add(
      "v", "cn=v,dc=example,dc=com",
      {{"objectClass", "device"}, {"cn", "  The   Quick  Brown Fox  "}, {"description", "abcabc"}});
  CHECK(e.Matching("(cn=the quick*)") == "v");
  CHECK(e.Matching("(cn=the   quick *)") == "v");
  CHECK(e.Matching("(cn=*quick brown*)") == "v");
  CHECK(e.Matching("(cn=*quick  brown*)") == "v");
  CHECK(e.Matching("(cn=*QUICK*FOX)") == "v");
  CHECK(e.Matching("(cn=*fox *)") == "");  // a trailing space is insignificant
  CHECK(e.Matching("(cn=*brown fox)") == "v");
  CHECK(e.Matching("(cn=* the*)") == "");       // so is a leading one
  CHECK(e.Matching("(cn=*fox*quick*)") == "");  // order matters
  CHECK(e.Matching("(cn=thequick*)") == "");
  CHECK(e.Matching("(description=abc*abc)") == "v");
  CHECK(e.Matching("(description=abca*cabc)") == "");  // initial and final overlap
  CHECK(e.Matching("(description=*bc*ab*)") == "v");
  CHECK(e.Matching("(description=a*b*c*a*b*c)") == "v");
  CHECK(e.Matching("(description=a*b*c*a*b*c*a)") == "");
}

TEST_CASE("a subtype with its own equality rule is compared with that rule") {
  Schema schema = Schema::Builtin().value();
  AttributeTypeDescription d;
  d.oid = "1.3.6.1.4.1.99999.1.1";
  d.names = {"exactName"};
  d.sup = "name";
  d.equality = "caseExactMatch";
  REQUIRE(schema.AddAttributeType(d).ok());
  Entries e;
  e.Add("x", "cn=x,dc=example,dc=com",
        {{"objectClass", "extensibleObject"}, {"cn", "Foo"}, {"exactName", "Bar"}});
  CHECK(e.Matching("(name=foo)", schema) == "x");
  CHECK(e.Matching("(name=bar)", schema) == "");
  CHECK(e.Matching("(name=Bar)", schema) == "x");
  CHECK(e.Matching("(exactName=Bar)", schema) == "x");
  CHECK(e.Matching("(exactName=bar)", schema) == "");
  CHECK(e.Matching("(name=b*)", schema) == "x");  // substrings: exactName inherits name's SUBSTR
}

TEST_CASE("the one-off Matches and corrupt entries") {
  Entries e = Sample();
  Result<Filter> f = ParseFilter("(&(objectClass=person)(sn=MÜLLER))");
  REQUIRE(f.ok());
  Result<bool> hit = Matches(*f, e.view("a"), e.dictionary(), testing::BuiltinSchema());
  REQUIRE(hit.ok());
  CHECK(*hit);
  hit = Matches(*f, e.view("c"), e.dictionary(), testing::BuiltinSchema());
  REQUIRE(hit.ok());
  CHECK_FALSE(*hit);

  AttributeDictionary small;
  small.Intern("objectClass");
  hit = Matches(*f, e.view("a"), small, testing::BuiltinSchema());
  REQUIRE_FALSE(hit.ok());
  CHECK(hit.status().code() == StatusCode::kCorruption);
}

}  // namespace
}  // namespace dirload
