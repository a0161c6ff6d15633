#include "lib/util/sha1.h"

#include <doctest/doctest.h>

#include <string>

#include "lib/util/ascii.h"

namespace dirload {
namespace {

std::string Hex(const Sha1::Digest& d) {
  return HexEncode(std::string_view(reinterpret_cast<const char*>(d.data()), d.size()));
}

// The examples of FIPS 180 (and RFC 3174's test suite), and the empty message.
TEST_CASE("SHA-1 of the standard's examples") {
  CHECK(Hex(Sha1::Of("abc")) == "a9993e364706816aba3e25717850c26c9cd0d89d");
  CHECK(Hex(Sha1::Of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")) ==
        "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
  CHECK(Hex(Sha1::Of("")) == "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  CHECK(Hex(Sha1::Of(std::string(1000000, 'a'))) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
  // Two blocks of message and the padding in a third.
  CHECK(Hex(Sha1::Of("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklm"
                     "nopqklmnopqrlmnopqrsmnopqrstnopqrstu")) ==
        "a49b2446a02c645bf419f995b67091253a04a259");
}

TEST_CASE("SHA-1 gives the same digest however the message is cut") {
  std::string message;
  for (int i = 0; i < 300; ++i) message.push_back(static_cast<char>(i * 7));
  const Sha1::Digest whole = Sha1::Of(message);
  // Lengths around the block (64) and padding (56) boundaries.
  for (size_t piece : {size_t{1}, size_t{3}, size_t{55}, size_t{56}, size_t{63}, size_t{64},
                       size_t{65}, size_t{127}}) {
    CAPTURE(piece);
    Sha1 s;
    for (size_t at = 0; at < message.size(); at += piece) {
      s.Update(std::string_view(message).substr(at, piece));
    }
    CHECK(s.Final() == whole);
  }
  for (size_t length = 54; length <= 66; ++length) {
    CAPTURE(length);
    Sha1 s;
    s.Update(std::string_view(message).substr(0, 10));
    s.Update(std::string_view(message).substr(10, length - 10));
    CHECK(s.Final() == Sha1::Of(std::string_view(message).substr(0, length)));
  }
}

}  // namespace
}  // namespace dirload
