#include "lib/schema/lunicode.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "lib/schema/lunicode_tables.h"

namespace dirload::lunicode {
namespace {

// Length of the sequence a lead byte announces (0: not a lead byte), and the
// bits of the second byte of which one must be set for 3..6-byte sequences
// not to be overlong: libldap's ldap_utf8_lentab / ldap_utf8_mintab rules.
size_t SequenceLength(unsigned char b) {
  if (b < 0x80) return 1;
  if (b < 0xC2) return 0;
  if (b < 0xE0) return 2;
  if (b < 0xF0) return 3;
  if (b < 0xF8) return 4;
  if (b < 0xFC) return 5;
  if (b < 0xFE) return 6;
  return 0;
}

bool NotOverlong(unsigned char lead, unsigned char second) {
  switch (lead) {
    case 0xE0:
      return (second & 0x20) != 0;
    case 0xF0:
      return (second & 0x30) != 0;
    case 0xF8:
      return (second & 0x38) != 0;
    case 0xFC:
      return (second & 0x3C) != 0;
    default:
      return true;
  }
}

// Decodes the non-ASCII sequence at s[i]; returns its length, 0 if malformed.
size_t Decode(std::string_view s, size_t i, char32_t* cp) {
  const auto lead = static_cast<unsigned char>(s[i]);
  const size_t len = SequenceLength(lead);
  if (len < 2 || i + len > s.size()) return 0;
  const auto second = static_cast<unsigned char>(s[i + 1]);
  if (len > 2 && !NotOverlong(lead, second)) return 0;
  static constexpr unsigned char kLeadMask[] = {0, 0x7F, 0x1F, 0x0F, 0x07, 0x03, 0x01};
  char32_t v = lead & kLeadMask[len];
  for (size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    v = (v << 6) | (b & 0x3F);
  }
  *cp = v;
  return len;
}

// ldap_x_ucs4_to_utf8: up to 6 bytes, as liblunicode writes them back.
void Encode(char32_t c, std::string* out) {
  if (c < 0x80) {
    out->push_back(static_cast<char>(c));
    return;
  }
  int len;
  unsigned char lead;
  if (c < 0x800) {
    len = 2, lead = 0xC0;
  } else if (c < 0x10000) {
    len = 3, lead = 0xE0;
  } else if (c < 0x200000) {
    len = 4, lead = 0xF0;
  } else if (c < 0x4000000) {
    len = 5, lead = 0xF8;
  } else {
    len = 6, lead = 0xFC;
  }
  out->push_back(static_cast<char>(lead | (c >> (6 * (len - 1)))));
  for (int k = len - 2; k >= 0; --k) {
    out->push_back(static_cast<char>(0x80 | ((c >> (6 * k)) & 0x3F)));
  }
}

unsigned CombiningClass(char32_t c) {
  if (c < 0x300) return 0;
  const ClassRange* end = kCombiningClass + kCombiningClassSize;
  const ClassRange* it = std::upper_bound(
      kCombiningClass, end, c, [](char32_t code, const ClassRange& r) { return code < r.first; });
  if (it == kCombiningClass) return 0;
  --it;
  return c <= it->last ? it->klass : 0;
}

const DecompEntry* FindDecomposition(char32_t c) {
  const DecompEntry* end = kDecomposition + kDecompositionSize;
  const DecompEntry* it = std::lower_bound(
      kDecomposition, end, c, [](const DecompEntry& e, char32_t code) { return e.code < code; });
  return it != end && it->code == c ? it : nullptr;
}

bool Compose(char32_t first, char32_t second, char32_t* composite) {
  const CompositionEntry* end = kComposition + kCompositionSize;
  const CompositionEntry* it = std::lower_bound(
      kComposition, end, std::pair(first, second), [](const CompositionEntry& e, auto key) {
        return e.first != key.first ? e.first < key.first : e.second < key.second;
      });
  if (it == end || it->first != first || it->second != second) return false;
  *composite = it->composite;
  return true;
}

constexpr char32_t kSBase = 0xAC00, kLBase = 0x1100, kVBase = 0x1161, kTBase = 0x11A7;
constexpr char32_t kLCount = 19, kVCount = 21, kTCount = 28, kSCount = 11172;

// Appends c, moving it before the trailing marks of a higher combining class
// (uccompatdecomp's insertion, a stable sort by class).
void AppendOrdered(char32_t c, std::vector<char32_t>* out) {
  const unsigned klass = CombiningClass(c);
  size_t at = out->size();
  if (klass != 0) {
    while (at > 0 && klass < CombiningClass((*out)[at - 1])) --at;
  }
  out->insert(out->begin() + static_cast<std::ptrdiff_t>(at), c);
}

// uccompatdecomp. Hangul syllables by arithmetic, over ucishangul's range
// U+AC00..U+D7FF (wider than the syllables).
void Decompose(const std::vector<char32_t>& in, std::vector<char32_t>* out) {
  out->clear();
  for (char32_t c : in) {
    if (const DecompEntry* d = FindDecomposition(c)) {
      for (size_t k = 0; k < d->length; ++k) AppendOrdered(kDecompositionData[d->offset + k], out);
    } else if (c >= 0xAC00 && c <= 0xD7FF) {
      const char32_t s = c - kSBase;
      out->push_back(kLBase + s / (kVCount * kTCount));
      out->push_back(kVBase + (s % (kVCount * kTCount)) / kTCount);
      if (s % kTCount != 0) out->push_back(kTBase + s % kTCount);
    } else {
      AppendOrdered(c, out);
    }
  }
}

// uccomp_hangul, in place; its bounds as written (a T index of 0 or 28 is
// accepted).
void ComposeHangul(std::vector<char32_t>* str) {
  std::vector<char32_t>& s = *str;
  char32_t last = s[0];
  size_t len = 1;
  for (size_t i = 1; i < s.size(); ++i) {
    const char32_t ch = s[i];
    const char32_t lindex = last - kLBase;
    if (lindex < kLCount) {
      const char32_t vindex = ch - kVBase;
      if (vindex < kVCount) {
        last = kSBase + (lindex * kVCount + vindex) * kTCount;
        s[len - 1] = last;
        continue;
      }
    }
    const char32_t sindex = last - kSBase;
    if (sindex < kSCount && sindex % kTCount == 0) {
      const char32_t tindex = ch - kTBase;
      if (tindex <= kTCount) {
        last += tindex;
        s[len - 1] = last;
        continue;
      }
    }
    last = ch;
    s[len++] = ch;
  }
  s.resize(len);
}

// uccanoncomp: a mark composes with the last starter when nothing between
// them was left uncomposed, or when the last uncomposed mark has a lower
// class; then Hangul.
void ComposeCanonical(std::vector<char32_t>* str) {
  std::vector<char32_t>& s = *str;
  if (s.empty()) return;
  char32_t st = s[0];
  size_t stpos = 0, copos = 1;
  unsigned prevcl = CombiningClass(st) == 0 ? 0 : 256;
  for (size_t i = 1; i < s.size(); ++i) {
    const char32_t ch = s[i];
    const unsigned cl = CombiningClass(ch);
    char32_t co;
    if (Compose(st, ch, &co) && (prevcl < cl || prevcl == 0)) {
      st = s[stpos] = co;
    } else {
      if (cl == 0) {
        stpos = copos;
        st = ch;
      }
      prevcl = cl;
      s[copos++] = ch;
    }
  }
  s.resize(copos);
  ComposeHangul(str);
}

char AsciiFold(char c, bool fold_case) {
  return fold_case && c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c;
}

}  // namespace

bool IsSlapdUtf8(std::string_view s) {
  char32_t cp;
  for (size_t i = 0; i < s.size();) {
    // Directory data is mostly ASCII: eight bytes a step while none has its
    // high bit set.
    if (i + 8 <= s.size()) {
      uint64_t word;
      std::memcpy(&word, s.data() + i, 8);
      if ((word & 0x8080808080808080ULL) == 0) {
        i += 8;
        continue;
      }
    }
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    const size_t n = Decode(s, i, &cp);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

char32_t ToLower(char32_t c) {
  if (c < 0x80) return c >= 'A' && c <= 'Z' ? c + 32 : c;
  const CaseEntry* end = kLowerCase + kLowerCaseSize;
  const CaseEntry* it = std::lower_bound(
      kLowerCase, end, c, [](const CaseEntry& e, char32_t code) { return e.code < code; });
  return it != end && it->code == c ? it->lower : c;
}

Status Normalize(std::string_view s, bool fold_case, std::string* out) {
  out->clear();
  out->reserve(s.size() + 8);
  std::vector<char32_t> run, decomposed;
  size_t i = 0;
  while (i < s.size()) {
    // Copy ASCII up to, not including, the character before the next
    // non-ASCII one: that character starts the run normalised with it.
    size_t j = i;
    while (j < s.size() && static_cast<unsigned char>(s[j]) < 0x80) ++j;
    if (j == s.size()) {
      for (; i < j; ++i) out->push_back(AsciiFold(s[i], fold_case));
      break;
    }
    run.clear();
    if (j > i) {
      for (; i < j - 1; ++i) out->push_back(AsciiFold(s[i], fold_case));
      run.push_back(static_cast<unsigned char>(AsciiFold(s[i], fold_case)));
      i = j;
    }
    while (i < s.size() && static_cast<unsigned char>(s[i]) >= 0x80) {
      char32_t cp;
      const size_t n = Decode(s, i, &cp);
      if (n == 0) return Status::InvalidArgument("invalid UTF-8 at byte " + std::to_string(i));
      run.push_back(fold_case ? ToLower(cp) : cp);
      i += n;
    }
    Decompose(run, &decomposed);
    ComposeCanonical(&decomposed);
    for (char32_t c : decomposed) Encode(c, out);
  }
  return Status::Ok();
}

Status NormalizeApprox(std::string_view s, bool fold_case, std::string* out) {
  out->clear();
  out->reserve(s.size());
  // Decomposition moves only marks (class > 0, never ASCII) past each other,
  // so decomposing one code point at a time keeps the same ASCII code points
  // in the same order as slapd's decomposition of a whole run.
  std::vector<char32_t> one(1), decomposed;
  for (size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x80) {
      out->push_back(AsciiFold(s[i], fold_case));
      ++i;
      continue;
    }
    char32_t cp;
    const size_t n = Decode(s, i, &cp);
    if (n == 0) return Status::InvalidArgument("invalid UTF-8 at byte " + std::to_string(i));
    i += n;
    one[0] = fold_case ? ToLower(cp) : cp;
    Decompose(one, &decomposed);
    for (char32_t c : decomposed) {
      if (c < 0x80) out->push_back(static_cast<char>(c));
    }
  }
  return Status::Ok();
}

}  // namespace dirload::lunicode
