#include "lib/util/uuid.h"

#include <algorithm>

#include "lib/util/ascii.h"
#include "lib/util/sha1.h"

namespace dirload {
namespace {

// Where the dashes of the text form are.
constexpr bool IsDash(size_t i) { return i == 8 || i == 13 || i == 18 || i == 23; }

}  // namespace

Result<Uuid> ParseUuid(std::string_view text) {
  auto bad = [&] {
    std::string message = "'";
    message.append(text);
    message +=
        "' is not a UUID (8-4-4-4-12 hex digits, such as "
        "6ba7b814-9dad-11d1-80b4-00c04fd430c8)";
    return Status::InvalidArgument(std::move(message));
  };
  if (text.size() != kUuidTextSize) return bad();
  Uuid out{};
  size_t byte = 0;
  for (size_t i = 0; i < text.size();) {
    if (IsDash(i)) {
      if (text[i] != '-') return bad();
      ++i;
      continue;
    }
    const int hi = HexDigitValue(text[i]);
    const int lo = HexDigitValue(text[i + 1]);
    if (hi < 0 || lo < 0 || IsDash(i + 1)) return bad();
    out[byte++] = static_cast<uint8_t>(hi << 4 | lo);
    i += 2;
  }
  return out;
}

void FormatUuid(const Uuid& uuid, char* out) {
  size_t at = 0;
  for (size_t i = 0; i < uuid.size(); ++i) {
    if (IsDash(at)) out[at++] = '-';
    out[at++] = kLowerHexDigits[uuid[i] >> 4];
    out[at++] = kLowerHexDigits[uuid[i] & 0xf];
  }
}

std::string FormatUuid(const Uuid& uuid) {
  std::string out(kUuidTextSize, '-');
  FormatUuid(uuid, out.data());
  return out;
}

Uuid NameBasedUuid(const Uuid& name_space, std::string_view name) {
  Sha1 sha;
  sha.Update(std::string_view(reinterpret_cast<const char*>(name_space.data()), name_space.size()));
  sha.Update(name);
  const Sha1::Digest digest = sha.Final();
  Uuid out;
  std::copy(digest.begin(), digest.begin() + out.size(), out.begin());
  out[6] = static_cast<uint8_t>((out[6] & 0x0f) | 0x50);  // version 5
  out[8] = static_cast<uint8_t>((out[8] & 0x3f) | 0x80);  // the RFC 4122 variant
  return out;
}

}  // namespace dirload
