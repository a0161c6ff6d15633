// RFC 4122 UUIDs: the text form (8-4-4-4-12 hex digits, as slapd writes
// entryUUID) both ways, and name-based UUIDs (version 5, SHA-1), which give
// one name the same UUID wherever and whenever it is made.
//
// Thread safety: pure functions and constants.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "lib/util/status.h"

namespace dirload {

using Uuid = std::array<uint8_t, 16>;

// RFC 4122 appendix C's name space for X.500 distinguished names,
// 6ba7b814-9dad-11d1-80b4-00c04fd430c8.
inline constexpr Uuid kX500NameSpace = {0x6b, 0xa7, 0xb8, 0x14, 0x9d, 0xad, 0x11, 0xd1,
                                        0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8};

// Length of the text form.
inline constexpr size_t kUuidTextSize = 36;

// "6ba7b814-9dad-11d1-80b4-00c04fd430c8", hex digits of either case;
// InvalidArgument naming the text otherwise.
Result<Uuid> ParseUuid(std::string_view text);

// The text form, lower case, into out[0..kUuidTextSize).
void FormatUuid(const Uuid& uuid, char* out);
std::string FormatUuid(const Uuid& uuid);

// RFC 4122 4.3 with SHA-1: the first 16 bytes of SHA-1(name space || name),
// version 5 and the RFC 4122 variant set.
Uuid NameBasedUuid(const Uuid& name_space, std::string_view name);

}  // namespace dirload
