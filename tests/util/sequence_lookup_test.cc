#include "lib/util/sequence_lookup.h"

#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "lib/util/string_map.h"

namespace dirload {
namespace {

struct Record {
  std::string written;
  SequenceLookup<Record>::Link next;
};

// Looks each description of each entry up through a SequenceLookup and
// directly, counting the lookups the sequence needed.
struct Lookups {
  StringMap<Record> map;
  SequenceLookup<Record> sequence;
  int hashed = 0;

  Record* Direct(std::string_view d) {
    Record* r = map.Find(d);
    if (r == nullptr) r = map.Insert(d, Record{std::string(d)}).first;
    return r;
  }
  // Every description must come back as the map's own record.
  bool Entry(const std::vector<std::string>& descriptions) {
    sequence.Start();
    for (const std::string& d : descriptions) {
      Record* got = sequence.Next(d, [this](std::string_view k) {
        ++hashed;
        return Direct(k);
      });
      if (got != Direct(d)) return false;
    }
    return true;
  }
};

TEST_CASE("SequenceLookup finds what the map holds, hashing only what breaks the order") {
  Lookups l;
  const std::vector<std::string> person = {"objectClass", "objectClass", "cn", "sn", "mail"};
  CHECK(l.Entry(person));
  CHECK(l.hashed == 4);  // the repeated objectClass is its predecessor
  l.hashed = 0;
  CHECK(l.Entry(person));
  CHECK(l.hashed == 0);
  // A value more (mail twice) and one less (no sn): each break is one lookup,
  // and the order learnt follows the last entry.
  CHECK(l.Entry({"objectClass", "objectClass", "cn", "mail", "mail"}));
  CHECK(l.hashed == 1);
  l.hashed = 0;
  CHECK(l.Entry({"objectClass", "objectClass", "cn", "mail"}));
  CHECK(l.hashed == 0);
  // Spellings that differ in case or by an option are other descriptions.
  CHECK(l.Entry({"objectclass", "CN", "cn;lang-de", "cn"}));
  CHECK(l.hashed == 4);
}

TEST_CASE("SequenceLookup gives the right record for random entries") {
  std::mt19937 rng(7);
  const std::vector<std::string> names = {
      "a", "b", "ab", "cn", "sn", "mail", "mail;x-1", "abcdefgh", "abcdefghi", "abcdefghijklmnopq"};
  Lookups l;
  for (int e = 0; e < 2000; ++e) {
    std::vector<std::string> entry;
    const size_t n = rng() % 8;
    for (size_t i = 0; i < n; ++i) entry.push_back(names[rng() % names.size()]);
    REQUIRE(l.Entry(entry));
  }
}

TEST_CASE("A copied SequenceLookup and copied records point only at the copy") {
  // Each checking thread copies the loader's checker, maps and lookup with
  // it: a link left pointing into the original would hand one thread the
  // other's records, and write into them.
  Lookups original;
  const std::vector<std::string> entry = {"objectClass", "cn", "sn", "mail"};
  REQUIRE(original.Entry(entry));
  REQUIRE(original.Entry(entry));
  Lookups copy = original;
  copy.hashed = 0;
  CHECK(copy.Entry(entry));  // every record returned is the copy's own
  CHECK(copy.hashed == 4);   // the copy starts without links
  copy.hashed = 0;
  CHECK(copy.Entry(entry));
  CHECK(copy.hashed == 0);
  original.hashed = 0;
  CHECK(original.Entry(entry));
  CHECK(original.hashed == 0);  // the original's links are its own still
}

TEST_CASE("SameBytes compares every length up to and past 16 bytes") {
  for (size_t n = 0; n <= 20; ++n) {
    const std::string a(n, 'x');
    CHECK(SameBytes(a, a));
    CHECK(SameBytes(a, std::string(n, 'x')));
    CHECK_FALSE(SameBytes(a, std::string(n + 1, 'x')));
    for (size_t i = 0; i < n; ++i) {
      std::string b = a;
      b[i] = 'y';
      INFO("length ", n, ", byte ", i);
      CHECK_FALSE(SameBytes(a, b));
    }
  }
}

}  // namespace
}  // namespace dirload
