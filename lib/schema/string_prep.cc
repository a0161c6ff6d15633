#include "lib/schema/string_prep.h"

#include "lib/schema/ascii.h"
#include "lib/schema/lunicode.h"

namespace dirload::schema_internal {
namespace {

// UTF8StringNormalize's space handling, from `in` (already through
// lunicode::Normalize, or ASCII folded) to *out. Only U+0020 counts.
void FoldSpaces(std::string_view in, SubstringPosition pos, std::string* out) {
  const bool keep_leading = pos == SubstringPosition::kAny || pos == SubstringPosition::kFinal;
  const bool keep_trailing = pos == SubstringPosition::kInitial || pos == SubstringPosition::kAny;
  out->resize(in.size());
  char* const begin = out->data();
  char* w = begin;
  bool after_space = !keep_leading;
  for (char c : in) {
    if (c == ' ') {
      if (!after_space) *w++ = ' ';
      after_space = true;
    } else {
      after_space = false;
      *w++ = c;
    }
  }
  if (w != begin) {
    if (after_space && !keep_trailing) --w;
    out->resize(static_cast<size_t>(w - begin));
  } else if (!in.empty()) {
    // All spaces: one space. (A final fragment that was one space loses it
    // to the trailing trim above and stays empty, as in slapd.)
    out->assign(" ");
  } else {
    out->clear();
  }
}

// The common whole value, branch-free so the compiler vectorises it: no space
// at either edge, no two spaces in a row. Then the prepared string is the
// input, lower-cased if asked. Returns false, with *out unspecified, when the
// value needs FoldSpaces.
bool PrepareSimpleAscii(std::string_view in, bool fold_case, std::string* out) {
  const size_t n = in.size();
  if (n == 0 || in.front() == ' ' || in.back() == ' ') return false;
  out->resize(n);
  const auto* src = reinterpret_cast<const unsigned char*>(in.data());
  auto* dst = reinterpret_cast<unsigned char*>(out->data());
  const unsigned char fold = fold_case ? 32 : 0;
  for (size_t i = 0; i < n; ++i) {
    const unsigned char c = src[i];
    dst[i] = static_cast<unsigned char>(c + (static_cast<unsigned char>(c - 'A') < 26 ? fold : 0));
  }
  unsigned doubled = 0;
  for (size_t i = 0; i + 1 < n; ++i) {
    doubled |= static_cast<unsigned>(src[i] == ' ') & static_cast<unsigned>(src[i + 1] == ' ');
  }
  return doubled == 0;
}

}  // namespace

Status PrepareUnicode(std::string_view in, bool fold_case, SubstringPosition pos,
                      std::string* out) {
  std::string normalized;
  if (IsAllAscii(in)) {
    if (pos == SubstringPosition::kWhole && PrepareSimpleAscii(in, fold_case, out)) {
      return Status::Ok();
    }
    normalized.assign(in);
    if (fold_case) {
      for (char& c : normalized) c = AsciiLower(c);
    }
  } else {
    DIRLOAD_RETURN_IF_ERROR(lunicode::Normalize(in, fold_case, &normalized));
  }
  FoldSpaces(normalized, pos, out);
  return Status::Ok();
}

void PrepareIA5(std::string_view in, bool fold_case, std::string* out) {
  if (const size_t nul = in.find('\0'); nul != std::string_view::npos) in = in.substr(0, nul);
  size_t i = 0;
  while (i < in.size() && in[i] == ' ') ++i;
  out->resize(in.size() - i);
  char* const begin = out->data();
  char* w = begin;
  while (i < in.size()) {
    const char c = in[i++];
    if (c == ' ') {
      *w++ = ' ';
      while (i < in.size() && in[i] == ' ') ++i;
    } else {
      *w++ = fold_case ? AsciiLower(c) : c;
    }
  }
  if (w != begin && w[-1] == ' ') --w;
  out->resize(static_cast<size_t>(w - begin));
}

void PrepareNumericString(std::string_view in, std::string* out) {
  out->clear();
  for (char c : in) {
    if (c == '\0') break;
    if (c != ' ') out->push_back(c);
  }
  if (out->empty()) out->assign(" ");
}

void PrepareTelephoneNumber(std::string_view in, std::string* out) {
  out->clear();
  for (char c : in) {
    if (c != ' ' && c != '-') out->push_back(c);
  }
  if (out->empty()) out->assign(" ");
}

}  // namespace dirload::schema_internal
