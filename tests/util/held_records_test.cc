#include "lib/util/held_records.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>

namespace dirload {
namespace {

using namespace std::string_literals;

TEST_CASE("held records are found by key and come out in key order") {
  HeldRecords buffer(size_t{16} << 20);
  std::map<std::string, std::string> expected;
  std::mt19937_64 random(42);
  // Enough to grow the hash slots several times and to sort in two halves;
  // keys share long prefixes as DN sort keys do, and one is a prefix of
  // another.
  for (int i = 0; i < 80000; ++i) {
    std::string key = "dc=com\0dc=example\0ou="s + std::to_string(random() % 50) + "\0uid="s +
                      std::to_string(random());
    if (expected.contains(key)) continue;
    std::string value(8, static_cast<char>(i));
    buffer.Add(key, value);
    expected.emplace(key, value);
  }
  // Keys that end where others go on with zero bytes, or with more of the
  // same, at every length around the seven bytes compared at a time.
  for (size_t n = 0; n < 24; ++n) {
    for (const std::string& tail : {std::string(n, '\0'), std::string(n, 'z')}) {
      std::string key = "dc=com\0dc=example\0ou=7\0uid=1"s + tail;
      if (expected.contains(key)) continue;
      buffer.Add(key, "tail");
      expected.emplace(key, "tail");
    }
  }
  buffer.Add("dc=com", "top");
  expected.emplace("dc=com", "top");
  CHECK(buffer.size() == expected.size());
  for (const auto& [key, value] : expected) {
    std::optional<std::string_view> found = buffer.Find(key);
    REQUIRE(found.has_value());
    CHECK(*found == value);
  }
  CHECK_FALSE(buffer.Find("dc=co").has_value());
  CHECK_FALSE(buffer.Find("dc=com\0dc=example"s).has_value());
  std::vector<uint32_t> sorted = buffer.Sorted();
  REQUIRE(sorted.size() == expected.size());
  auto it = expected.begin();
  for (uint32_t handle : sorted) {
    auto [key, value] = buffer.Record(handle);
    CHECK(key == it->first);
    CHECK(value == it->second);
    ++it;
  }
}

TEST_CASE("ForEachSorted walks the records in key order and stops at an error") {
  HeldRecords buffer(size_t{1} << 20);
  std::map<std::string, std::string> expected;
  for (int i = 0; i < 3000; ++i) {
    std::string key = std::to_string(i * 7919 % 3001);
    key.insert(0, 1, 'k');
    buffer.Add(key, std::to_string(i));
    expected.emplace(key, std::to_string(i));
  }
  auto it = expected.begin();
  Status st = buffer.ForEachSorted([&](std::string_view key, std::string_view value) {
    CHECK(key == it->first);
    CHECK(value == it->second);
    ++it;
    return Status::Ok();
  });
  CHECK(st.ok());
  CHECK(it == expected.end());
  size_t seen = 0;
  st = buffer.ForEachSorted([&](std::string_view, std::string_view) {
    return ++seen == 10 ? Status::IoError("disk full") : Status::Ok();
  });
  CHECK(st.code() == StatusCode::kIoError);
  CHECK(seen == 10);
}

TEST_CASE("the buffer is full at its budget, and empty again after Clear") {
  HeldRecords none(0);
  CHECK(none.full());
  HeldRecords small(64 << 10);
  int added = 0;
  while (!small.full()) {
    small.Add("key" + std::to_string(added), "12345678");
    ++added;
  }
  CHECK(added > 100);
  CHECK(small.bytes() >= size_t{64} << 10);
  // Over by the record that crossed it, or by a doubling of the hash slots.
  CHECK(small.bytes() < size_t{128} << 10);
  CHECK(small.Find("key7").has_value());
  small.Clear();
  CHECK(small.empty());
  CHECK_FALSE(small.full());
  CHECK_FALSE(small.Find("key7").has_value());
  CHECK(small.Sorted().empty());
}

}  // namespace
}  // namespace dirload
