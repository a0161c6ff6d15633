#include "lib/format/mdb/mdb_index_keys.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "lib/schema/schema.h"
#include "lib/util/ascii.h"
#include "tests/support/hex.h"

namespace dirload::mdb {
namespace {

using testing::Hex;

constexpr std::string_view kDirectoryString = "1.3.6.1.4.1.1466.115.121.1.15";

// The three keys slapadd 2.5.13 stored in its uid index for "uid: hm".
TEST_CASE("index keys: uid equality and substring hashes match slapadd") {
  MdbKeyOptions o;
  std::vector<std::string> values = {"hm"};
  std::vector<std::string> keys;
  MdbEqualityKeys(o, "uid", kDirectoryString, "2.5.13.2", values, &keys);
  REQUIRE(keys.size() == 1);
  CHECK(HexEncode(keys[0]) == "4ce5bafb");
  keys.clear();
  MdbSubstringKeys(o, "uid", kDirectoryString, "2.5.13.4", values, &keys);
  REQUIRE(keys.size() == 2);  // too short for "any"; initial and final of length 2
  CHECK(HexEncode(keys[0]) == "16f51f83");
  CHECK(HexEncode(keys[1]) == "e462c5b8");
  CHECK(HexEncode(MdbPresenceKey()) == "00000000");
}

TEST_CASE("index keys: FNV-1 and FNV-1a reference values") {
  MdbKeyOptions o32;
  // FNV-1 32 of the empty string is the offset basis; of "a" is 0x050c5d7e.
  CHECK(HexEncode(MdbKeyHasher(o32, "", 0, "", "").Key("")) == "c59d1c81");
  CHECK(HexEncode(MdbKeyHasher(o32, "", 0, "", "").Key("a")) == "7e5d0c05");
  // The parts are simply concatenated.
  CHECK(MdbKeyHasher(o32, "ab", '^', "cd", "ef").Key("gh") ==
        MdbKeyHasher(o32, "", 0, "", "").Key("ab^cdefgh"));
  MdbKeyOptions o64;
  o64.hash64 = true;
  // FNV-1a 64 of "a" is 0xaf63dc4c8601ec8c.
  CHECK(HexEncode(MdbKeyHasher(o64, "", 0, "", "").Key("a")) == "8cec01864cdc63af");
  CHECK(MdbKeyHasher(o64, "x", 0, "y", "z").Key("v").size() == 8);
  CHECK(MdbPresenceKey().size() == 4);
}

TEST_CASE("index keys: substring fragments and their counts") {
  auto fragments = [](const MdbKeyOptions& o, std::string v) {
    std::vector<std::string> got;
    MdbSubstringKeys(o, "t", "s", "m", std::vector<std::string>{v}, &got);
    std::vector<std::string> want;
    MdbKeyHasher any(o, "t", '*', "s", "m"), ini(o, "t", '^', "s", "m"), fin(o, "t", '$', "s", "m");
    for (size_t j = 0; o.substr_any_len && j + o.substr_any_len <= v.size(); ++j) {
      want.push_back(any.Key(v.substr(j, o.substr_any_len)));
    }
    for (size_t j = o.substr_if_minlen; j <= std::min<size_t>(o.substr_if_maxlen, v.size()); ++j) {
      want.push_back(ini.Key(v.substr(0, j)));
      want.push_back(fin.Key(v.substr(v.size() - j)));
    }
    CHECK(got == want);
    return got.size();
  };
  MdbKeyOptions o;
  CHECK(fragments(o, "a") == 0);
  CHECK(fragments(o, "ab") == 2);
  CHECK(fragments(o, "abc") == 4);
  CHECK(fragments(o, "abcd") == 1 + 6);
  CHECK(fragments(o, "hans m\xc3\xbcller") == 9 + 6);  // 12 bytes, 11 characters
  o.substr_if_minlen = 3;
  o.substr_if_maxlen = 6;
  o.substr_any_len = 3;
  CHECK(fragments(o, "abcdefgh") == 6 + 8);
}

TEST_CASE("index keys: integers in index_intlen bytes, sign bit inverted") {
  MdbKeyOptions o;
  auto key = [&](std::string_view v) { return HexEncode(*MdbIntegerKey(o, v)); };
  CHECK(key("1001") == "800003e9");
  CHECK(key("0") == "80000000");
  CHECK(key("1") == "80000001");
  CHECK(key("-1") == "7fffffff");
  CHECK(key("-256") == "7fffff00");
  CHECK(key("1073741823") == "bfffffff");  // 2^30 - 1, the last plain key
  // Exponent forms, as slapadd 2.5.13 stored them for uidNumber.
  CHECK(key("1073741824") == "c0400000");
  CHECK(key("2147483648") == "c0800000");
  CHECK(key("-1073741825") == "3fbfffff");
  CHECK(key("5000000000") == "c1012a05");
  CHECK(key("-5000000000") == "3efed5fa");
  CHECK(key("99999999999") == "c1174876");
  CHECK(key("123456789012345678901234") == "c6499602");
  CHECK(key("-99999999999999999999") == "3af6e7b1");
  CHECK(!MdbIntegerKey(o, "12a").ok());
  CHECK(!MdbIntegerKey(o, "").ok());
  CHECK(!MdbIntegerKey(o, "-").ok());
  o.intlen = 3;
  CHECK(!MdbIntegerKey(o, "1").ok());
  // Keys sort as the numbers do, across the exponent form too.
  o.intlen = 4;
  std::vector<std::string> numbers = {"-99999999999999999999",
                                      "-5000000000",
                                      "-1073741825",
                                      "-1073741824",
                                      "-70000",
                                      "-1",
                                      "0",
                                      "7",
                                      "65536",
                                      "1073741823",
                                      "1073741824",
                                      "4294967296",
                                      "99999999999",
                                      "123456789012345678901234"};
  for (size_t i = 1; i < numbers.size(); ++i) {
    CHECK_MESSAGE(*MdbIntegerKey(o, numbers[i - 1]) < *MdbIntegerKey(o, numbers[i]),
                  numbers[i - 1] << " < " << numbers[i]);
  }
}

// Keys slapadd 2.5.13 stored in createTimestamp, entryCSN and contextCSN
// indexes (mdb_indexer_oracle_test checks them against slapadd each run).
TEST_CASE("index keys: generalizedTime and CSN ordered keys match slapadd") {
  auto key = [](std::string_view v) {
    auto k = MdbTimeKey(v);
    return k ? HexEncode(std::string_view(k->data(), k->size())) : std::string("none");
  };
  CHECK(key("19700101000000Z") == "4e79747c00");
  CHECK(key("20240101000000Z") == "4edf067c80");
  CHECK(key("20240102030000Z") == "4edf07f830");
  CHECK(key("20240102030405Z") == "4edf07f925");
  CHECK(key("20240102030406.5Z") == "4edf07f926");
  CHECK(key("99991231235959Z") == "097968bd7f");  // the first byte wraps past 0x7f
  CHECK(key("00000101000000Z") == "4000000000");
  CHECK(key("16000229000000Z") == "4bc1cf2e80");
  CHECK(key("19000301000000Z") == "4df617c600");
  CHECK(key("20000229120000Z") == "4eb23030c0");
  CHECK(key("20161231235960Z") == "4ed1dcc280");  // a leap second...
  CHECK(key("20170101000000Z") == "4ed1dcc280");  // ...is the next midnight
  // On 2041-07-13 the low 32 bits wrap at 01:04:00 and byte 0 stays.
  CHECK(key("20410713010359Z") == "4effffffff");
  CHECK(key("20410713010400Z") == "4e00000000");
  // CSNs: only the time counts, to the second.
  CHECK(key("20240102030405.123456Z#000000#000#000000") == "4edf07f925");
  CHECK(key("20240102030405.999999Z#000003#001#000000") == "4edf07f925");
  // Values slapd's time parser refuses get no key.
  CHECK(key("") == "none");
  CHECK(key("2024010203040Z") == "none");    // 13 digits
  CHECK(key("202401020304050Z") == "none");  // 15 digits
  CHECK(key("20240102030405") == "none");    // no Z
  CHECK(key("20240102030405+0200") == "none");
  CHECK(key("20240102030405,5Z") == "none");  // normalized values use '.'
  CHECK(key("20241302030405Z") == "none");
  CHECK(key("20240100030405Z") == "none");
  CHECK(key("20240102240405Z") == "none");
  CHECK(key("20240102036005Z") == "none");
  CHECK(key("20240102030462Z") == "none");
  CHECK(key("20240102030405.Z") != "none");  // the fraction may be empty
  // Keys sort as the times do, apart from the wraps above.
  std::vector<std::string> times = {"00000101000000Z", "16000229000000Z", "19000301000000Z",
                                    "19700101000000Z", "20000229120000Z", "20161231235959Z",
                                    "20161231235960Z", "20170101000001Z", "20240102030405Z",
                                    "20240102030406Z", "20410713010358Z", "20410713010359Z"};
  for (size_t i = 1; i < times.size(); ++i) {
    CHECK_MESSAGE(key(times[i - 1]) < key(times[i]), times[i - 1] << " < " << times[i]);
  }
}

TEST_CASE("index keys: uniqueMember keys leave out a bit string UID") {
  CHECK(MdbUniqueMemberKeyPart("cn=a,dc=example,dc=com#'0101'B") == "cn=a,dc=example,dc=com");
  CHECK(MdbUniqueMemberKeyPart("cn=a,dc=example,dc=com#''B") == "cn=a,dc=example,dc=com");
  CHECK(MdbUniqueMemberKeyPart("cn=a,dc=example,dc=com") == "cn=a,dc=example,dc=com");
  CHECK(MdbUniqueMemberKeyPart("uid=x#y,dc=example,dc=com") == "uid=x#y,dc=example,dc=com");
  CHECK(MdbUniqueMemberKeyPart("cn=a#'01'B,dc=com#'1'B") == "cn=a#'01'B,dc=com");
  CHECK(MdbUniqueMemberKeyPart("cn=a#'012'B") == "cn=a#'012'B");
  CHECK(MdbUniqueMemberKeyPart("cn=a#'01'b") == "cn=a#'01'b");
  CHECK(MdbUniqueMemberKeyPart("cn=a#'B") == "cn=a#'B");
  CHECK(MdbUniqueMemberKeyPart("") == "");
  // The keys slapadd 2.5.13 stored for cn=A,dc=example,dc=com#'0101'B and
  // cn=b,dc=example,dc=com.
  MdbKeyHasher h(MdbKeyOptions{}, "uniqueMember", 0, "1.3.6.1.4.1.1466.115.121.1.34", "2.5.13.23");
  CHECK(HexEncode(h.Key(MdbUniqueMemberKeyPart("cn=a,dc=example,dc=com#'0101'B"))) == "1690063d");
  CHECK(HexEncode(h.Key(MdbUniqueMemberKeyPart("cn=b,dc=example,dc=com"))) == "054e0964");
}

// entryUUID keys are ordinary equality hashes of the 16 raw bytes slapd
// stores as the normalized copy (slapadd 2.5.13's keys).
TEST_CASE("index keys: entryUUID equality hashes the raw UUID") {
  MdbKeyHasher h(MdbKeyOptions{}, "entryUUID", 0, "1.3.6.1.1.16.1", "1.3.6.1.1.16.2");
  // 0a1b2c3d-4e5f-1071-8899-aabbccddeeff and 11111111-2222-3333-4444-555555555555
  CHECK(HexEncode(h.Key("\x0a\x1b\x2c\x3d\x4e\x5f\x10\x71\x88\x99\xaa\xbb\xcc\xdd\xee\xff")) ==
        "79f069c6");
  CHECK(HexEncode(h.Key("\x11\x11\x11\x11\x22\x22\x33\x33\x44\x44\x55\x55\x55\x55\x55\x55")) ==
        "39655c1b");
}

TEST_CASE("index keys: objectClass expansion with superclasses") {
  auto schema = Schema::Builtin();
  REQUIRE(schema.ok());
  std::vector<std::string> in = {"INETORGPERSON", "posixAccount", "noSuchClass"};
  std::vector<std::string> out = ExpandObjectClasses(*schema, in);
  std::vector<std::string> want = {"inetOrgPerson",        "posixAccount", "noSuchClass",
                                   "organizationalPerson", "top",          "person"};
  CHECK(out == want);
  std::vector<std::string> keys;
  MdbObjectClassKeys(MdbKeyOptions{}, out, &keys);
  CHECK(keys.size() == out.size());
  CHECK(keys[0] ==
        MdbKeyHasher(MdbKeyOptions{}, "objectClass", 0, "1.3.6.1.4.1.1466.115.121.1.38", "2.5.13.0")
            .Key("inetOrgPerson"));
}

TEST_CASE("index keys: ID lists turn into ranges past 65535 IDs") {
  std::vector<uint64_t> ids;
  for (uint64_t i = 1; i <= MdbKeyOptions().max_ids_per_key(); ++i) ids.push_back(i * 2);
  CHECK(MdbIdListDuplicates(ids, 65535) == ids);
  ids.push_back(ids.back() + 1);
  CHECK(MdbIdListDuplicates(ids, 65535) == std::vector<uint64_t>{0, 2, ids.back()});
  CHECK(HexEncode(MdbIdBytes(0x0102)) == "0201000000000000");
}

}  // namespace
}  // namespace dirload::mdb
