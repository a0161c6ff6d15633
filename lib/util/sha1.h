// Sha1: the SHA-1 message digest (FIPS 180-4, section 6.1), for name-based
// UUIDs (RFC 4122 version 5, uuid.h). Not for anything that needs a secure
// hash: SHA-1 has known collisions. It is written here because none of the
// libraries dirload links offers one in its public interface.
//
// Thread safety: a Sha1 is a value; one thread at a time per object.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace dirload {

class Sha1 {
 public:
  using Digest = std::array<uint8_t, 20>;

  Sha1();

  // Adds `bytes` to the message. REQUIRES: Final() not called yet.
  void Update(std::string_view bytes);
  // Adds `v` as 8 bytes, most significant first.
  void UpdateU64(uint64_t v);
  // Adds the length of `bytes` (UpdateU64), then the bytes: a sequence of
  // such strings hashes the same only when every string is the same.
  void UpdateString(std::string_view bytes) {
    UpdateU64(bytes.size());
    Update(bytes);
  }
  // Pads the message and returns its digest; the object is spent.
  Digest Final();

  // The digest of `bytes` in one call.
  static Digest Of(std::string_view bytes);

 private:
  void Block(const uint8_t* block);

  std::array<uint32_t, 5> h_;
  std::array<uint8_t, 64> buffer_{};
  size_t buffered_ = 0;
  uint64_t length_ = 0;  // bytes so far
};

}  // namespace dirload
