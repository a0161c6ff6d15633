#include "lib/schema/approx_match.h"

#include <algorithm>
#include <array>

#include "lib/schema/lunicode.h"
#include "lib/schema/matching_rule.h"

namespace dirload {
namespace {

// phonetic.c's iswordbreak: not ASCII, a space, punctuation, a digit or NUL
// (the C locale's classes; slapd never sees other bytes here).
bool IsWordBreak(unsigned char c) {
  if (c >= 0x80 || c == '\0') return true;
  if (c == ' ' || (c >= '\t' && c <= '\r')) return true;
  if (c >= '0' && c <= '9') return true;
  return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') ||
         (c >= '{' && c <= '~');
}

bool IsAsciiLetter(unsigned char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

// phonetic.c's letter classes, indexed by letter - 'A'.
constexpr std::array<unsigned char, 26> kLetterClass = {
    1, 16, 4, 16, 9, 2, 4, 16, 9, 2, 0, 2, 2,  // A..M
    2, 1,  4, 0,  2, 4, 4, 1,  0, 0, 0, 8, 0,  // N..Z
};
bool HasClass(char c, unsigned char bit) { return c != '\0' && (kLetterClass[c - 'A'] & bit); }
bool Vowel(char c) { return HasClass(c, 1); }       // AEIOU
bool Same(char c) { return HasClass(c, 2); }        // FJLMNR: code as themselves
bool Varson(char c) { return HasClass(c, 4); }      // CGPST
bool FrontVowel(char c) { return HasClass(c, 8); }  // EIY
bool NoGhToF(char c) { return HasClass(c, 16); }    // BDH

constexpr size_t kMaxCodeLength = 4;  // MAXPHONEMELEN

Status SplitCodes(std::string_view normalized, bool keep_empty_words, bool keep_empty_codes,
                  std::vector<std::string>* codes) {
  codes->clear();
  std::string folded;
  DIRLOAD_RETURN_IF_ERROR(lunicode::NormalizeApprox(normalized, false, &folded));
  // slapd works on C strings: a value ends at its first NUL.
  std::string_view rest(folded);
  rest = rest.substr(0, rest.find('\0'));
  for (;;) {
    const size_t space = rest.find(' ');
    const std::string_view word = rest.substr(0, space);
    if (!word.empty() || keep_empty_words) {
      std::string code = PhoneticCode(word);
      if (!code.empty() || keep_empty_codes) codes->push_back(std::move(code));
    }
    if (space == std::string_view::npos) break;
    rest.remove_prefix(space + 1);
  }
  return Status::Ok();
}

}  // namespace

bool HasApproxRule(const MatchingRule* equality) {
  if (equality == nullptr || equality->usage != MatchingRuleUsage::kEquality) return false;
  switch (equality->normalizer) {
    case Normalizer::kCaseIgnore:
    case Normalizer::kCaseExact:
    case Normalizer::kCaseIgnoreIA5:
    case Normalizer::kCaseExactIA5:
      return true;
    default:
      return false;
  }
}

std::string PhoneticCode(std::string_view word) {
  // The letters, upper-cased, at [4, end) of a zeroed buffer: the code looks
  // up to four places behind and three ahead of the letter it codes, and
  // the zeros there read as "no letter", as in slapd.
  std::array<char, 40> t{};
  constexpr size_t kFirst = 4, kLimit = 35;
  size_t end = kFirst;
  for (size_t i = 0; i < word.size() && end < kLimit; ++i) {
    const auto c = static_cast<unsigned char>(word[i]);
    if (IsWordBreak(c)) break;
    if (IsAsciiLetter(c)) t[end++] = static_cast<char>(c & ~0x20);
  }
  std::string code;
  if (end == kFirst) return code;

  size_t n = kFirst;
  // Initial letter pairs: PN, KN, GN -> N; AE -> E; WR -> R; WH -> W; X -> S.
  switch (t[n]) {
    case 'P':
    case 'K':
    case 'G':
      if (t[n + 1] == 'N') t[n++] = '\0';
      break;
    case 'A':
      if (t[n + 1] == 'E') t[n++] = '\0';
      break;
    case 'W':
      if (t[n + 1] == 'R') {
        t[n++] = '\0';
      } else if (t[n + 1] == 'H') {
        t[n + 1] = t[n];
        t[n++] = '\0';
      }
      break;
    case 'X':
      t[n] = 'S';
      break;
    default:
      break;
  }

  const size_t start = n;
  bool ks = false;  // an X coded as K still owes its S
  // The position just past the last letter takes part (its zero ends a word
  // for B and flushes a pending S).
  for (; n <= end && code.size() < kMaxCodeLength; ++n) {
    if (ks) {
      ks = false;
      code.push_back('S');
      continue;
    }
    const char c = t[n], prev = t[n - 1], next = t[n + 1], next2 = t[n + 2];
    if (prev == c && c != 'C') continue;  // doubled letters count once, except CC
    if (Same(c) || (n == start && Vowel(c))) {
      code.push_back(c);
      continue;
    }
    switch (c) {
      case 'B':
        // slapd codes B only as the last letter, and not after M.
        if (n == end - 1 && prev != 'M') code.push_back('B');
        break;
      case 'C':
        if (prev != 'S' || !FrontVowel(next)) {
          if (next == 'I' && next2 == 'A') {
            code.push_back('X');
          } else if (FrontVowel(next)) {
            code.push_back('S');
          } else if (next == 'H') {
            code.push_back((n == start && !Vowel(next2)) || prev == 'S' ? 'K' : 'X');
          } else {
            code.push_back('K');
          }
        }
        break;
      case 'D':
        code.push_back(next == 'G' && FrontVowel(next2) ? 'J' : 'T');
        break;
      case 'G':
        // As slapd has it (its test is for GJ where the comment says GH).
        if ((next != 'J' || Vowel(next2)) &&
            (next != 'N' || (n + 1 < end && (next2 != 'E' || t[n + 3] != 'D'))) &&
            (prev != 'D' || !FrontVowel(next))) {
          code.push_back(FrontVowel(next) && next2 != 'G' ? 'G' : 'K');
        } else if (next == 'H' && !NoGhToF(t[n - 3]) && t[n - 4] != 'H') {
          code.push_back('F');
        }
        break;
      case 'H':
        if (!Varson(prev) && (!Vowel(prev) || Vowel(next))) code.push_back('H');
        break;
      case 'K':
        if (prev != 'C') code.push_back('K');
        break;
      case 'P':
        code.push_back(next == 'H' ? 'F' : 'P');
        break;
      case 'Q':
        code.push_back('K');
        break;
      case 'S':
        code.push_back(next == 'H' || (next == 'I' && (next2 == 'O' || next2 == 'A')) ? 'X' : 'S');
        break;
      case 'T':
        if (next == 'I' && (next2 == 'O' || next2 == 'A')) {
          code.push_back('X');
        } else if (next == 'H') {
          code.push_back('0');
        } else if (next != 'C' || next2 != 'H') {
          code.push_back('T');
        }
        break;
      case 'V':
        code.push_back('F');
        break;
      case 'W':
      case 'Y':
        if (Vowel(next)) code.push_back(c);
        break;
      case 'X':
        if (n == start) {
          code.push_back('S');
        } else {
          code.push_back('K');
          ks = true;
        }
        break;
      case 'Z':
        code.push_back('S');
        break;
      default:
        break;
    }
  }
  return code;
}

Status ApproxValueCodes(std::string_view normalized, std::vector<std::string>* codes) {
  return SplitCodes(normalized, true, true, codes);
}

Status ApproxAssertionCodes(std::string_view normalized, std::vector<std::string>* codes) {
  return SplitCodes(normalized, false, true, codes);
}

Status ApproxIndexCodes(std::string_view normalized, std::vector<std::string>* codes) {
  return SplitCodes(normalized, false, false, codes);
}

Status ApproxLookupCodes(std::string_view normalized, std::vector<std::string>* codes) {
  DIRLOAD_RETURN_IF_ERROR(SplitCodes(normalized, false, false, codes));
  for (size_t i = codes->size(); i-- > 1;) {
    const auto at = codes->begin() + static_cast<std::ptrdiff_t>(i);
    if (std::find(codes->begin(), at, *at) != at) codes->erase(at);
  }
  return Status::Ok();
}

bool ApproxCodesMatch(const std::vector<std::string>& value,
                      const std::vector<std::string>& assertion) {
  if (assertion.empty()) return false;
  size_t next = 0;
  for (const std::string& code : assertion) {
    while (next < value.size() && value[next] != code) ++next;
    if (next == value.size()) return false;
    ++next;
  }
  return true;
}

}  // namespace dirload
