#include "ldif/base64.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>

namespace dirload::ldif {
namespace {

std::string Encode(std::string_view in) {
  std::string out;
  Base64Encode(in, &out);
  return out;
}

// The decoded bytes, or "ERROR: " + the message.
std::string Decode(std::string_view in) {
  std::string out;
  Status st = Base64Decode(in, &out);
  return st.ok() ? out : "ERROR: " + st.message();
}

uint64_t TestSeed() {
  const char* env = std::getenv("DIRLOAD_TEST_SEED");
  return env ? std::strtoull(env, nullptr, 10) : 20240611;
}

TEST_CASE("base64 known vectors (RFC 4648 section 10)") {
  const std::pair<const char*, const char*> kVectors[] = {
      {"", ""},
      {"f", "Zg=="},
      {"fo", "Zm8="},
      {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="},
      {"fooba", "Zm9vYmE="},
      {"foobar", "Zm9vYmFy"},
  };
  for (auto [plain, encoded] : kVectors) {
    CAPTURE(plain);
    CHECK(Encode(plain) == encoded);
    CHECK(Decode(encoded) == plain);
  }
  // The two characters that differ between alphabets, and every value.
  CHECK(Encode("\xfb\xff\xbf") == "+/+/");
  CHECK(Decode("+/+/") == "\xfb\xff\xbf");
  CHECK(Decode("AAEC") == std::string("\x00\x01\x02", 3));
}

TEST_CASE("base64 appends to what the output already holds") {
  std::string out = "x:";
  Base64Encode("foo", &out);
  CHECK(out == "x:Zm9v");
  CHECK(Base64Decode("YmFy", &out).ok());
  CHECK(out == "x:Zm9vbar");
}

TEST_CASE("base64 round trip over random byte strings") {
  const uint64_t seed = TestSeed();
  INFO("seed " << seed << " (set DIRLOAD_TEST_SEED to replay)");
  std::mt19937_64 rng(seed);
  for (int iter = 0; iter < 2000; ++iter) {
    size_t len = rng() % (iter < 1000 ? 40 : 2000);
    std::string plain(len, '\0');
    for (char& c : plain) c = static_cast<char>(rng() & 0xff);
    std::string enc = Encode(plain);
    CAPTURE(iter);
    REQUIRE(enc.size() == (len + 2) / 3 * 4);
    std::string dec;
    REQUIRE(Base64Decode(enc, &dec).ok());
    REQUIRE(dec == plain);
  }
  // All 256 byte values in every alignment.
  std::string all;
  for (int b = 0; b < 256; ++b) all.push_back(static_cast<char>(b));
  for (size_t skip = 0; skip < 3; ++skip) {
    std::string plain = all.substr(skip);
    CHECK(Decode(Encode(plain)) == plain);
  }
}

TEST_CASE("base64 decode names the first offending position") {
  // Characters outside the alphabet, whitespace included.
  CHECK(Decode("Zm9v*mFy") == "ERROR: invalid base64 character '*' at position 4");
  CHECK(Decode("Zm9v*") == "ERROR: invalid base64 character '*' at position 4");
  CHECK(Decode("Zm9v YmFy") == "ERROR: invalid base64 character ' ' at position 4");
  CHECK(Decode("Zm9v\nYmFy") == "ERROR: invalid base64 character '\\x0a' at position 4");
  CHECK(Decode("Zm9\tv") == "ERROR: invalid base64 character '\\x09' at position 3");
  CHECK(Decode("Zm9vYm\xc3\xa9") == "ERROR: invalid base64 character '\\xc3' at position 6");
  CHECK(Decode("Zm9vYmF-") == "ERROR: invalid base64 character '-' at position 7");
  CHECK(Decode("Zm9vYm_=") == "ERROR: invalid base64 character '_' at position 6");
  CHECK(Decode(std::string("Zm\0v", 4)) == "ERROR: invalid base64 character '\\x00' at position 2");

  // Length.
  CHECK(Decode("Zm9vY") == "ERROR: base64 length 5 is not a multiple of 4");
  CHECK(Decode("Zg=") == "ERROR: base64 length 3 is not a multiple of 4");
  CHECK(Decode("Z") == "ERROR: base64 length 1 is not a multiple of 4");

  // '=' anywhere but the last one or two places.
  CHECK(Decode("=m9v") == "ERROR: misplaced base64 padding '=' at position 0");
  CHECK(Decode("Zm=v") == "ERROR: misplaced base64 padding '=' at position 2");
  CHECK(Decode("Zg==Zm8=") == "ERROR: misplaced base64 padding '=' at position 2");
  CHECK(Decode("Zm9v=mFy") == "ERROR: misplaced base64 padding '=' at position 4");
  CHECK(Decode("Zm9v====") == "ERROR: misplaced base64 padding '=' at position 4");
  CHECK(Decode("Z===") == "ERROR: misplaced base64 padding '=' at position 1");
  CHECK(Decode("====") == "ERROR: misplaced base64 padding '=' at position 0");

  // Non-zero pad bits: a second spelling of the same bytes.
  CHECK(Decode("Zh==") == "ERROR: base64 character 'h' at position 1 has non-zero pad bits");
  CHECK(Decode("Zm9=") == "ERROR: base64 character '9' at position 2 has non-zero pad bits");
  CHECK(Decode("Zm9vZm9=") == "ERROR: base64 character '9' at position 6 has non-zero pad bits");
  CHECK(Decode("Zg==") == "f");
  CHECK(Decode("Zm8=") == "fo");
}

TEST_CASE("base64 decode errors are parse errors and leave the output as it was") {
  for (const char* bad : {"Zm9v*mFy", "Zm9vY", "Zm=v", "Zh==", "Zm9vYmF*"}) {
    CAPTURE(bad);
    std::string out = "keep";
    Status st = Base64Decode(bad, &out);
    CHECK(st.code() == StatusCode::kParseError);
    CHECK(out == "keep");
  }
}

}  // namespace
}  // namespace dirload::ldif
