// Plain-text layout for reports: aligned columns and human-readable sizes.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dirload {

// Columns padded to their widest cell: the first `left` columns aligned
// left (names), the rest right (numbers). Trailing blanks are trimmed.
std::string TextColumns(const std::vector<std::vector<std::string>>& rows, size_t left);

// "12.3 MiB"; below 1 KiB as "512 B".
std::string HumanBytes(uint64_t bytes);

// "a, b, c": names in a message.
std::string JoinWithCommas(const std::vector<std::string>& names);

// `v` with `decimals` digits after the point.
std::string FixedPoint(double v, int decimals);

}  // namespace dirload
