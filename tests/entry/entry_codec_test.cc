#include "lib/entry/entry_codec.h"

#include <doctest/doctest.h>

#include <random>

#include "lib/util/coding.h"

namespace dirload {
namespace {

TEST_CASE("entries round trip with runs kept in input order") {
  AttributeDictionary dict;
  uint32_t cn = dict.Intern("cn"), sn = dict.Intern("sn"), oc = dict.Intern("objectClass");
  CHECK(dict.Intern("cn") == cn);
  CHECK(dict.Intern("CN") != cn);  // kept as written
  std::string binary("\x00\xff\x80", 3);
  std::vector<ValueRef> values = {{oc, "top"}, {oc, "person"}, {cn, "a"}, {sn, ""}, {cn, binary}};
  std::string bytes;
  EncodeEntry("cn=a,dc=x", values, &bytes);
  CHECK(static_cast<uint8_t>(bytes[0]) == kEntryFormatVersion);
  EntryView e;
  REQUIRE(DecodeEntry(bytes, &e).ok());
  CHECK(e.dn == "cn=a,dc=x");
  REQUIRE(e.values.size() == values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    CHECK(e.values[i].description == values[i].description);
    CHECK(e.values[i].value == values[i].value);
  }
}

TEST_CASE("the encoding is exactly as the header specifies") {
  std::string bytes;
  EncodeEntry("dc=x", {{0, "ab"}, {0, "c"}, {1, ""}}, &bytes);
  CHECK(bytes == std::string("\x01\x04"
                             "dc=x"
                             "\x02"
                             "\x00\x02\x02"
                             "ab"
                             "\x01"
                             "c"
                             "\x01\x01\x00",
                             17));
}

TEST_CASE("values are encoded as runs of varints, long ones as PutVarint writes them") {
  // 200 runs (a two-byte count), descriptions past 127 and 16,383, values
  // of 0, 1 and 300 bytes, appended after what the output already holds.
  std::vector<std::string> storage;
  std::vector<ValueRef> values;
  storage.reserve(600);
  for (uint32_t r = 0; r < 200; ++r) {
    const uint32_t description = r * 97;
    for (size_t len : {size_t{0}, size_t{1}, size_t{300}}) {
      storage.push_back(std::string(len, static_cast<char>('a' + r % 26)));
      values.push_back({description, storage.back()});
    }
  }
  std::string want = "prefix";
  PutVarint(200, &want);
  for (size_t i = 0; i < values.size(); i += 3) {
    PutVarint(values[i].description, &want);
    PutVarint(3, &want);
    for (size_t k = i; k < i + 3; ++k) {
      PutVarint(values[k].value.size(), &want);
      want.append(values[k].value);
    }
  }
  std::string got = "prefix";
  EncodeValues(values, &got);
  CHECK(got == want);
  std::string empty = "x";
  EncodeValues({}, &empty);
  CHECK(empty == std::string("x\x00", 2));
}

TEST_CASE("an entry encoded from two lists of values equals the entry of both lists") {
  // 130 runs in the first list: its run count takes two varint bytes.
  // (ValueRef holds views: the strings live here.)
  std::vector<std::string> texts;
  for (int d = 0; d < 130; ++d) texts.push_back("v" + std::to_string(d));
  const std::string long_value(200, 'x');
  std::vector<ValueRef> own, more;
  for (uint32_t d = 0; d < 130; ++d) own.push_back({d, texts[d]});
  own.push_back({129, long_value});
  more.push_back({500, "20261205000000Z"});
  more.push_back({501, "a"});
  more.push_back({501, "b"});
  std::vector<ValueRef> both = own;
  both.insert(both.end(), more.begin(), more.end());
  std::string want;
  EncodeEntry("cn=a,dc=x", both, &want);

  std::string own_runs, more_runs;
  EncodeValues(own, &own_runs);
  EncodeValues(more, &more_runs);
  std::string got = "kept";
  REQUIRE(EncodeEntryFromValues("cn=a,dc=x", own_runs, more_runs, &got));
  CHECK(got == "kept" + want);
  EntryView view;
  REQUIRE(DecodeEntry(std::string_view(got).substr(4), &view).ok());
  CHECK(view.values.size() == both.size());

  // An empty second list adds nothing; a list with no run count is refused
  // and nothing is written.
  std::string none_runs, alone;
  EncodeValues({}, &none_runs);
  REQUIRE(EncodeEntryFromValues("cn=a,dc=x", own_runs, none_runs, &alone));
  std::string own_only;
  EncodeEntry("cn=a,dc=x", own, &own_only);
  CHECK(alone == own_only);
  std::string untouched = "u";
  CHECK_FALSE(EncodeEntryFromValues("cn=a,dc=x", own_runs, "", &untouched));
  CHECK(untouched == "u");
}

TEST_CASE("truncated or damaged encodings are corruption, never a partial entry") {
  std::string bytes;
  EncodeEntry("cn=a,dc=x", {{0, "top"}, {1, std::string(300, 'v')}}, &bytes);
  EntryView e;
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    CAPTURE(cut);
    Status s = DecodeEntry(std::string_view(bytes).substr(0, cut), &e);
    CHECK(s.code() == StatusCode::kCorruption);
  }
  CHECK(DecodeEntry(bytes + "x", &e).code() == StatusCode::kCorruption);
  std::string v2 = bytes;
  v2[0] = 2;
  CHECK(DecodeEntry(v2, &e).code() == StatusCode::kCorruption);
}

TEST_CASE("the attribute dictionary saves incrementally and reloads in id order") {
  AttributeDictionary a;
  a.Intern("objectClass");
  a.Intern("cn;lang-en");
  std::string first = a.Serialize();
  a.Intern("sn");
  std::string more = a.Serialize(2);
  AttributeDictionary b;
  REQUIRE(b.Load(first).ok());
  REQUIRE(b.Load(more).ok());
  REQUIRE(b.size() == 3);
  CHECK(b.Name(1) == "cn;lang-en");
  CHECK(b.Intern("sn") == 2);
  CHECK(b.Load(std::string("\x05"
                           "ab",
                           3))
            .code() == StatusCode::kCorruption);
}

TEST_CASE("random entries round trip") {
  std::mt19937_64 rng(42);
  for (int iter = 0; iter < 500; ++iter) {
    std::vector<std::string> storage;
    std::vector<ValueRef> values;
    size_t n = rng() % 20;
    storage.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      std::string v(rng() % 200, '\0');
      for (char& c : v) c = static_cast<char>(rng());
      storage.push_back(std::move(v));
      values.push_back({static_cast<uint32_t>(rng() % 4 + (rng() % 2) * 100000), storage.back()});
    }
    std::string bytes;
    EncodeEntry("uid=" + std::to_string(iter), values, &bytes);
    EntryView e;
    REQUIRE(DecodeEntry(bytes, &e).ok());
    REQUIRE(e.values.size() == n);
    for (size_t i = 0; i < n; ++i) {
      CHECK(e.values[i].description == values[i].description);
      CHECK(e.values[i].value == values[i].value);
    }
  }
}

}  // namespace
}  // namespace dirload
