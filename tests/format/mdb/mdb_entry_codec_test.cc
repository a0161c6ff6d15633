#include "lib/format/mdb/mdb_entry_codec.h"

#include <doctest/doctest.h>

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lib/util/ascii.h"
#include "tests/support/hex.h"

namespace dirload::mdb {
namespace {

using testing::Hex;

TEST_CASE("mdb entry: byte layout of a small entry") {
  MdbEntry e;
  e.ocflags = kMdbOcFlagsSet;
  MdbAttribute oc;
  oc.adx = 1;
  oc.values = {"top", "dcObject"};
  MdbAttribute dc;
  dc.adx = 2;
  dc.values = {"Ex"};
  dc.normalized = std::vector<std::string>{"ex"};
  e.attributes = {oc, dc};
  auto bytes = EncodeMdbEntry(e);
  REQUIRE(bytes.ok());
  // header: nattrs 2, nvals (2+1)+(1+1)*2=7, ocflags 0x100, offset 4+4=8 words
  // table: 1, 2, 3, 8, 2, 0x80000001, 2, 2
  // data: "top\0dcObject\0Ex\0ex\0" = 19 bytes; 16+32+19 = 67 -> 72
  CHECK(HexEncode(*bytes) ==
        "02000000070000000001000008000000"
        "0100000002000000030000000800000002000000010000800200000002000000"
        "746f7000"
        "64634f626a65637400"
        "457800"
        "657800"
        "0000000000");
  CHECK(bytes->size() == MdbEncodedEntrySize(e));
  auto back = DecodeMdbEntry(*bytes);
  REQUIRE(back.ok());
  CHECK(*back == e);
}

TEST_CASE("mdb entry: flags, empty values, multival and the empty entry round trip") {
  MdbEntry e;
  e.ocflags = kMdbOcTop | kMdbOcFlagsSet | kMdbOcAlias;
  MdbAttribute a;
  a.adx = 0x3fffffff;
  a.sorted = true;
  a.values = {"", std::string("a\0b", 3)};
  a.normalized = std::vector<std::string>{"", "x"};
  MdbAttribute m;
  m.adx = 7;
  m.multival = true;
  m.multival_count = 500;
  m.normalized.emplace();
  e.attributes = {a, m};
  auto bytes = EncodeMdbEntry(e);
  REQUIRE(bytes.ok());
  CHECK(bytes->size() % 8 == 0);
  auto back = DecodeMdbEntry(*bytes);
  REQUIRE(back.ok());
  CHECK(*back == e);

  MdbEntry empty;
  auto eb = EncodeMdbEntry(empty);
  REQUIRE(eb.ok());
  CHECK(HexEncode(*eb) == "00000000000000000000000000000000");
  CHECK(DecodeMdbEntry(*eb)->attributes.empty());
}

TEST_CASE("mdb entry: encoder refuses what slapd cannot store") {
  MdbEntry e;
  e.attributes.resize(1);
  e.attributes[0].adx = 0;
  CHECK(EncodeMdbEntry(e).status().code() == StatusCode::kInvalidArgument);
  e.attributes[0].adx = 0x40000000;
  CHECK(EncodeMdbEntry(e).status().code() == StatusCode::kInvalidArgument);
  e.attributes[0].adx = 3;
  e.attributes[0].values = {"a", "b"};
  e.attributes[0].normalized = std::vector<std::string>{"a"};
  CHECK(EncodeMdbEntry(e).status().code() == StatusCode::kInvalidArgument);
}

TEST_CASE("mdb entry: decoder rejects damaged records, accepts any padding") {
  MdbEntry e;
  MdbAttribute a;
  a.adx = 4;
  a.values = {"hello"};
  a.normalized = std::vector<std::string>{"hello"};
  e.attributes = {a};
  std::string good = *EncodeMdbEntry(e);
  std::string padded = good;
  padded.back() = 'Z';  // slapd does not clear the padding
  CHECK(DecodeMdbEntry(padded).ok());

  CHECK(!DecodeMdbEntry(good.substr(0, 15)).ok());
  CHECK(!DecodeMdbEntry(good.substr(0, 30)).ok());
  for (size_t i = 0; i < 16; i += 4) {  // every header word matters
    std::string bad = good;
    bad[i] = static_cast<char>(bad[i] + 1);
    if (i == 8) {
      CHECK(DecodeMdbEntry(bad).ok());  // ocflags are opaque
    } else {
      CHECK_MESSAGE(!DecodeMdbEntry(bad).ok(), "header word " << i / 4);
    }
  }
  std::string missing_nul = good;
  missing_nul[16 + 4 * 4 + 5] = 'x';  // the NUL after "hello"
  CHECK(DecodeMdbEntry(missing_nul).status().code() == StatusCode::kCorruption);
  std::string long_len = good;
  long_len[16 + 8] = 100;  // len(v1)
  CHECK(!DecodeMdbEntry(long_len).ok());
  CHECK(!DecodeMdbEntry(good + std::string(8, '\0')).ok());
}

TEST_CASE("mdb entry: a decode of some attributes leaves the others out, not their checks") {
  MdbEntry e;
  MdbAttribute oc;
  oc.adx = 1;
  oc.values = {"top", "person"};
  MdbAttribute cn;
  cn.adx = 2;
  cn.values = {"Ann", "Anna"};
  cn.normalized = std::vector<std::string>{"ann", "anna"};
  MdbAttribute member;
  member.adx = 3;
  member.multival = true;
  member.multival_count = 40;
  MdbAttribute sn;
  sn.adx = 4;
  sn.values = {"Lee"};
  sn.normalized = std::vector<std::string>{"lee"};
  MdbAttribute extra;
  extra.adx = 9;
  extra.values = {"x"};
  e.attributes = {oc, cn, member, sn, extra};
  const std::string bytes = *EncodeMdbEntry(e);

  // Numbers 2 and 5 wanted; 6 and above lie past the mask, so 9 is too.
  const std::vector<uint8_t> wanted = {0, 0, 1, 0, 0, 1};
  MdbEntryView some;
  REQUIRE(DecodeMdbEntryView(bytes, &some, MdbEntryChecks::kBounds, wanted).ok());
  MdbEntryView all;
  REQUIRE(DecodeMdbEntryView(bytes, &all, MdbEntryChecks::kBounds).ok());
  CHECK(all.attributes.size() == 5);
  // The multival member (3) is left out too: nothing would read id2v for it.
  REQUIRE(some.attributes.size() == 2);
  CHECK(some.attributes[0].adx == 2);
  CHECK(some.attributes[1].adx == 9);
  auto strings = [](std::span<const std::string_view> s) {
    return std::vector<std::string_view>(s.begin(), s.end());
  };
  CHECK(strings(some.Values(some.attributes[0])) == std::vector<std::string_view>{"Ann", "Anna"});
  CHECK(strings(some.Normalized(some.attributes[0])) ==
        std::vector<std::string_view>{"ann", "anna"});
  CHECK(strings(some.Values(some.attributes[1])) == std::vector<std::string_view>{"x"});
  CHECK(some.values.size() == 4 + 1);

  // A value left out that runs past the record is still refused.
  std::string long_len = bytes;
  long_len[16 + 8] = 100;  // len("top")
  MdbEntryView bad;
  CHECK(DecodeMdbEntryView(long_len, &bad, MdbEntryChecks::kBounds, wanted).code() ==
        StatusCode::kCorruption);
  // As is a header whose counts the attributes left out contradict.
  std::string short_count = bytes;
  short_count[16 + 4] = 1;  // objectClass: 1 value of 2
  CHECK(!DecodeMdbEntryView(short_count, &bad, MdbEntryChecks::kBounds, wanted).ok());
}

}  // namespace
}  // namespace dirload::mdb
