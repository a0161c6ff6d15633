#include "lib/util/json.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>

namespace dirload {
namespace {

using namespace std::string_literals;

TEST_CASE("JsonString quotes and escapes quotes, backslashes and control bytes") {
  CHECK(JsonString("") == "\"\"");
  CHECK(JsonString("plain text") == "\"plain text\"");
  CHECK(JsonString("say \"hi\"") == R"("say \"hi\"")");
  CHECK(JsonString("C:\\dir") == R"("C:\\dir")");
  CHECK(JsonString("a\nb\tc\rd") == R"("a\u000ab\u0009c\u000dd")");
  CHECK(JsonString("\0\x1f"s) == R"("\u0000\u001f")");
  // DEL and UTF-8 pass through: the caller hands it UTF-8.
  CHECK(JsonString("\x7f") == "\"\x7f\"");
  CHECK(JsonString("caf\xc3\xa9") == "\"caf\xc3\xa9\"");
}

TEST_CASE("JsonNumber writes integers exactly and others to 6 significant digits") {
  CHECK(JsonNumber(0) == "0");
  CHECK(JsonNumber(42) == "42");
  CHECK(JsonNumber(-7) == "-7");
  CHECK(JsonNumber(123456789012.0) == "123456789012");
  CHECK(JsonNumber(1.5) == "1.5");
  CHECK(JsonNumber(3.14159265) == "3.14159");
  CHECK(JsonNumber(0.000123456789) == "0.000123457");
  CHECK(JsonNumber(1e16) == "1e+16");  // beyond what is written exactly
  CHECK(JsonNumber(std::numeric_limits<double>::quiet_NaN()) == "null");
  CHECK(JsonNumber(std::numeric_limits<double>::infinity()) == "null");
  CHECK(JsonNumber(-std::numeric_limits<double>::infinity()) == "null");
}

}  // namespace
}  // namespace dirload
