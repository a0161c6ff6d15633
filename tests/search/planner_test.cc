#include "lib/search/planner.h"

#include <doctest/doctest.h>

#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "lib/index/index_keys.h"
#include "lib/search/evaluate.h"
#include "tests/schema/builtin_fixture.h"

namespace dirload {
namespace {

IndexConfig Config(const std::vector<std::string>& lines) {
  std::vector<IndexConfig::Line> ls;
  for (const std::string& l : lines) ls.push_back({l, "test:" + std::to_string(ls.size() + 1)});
  Result<IndexConfig> c = IndexConfig::Parse(testing::BuiltinSchema(), ls);
  REQUIRE(c.ok());
  return std::move(*c);
}

using Avs = std::vector<std::pair<std::string, std::string>>;

// Entries plus an in-memory index made with the keys of index_keys.h, the way
// the index builder files values: into the index of the value's type and of
// every supertype that has one.
class Fixture {
 public:
  explicit Fixture(IndexConfig config) : config_(std::move(config)) {}

  EntryId Add(std::string dn, const Avs& avs) {
    std::vector<ValueRef> refs;
    for (const auto& [desc, value] : avs) refs.push_back({dict_.Intern(desc), value});
    auto e = std::make_unique<Stored>();
    EncodeEntry(dn, refs, &e->bytes);
    REQUIRE(DecodeEntry(e->bytes, &e->view).ok());
    entries_.push_back(std::move(e));
    const EntryId id = entries_.size();
    DescriptionTable table(dict_, testing::BuiltinSchema());
    std::set<std::pair<std::string, std::string>> keys;
    std::string scratch;
    for (const ValueRef& v : entries_.back()->view.values) {
      const AttributeDescription* ad = table.Find(v.description);
      if (ad == nullptr) continue;
      for (const IndexSpec* spec : config_.Targets(ad->type)) {
        if (spec->Has(kIndexPresence)) keys.insert({spec->table(), PresenceKey()});
        KeyList kl;
        (void)AddValueKeys(testing::BuiltinSchema(), *spec, v.value, &kl, &scratch);
        for (size_t i = 0; i < kl.size(); ++i) keys.insert({spec->table(), std::string(kl[i])});
      }
    }
    for (const auto& k : keys) lists_[k].push_back(id);
    return id;
  }

  IndexLookupFn Lookup() {
    return [this](std::string_view table, std::string_view key) -> Result<IdList> {
      ++lookups;
      auto it = lists_.find({std::string(table), std::string(key)});
      if (it == lists_.end()) return IdList();
      return IdList(it->second);
    };
  }

  Candidates Plan(std::string_view text, PlanNode* plan = nullptr) {
    Result<Filter> f = ParseFilter(text);
    REQUIRE(f.ok());
    Planner planner(testing::BuiltinSchema(), config_, Lookup());
    Result<Candidates> c = planner.Plan(*f, plan);
    REQUIRE(c.ok());
    return std::move(*c);
  }

  std::vector<EntryId> Matching(std::string_view text) const {
    Result<Filter> f = ParseFilter(text);
    REQUIRE(f.ok());
    DescriptionTable table(dict_, testing::BuiltinSchema());
    FilterMatcher m(*f, testing::BuiltinSchema());
    std::vector<EntryId> out;
    for (size_t i = 0; i < entries_.size(); ++i) {
      if (m.Matches(entries_[i]->view, table).value()) out.push_back(i + 1);
    }
    return out;
  }

  size_t size() const { return entries_.size(); }
  int lookups = 0;

 private:
  struct Stored {
    std::string bytes;
    EntryView view;
  };
  IndexConfig config_;
  AttributeDictionary dict_;
  std::vector<std::unique_ptr<Stored>> entries_;
  std::map<std::pair<std::string, std::string>, std::vector<EntryId>> lists_;
};

std::vector<EntryId> Ids(const Candidates& c) {
  REQUIRE_FALSE(c.all);
  return std::vector<EntryId>(c.ids.begin(), c.ids.end());
}

Avs Person(const std::string& uid, const std::string& cn, const std::string& sn) {
  return {{"objectClass", "inetOrgPerson"}, {"uid", uid}, {"cn", cn}, {"sn", sn}};
}

std::unique_ptr<Fixture> Small() {
  auto fx = std::make_unique<Fixture>(
      Config({"index objectClass eq", "index uid eq,pres", "index cn,sn eq,sub", "index mail pres",
              "index description eq"}));
  fx->Add("dc=example,dc=com", {{"objectClass", "domain"}, {"dc", "example"}});  // 1
  fx->Add("uid=a,dc=example,dc=com", Person("a", "Anna Berg", "Berg"));          // 2
  fx->Add("uid=b,dc=example,dc=com", Person("b", "Bert Berger", "Berger"));      // 3
  Avs c = Person("c", "Carl Müller", "Müller");
  c.push_back({"mail", "c@example.com"});
  c.push_back({"uidNumber", "5"});
  c.push_back({"objectClass", "posixAccount"});
  fx->Add("uid=c,dc=example,dc=com", c);                                                     // 4
  fx->Add("cn=d,dc=example,dc=com", {{"objectClass", "person"}, {"cn", "d"}, {"sn", "d"}});  // 5
  return fx;
}

TEST_CASE("items: eq, pres, sub use their keys; ordering and unindexed types scan") {
  auto fx = Small();
  CHECK(Ids(fx->Plan("(uid=b)")) == std::vector<EntryId>{3});
  CHECK(Ids(fx->Plan("(uid=B)")) == std::vector<EntryId>{3});
  CHECK(Ids(fx->Plan("(uid=*)")) == std::vector<EntryId>{2, 3, 4});
  CHECK(Ids(fx->Plan("(mail=*)")) == std::vector<EntryId>{4});
  CHECK(Ids(fx->Plan("(sn=berg*)")) == std::vector<EntryId>{2, 3});
  CHECK(Ids(fx->Plan("(sn=*erge*)")) == std::vector<EntryId>{3});
  CHECK(Ids(fx->Plan("(cn=*MÜLLER)")) == std::vector<EntryId>{4});
  CHECK(fx->Plan("(sn~=müller)").all);       // sn has no approx: eq keys cannot answer ~=
  CHECK(fx->Plan("(cn=a*)").all);            // a one-character fragment has no key
  CHECK(fx->Plan("(uidNumber>=1)").all);     // no ordering keys
  CHECK(fx->Plan("(uidNumber=5)").all);      // not indexed
  CHECK(fx->Plan("(sn=*)").all);             // sn has no pres
  CHECK(fx->Plan("(description=*x*)").all);  // description has no sub
  CHECK(fx->Plan("(name=berg)").all);        // no index on name itself
  // Never TRUE, so nothing to read.
  CHECK(Ids(fx->Plan("(nosuchattr=x)")).empty());
  CHECK(Ids(fx->Plan("(sn>=x)")).empty());  // sn has no ORDERING rule
  CHECK(Ids(fx->Plan("(objectClass=nosuchclass)")).empty());
  // Options use the type's index: the candidates stay a superset.
  CHECK(Ids(fx->Plan("(cn;lang-en=anna berg)")) == std::vector<EntryId>{2});
}

TEST_CASE("approx: the intersection of the phonetic keys of the assertion's words") {
  Fixture fx(Config(
      {"index cn eq,approx", "index sn approx", "index givenName eq", "index uidNumber eq"}));
  Avs a = Person("a", "John Smith", "Smith");
  a.push_back({"objectClass", "posixAccount"});
  a.push_back({"uidNumber", "5"});
  fx.Add("uid=a,dc=example,dc=com", a);                                       // 1
  fx.Add("uid=b,dc=example,dc=com", Person("b", "Jon Smyth", "Smyth"));       // 2
  fx.Add("uid=c,dc=example,dc=com", Person("c", "Hans Schmidt", "Schmidt"));  // 3
  // slapadd codes smith and smyth SM0, schmidt SKMT, john JN.
  PlanNode plan;
  CHECK(Ids(fx.Plan("(sn~=smith)", &plan)) == std::vector<EntryId>{1, 2});
  CHECK(plan.ToString() == "(sn~=smith) idx.sn approx:SM0 -> 2 IDs\n");
  CHECK(Ids(fx.Plan("(cn~=jon smyth)")) == std::vector<EntryId>{1, 2});
  CHECK(Ids(fx.Plan("(cn~=smyth jon)")) == std::vector<EntryId>{1, 2});  // order: checked later
  CHECK(Ids(fx.Plan("(cn~=hans smith)")).empty());
  CHECK(fx.Plan("(cn~=123)").all);                                   // no word with a code
  CHECK(fx.Plan("(givenName~=jon)").all);                            // an eq index cannot answer ~=
  CHECK(Ids(fx.Plan("(uidNumber~=5)")) == std::vector<EntryId>{1});  // equality: no approx rule
  CHECK(fx.Matching("(cn~=smyth jon)").empty());
  CHECK(fx.Matching("(cn~=jon smyth)") == std::vector<EntryId>{1, 2});
}

TEST_CASE("objectClass equality is the union over the class and its subclasses") {
  auto fx = Small();
  CHECK(Ids(fx->Plan("(objectClass=person)")) == std::vector<EntryId>{2, 3, 4, 5});
  CHECK(Ids(fx->Plan("(objectClass=inetOrgPerson)")) == std::vector<EntryId>{2, 3, 4});
  CHECK(Ids(fx->Plan("(objectClass=top)")) == std::vector<EntryId>{1, 2, 3, 4, 5});
  CHECK(Ids(fx->Plan("(objectClass=posixAccount)")) == std::vector<EntryId>{4});
  PlanNode plan;
  fx->Plan("(objectClass=organizationalPerson)", &plan);
  CHECK(plan.how.find("organizationalPerson and its subclasses") != std::string::npos);
  CHECK(plan.lookups >= 2);
}

TEST_CASE("AND intersects indexed children and ignores the rest") {
  auto fx = Small();
  CHECK(Ids(fx->Plan("(&(objectClass=person)(sn=berg*))")) == std::vector<EntryId>{2, 3});
  CHECK(Ids(fx->Plan("(&(uid=b)(uidNumber>=5))")) == std::vector<EntryId>{3});
  CHECK(Ids(fx->Plan("(&(uid=b)(!(cn=x)))")) == std::vector<EntryId>{3});
  CHECK(fx->Plan("(&(uidNumber>=5)(!(uid=a)))").all);
  CHECK(fx->Plan("(&)").all);
  // An empty child empties the AND and the rest is not looked up.
  fx->lookups = 0;
  PlanNode plan;
  CHECK(Ids(fx->Plan("(&(uid=zz)(sn=berg*)(cn=anna*))", &plan)).empty());
  CHECK(fx->lookups == 1);
  REQUIRE(plan.children.size() == 3);
  CHECK(plan.children[1].how == "skipped: the intersection is already empty");
}

TEST_CASE("OR unions, and one unindexed child makes it every entry") {
  auto fx = Small();
  CHECK(Ids(fx->Plan("(|(uid=a)(uid=c))")) == std::vector<EntryId>{2, 4});
  CHECK(Ids(fx->Plan("(|(uid=a)(nosuchattr=x))")) == std::vector<EntryId>{2});
  CHECK(fx->Plan("(|(uid=a)(uidNumber=5))").all);
  CHECK(fx->Plan("(|(uid=a)(!(uid=b)))").all);
  CHECK(Ids(fx->Plan("(|)")).empty());
  CHECK(Ids(fx->Plan("(&(objectClass=person)(|(sn=berger)(cn=d)))")) == std::vector<EntryId>{3, 5});
  CHECK(Ids(fx->Plan("(&(objectClass=person)(|(sn=berger)(uidNumber>=1)))")) ==
        std::vector<EntryId>{2, 3, 4, 5});
}

TEST_CASE("NOT is every entry") {
  auto fx = Small();
  CHECK(fx->Plan("(!(uid=a))").all);
  CHECK(fx->Plan("(!(nosuchattr=x))").all);
  CHECK(Ids(fx->Plan("(&(uid=a)(!(uid=a)))")) == std::vector<EntryId>{2});
}

TEST_CASE("a supertype's index serves its subtypes unless it says nosubtypes") {
  Fixture fx(Config({"index name eq,sub"}));
  fx.Add("cn=x,dc=example,dc=com", {{"objectClass", "person"}, {"cn", "Xavier"}, {"sn", "Y"}});
  fx.Add("cn=y,dc=example,dc=com", {{"objectClass", "person"}, {"cn", "Yves"}, {"sn", "Xavier"}});
  CHECK(Ids(fx.Plan("(cn=xavier)")) == std::vector<EntryId>{1, 2});  // a superset
  CHECK(fx.Matching("(cn=xavier)") == std::vector<EntryId>{1});
  CHECK(Ids(fx.Plan("(name=xavier)")) == std::vector<EntryId>{1, 2});
  CHECK(Ids(fx.Plan("(sn=*avie*)")) == std::vector<EntryId>{1, 2});

  Fixture nosub(Config({"index name eq,nosubtypes"}));
  nosub.Add("cn=x,dc=example,dc=com", {{"objectClass", "person"}, {"cn", "Xavier"}, {"sn", "Y"}});
  CHECK(nosub.Plan("(cn=xavier)").all);
  CHECK(Ids(nosub.Plan("(name=xavier)")) == std::vector<EntryId>{1});
}

TEST_CASE("explain shows every node with its list size") {
  Fixture fx(Config({"index objectClass eq", "index uid eq", "index sn eq,sub"}));
  for (int i = 0; i < 40; ++i) {
    const std::string uid = "u" + std::to_string(i);
    fx.Add("uid=" + uid + ",dc=example,dc=com",
           Person(uid, "x", (i < 20 ? "pp" : "qq") + std::to_string(i)));
  }
  fx.Add("cn=d,dc=example,dc=com", {{"objectClass", "device"}, {"cn", "d"}});
  PlanNode plan;
  Candidates c = fx.Plan("(&(objectClass=person)(sn=pp*)(!(sn=x))(uidNumber>=3))", &plan);
  CHECK(c.ids.size() == 20);
  CHECK(plan.ToString() ==
        "(&(objectClass=person)(sn=pp*)(!(sn=x))(uidNumber>=3)) and: intersection of 2 -> 20 "
        "IDs\n"
        "  (objectClass=person) idx.objectclass eq, 5 classes (person and its subclasses) -> 40 "
        "IDs\n"
        "  (sn=pp*) idx.sn sub^:pp -> 20 IDs\n"
        "  (!(sn=x)) not: every entry -> all entries\n"
        "    (sn=x) not looked up\n"
        "  (uidNumber>=3) not indexed: no ordering keys -> all entries\n");

  // The OR is read before objectClass and leaves too few IDs to bother.
  fx.lookups = 0;
  plan = PlanNode();
  c = fx.Plan("(&(objectClass=person)(|(uid=u1)(uid=u2)))", &plan);
  CHECK(Ids(c) == std::vector<EntryId>{2, 3});
  CHECK(fx.lookups == 2);
  CHECK(plan.ToString() ==
        "(&(objectClass=person)(|(uid=u1)(uid=u2))) and: intersection of 1 -> 2 IDs\n"
        "  (objectClass=person) skipped: 2 candidates are few enough to check\n"
        "  (|(uid=u1)(uid=u2)) or: union of 2 -> 2 IDs\n"
        "    (uid=u1) idx.uid eq:u1 -> 1 IDs\n"
        "    (uid=u2) idx.uid eq:u2 -> 1 IDs\n");
}

// Random entries and filters: the candidates always contain every match.
TEST_CASE("candidates are a superset of the matches for many filters") {
  const uint32_t seed = 20240601;
  INFO("seed ", seed);
  std::mt19937 rng(seed);
  Fixture fx(Config({"index objectClass eq", "index uid eq,pres", "index cn,sn,givenName eq,sub",
                     "index mail eq,sub", "index telephoneNumber eq,sub", "index name pres",
                     "index uidNumber eq", "index description approx"}));
  const std::vector<std::string> names = {"Müller", "MUELLER",   "Smith",     "smith",
                                          "Berg",   "Bergström", "Öz",        "ab",
                                          "Abcdef", "Le Blanc",  "le  blanc", "Ωmega"};
  auto pick = [&](const std::vector<std::string>& v) { return v[rng() % v.size()]; };
  for (int i = 0; i < 300; ++i) {
    const std::string uid = "u" + std::to_string(i);
    Avs avs = {{"objectClass", i % 3 == 0   ? "inetOrgPerson"
                               : i % 3 == 1 ? "person"
                                            : "device"},
               {"cn", pick(names) + " " + pick(names)}};
    if (i % 3 != 2) avs.push_back({"sn", pick(names)});
    if (i % 3 == 0) {
      avs.push_back({"uid", uid});
      avs.push_back({"givenName", pick(names)});
      avs.push_back({"mail", uid + "@" + (i % 2 ? "Example.com" : "example.org")});
      avs.push_back({"telephoneNumber", "+1 555 " + std::to_string(1000 + rng() % 50)});
      avs.push_back({"objectClass", "posixAccount"});
      avs.push_back({"uidNumber", std::to_string(rng() % 40)});
    }
    if (rng() % 4 == 0) avs.push_back({"cn;lang-de", pick(names)});
    if (rng() % 5 == 0) avs.push_back({"description", pick(names)});
    fx.Add(uid, avs);
  }
  const std::vector<std::string> filters = {
      "(sn=müller)",
      "(sn=MÜLLER)",
      "(cn=*müller*)",
      "(cn=le blanc*)",
      "(cn=*le  blanc)",
      "(cn=*erg*)",
      "(cn=bergström*)",
      "(cn=*str*m*)",
      "(sn=ab)",
      "(sn=*b)",
      "(cn=ab*)",
      "(givenName=Ωmega)",
      "(givenName=*meg*)",
      "(mail=*@example.com)",
      "(mail=U1*)",
      "(telephoneNumber=*5551010*)",
      "(telephoneNumber=+15551010)",
      "(uid=u3)",
      "(uid=*)",
      "(name=*)",
      "(name=smith)",
      "(cn;lang-de=*)",
      "(cn;lang-de=berg)",
      "(cn;lang-de=*erg*)",
      "(objectClass=person)",
      "(objectClass=top)",
      "(objectClass=posixAccount)",
      "(uidNumber=7)",
      "(uidNumber>=20)",
      "(description~=smith)",
      "(description~=smyth)",
      "(description~=le blanc)",
      "(description~=blanc)",
      "(description~=müller bergstrom)",
      "(description~=123)",
      "(cn~=smith)",
      "(description=smith)",
      "(&(objectClass=person)(sn=smith))",
      "(|(sn=berg)(cn=*ab*))",
      "(!(sn=smith))",
      "(&(cn=*a*)(|(uid=u3)(uid=u6)(sn=öz)))",
      "(|(uidNumber<=3)(sn=berg))",
      "(&(|(sn=smith)(sn=berg))(!(objectClass=inetOrgPerson)))",
      "(nosuch=1)",
      "(|(nosuch=1)(sn=öz))",
      "(&(objectClass=device)(cn=*smith*))"};
  for (const std::string& f : filters) {
    INFO(f);
    Candidates c = fx.Plan(f);
    std::vector<EntryId> matches = fx.Matching(f);
    if (c.all) continue;
    for (EntryId id : matches) CHECK(c.ids.Contains(id));
  }
  // The candidate sets are not trivially everything.
  CHECK_FALSE(fx.Plan("(sn=müller)").all);
  CHECK(fx.Plan("(sn=müller)").ids.size() < fx.size() / 2);
  CHECK_FALSE(fx.Matching("(sn=müller)").empty());
}

}  // namespace
}  // namespace dirload
