// sortvals and multival on back-mdb's format: slapd's value orders, id2v's
// key and value layout, the id2e record of a sorted or multival attribute,
// and a load read back with its values from id2v.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "lib/format/mdb/mdb_entry_codec.h"
#include "lib/format/mdb/mdb_entry_encoder.h"
#include "lib/format/mdb/mdb_id2v.h"
#include "lib/format/mdb/mdb_reader.h"
#include "lib/format/mdb/mdb_value_order.h"
#include "lib/format/mdb/mdb_writer.h"
#include "lib/schema/schema.h"
#include "lib/util/ascii.h"
#include "tests/support/temp_dir.h"

namespace dirload::mdb {
namespace {

using testing::TempDir;

MdbValue V(std::string_view description, std::string_view value) {
  return MdbValue{description, value, false, {}, false};
}

const AttributeType& Type(const Schema& schema, std::string_view name) {
  const AttributeType* t = schema.FindAttribute(name);
  REQUIRE(t != nullptr);
  return *t;
}

TEST_CASE("value orders: slapd's match functions as orders") {
  // octetStringMatch and dnMatch: shorter first, then bytes.
  CHECK(MdbCompareValues(MdbValueOrder::kOctet, "zz", "aaa") < 0);
  CHECK(MdbCompareValues(MdbValueOrder::kOctet, "ab", "aa") > 0);
  CHECK(MdbCompareValues(MdbValueOrder::kOctet, "ab", "ab") == 0);
  // uniqueMemberMatch: a UID first, compared by itself, then the DN.
  CHECK(MdbCompareValues(MdbValueOrder::kUniqueMember, "cn=b#'1'B", "cn=a") < 0);
  CHECK(MdbCompareValues(MdbValueOrder::kUniqueMember, "cn=a", "cn=b#'1'B") > 0);
  CHECK(MdbCompareValues(MdbValueOrder::kUniqueMember, "cn=zz#'0'B", "cn=a#'01'B") < 0);
  CHECK(MdbCompareValues(MdbValueOrder::kUniqueMember, "cn=b", "cn=ab") < 0);
  // A '#' not followed by a bit string belongs to the DN.
  CHECK(MdbCompareValues(MdbValueOrder::kUniqueMember, "cn=a#x", "cn=b") > 0);
  // integerMatch: sign, then magnitude; negatives reversed.
  CHECK(MdbCompareValues(MdbValueOrder::kInteger, "-5", "3") < 0);
  CHECK(MdbCompareValues(MdbValueOrder::kInteger, "10", "9") > 0);
  CHECK(MdbCompareValues(MdbValueOrder::kInteger, "-10", "-9") < 0);
  // booleanMatch: the longer first.
  CHECK(MdbCompareValues(MdbValueOrder::kBoolean, "FALSE", "TRUE") < 0);

  Result<Schema> schema = Schema::Builtin();
  REQUIRE(schema.ok());
  CHECK(*MdbValueOrderFor(Type(*schema, "member")) == MdbValueOrder::kOctet);
  CHECK(*MdbValueOrderFor(Type(*schema, "cn")) == MdbValueOrder::kOctet);
  CHECK(*MdbValueOrderFor(Type(*schema, "objectClass")) == MdbValueOrder::kOctet);
  CHECK(*MdbValueOrderFor(Type(*schema, "uniqueMember")) == MdbValueOrder::kUniqueMember);
}

TEST_CASE("id2v: key and value bytes as back-mdb's mdb_mval_put writes them") {
  CHECK(HexEncode(MdbId2vKey(0x0102, 0x0304)) == "02010000000000000403");
  std::string with, without;
  const std::string_view norm = "cn=a";
  AppendMdbId2vValue("CN=A", &norm, &with);
  CHECK(HexEncode(with) == HexEncode(std::string("cn=a\0CN=A\0\x04\x00", 12)));
  AppendMdbId2vValue("top", nullptr, &without);
  CHECK(HexEncode(without) == HexEncode(std::string("top\0\0\0", 6)));
  CHECK(MdbId2vOrderedPart(with) == "cn=a");
  CHECK(MdbId2vOrderedPart(without) == "top");
  std::string_view v, n;
  REQUIRE(DecodeMdbId2vValue(with, true, &v, &n).ok());
  CHECK(v == "CN=A");
  CHECK(n == "cn=a");
  REQUIRE(DecodeMdbId2vValue(without, false, &v, &n).ok());
  CHECK(v == "top");
  CHECK(DecodeMdbId2vValue(with, false, &v, &n).code() == StatusCode::kCorruption);
  CHECK(DecodeMdbId2vValue(std::string("x\0\x09\x00", 4), true, &v, &n).code() ==
        StatusCode::kCorruption);
  CHECK(DecodeMdbId2vValue("", true, &v, &n).code() == StatusCode::kCorruption);
}

TEST_CASE("encoder: sortvals sorts and flags, multival keeps counts only") {
  Result<Schema> schema = Schema::Builtin();
  REQUIRE(schema.ok());
  MdbEntryEncoder encoder(*schema);
  MdbValueRules rules;
  rules.sorted_types = {"cn"};
  rules.multival = {{"member", 2, 1}};
  REQUIRE(encoder.SetValueRules(rules).ok());
  std::vector<std::string> ad2i;
  auto number = [&](const std::string& d) -> Result<uint32_t> {
    ad2i.push_back(d);
    return static_cast<uint32_t>(ad2i.size());
  };
  const std::vector<MdbValue> values = {
      V("objectClass", "groupOfNames"), V("cn", "Bb"),           V("cn", "a"),
      V("member", "cn=ccc,o=x"),        V("member", "cn=b,o=x"), V("member", "cn=AA,o=x"),
  };
  REQUIRE(encoder.Layout(7, values, number).ok());
  std::string bytes(encoder.size(), '\0');
  encoder.Write(values, bytes.data());
  Result<MdbEntry> e = DecodeMdbEntry(bytes);
  REQUIRE_MESSAGE(e.ok(), e.status().ToString());
  REQUIRE(e->attributes.size() == 3);
  // cn: sorted by the normalized copies ("a" before "bb") and flagged.
  CHECK(e->attributes[1].sorted);
  CHECK(e->attributes[1].values == std::vector<std::string>{"a", "Bb"});
  CHECK(*e->attributes[1].normalized == std::vector<std::string>{"a", "bb"});
  // member: three values past the threshold of 2, none of them inline.
  CHECK(e->attributes[2].multival);
  CHECK_FALSE(e->attributes[2].sorted);
  CHECK(e->attributes[2].multival_count == 3);
  CHECK(e->attributes[2].normalized.has_value());
  // The length table's words: objectClass 2 + 1, cn 2 + 4, member 2.
  CHECK(bytes.substr(12, 4) == std::string("\x0b\0\0\0", 4));

  REQUIRE(encoder.has_id2v());
  int records = 0;
  Status st = encoder.ForEachId2vRecord(
      values, [&](uint32_t adx, MdbValueOrder order, std::span<const std::string> dups) {
        ++records;
        CHECK(adx == 3);
        CHECK(order == MdbValueOrder::kOctet);
        REQUIRE(dups.size() == 3);
        // In id2v's order: by the normalized DN's length, then its bytes.
        CHECK(MdbId2vOrderedPart(dups[0]) == "cn=b,o=x");
        CHECK(MdbId2vOrderedPart(dups[1]) == "cn=aa,o=x");
        CHECK(MdbId2vOrderedPart(dups[2]) == "cn=ccc,o=x");
        std::string_view v, n;
        REQUIRE(DecodeMdbId2vValue(dups[1], true, &v, &n).ok());
        CHECK(v == "cn=AA,o=x");
        return Status::Ok();
      });
  REQUIRE(st.ok());
  CHECK(records == 1);

  // Two values under the threshold stay inline.
  const std::vector<MdbValue> small = {V("objectClass", "groupOfNames"), V("cn", "g"),
                                       V("member", "cn=b,o=x"), V("member", "cn=a,o=x")};
  REQUIRE(encoder.Layout(8, small, number).ok());
  CHECK_FALSE(encoder.has_id2v());
}

TEST_CASE("encoder: slapd's refusals of value rules and repeated sorted values") {
  Result<Schema> schema = Schema::Builtin();
  REQUIRE(schema.ok());
  MdbEntryEncoder encoder(*schema);
  MdbValueRules single;
  single.sorted_types = {"c"};
  CHECK(encoder.SetValueRules(single).code() == StatusCode::kInvalidArgument);
  MdbValueRules unknown;
  unknown.multival = {{"noSuchAttribute", 5, 1}};
  CHECK(encoder.SetValueRules(unknown).code() == StatusCode::kInvalidArgument);
  MdbValueRules inverted;
  inverted.multival = {{"member", 5, 10}};
  CHECK(encoder.SetValueRules(inverted).code() == StatusCode::kInvalidArgument);

  MdbValueRules sorted;
  sorted.sorted_types = {"cn"};
  REQUIRE(encoder.SetValueRules(sorted).ok());
  uint32_t n = 0;
  auto number = [&](const std::string&) -> Result<uint32_t> { return ++n; };
  const std::vector<MdbValue> twice = {V("objectClass", "person"), V("cn", "A"), V("cn", "a"),
                                       V("sn", "x")};
  Status st = encoder.Layout(1, twice, number);
  CHECK(st.code() == StatusCode::kInvalidArgument);
  CHECK(st.message().find("more than once") != std::string::npos);
}

TEST_CASE("a load with multival reads back its values from id2v, in id2v's order") {
  Result<Schema> schema = Schema::Builtin();
  REQUIRE(schema.ok());
  TempDir t;
  const std::string dir = t.File("db");
  std::filesystem::create_directory(dir);
  std::vector<std::string> members;
  for (int i = 0; i < 300; ++i) members.push_back("cn=m" + std::to_string((i * 37) % 300) + ",o=x");
  {
    MdbWriterOptions wo;
    wo.map_size = uint64_t{1} << 28;
    wo.values.multival = {{"member", 100, 10}};
    auto w = MdbLoadWriter::Create(*schema, dir, wo);
    REQUIRE_MESSAGE(w.ok(), w.status().ToString());
    std::vector<MdbValue> suffix = {V("objectClass", "organization"), V("o", "x")};
    REQUIRE((*w)->AddEntry(1, 0, "o=x", "o=x", suffix).ok());
    std::vector<MdbValue> group = {V("objectClass", "groupOfNames"), V("cn", "g")};
    for (const std::string& m : members) group.push_back(V("member", m));
    Status added = (*w)->AddEntry(2, 1, "cn=g", "cn=g", group);
    REQUIRE_MESSAGE(added.ok(), added.ToString());
    REQUIRE((*w)->Finish().ok());
  }
  auto reader = MdbReader::Open(dir);
  REQUIRE(reader.ok());
  MdbReadEntry e;
  Status got = (*reader)->Get(2, &e);
  REQUIRE_MESSAGE(got.ok(), got.ToString());
  std::vector<std::string> read;
  for (const MdbAttributeView& a : e.stored.attributes) {
    if (!a.multival) continue;
    for (std::string_view v : e.stored.Values(a)) read.emplace_back(v);
  }
  std::vector<std::string> expected = members;
  std::sort(expected.begin(), expected.end(), [](const std::string& a, const std::string& b) {
    return MdbCompareValues(MdbValueOrder::kOctet, a, b) < 0;
  });
  REQUIRE(read.size() == expected.size());
  for (size_t i = 0; i < read.size(); ++i) {
    CAPTURE(i);
    REQUIRE(read[i] == expected[i]);
  }
  // And the entry view lists them too, after objectClass and cn.
  CHECK(e.view.values.size() == 2 + members.size());
}

}  // namespace
}  // namespace dirload::mdb
