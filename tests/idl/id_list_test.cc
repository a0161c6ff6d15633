#include "lib/idl/id_list.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <iterator>
#include <random>
#include <set>

namespace dirload {
namespace {

IdList FromSet(const std::set<EntryId>& s) {
  return IdList(std::vector<EntryId>(s.begin(), s.end()));
}

// A random set of `n` IDs drawn from [1, range].
std::set<EntryId> RandomSet(std::mt19937_64& rng, size_t n, EntryId range) {
  std::set<EntryId> s;
  std::uniform_int_distribution<EntryId> pick(1, range);
  while (s.size() < n && s.size() < range) s.insert(pick(rng));
  return s;
}

TEST_CASE("IdList basics") {
  IdList l;
  CHECK(l.empty());
  l.Append(3);
  l.Append(7);
  l.Append(100);
  CHECK(l.size() == 3);
  CHECK(l.front() == 3);
  CHECK(l.back() == 100);
  CHECK(l.Contains(7));
  CHECK_FALSE(l.Contains(8));
  CHECK(l.IsValid());
  CHECK_FALSE(IdList({3, 3}).IsValid());
  CHECK(IdList::FromUnsorted({9, 1, 5, 1}) == IdList({1, 5, 9}));
}

TEST_CASE("IdList operations agree with std::set on random lists") {
  const uint64_t seed = 20240611;
  std::mt19937_64 rng(seed);
  // Sizes chosen so both the merge and the galloping paths run, including
  // very lopsided pairs and empty lists.
  const size_t sizes[] = {0, 1, 2, 5, 17, 100, 1000, 5000};
  for (int round = 0; round < 4; ++round) {
    for (size_t na : sizes) {
      for (size_t nb : sizes) {
        EntryId range = 1 + rng() % 20000;
        std::set<EntryId> a = RandomSet(rng, na, range);
        std::set<EntryId> b = RandomSet(rng, nb, range);
        std::set<EntryId> i, u, d;
        std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::inserter(i, i.end()));
        std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::inserter(u, u.end()));
        std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::inserter(d, d.end()));
        IdList la = FromSet(a), lb = FromSet(b);
        INFO("seed " << seed << " round " << round << " sizes " << na << "/" << nb);
        REQUIRE(IdList::Intersect(la, lb) == FromSet(i));
        REQUIRE(IdList::Intersect(lb, la) == FromSet(i));
        REQUIRE(IdList::Union(la, lb) == FromSet(u));
        REQUIRE(IdList::Union(lb, la) == FromSet(u));
        REQUIRE(IdList::Difference(la, lb) == FromSet(d));
      }
    }
  }
}

TEST_CASE("IdList IntersectAll and UnionAll") {
  const uint64_t seed = 77;
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 50; ++round) {
    INFO("seed " << seed << " round " << round);
    size_t k = 1 + rng() % 6;
    std::vector<IdList> lists;
    std::set<EntryId> all, common;
    for (size_t j = 0; j < k; ++j) {
      std::set<EntryId> s = RandomSet(rng, rng() % 3000, 5000);
      lists.push_back(FromSet(s));
      all.insert(s.begin(), s.end());
      if (j == 0) {
        common = s;
      } else {
        std::set<EntryId> c;
        std::set_intersection(common.begin(), common.end(), s.begin(), s.end(),
                              std::inserter(c, c.end()));
        common = c;
      }
    }
    std::vector<const IdList*> ptrs;
    for (const IdList& l : lists) ptrs.push_back(&l);
    REQUIRE(IdList::IntersectAll(ptrs) == FromSet(common));
    REQUIRE(IdList::UnionAll(ptrs) == FromSet(all));
  }
  CHECK(IdList::IntersectAll({}).empty());
  CHECK(IdList::UnionAll({}).empty());
}

TEST_CASE("IdList galloping finds IDs at the very ends") {
  std::vector<EntryId> big;
  for (EntryId i = 1; i <= 100000; ++i) big.push_back(i * 2);
  IdList large(big);
  CHECK(IdList::Intersect(large, IdList({2, 200000, 200002})) == IdList({2, 200000}));
  CHECK(IdList::Intersect(IdList({1, 3, 199999}), large).empty());
  IdList u = IdList::Union(large, IdList({1, 200001}));
  CHECK(u.size() == 100002);
  CHECK(u.front() == 1);
  CHECK(u.back() == 200001);
  CHECK(u.IsValid());
}

}  // namespace
}  // namespace dirload
