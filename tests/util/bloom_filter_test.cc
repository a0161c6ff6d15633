#include "lib/util/bloom_filter.h"

#include <doctest/doctest.h>

#include <string>

#include "lib/util/key_hash.h"

namespace dirload {
namespace {

uint64_t H(const std::string& s) { return HashBytes(s.data(), s.size(), 0); }

TEST_CASE("a Bloom filter never forgets what it was given") {
  BloomFilter f(1 << 16);
  CHECK(f.bytes() == 1 << 16);
  for (int i = 0; i < 20000; ++i) f.Add(H("uid=user" + std::to_string(i) + ",dc=example,dc=com"));
  for (int i = 0; i < 20000; ++i) {
    CHECK(f.MayContain(H("uid=user" + std::to_string(i) + ",dc=example,dc=com")));
  }
}

TEST_CASE("a Bloom filter rules out nearly everything it was not given") {
  // 26 bits a hash: well under 1% false positives expected.
  BloomFilter f(1 << 16);
  for (int i = 0; i < 20000; ++i) f.Add(H("uid=user" + std::to_string(i) + ",dc=example,dc=com"));
  int maybe = 0;
  for (int i = 0; i < 100000; ++i) {
    maybe += f.MayContain(H("uid=other" + std::to_string(i) + ",dc=example,dc=com"));
  }
  CHECK(maybe < 1000);
  // An empty filter holds nothing.
  BloomFilter empty(1 << 12);
  CHECK_FALSE(empty.MayContain(H("cn=a")));
}

TEST_CASE("a Bloom filter's size is a power of two of blocks, one at least") {
  CHECK(BloomFilter(0).bytes() == 64);
  CHECK(BloomFilter(100).bytes() == 64);
  CHECK(BloomFilter(128).bytes() == 128);
  CHECK(BloomFilter(1000).bytes() == 512);
  BloomFilter one(0);
  one.Add(H("cn=a"));
  CHECK(one.MayContain(H("cn=a")));
}

}  // namespace
}  // namespace dirload
