// End to end: LDIF loaded by the Loader, indexes built by the IndexBuilder,
// then Search with and without indexes must return the same entries, on both
// engines and with both index methods.
#include "lib/search/search.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "ldif/reader.h"
#include "lib/format/native/native_sink.h"
#include "lib/index/index_builder.h"
#include "lib/format/native/database_meta.h"
#include "lib/load/loader.h"
#include "lib/format/native/native_search_source.h"
#include "lib/store/tables.h"
#include "lib/util/coding.h"
#include "tests/schema/builtin_fixture.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

constexpr const char* kSuffix = "dc=example,dc=com";

struct Generated {
  std::string ldif;
  int people = 0;
  int eng = 0;  // people under ou=eng,ou=people
  int posix = 0;
  int mullers = 0;  // sn Müller in any case
};

Generated Generate(uint32_t seed) {
  std::mt19937 rng(seed);
  const std::vector<std::string> sns = {"Müller",   "MÜLLER",   "Smith",     "Berg", "Bergström",
                                        "Ångström", "Le Blanc", "le  Blanc", "Öz",   "Nguyen"};
  const std::vector<std::string> givens = {"Anna", "Bert", "Carl", "Dörte", "Eve", "Øyvind"};
  const std::vector<std::string> titles = {"Engineer", "Senior Engineer", "Manager", "Clerk"};
  const std::vector<std::string> towns = {"Berlin", "Zürich", "Oslo", "New York"};
  auto pick = [&](const std::vector<std::string>& v) { return v[rng() % v.size()]; };
  Generated g;
  g.ldif = std::string("dn: ") + kSuffix +
           "\nobjectClass: dcObject\nobjectClass: organization\ndc: example\no: Example\n\n"
           "dn: ou=people,dc=example,dc=com\nobjectClass: organizationalUnit\nou: people\n\n"
           "dn: ou=eng,ou=people,dc=example,dc=com\nobjectClass: organizationalUnit\nou: eng\n"
           "description: Engineering\n\n"
           "dn: ou=groups,dc=example,dc=com\nobjectClass: organizationalUnit\nou: groups\n\n";
  std::vector<std::string> dns;
  for (int i = 0; i < 400; ++i) {
    const std::string uid = "u" + std::to_string(i);
    const bool eng = i % 4 == 0;
    const std::string dn = "uid=" + uid + (eng ? ",ou=eng" : "") + ",ou=people,dc=example,dc=com";
    dns.push_back(dn);
    const std::string sn = pick(sns);
    const std::string given = pick(givens);
    if (sn == "Müller" || sn == "MÜLLER") ++g.mullers;
    std::string e = "dn: " + dn + "\nobjectClass: inetOrgPerson\n";
    const bool posix = i % 2 == 0;
    if (posix) e += "objectClass: posixAccount\n";
    e += "uid: " + uid + "\ncn: " + given + " " + sn + "\nsn: " + sn + "\ngivenName: " + given +
         "\nmail: " + uid + "@" + (i % 3 ? "Example.COM" : "example.org") +
         "\ntelephoneNumber: +1 555 " + std::to_string(1000 + i % 37) + "\ntitle: " + pick(titles) +
         "\nl: " + pick(towns) + "\nemployeeNumber: " + std::to_string(i) +
         "\ndepartmentNumber: " + std::to_string(i % 7) + "\n";
    if (posix) {
      e += "uidNumber: " + std::to_string(1000 + i) + "\ngidNumber: " + std::to_string(i % 5) +
           "\nhomeDirectory: /home/" + uid + "\n";
    }
    if (rng() % 4 == 0) e += "cn;lang-de: " + given + " " + pick(sns) + "\n";
    if (rng() % 5 == 0) e += "description: " + pick(titles) + "  of   " + pick(towns) + "\n";
    if (i > 10 && rng() % 3 == 0) e += "manager: " + dns[rng() % 10] + "\n";
    if (rng() % 6 == 0) e += "postalCode: " + std::to_string(10000 + rng() % 20) + "\n";
    g.ldif += e + "\n";
    ++g.people;
    if (eng) ++g.eng;
    if (posix) ++g.posix;
  }
  for (int j = 0; j < 20; ++j) {
    g.ldif += "dn: cn=g" + std::to_string(j) + ",ou=groups,dc=example,dc=com\n" +
              "objectClass: groupOfNames\ncn: g" + std::to_string(j) + "\n";
    // Five distinct members: an attribute holds each value once.
    std::set<size_t> picked;
    while (picked.size() < 5) {
      size_t m = rng() % dns.size();
      if (picked.insert(m).second) g.ldif += "member: " + dns[m] + "\n";
    }
    g.ldif += "\n";
  }
  return g;
}

IndexConfig DesignIndexes() {
  std::vector<IndexConfig::Line> lines;
  for (std::string l :
       {"objectClass eq", "uid eq,pres", "mail eq,sub", "cn eq,sub", "sn eq,sub",
        "givenName eq,sub", "telephoneNumber eq", "employeeNumber eq", "departmentNumber eq",
        "title eq", "l eq", "ou eq", "member eq", "manager eq,pres", "postalCode eq"}) {
    lines.push_back({"index " + l, "test"});
  }
  return IndexConfig::Parse(testing::BuiltinSchema(), lines).value();
}

class Database {
 public:
  Database(Backend backend, IndexMethod method, const std::string& dir, const Generated& g)
      : config_(DesignIndexes()) {
    StoreOptions so;
    so.create = true;
    Result<std::unique_ptr<Store>> s = Store::Open(backend, dir, so);
    REQUIRE(s.ok());
    store_ = std::move(*s);
    EntryChecker checker(&testing::BuiltinSchema(), true);
    LoadOptions lo;
    lo.suffix = kSuffix;
    NativeSink sink(store_.get(), NativeSinkOptions{});
    Loader loader(lo, &sink, &checker, nullptr, nullptr);
    ldif::Reader reader(ldif::MemoryByteSource(g.ldif, "gen.ldif"));
    Result<LoadSummary> sum = loader.Run(&reader);
    REQUIRE_MESSAGE(sum.ok(), sum.status().ToString());
    REQUIRE(ReadMeta(store_.get(), &dict_).ok());

    BuilderOptions bo;
    bo.tmpdir = dir + "-tmp";
    Result<std::unique_ptr<IndexBuilder>> b =
        IndexBuilder::Create(method, config_.specs(), testing::BuiltinSchema(), store_.get(), bo);
    REQUIRE_MESSAGE(b.ok(), b.status().ToString());
    std::unique_ptr<Cursor> c = store_->NewCursor(kId2EntryTable);
    EntryView view;
    for (c->SeekToFirst(); c->valid(); c->Next()) {
      REQUIRE(DecodeEntry(c->value(), &view).ok());
      REQUIRE((*b)->Add(GetBigEndian64(c->key()), view, dict_).ok());
    }
    REQUIRE(c->status().ok());
    REQUIRE((*b)->Finish().ok());
    REQUIRE(store_->Commit().ok());
  }

  struct Found {
    Result<SearchResult> result = Status::Internal("not run");
    std::vector<std::string> dns;
  };

  Found Run(const std::string& base, SearchScope scope, std::string_view filter, bool use_indexes,
            uint64_t check_scope_per_entry = kCheckScopePerEntry) {
    SearchRequest req;
    req.check_scope_per_entry = check_scope_per_entry;
    req.base = base;
    req.scope = scope;
    Result<Filter> f = ParseFilter(filter);
    REQUIRE(f.ok());
    req.filter = *f;
    req.indexes = &config_;
    req.use_indexes = use_indexes;
    req.explain = true;
    Found out;
    EntryId last = 0;
    NativeSearchSource source(store_.get(), testing::BuiltinSchema(), dict_);
    out.result = Search(source, testing::BuiltinSchema(), req, [&](EntryId id, const EntryView& e) {
      CHECK(id > last);  // ascending ID order
      last = id;
      out.dns.emplace_back(e.dn);
      return Status::Ok();
    });
    return out;
  }

  Store* store() { return store_.get(); }

 private:
  IndexConfig config_;
  std::unique_ptr<Store> store_;
  AttributeDictionary dict_;
};

const std::vector<std::string> kFilters = {"(objectClass=*)",
                                           "(objectClass=person)",
                                           "(objectClass=inetOrgPerson)",
                                           "(objectClass=top)",
                                           "(objectClass=posixAccount)",
                                           "(objectClass=organizationalUnit)",
                                           "(objectClass=groupOfNames)",
                                           "(!(objectClass=posixAccount))",
                                           "(objectClass=nosuch)",
                                           "(uid=u17)",
                                           "(uid=U17)",
                                           "(uid=*)",
                                           "(!(uid=*))",
                                           "(sn=müller)",
                                           "(sn=MÜLLER)",
                                           "(sn=Mu\\cc\\88ller)",
                                           "(sn=le blanc)",
                                           "(sn=LE   BLANC)",
                                           "(cn=*müller)",
                                           "(cn=*ngstr*)",
                                           "(cn=anna*)",
                                           "(cn=a*)",
                                           "(cn=*)",
                                           "(sn=*erg*)",
                                           "(sn=b*m)",
                                           "(givenName=Ø*)",
                                           "(givenName=*rte)",
                                           "(mail=*@example.com)",
                                           "(mail=u1*@example.org)",
                                           "(mail=U2@EXAMPLE.COM)",
                                           "(telephoneNumber=+15551010)",
                                           "(telephoneNumber=*555 101*)",
                                           "(employeeNumber=42)",
                                           "(departmentNumber=3)",
                                           "(title=senior engineer)",
                                           "(title=*engineer)",
                                           "(l=zürich)",
                                           "(l=ZURICH)",
                                           "(ou=eng)",
                                           "(ou=*)",
                                           "(postalCode=*)",
                                           "(postalCode=10007)",
                                           "(member=uid=u3,ou=people,dc=example,dc=com)",
                                           "(member=UID=U3, OU=People, DC=Example, DC=Com)",
                                           "(manager=*)",
                                           "(manager=uid=u0,ou=eng,ou=people,dc=example,dc=com)",
                                           "(uidNumber>=1300)",
                                           "(uidNumber<=1010)",
                                           "(gidNumber=3)",
                                           "(name=*)",
                                           "(name=g1)",
                                           "(cn;lang-de=*)",
                                           "(cn;lang-de=*müller*)",
                                           "(description=*engineer of*)",
                                           "(description~=engineering)",
                                           "(sn~=smith)",
                                           "(&(objectClass=person)(sn=smith))",
                                           "(&(objectClass=posixAccount)(uidNumber>=1200)(l=oslo))",
                                           "(|(sn=berg)(sn=öz))",
                                           "(|(sn=berg)(uidNumber<=1005))",
                                           "(&(|(l=berlin)(l=oslo))(!(title=manager)))",
                                           "(&(cn=*a*)(|(uid=u3)(uid=u6)(sn=öz)))",
                                           "(!(|(sn=smith)(sn=berg)))",
                                           "(&(nosuch=1)(uid=u1))",
                                           "(|(nosuch=1)(uid=u1))",
                                           "(!(nosuch=1))",
                                           "(&(objectClass=inetOrgPerson)(!(mail=*example.org)))",
                                           "(uid=nobody)",
                                           "(&)",
                                           "(|)",
                                           "(cn=)",
                                           "(uidNumber=01005)"};

TEST_CASE("indexed and unindexed search return the same entries") {
  const uint32_t seed = 7;
  INFO("seed ", seed);
  const Generated g = Generate(seed);
  for (Backend backend : {Backend::kLmdb, Backend::kBdb}) {
    for (IndexMethod method : {IndexMethod::kCache, IndexMethod::kSort}) {
      CAPTURE(BackendName(backend));
      CAPTURE(IndexMethodName(method));
      testing::TempDir dir;
      Database db(backend, method, dir.File("db"), g);
      // Every scope on one combination; the whole database on the others.
      const bool all_scopes = backend == Backend::kLmdb && method == IndexMethod::kCache;
      std::vector<std::pair<std::string, SearchScope>> scopes = {
          {kSuffix, SearchScope::kSub},
          {"ou=people,dc=example,dc=com", SearchScope::kOne},
          {"OU=Eng, OU=People, DC=Example, DC=Com", SearchScope::kSub},
          {"ou=people,dc=example,dc=com", SearchScope::kBase},
          {"uid=u17,ou=people,dc=example,dc=com", SearchScope::kBase},
          {"", SearchScope::kSub},
          {"", SearchScope::kOne}};
      if (!all_scopes) scopes.resize(1);
      size_t narrowed = 0, nonempty = 0;
      for (const auto& [base, scope] : scopes) {
        for (const std::string& f : kFilters) {
          CAPTURE(base);
          CAPTURE(SearchScopeName(scope));
          CAPTURE(f);
          Database::Found indexed = db.Run(base, scope, f, true);
          Database::Found scanned = db.Run(base, scope, f, false);
          REQUIRE_MESSAGE(indexed.result.ok(), indexed.result.status().ToString());
          REQUIRE_MESSAGE(scanned.result.ok(), scanned.result.status().ToString());
          CHECK(indexed.dns == scanned.dns);
          if (all_scopes) {
            // The scope from dn2id instead of each candidate's DN.
            Database::Found walked = db.Run(base, scope, f, true, 0);
            REQUIRE(walked.result.ok());
            CHECK(walked.dns == scanned.dns);
          }
          CHECK(scanned.result->scanned);
          CHECK(indexed.result->matched == indexed.dns.size());
          if (!indexed.result->scanned) ++narrowed;
          if (!indexed.dns.empty()) ++nonempty;
        }
      }
      // The comparison is not vacuous: indexes were used and entries found.
      CHECK(narrowed > kFilters.size() * scopes.size() / 2);
      CHECK(nonempty > kFilters.size() * scopes.size() / 3);
    }
  }
}

TEST_CASE("counts, scopes and plans on a known load") {
  const Generated g = Generate(11);
  testing::TempDir dir;
  Database db(Backend::kLmdb, IndexMethod::kSort, dir.File("db"), g);
  const int total = 4 + g.people + 20;

  auto count = [&](const std::string& base, SearchScope scope, std::string_view f) {
    Database::Found r = db.Run(base, scope, f, true);
    REQUIRE_MESSAGE(r.result.ok(), r.result.status().ToString());
    return static_cast<int>(r.dns.size());
  };
  CHECK(count(kSuffix, SearchScope::kSub, "(objectClass=*)") == total);
  CHECK(count("", SearchScope::kSub, "(objectClass=*)") == total);
  CHECK(count("", SearchScope::kOne, "(objectClass=*)") == 1);
  CHECK(count("", SearchScope::kBase, "(objectClass=*)") == 0);
  CHECK(count(kSuffix, SearchScope::kBase, "(objectClass=*)") == 1);
  CHECK(count(kSuffix, SearchScope::kOne, "(objectClass=*)") == 2);
  CHECK(count(kSuffix, SearchScope::kSub, "(objectClass=person)") == g.people);
  CHECK(count(kSuffix, SearchScope::kSub, "(objectClass=posixAccount)") == g.posix);
  CHECK(count(kSuffix, SearchScope::kSub, "(sn=müller)") == g.mullers);
  CHECK(count("ou=eng,ou=people,dc=example,dc=com", SearchScope::kSub, "(objectClass=*)") ==
        g.eng + 1);
  CHECK(count("ou=eng,ou=people,dc=example,dc=com", SearchScope::kOne, "(objectClass=*)") == g.eng);
  CHECK(count("ou=people,dc=example,dc=com", SearchScope::kOne, "(uid=*)") == g.people - g.eng);
  CHECK(count("uid=u4,ou=eng,ou=people,dc=example,dc=com", SearchScope::kBase, "(uid=u4)") == 1);
  CHECK(count("uid=u4,ou=eng,ou=people,dc=example,dc=com", SearchScope::kBase, "(uid=u5)") == 0);

  Database::Found r = db.Run(kSuffix, SearchScope::kSub, "(&(objectClass=person)(uid=u17))", true);
  REQUIRE(r.result.ok());
  CHECK_FALSE(r.result->scanned);
  CHECK(r.result->candidates == 1);
  CHECK(r.result->examined == 1);
  CHECK(r.dns == std::vector<std::string>{"uid=u17,ou=people,dc=example,dc=com"});
  CHECK(r.result->plan.ToString().find("idx.uid eq:u17 -> 1 IDs") != std::string::npos);

  r = db.Run(kSuffix, SearchScope::kSub, "(uidNumber>=1300)", true);
  REQUIRE(r.result.ok());
  CHECK(r.result->scanned);
  CHECK(r.result->examined == static_cast<uint64_t>(total));
  CHECK(r.result->plan.how == "not indexed: no ordering keys");

  // Below a smaller base the candidates' DNs are checked, or dn2id walked.
  const std::string eng = "ou=eng,ou=people,dc=example,dc=com";
  r = db.Run(eng, SearchScope::kSub, "(objectClass=person)", true);
  REQUIRE(r.result.ok());
  CHECK(r.result->candidates == static_cast<uint64_t>(g.people));
  CHECK(r.result->examined == static_cast<uint64_t>(g.people));
  CHECK(r.result->matched == static_cast<uint64_t>(g.eng));
  r = db.Run(eng, SearchScope::kSub, "(objectClass=person)", true, 0);
  REQUIRE(r.result.ok());
  CHECK(r.result->examined == static_cast<uint64_t>(g.eng));
  CHECK(r.result->matched == static_cast<uint64_t>(g.eng));

  r = db.Run(kSuffix, SearchScope::kSub, "(uid=u17)", false);
  REQUIRE(r.result.ok());
  CHECK(r.result->plan.how == "indexes not used");
}

TEST_CASE("bad bases, scopes and callbacks") {
  const Generated g = Generate(3);
  testing::TempDir dir;
  Database db(Backend::kLmdb, IndexMethod::kCache, dir.File("db"), g);
  Database::Found r = db.Run("ou=nowhere,dc=example,dc=com", SearchScope::kSub, "(uid=*)", true);
  REQUIRE_FALSE(r.result.ok());
  CHECK(r.result.status().code() == StatusCode::kNotFound);
  CHECK(r.result.status().message() == "search base 'ou=nowhere,dc=example,dc=com' does not exist");
  r = db.Run("not a dn", SearchScope::kSub, "(uid=*)", true);
  REQUIRE_FALSE(r.result.ok());
  CHECK(r.result.status().code() == StatusCode::kInvalidArgument);

  CHECK(ParseSearchScope("SUB").value() == SearchScope::kSub);
  CHECK(ParseSearchScope("subtree").value() == SearchScope::kSub);
  CHECK(ParseSearchScope("one").value() == SearchScope::kOne);
  CHECK(ParseSearchScope("base").value() == SearchScope::kBase);
  CHECK(ParseSearchScope("children").value() == SearchScope::kChildren);
  CHECK(ParseSearchScope("sideways").status().message() ==
        "unknown search scope 'sideways' (expected base, one, sub or children)");

  // A callback error stops the search and comes back.
  SearchRequest req;
  req.base = kSuffix;
  req.filter = ParseFilter("(uid=*)").value();
  int seen = 0;
  AttributeDictionary dict;
  REQUIRE(ReadMeta(db.store(), &dict).ok());
  NativeSearchSource source(db.store(), testing::BuiltinSchema(), dict);
  Result<SearchResult> res =
      Search(source, testing::BuiltinSchema(), req, [&](EntryId, const EntryView&) {
        return ++seen == 3 ? Status::ResourceExhausted("enough") : Status::Ok();
      });
  REQUIRE_FALSE(res.ok());
  CHECK(res.status().message() == "enough");
  CHECK(seen == 3);
}

}  // namespace
}  // namespace dirload
