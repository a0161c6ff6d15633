#include "lib/util/ascii.h"

#include <doctest/doctest.h>

#include <string>

namespace dirload {
namespace {

using namespace std::string_literals;

TEST_CASE("ASCII lowercasing changes A-Z only") {
  CHECK(AsciiLower('A') == 'a');
  CHECK(AsciiLower('Z') == 'z');
  CHECK(AsciiLower('a') == 'a');
  CHECK(AsciiLower('@') == '@');
  CHECK(AsciiLower('[') == '[');
  CHECK(AsciiUpper('q') == 'Q');
  CHECK(AsciiUpper('{') == '{');
  CHECK(AsciiLowerCopy("CN=Foo,DC=Example") == "cn=foo,dc=example");
  // Non-ASCII bytes (here UTF-8 for "ÉCOLE" and a Latin-1 0xC9) stay as they are.
  CHECK(AsciiLowerCopy("\xc3\x89"
                       "COLE") ==
        "\xc3\x89"
        "cole");
  CHECK(AsciiLowerCopy("\xc9\xff\x80") == "\xc9\xff\x80");
  CHECK(AsciiLowerCopy("a\0B"s) == "a\0b"s);
}

TEST_CASE("EqualsIgnoreCase folds ASCII letters only") {
  CHECK(EqualsIgnoreCase("userPassword", "USERPASSWORD"));
  CHECK(EqualsIgnoreCase("", ""));
  CHECK_FALSE(EqualsIgnoreCase("abc", "abcd"));
  CHECK_FALSE(EqualsIgnoreCase("\xc3\xa9", "\xc3\x89"));  // é and É differ in UTF-8
  CHECK_FALSE(EqualsIgnoreCase("@", "`"));                // 0x40 and 0x60 are not letters
}

TEST_CASE("hex digits both ways") {
  CHECK(IsHexDigit('0'));
  CHECK(IsHexDigit('f'));
  CHECK(IsHexDigit('F'));
  CHECK_FALSE(IsHexDigit('g'));
  CHECK_FALSE(IsHexDigit('/'));
  CHECK(HexDigitValue('0') == 0);
  CHECK(HexDigitValue('9') == 9);
  CHECK(HexDigitValue('a') == 10);
  CHECK(HexDigitValue('F') == 15);
  CHECK(HexDigitValue('g') == -1);
  CHECK(HexDigitValue(':') == -1);
  CHECK(HexDigitValue('\xc1') == -1);

  CHECK(HexEncode("") == "");
  CHECK(HexEncode("\x00\x0f\xab\xff"s) == "000fabff");
  std::string out = "\\";
  AppendHexByte(0x2c, &out, kUpperHexDigits);
  AppendHexByte(0xbe, &out, kUpperHexDigits);
  AppendHexByte(0xbe, &out);
  CHECK(out == "\\2CBEbe");
}

TEST_CASE("IsAllAscii looks at every byte, in and after the 8-byte words") {
  CHECK(IsAllAscii(""));
  CHECK(IsAllAscii("0123456789abcdefghij"));
  CHECK_FALSE(
      IsAllAscii("0123456\x80"
                 "89"));
  CHECK_FALSE(IsAllAscii("012345678\xff"));
}

}  // namespace
}  // namespace dirload
