// Pieces of hand-written JSON, shared by every report dirload writes as
// JSON (--stats, `dirload stat`, the benchmark drivers): a quoted string and
// a number, byte for byte the same wherever they are written.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace dirload {

// `s` quoted, with '"', '\\' and control bytes (as \u00XX) escaped; other
// bytes pass through, so the caller gives it UTF-8.
std::string JsonString(std::string_view s);

// Integers (below 9e15) exactly, others to 6 significant digits; null for NaN
// and infinity, which JSON cannot express.
std::string JsonNumber(double v);

}  // namespace dirload
