#include "lib/load/operational_attributes.h"

#include <doctest/doctest.h>

#include <regex>
#include <set>
#include <string>

namespace dirload {
namespace {

constexpr int64_t k20240102030405 = 1704164645;  // 2024-01-02 03:04:05 UTC

OperationalAttributes::Options Fixed(WallTime* now, int sid = 0) {
  OperationalAttributes::Options o;
  o.rootdn = "cn=admin,dc=example,dc=com";
  o.sid = sid;
  o.seed = 42;
  o.clock = [now] { return *now; };
  return o;
}

bool IsUuid(std::string_view v) {
  static const std::regex kUuid(
      "[0-9a-f]{8}-[0-9a-f]{4}-1[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
  return std::regex_match(std::string(v), kUuid);
}

TEST_CASE("the values have slapadd's formats, from one reading of the clock") {
  WallTime now{k20240102030405, 6};
  OperationalAttributes op(Fixed(&now, 5));
  op.Next();
  CHECK(op.timestamp() == "20240102030405Z");
  CHECK(op.entry_csn() == "20240102030405.000006Z#000000#005#000000");
  CHECK(op.rootdn() == "cn=admin,dc=example,dc=com");
  CAPTURE(op.entry_uuid());
  CHECK(IsUuid(op.entry_uuid()));
  // Version 1: the low 32 bits, the middle 16 bits and the high 12 bits of
  // the 100 ns count since 1582-10-15.
  CHECK(op.entry_uuid().substr(0, 18) == "968b80bc-a91b-11ee");
  CHECK(op.value(OperationalAttribute::kCreatorsName) == op.rootdn());
  CHECK(op.value(OperationalAttribute::kModifyTimestamp) == op.timestamp());
  CHECK(op.value(OperationalAttribute::kEntryCsn) == op.entry_csn());
  CHECK(op.value(OperationalAttribute::kEntryUuid) == op.entry_uuid());
  CHECK(op.value(OperationalAttribute::kStructuralObjectClass).empty());
}

TEST_CASE("the server ID is written as three hex digits") {
  WallTime now{k20240102030405, 0};
  OperationalAttributes op(Fixed(&now, 0xabc));
  op.Next();
  CHECK(op.entry_csn() == "20240102030405.000000Z#000000#abc#000000");
  OperationalAttributes zero(Fixed(&now, 0));
  zero.Next();
  CHECK(zero.entry_csn().substr(29) == "#000#000000");
}

TEST_CASE("entryCSN increases strictly when the microsecond repeats or the clock goes back") {
  WallTime now{k20240102030405, 999999};
  OperationalAttributes op(Fixed(&now));
  std::vector<std::string> csns;
  op.Next();
  csns.emplace_back(op.entry_csn());
  op.Next();  // same microsecond
  csns.emplace_back(op.entry_csn());
  op.Next();
  csns.emplace_back(op.entry_csn());
  now = {k20240102030405 - 60, 0};  // the clock steps back a minute
  op.Next();
  csns.emplace_back(op.entry_csn());
  now = {k20240102030405 + 1, 0};  // the next second
  op.Next();
  csns.emplace_back(op.entry_csn());
  CHECK(csns[0] == "20240102030405.999999Z#000000#000#000000");
  CHECK(csns[1] == "20240102030405.999999Z#000001#000#000000");
  CHECK(csns[2] == "20240102030405.999999Z#000002#000#000000");
  CHECK(csns[3] == "20240102030405.999999Z#000003#000#000000");
  CHECK(csns[4] == "20240102030406.000000Z#000000#000#000000");
  CHECK(op.timestamp() == "20240102030406Z");
  for (size_t i = 1; i < csns.size(); ++i) CHECK(csns[i - 1] < csns[i]);
}

TEST_CASE("entryUUIDs are distinct even when the clock stands still") {
  WallTime now{k20240102030405, 0};
  OperationalAttributes op(Fixed(&now));
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    op.Next();
    CHECK(IsUuid(op.entry_uuid()));
    seen.emplace(op.entry_uuid());
  }
  CHECK(seen.size() == 1000);
}

TEST_CASE("the clock sequence and node come from the seed, or differ between runs") {
  WallTime now{k20240102030405, 0};
  OperationalAttributes a(Fixed(&now)), b(Fixed(&now));
  a.Next();
  b.Next();
  CHECK(a.entry_uuid() == b.entry_uuid());  // same seed, same clock
  // The node has the multicast bit set: it is no MAC address.
  std::string node(a.entry_uuid().substr(24, 2));
  CHECK((std::stoi(node, nullptr, 16) & 1) == 1);

  auto unseeded = Fixed(&now);
  unseeded.seed = 0;
  OperationalAttributes c(unseeded), d(unseeded);
  c.Next();
  d.Next();
  // 62 random bits: equal only by a (2^-62) accident.
  CHECK(c.entry_uuid().substr(19) != d.entry_uuid().substr(19));
}

TEST_CASE("the system clock gives today's date") {
  OperationalAttributes::Options o;
  OperationalAttributes op(o);
  op.Next();
  std::time_t t = std::time(nullptr);
  std::tm g{};
  gmtime_r(&t, &g);
  char year[16];
  std::snprintf(year, sizeof year, "%04d", g.tm_year + 1900);
  CHECK(op.timestamp().substr(0, 4) == year);
  CHECK(std::regex_match(std::string(op.entry_csn()),
                         std::regex("[0-9]{14}\\.[0-9]{6}Z#000000#000#000000")));
}

TEST_CASE("name-based entryUUIDs come from the DN, the same in every run") {
  WallTime now{k20240102030405, 0};
  OperationalAttributes a(Fixed(&now)), b(Fixed(&now));
  a.SetUuidNameSpace(kX500NameSpace);
  b.SetUuidNameSpace(kX500NameSpace);
  a.Next("dc=example,dc=com");
  // uuid.uuid5(uuid.NAMESPACE_X500, "dc=example,dc=com") in Python.
  CHECK(a.entry_uuid() == "86845e9f-6224-5313-acb4-60c6bee4017f");
  now.micros = 500;  // another time, the same name
  b.Next("dc=example,dc=com");
  CHECK(b.entry_uuid() == a.entry_uuid());
  a.Next("uid=a,ou=people,dc=example,dc=com");
  CHECK(a.entry_uuid() == "162d3dd4-683a-536e-99bf-15990e579b11");
  CHECK(a.value(OperationalAttribute::kEntryUuid) == a.entry_uuid());

  OperationalAttributes other(Fixed(&now));
  other.SetUuidNameSpace(*ParseUuid("6ba7b810-9dad-11d1-80b4-00c04fd430c8"));
  other.Next("uid=a,ou=people,dc=example,dc=com");
  CHECK(other.entry_uuid() != a.entry_uuid());
  CHECK(other.entry_uuid()[14] == '5');  // version 5
}

TEST_CASE("a clock that stands still: one time, the CSN counters counting up") {
  WallTime fixed{k20240102030405, 0};
  OperationalAttributes op(Fixed(&fixed, 1));
  std::vector<std::string> csns;
  for (int i = 0; i < 3; ++i) {
    op.Next();
    csns.emplace_back(op.entry_csn());
    CHECK(op.timestamp() == "20240102030405Z");
  }
  CHECK(csns == std::vector<std::string>{"20240102030405.000000Z#000000#001#000000",
                                         "20240102030405.000000Z#000001#001#000000",
                                         "20240102030405.000000Z#000002#001#000000"});
}

TEST_CASE("past counter ffffff the CSN moves on a microsecond, still increasing") {
  WallTime fixed{k20240102030405, 999999};
  OperationalAttributes op(Fixed(&fixed));
  std::string last;
  for (uint32_t i = 0; i <= 0xffffff; ++i) op.Next();
  last = std::string(op.entry_csn());
  CHECK(last == "20240102030405.999999Z#ffffff#000#000000");
  op.Next();
  CHECK(op.entry_csn() == "20240102030406.000000Z#000000#000#000000");
  CHECK(std::string(op.entry_csn()) > last);
  CHECK(op.timestamp() == "20240102030406Z");
  op.Next();
  CHECK(op.entry_csn() == "20240102030406.000000Z#000001#000#000000");
}

TEST_CASE("csn-time: GeneralizedTime to the microsecond") {
  Result<WallTime> t = ParseCsnTime("20260101000000Z");
  REQUIRE(t.ok());
  CHECK(t->seconds == 1767225600);  // date -u -d 2026-01-01 +%s
  CHECK(t->micros == 0);
  t = ParseCsnTime("20240102030405.25Z");
  REQUIRE(t.ok());
  CHECK(t->seconds == k20240102030405);
  CHECK(t->micros == 250000);
  t = ParseCsnTime("20240102040405+0100");  // an offset, applied
  REQUIRE(t.ok());
  CHECK(t->seconds == k20240102030405);
  t = ParseCsnTime("19700101000000Z");
  REQUIRE(t.ok());
  CHECK(t->seconds == 0);
  for (const char* bad : {"", "2026", "tomorrow", "20261301000000Z", "19691231235959Z",
                          "20240102030405.1234567Z", "20161231235960Z"}) {
    CAPTURE(bad);
    Result<WallTime> r = ParseCsnTime(bad);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().message().find(std::string("'") + bad + "'") == 0);
  }
}

TEST_CASE("CsnTracker keeps the greatest CSN per server ID") {
  CsnTracker t;
  CHECK(t.empty());
  t.Add("20240102030405.000001Z#000000#005#000000");
  t.Add("20240102030405.000009Z#000000#005#000000");
  t.Add("20240102030405.000003Z#000000#005#000000");
  t.Add("20200101000000.000000Z#000000#001#000000");
  t.Add("not a csn");
  REQUIRE(t.values().size() == 2);
  CHECK(t.values().at(1) == "20200101000000.000000Z#000000#001#000000");
  CHECK(t.values().at(5) == "20240102030405.000009Z#000000#005#000000");
  CHECK(CsnTracker::Sid("20240102030405.000009Z#000000#00a#000000") == 10);
  CHECK(CsnTracker::Sid("20240102030405Z") == -1);
}

}  // namespace
}  // namespace dirload
