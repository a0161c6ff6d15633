// The search executor (search.h) over a fake SearchSource: a small tree held
// in memory, with an "index" on uid and sn equality and a placeholder ID that
// holds no entry. Checks the scope handling, that candidates and a scan find
// the same entries in ascending ID order, the counters, which source calls
// each path makes, and the errors.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "lib/schema/dn.h"
#include "lib/search/search.h"
#include "lib/search/search_source.h"
#include "lib/util/ascii.h"
#include "tests/schema/builtin_fixture.h"

namespace dirload {
namespace {

struct FakeEntry {
  std::string dn;  // normalised already, so DN and ndn are the same
  std::vector<std::pair<std::string, std::string>> values;
};

class FakeSource final : public SearchSource {
 public:
  // `ancestry`: whether FilterByAncestry answers (as slapd's dn2i lets it)
  // or leaves the check to each entry's DN (as dirload's dn2id does).
  explicit FakeSource(bool ancestry) : ancestry_(ancestry) {
    auto add = [&](EntryId id, std::string dn,
                   std::vector<std::pair<std::string, std::string>> values) {
      entries_[id] = FakeEntry{std::move(dn), std::move(values)};
    };
    add(1, "dc=example,dc=com", {{"objectClass", "dcObject"}, {"dc", "example"}});
    add(2, "ou=people,dc=example,dc=com",
        {{"objectClass", "organizationalUnit"}, {"ou", "people"}});
    add(3, "uid=a,ou=people,dc=example,dc=com",
        {{"objectClass", "person"}, {"uid", "a"}, {"sn", "Smith"}});
    add(4, "uid=b,ou=people,dc=example,dc=com",
        {{"objectClass", "person"}, {"uid", "b"}, {"sn", "Jones"}});
    add(5, "ou=groups,dc=example,dc=com",
        {{"objectClass", "organizationalUnit"}, {"ou", "groups"}});
    // ID 6: a placeholder, in dn2i-like ancestry but with no entry.
    placeholder_ = 6;
    add(7, "cn=g1,ou=groups,dc=example,dc=com",
        {{"objectClass", "person"}, {"cn", "g1"}, {"sn", "smith"}});
    add(8, "uid=c,ou=people,dc=example,dc=com",
        {{"objectClass", "person"}, {"uid", "c"}, {"sn", "SMITH"}});
    for (const auto& [id, e] : entries_) {
      for (const auto& [d, v] : e.values) dictionary_.Intern(d);
    }
  }

  // Calls made, for checking which path a search took.
  int finds = 0, subtree_asks = 0, scope_walks = 0, ancestry_asks = 0, items = 0, scans = 0;
  std::vector<EntryId> reads;

  const AttributeDictionary& dictionary() const override { return dictionary_; }
  std::string EntryName(EntryId id) const override { return "fake: " + std::to_string(id); }

  Result<std::optional<EntryId>> FindEntry(std::string_view ndn) override {
    ++finds;
    for (const auto& [id, e] : entries_) {
      if (e.dn == ndn) return std::optional<EntryId>(id);
    }
    return std::optional<EntryId>();
  }

  Result<bool> SubtreeHoldsEverything(const SearchBase& base) override {
    ++subtree_asks;
    for (const auto& [id, e] : entries_) {
      if (!IsUnder(e.dn, base.ndn)) return false;
    }
    return true;
  }

  Result<IdList> ScopeIds(const SearchBase& base, SearchScope scope) override {
    ++scope_walks;
    IdList ids;
    for (EntryId id = 1; id <= 8; ++id) {
      if (In(id, base, scope)) ids.Append(id);
    }
    return ids;
  }

  Result<std::optional<IdList>> FilterByAncestry(const IdList& candidates, const SearchBase& base,
                                                 SearchScope scope) override {
    ++ancestry_asks;
    if (!ancestry_) return std::optional<IdList>();
    IdList in;
    for (EntryId id : candidates) {
      if (In(id, base, scope)) in.Append(id);
    }
    return std::optional<IdList>(std::move(in));
  }

  // uid and sn equality are "indexed" (case-insensitive, as their rules);
  // everything else needs all entries.
  Result<Candidates> ItemCandidates(const IndexConfig&, const Filter& item,
                                    PlanNode* plan) override {
    ++items;
    if (item.kind != FilterKind::kEquality ||
        !(EqualsIgnoreCase(item.attribute, "uid") || EqualsIgnoreCase(item.attribute, "sn"))) {
      plan->how = "fake: not indexed";
      return Candidates::All();
    }
    plan->how = "fake: index " + item.attribute;
    ++plan->lookups;
    IdList ids;
    for (const auto& [id, e] : entries_) {
      for (const auto& [d, v] : e.values) {
        if (EqualsIgnoreCase(d, item.attribute) && EqualsIgnoreCase(v, item.value)) {
          ids.Append(id);
          break;
        }
      }
    }
    return Candidates::Of(std::move(ids));
  }

  Result<const EntryView*> Read(EntryId id) override {
    if (!reads.empty()) CHECK(id > reads.back());  // asked in ascending order
    reads.push_back(id);
    if (id == placeholder_) return nullptr;
    auto it = entries_.find(id);
    if (it == entries_.end()) return Status::Corruption("fake: no entry " + std::to_string(id));
    Fill(it->second, &view_);
    return &view_;
  }

  Status Scan(const ScanTest& test, const ScanTake& take) override {
    ++scans;
    EntryView view;
    for (const auto& [id, e] : entries_) {
      Fill(e, &view);
      const std::string_view dn = view.dn;
      view.dn = {};  // as slapd's format: the DN comes only with take
      DIRLOAD_ASSIGN_OR_RETURN(bool keep, test(id, view));
      view.dn = dn;
      if (keep) DIRLOAD_RETURN_IF_ERROR(take(id, view));
    }
    return Status::Ok();
  }

 private:
  // The scope by DN, the root's one level being the suffix entry; the
  // placeholder 6 counts as a child of ou=groups.
  bool In(EntryId id, const SearchBase& base, SearchScope scope) const {
    const std::string dn =
        id == placeholder_ ? "ou=missing,ou=groups,dc=example,dc=com" : entries_.at(id).dn;
    switch (scope) {
      case SearchScope::kBase:
        return id == base.id;
      case SearchScope::kOne:
        return base.root() ? dn == "dc=example,dc=com" : ParentDn(dn) == base.ndn;
      case SearchScope::kSub:
        return IsUnder(dn, base.ndn);
      case SearchScope::kChildren:
        break;  // the executor asks for the subtree
    }
    return false;
  }

  void Fill(const FakeEntry& e, EntryView* view) {
    view->dn = e.dn;
    view->values.clear();
    for (const auto& [d, v] : e.values) view->values.push_back({dictionary_.Intern(d), v});
  }

  bool ancestry_;
  EntryId placeholder_ = 0;
  std::map<EntryId, FakeEntry> entries_;
  AttributeDictionary dictionary_;
  EntryView view_;
};

const IndexConfig& Indexes() {
  static const IndexConfig config =
      IndexConfig::Parse(testing::BuiltinSchema(), {{"index uid,sn eq", "test"}}).value();
  return config;
}

struct Run {
  Result<SearchResult> result = Status::Internal("not run");
  std::vector<EntryId> ids;
};

Run Go(FakeSource& source, const std::string& base, SearchScope scope, const std::string& filter,
       bool use_indexes = true, uint64_t check_scope_per_entry = kCheckScopePerEntry) {
  SearchRequest req;
  req.base = base;
  req.scope = scope;
  req.filter = ParseFilter(filter).value();
  req.indexes = &Indexes();
  req.use_indexes = use_indexes;
  req.explain = true;
  req.check_scope_per_entry = check_scope_per_entry;
  Run out;
  out.result = Search(source, testing::BuiltinSchema(), req, [&](EntryId id, const EntryView& e) {
    CHECK(!e.dn.empty());  // the callback always gets the DN
    if (!out.ids.empty()) CHECK(id > out.ids.back());
    out.ids.push_back(id);
    return Status::Ok();
  });
  return out;
}

using Ids = std::vector<EntryId>;
constexpr const char* kSuffix = "dc=example,dc=com";
constexpr const char* kPeople = "ou=people,dc=example,dc=com";

TEST_CASE("candidates and a scan find the same entries, in ascending ID order") {
  const std::vector<std::pair<std::string, SearchScope>> scopes = {
      {"", SearchScope::kBase},
      {"", SearchScope::kOne},
      {"", SearchScope::kSub},
      {kSuffix, SearchScope::kBase},
      {kSuffix, SearchScope::kOne},
      {kSuffix, SearchScope::kSub},
      {kPeople, SearchScope::kBase},
      {kPeople, SearchScope::kOne},
      {kPeople, SearchScope::kSub},
      {"ou=groups,dc=example,dc=com", SearchScope::kSub},
      {"", SearchScope::kChildren},
      {kSuffix, SearchScope::kChildren},
      {kPeople, SearchScope::kChildren},
      {"uid=b,ou=people,dc=example,dc=com", SearchScope::kChildren}};
  const std::vector<std::string> filters = {
      "(objectClass=*)",   "(sn=smith)",       "(uid=b)",       "(&(sn=smith)(uid=*))",
      "(|(uid=a)(uid=c))", "(|(uid=a)(ou=*))", "(!(sn=smith))", "(uid=nobody)"};
  for (bool ancestry : {false, true}) {
    for (uint64_t per_entry : {uint64_t{0}, kCheckScopePerEntry}) {
      for (const auto& [base, scope] : scopes) {
        for (const std::string& f : filters) {
          CAPTURE(ancestry);
          CAPTURE(per_entry);
          CAPTURE(base);
          CAPTURE(SearchScopeName(scope));
          CAPTURE(f);
          FakeSource a(ancestry), b(ancestry);
          Run indexed = Go(a, base, scope, f, true, per_entry);
          Run scanned = Go(b, base, scope, f, false, per_entry);
          REQUIRE(indexed.result.ok());
          REQUIRE(scanned.result.ok());
          CHECK(indexed.ids == scanned.ids);
          CHECK(indexed.result->matched == indexed.ids.size());
          CHECK(scanned.result->scanned);
          CHECK(scanned.result->candidates == 0);
          CHECK(b.items == 0);  // a scan plans nothing
        }
      }
    }
  }
}

TEST_CASE("scopes on a known tree") {
  auto ids = [&](const std::string& base, SearchScope scope, const std::string& f) {
    FakeSource fresh(false);
    Run r = Go(fresh, base, scope, f);
    REQUIRE(r.result.ok());
    return r.ids;
  };
  // The root: nothing at base, the suffix one level down, everything below.
  CHECK(ids("", SearchScope::kBase, "(objectClass=*)").empty());
  CHECK(ids("", SearchScope::kOne, "(objectClass=*)") == Ids{1});
  CHECK(ids("", SearchScope::kSub, "(objectClass=*)") == Ids{1, 2, 3, 4, 5, 7, 8});
  CHECK(ids(kSuffix, SearchScope::kBase, "(objectClass=*)") == Ids{1});
  CHECK(ids(kSuffix, SearchScope::kOne, "(objectClass=*)") == Ids{2, 5});
  CHECK(ids(kPeople, SearchScope::kSub, "(objectClass=*)") == Ids{2, 3, 4, 8});
  CHECK(ids(kPeople, SearchScope::kOne, "(sn=smith)") == Ids{3, 8});
  CHECK(ids("OU=People, DC=Example, DC=Com", SearchScope::kSub, "(sn=smith)") == Ids{3, 8});
  CHECK(ids("uid=b,ou=people,dc=example,dc=com", SearchScope::kBase, "(sn=smith)").empty());
  CHECK(ids("uid=b,ou=people,dc=example,dc=com", SearchScope::kBase, "(sn=jones)") == Ids{4});
  // Children: the subtree without its base (the root is no entry: all).
  CHECK(ids("", SearchScope::kChildren, "(objectClass=*)") == Ids{1, 2, 3, 4, 5, 7, 8});
  CHECK(ids(kSuffix, SearchScope::kChildren, "(objectClass=*)") == Ids{2, 3, 4, 5, 7, 8});
  CHECK(ids(kPeople, SearchScope::kChildren, "(objectClass=*)") == Ids{3, 4, 8});
  CHECK(ids(kPeople, SearchScope::kChildren, "(ou=people)").empty());
  CHECK(ids("OU=People, DC=Example, DC=Com", SearchScope::kChildren, "(sn=smith)") == Ids{3, 8});
  CHECK(
      ids("uid=b,ou=people,dc=example,dc=com", SearchScope::kChildren, "(objectClass=*)").empty());
}

TEST_CASE("scope names, OpenLDAP's spellings of children among them") {
  CHECK(ParseSearchScope("children").value() == SearchScope::kChildren);
  CHECK(ParseSearchScope("Subordinate").value() == SearchScope::kChildren);
  CHECK(ParseSearchScope("subord").value() == SearchScope::kChildren);
  CHECK(SearchScopeName(SearchScope::kChildren) == "children");
  CHECK(ParseSearchScope("subtree").value() == SearchScope::kSub);
  CHECK(ParseSearchScope("kids").status().message().find("children") != std::string::npos);
}

TEST_CASE("the path each search takes, and its counters") {
  SUBCASE("the whole database is scanned, not walked") {
    for (const std::string base : {"", kSuffix}) {
      CAPTURE(base);
      FakeSource s(false);
      Run r = Go(s, base, SearchScope::kSub, "(objectClass=*)");
      REQUIRE(r.result.ok());
      CHECK(s.scans == 1);
      CHECK(s.scope_walks == 0);
      CHECK(s.reads.empty());
      CHECK(r.result->scanned);
      CHECK(r.result->examined == 7);  // the placeholder is no entry
      CHECK(r.result->matched == 7);
      CHECK(s.subtree_asks == (base.empty() ? 0 : 1));
      CHECK(s.finds == (base.empty() ? 0 : 1));
    }
  }
  SUBCASE("indexed: only the candidates are read") {
    FakeSource s(false);
    Run r = Go(s, kSuffix, SearchScope::kSub, "(sn=smith)");
    REQUIRE(r.result.ok());
    CHECK_FALSE(r.result->scanned);
    CHECK(r.result->candidates == 3);
    CHECK(r.result->examined == 3);
    CHECK(r.result->matched == 3);
    CHECK(s.reads == Ids{3, 7, 8});
    CHECK(s.scans == 0);
    CHECK(r.result->plan.ToString() == "(sn=smith) fake: index sn -> 3 IDs\n");
  }
  SUBCASE("few candidates below a base: by ancestry, nothing out of scope is read") {
    FakeSource s(true);
    Run r = Go(s, kPeople, SearchScope::kSub, "(sn=smith)");
    REQUIRE(r.result.ok());
    CHECK(r.ids == Ids{3, 8});
    CHECK(s.ancestry_asks == 1);
    CHECK(s.scope_walks == 0);
    CHECK(s.reads == Ids{3, 8});
    CHECK(r.result->candidates == 3);
    CHECK(r.result->examined == 2);
    CHECK(r.result->matched == 2);
  }
  SUBCASE("few candidates below a base: by each one's DN, as it is read") {
    FakeSource s(false);
    Run r = Go(s, kPeople, SearchScope::kSub, "(sn=smith)");
    REQUIRE(r.result.ok());
    CHECK(r.ids == Ids{3, 8});
    CHECK(s.ancestry_asks == 1);
    CHECK(s.scope_walks == 0);
    CHECK(s.reads == Ids{3, 7, 8});
    CHECK(r.result->examined == 3);
    CHECK(r.result->matched == 2);
  }
  SUBCASE("more candidates than the limit: the scope is walked and intersected") {
    FakeSource s(false);
    Run r = Go(s, kPeople, SearchScope::kSub, "(sn=smith)", true, 2);
    REQUIRE(r.result.ok());
    CHECK(r.ids == Ids{3, 8});
    CHECK(s.ancestry_asks == 0);
    CHECK(s.scope_walks == 1);
    CHECK(s.reads == Ids{3, 8});
    CHECK(r.result->examined == 2);
  }
  SUBCASE("an unindexed filter below a base reads the scope") {
    FakeSource s(true);
    Run r = Go(s, "ou=groups,dc=example,dc=com", SearchScope::kSub, "(cn=g1)");
    REQUIRE(r.result.ok());
    CHECK(r.ids == Ids{7});
    CHECK(r.result->scanned);
    CHECK(s.scope_walks == 1);
    CHECK(s.reads == Ids{5, 6, 7});  // 6, the placeholder, is skipped
    CHECK(r.result->examined == 2);
  }
  SUBCASE("base scope reads the base alone") {
    FakeSource s(false);
    Run r = Go(s, kPeople, SearchScope::kBase, "(objectClass=*)");
    REQUIRE(r.result.ok());
    CHECK(r.ids == Ids{2});
    CHECK(s.reads == Ids{2});
    CHECK(s.scope_walks == 0);
  }
  SUBCASE("an AND reads its likely short lists and stops when few are left") {
    FakeSource s(false);
    Run r = Go(s, kSuffix, SearchScope::kSub, "(&(objectClass=*)(uid=a)(sn=smith))");
    REQUIRE(r.result.ok());
    CHECK(r.ids == Ids{3});
    CHECK(r.result->candidates == 1);
    CHECK(s.items == 1);  // uid=a gave one ID; the others were skipped
    CHECK(r.result->plan.how == "and: intersection of 1");
  }
  SUBCASE("what explain says without indexes") {
    FakeSource s(false);
    Run r = Go(s, kSuffix, SearchScope::kSub, "(uid=a)", false);
    REQUIRE(r.result.ok());
    CHECK(r.result->plan.how == "indexes not used");
    SearchRequest req;
    req.filter = ParseFilter("(uid=a)").value();
    req.explain = true;
    Result<SearchResult> none = Search(s, testing::BuiltinSchema(), req,
                                       [](EntryId, const EntryView&) { return Status::Ok(); });
    REQUIRE(none.ok());
    CHECK(none->plan.how == "no indexes configured");
    CHECK(none->matched == 1);
  }
}

TEST_CASE("bases that are not there, bad bases, and callback errors") {
  FakeSource s(true);
  Run r = Go(s, "ou=nowhere,dc=example,dc=com", SearchScope::kSub, "(objectClass=*)");
  REQUIRE_FALSE(r.result.ok());
  CHECK(r.result.status().code() == StatusCode::kNotFound);
  CHECK(r.result.status().message() == "search base 'ou=nowhere,dc=example,dc=com' does not exist");
  CHECK(s.items == 0);  // nothing planned or read
  CHECK(s.reads.empty());

  r = Go(s, "not a dn", SearchScope::kSub, "(objectClass=*)");
  REQUIRE_FALSE(r.result.ok());
  CHECK(r.result.status().code() == StatusCode::kInvalidArgument);
  CHECK(r.result.status().origin() == ErrorOrigin::kUsage);

  Result<std::optional<SearchBase>> missing =
      FindSearchBase(s, testing::BuiltinSchema(), "ou=nowhere,dc=example,dc=com");
  REQUIRE(missing.ok());
  CHECK_FALSE(missing->has_value());
  Result<std::optional<SearchBase>> people =
      FindSearchBase(s, testing::BuiltinSchema(), "OU=People,DC=Example,DC=Com");
  REQUIRE(people.ok());
  REQUIRE(people->has_value());
  CHECK((*people)->ndn == kPeople);
  CHECK((*people)->id == 2);

  for (bool use_indexes : {true, false}) {
    CAPTURE(use_indexes);
    FakeSource t(false);
    SearchRequest req;
    req.base = kSuffix;
    req.filter = ParseFilter("(sn=smith)").value();
    req.indexes = &Indexes();
    req.use_indexes = use_indexes;
    int seen = 0;
    Result<SearchResult> res =
        Search(t, testing::BuiltinSchema(), req, [&](EntryId, const EntryView&) {
          return ++seen == 2 ? Status::ResourceExhausted("enough") : Status::Ok();
        });
    REQUIRE_FALSE(res.ok());
    CHECK(res.status().message() == "enough");
    CHECK(seen == 2);
  }
}

}  // namespace
}  // namespace dirload
