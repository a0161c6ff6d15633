#include "lib/format/mdb/mdb_index_compare.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "lib/format/mdb/mdb_index_keys.h"
#include "tests/support/temp_dir.h"

namespace dirload::mdb {
namespace {

using dirload::testing::TempDir;

// One index database "cn" holding `stored` (key -> duplicates as written,
// so {0, lo, hi} is slapd's range form), compared with `expected` (key ->
// the IDs the entries give), where the entries with the IDs `exists` are
// there.
ListComparison CompareOne(
    const std::vector<std::pair<std::string, std::vector<uint64_t>>>& stored,
    const std::vector<std::pair<std::string, std::vector<uint64_t>>>& expected,
    const std::vector<uint64_t>& exists) {
  TempDir dir;
  MdbEnvOptions o;
  o.map_size = 8 << 20;
  o.index_names = {"cn"};
  auto env = MdbEnv::Open(dir.path().string(), o);
  REQUIRE_MESSAGE(env.ok(), env.status().ToString());
  auto db = (*env)->Index("cn");
  REQUIRE(db.ok());
  {
    auto txn = (*env)->Begin(true);
    REQUIRE(txn.ok());
    for (const auto& [key, dups] : stored) {
      for (uint64_t d : dups) REQUIRE(txn->Put(*db, key, MdbIdBytes(d)).ok());
    }
    REQUIRE(txn->Commit().ok());
  }
  std::vector<bool> present;
  for (uint64_t id : exists) {
    if (present.size() <= id) present.resize(id + 1, false);
    present[id] = true;
  }
  MdbIndexComparer comparer(**env, {*db}, &present, 10);
  for (const auto& [key, ids] : expected) REQUIRE(comparer.Add(0, key, ids).ok());
  REQUIRE(comparer.EndGroup().ok());
  REQUIRE(comparer.Finish().ok());
  return comparer.results()[0].tally;
}

std::vector<uint64_t> Ids(uint64_t from, uint64_t to) {
  std::vector<uint64_t> v;
  for (uint64_t i = from; i <= to; ++i) v.push_back(i);
  return v;
}

TEST_CASE("index comparison: exact lists, keys on one side only") {
  ListComparison c = CompareOne({{"a", {1, 2}}, {"c", {3}}, {"d", {5}}},
                                {{"a", {1, 2, 4}}, {"b", {2}}, {"c", {3}}}, Ids(1, 5));
  CHECK(c.keys == 4);
  CHECK(c.ids == 5);
  CHECK(c.missing == 2);  // (a, 4), (b, 2)
  CHECK(c.extra == 1);    // (d, 5)
  REQUIRE(c.first_missing.size() == 2);
  CHECK(c.first_missing[0].key == "a");
  CHECK(c.first_missing[0].id == 4);
  CHECK(c.first_missing[1].key == "b");
  REQUIRE(c.first_extra.size() == 1);
  CHECK(c.first_extra[0].key == "d");
  CHECK(c.first_extra[0].id == 5);
}

TEST_CASE("index comparison: slapd's range form is read as slapd reads it") {
  // The entries 10..20 exist; 12 and 15 do not hold the value.
  const std::vector<uint64_t> holders = {10, 11, 13, 14, 16, 17, 18, 19, 20};
  SUBCASE("a range of exactly [least, greatest] is complete and clean") {
    ListComparison c = CompareOne({{"k", {0, 10, 20}}}, {{"k", holders}}, Ids(1, 30));
    CHECK(c.ranges == 1);
    CHECK(c.missing == 0);
    CHECK(c.extra == 0);
    CHECK(c.ids == holders.size());
  }
  SUBCASE("a range wider than that lists the entries outside as extra") {
    // 8 and 9 exist and do not hold the value; 21 and 22 do not exist.
    std::vector<uint64_t> exists = Ids(8, 20);
    ListComparison c = CompareOne({{"k", {0, 8, 22}}}, {{"k", holders}}, exists);
    CHECK(c.missing == 0);
    CHECK(c.extra == 2);
    REQUIRE(c.first_extra.size() == 2);
    CHECK(c.first_extra[0].id == 8);
    CHECK(c.first_extra[1].id == 9);
  }
  SUBCASE("IDs the range does not reach are missing") {
    ListComparison c = CompareOne({{"k", {0, 11, 19}}}, {{"k", holders}}, Ids(1, 30));
    CHECK(c.missing == 2);
    CHECK(c.first_missing[0].id == 10);
    CHECK(c.first_missing[1].id == 20);
    CHECK(c.extra == 0);
  }
  SUBCASE("a range no entry's value gives lists every entry in it as extra") {
    ListComparison c = CompareOne({{"k", {0, 3, 6}}}, {}, Ids(1, 5));
    CHECK(c.extra == 3);  // 3, 4, 5; 6 does not exist
    CHECK(c.missing == 0);
  }
  SUBCASE("a first duplicate 0 not in the range form is an extra ID 0") {
    ListComparison c = CompareOne({{"k", {0, 10}}}, {{"k", {10}}}, Ids(1, 30));
    CHECK(c.ranges == 0);
    CHECK(c.extra == 1);
    CHECK(c.first_extra[0].id == 0);
  }
}

}  // namespace
}  // namespace dirload::mdb
