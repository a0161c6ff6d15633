#include "lib/schema/string_prep.h"

#include <utf8proc.h>

#include <vector>

#include "lib/schema/ascii.h"

namespace dirload::schema_internal {
namespace {

// Collapses runs of SPACE as SubstringPosition asks. Feed it characters one at
// a time (as byte strings, so multi-byte characters pass whole); a SPACE that
// is followed by a combining mark is not "a space" in RFC 4518's sense and is
// fed with is_space = false.
class SpaceFolder {
 public:
  SpaceFolder(SubstringPosition pos, std::string* out)
      : keep_leading_(pos == SubstringPosition::kAny || pos == SubstringPosition::kFinal),
        keep_trailing_(pos == SubstringPosition::kInitial || pos == SubstringPosition::kAny),
        out_(out) {
    out_->clear();
  }

  void Space() {
    saw_space_ = true;
    if (seen_other_ || keep_leading_) pending_ = true;
  }
  void Char(char c) {
    Flush();
    out_->push_back(c);
  }
  void Chars(std::string_view s) {
    Flush();
    out_->append(s);
  }
  void Finish() {
    if (pending_ && keep_trailing_) out_->push_back(' ');
    // An all-space (or empty) value still has to compare equal to other
    // all-space values and unequal to everything else: one SPACE does both.
    if (!seen_other_ && (saw_space_ || (!keep_leading_ && !keep_trailing_))) out_->assign(" ");
  }

 private:
  void Flush() {
    if (pending_) out_->push_back(' ');
    pending_ = false;
    seen_other_ = true;
  }

  const bool keep_leading_;
  const bool keep_trailing_;
  std::string* out_;
  bool pending_ = false;
  bool seen_other_ = false;
  bool saw_space_ = false;
};

// RFC 4518 2.2: code points mapped to nothing (controls, format characters,
// zero-width space, soft hyphens, variation selectors, object replacement).
bool MapsToNothing(int32_t c) {
  if (c <= 0x08 || (c >= 0x0E && c <= 0x1F) || (c >= 0x7F && c <= 0x84) ||
      (c >= 0x86 && c <= 0x9F)) {
    return true;
  }
  if (c < 0xAD) return false;
  switch (c) {
    case 0x00AD:
    case 0x034F:
    case 0x06DD:
    case 0x070F:
    case 0x1806:
    case 0x180E:
    case 0x200B:
    case 0xFEFF:
    case 0xFFFC:
    case 0xE0001:
      return true;
    default:
      break;
  }
  return (c >= 0x180B && c <= 0x180D) || (c >= 0x200C && c <= 0x200F) ||
         (c >= 0x202A && c <= 0x202E) || (c >= 0x2060 && c <= 0x2063) ||
         (c >= 0x206A && c <= 0x206F) || (c >= 0xFE00 && c <= 0xFE0F) ||
         (c >= 0xFFF9 && c <= 0xFFFB) || (c >= 0x1D173 && c <= 0x1D17A) ||
         (c >= 0xE0020 && c <= 0xE007F);
}

// RFC 4518 2.2: TAB, LF, VT, FF, CR, NEL and every other separator character
// become SPACE.
bool MapsToSpace(int32_t c) {
  if ((c >= 0x09 && c <= 0x0D) || c == 0x85 || c == 0x20) return true;
  if (c < 0xA0) return false;
  const utf8proc_category_t cat = utf8proc_category(c);
  return cat == UTF8PROC_CATEGORY_ZS || cat == UTF8PROC_CATEGORY_ZL || cat == UTF8PROC_CATEGORY_ZP;
}

bool IsCombiningMark(int32_t c) {
  const utf8proc_category_t cat = utf8proc_category(c);
  return cat == UTF8PROC_CATEGORY_MN || cat == UTF8PROC_CATEGORY_MC || cat == UTF8PROC_CATEGORY_ME;
}

// The byte loop behind both the ASCII fast path and the IA5 rules. Same
// result as feeding SpaceFolder, but writes through a raw pointer into a
// buffer sized once: every output byte stands for at least one input byte,
// so in.size() is enough (this loop runs on every indexed value).
// The common case, branch-free so the compiler vectorises it: no control
// characters, no space at either edge, no two spaces in a row. Then the
// prepared string is the input, lower-cased if asked. Returns false, with
// *out unspecified, when the value needs the general loop.
bool PrepareSimpleAscii(std::string_view in, bool fold_case, std::string* out) {
  const size_t n = in.size();
  if (n == 0 || in.front() == ' ' || in.back() == ' ') return false;
  out->resize(n);
  const auto* src = reinterpret_cast<const unsigned char*>(in.data());
  auto* dst = reinterpret_cast<unsigned char*>(out->data());
  const unsigned char fold = fold_case ? 32 : 0;
  unsigned special = 0;
  for (size_t i = 0; i < n; ++i) {
    const unsigned char c = src[i];
    special |= static_cast<unsigned>(c < 0x20) | static_cast<unsigned>(c == 0x7F);
    dst[i] = static_cast<unsigned char>(c + (static_cast<unsigned char>(c - 'A') < 26 ? fold : 0));
  }
  for (size_t i = 0; i + 1 < n; ++i) {
    special |= static_cast<unsigned>(src[i] == ' ') & static_cast<unsigned>(src[i + 1] == ' ');
  }
  return special == 0;
}

void PrepareAscii(std::string_view in, bool fold_case, SubstringPosition pos, std::string* out) {
  if (PrepareSimpleAscii(in, fold_case, out)) return;
  const bool keep_leading = pos == SubstringPosition::kAny || pos == SubstringPosition::kFinal;
  const bool keep_trailing = pos == SubstringPosition::kInitial || pos == SubstringPosition::kAny;
  out->resize(in.size());
  char* const begin = out->data();
  char* w = begin;
  bool pending = false, seen_other = false, saw_space = false;
  for (char ch : in) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == ' ' || (c >= 0x09 && c <= 0x0D)) {
      saw_space = true;
      pending = seen_other || keep_leading;
      continue;
    }
    if (c < 0x20 || c == 0x7F) continue;  // mapped to nothing
    if (pending) {
      *w++ = ' ';
      pending = false;
    }
    seen_other = true;
    *w++ = fold_case && static_cast<unsigned>(c - 'A') < 26u ? static_cast<char>(c + 32) : ch;
  }
  if (pending && keep_trailing) *w++ = ' ';
  out->resize(static_cast<size_t>(w - begin));
  if (!seen_other && (saw_space || (!keep_leading && !keep_trailing))) out->assign(" ");
}

}  // namespace

Status PrepareUnicode(std::string_view in, bool fold_case, SubstringPosition pos,
                      std::string* out) {
  if (IsAllAscii(in)) {
    PrepareAscii(in, fold_case, pos, out);
    return Status::Ok();
  }

  // Map step, producing UTF-8 again so utf8proc can decompose and reorder.
  std::string mapped;
  mapped.reserve(in.size());
  for (size_t i = 0; i < in.size();) {
    int32_t cp;
    const size_t n = DecodeUtf8(in, i, &cp);
    if (n == 0) {
      return Status::InvalidArgument("invalid UTF-8 at byte " + std::to_string(i));
    }
    i += n;
    if (MapsToNothing(cp)) continue;
    AppendUtf8(MapsToSpace(cp) ? 0x20 : cp, &mapped);
  }

  // NFKC, done by utf8proc in two steps so no intermediate malloc'd string is
  // needed: decompose into code points, then compose and re-encode in place.
  // Case is folded one code point at a time between the two steps, as
  // OpenLDAP folds it: ß stays ß and final sigma stays final sigma (full
  // Unicode case folding would make them "ss" and sigma, and answers would
  // differ from slapd's).
  const auto options =
      static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPAT | UTF8PROC_COMPOSE);
  std::vector<utf8proc_int32_t> buf(mapped.size() + 16);
  utf8proc_ssize_t n;
  for (;;) {
    n = utf8proc_decompose(reinterpret_cast<const utf8proc_uint8_t*>(mapped.data()),
                           static_cast<utf8proc_ssize_t>(mapped.size()), buf.data(),
                           static_cast<utf8proc_ssize_t>(buf.size()), options);
    if (n < 0)
      return Status::InvalidArgument(std::string("Unicode normalisation failed: ") +
                                     utf8proc_errmsg(n));
    if (static_cast<size_t>(n) <= buf.size()) break;
    buf.resize(static_cast<size_t>(n));
  }
  if (fold_case) {
    for (utf8proc_ssize_t k = 0; k < n; ++k) buf[k] = utf8proc_tolower(buf[k]);
  }
  // reencode needs room for 4 bytes per code point, which the int32 buffer has.
  const utf8proc_ssize_t bytes = utf8proc_reencode(buf.data(), n, options);
  if (bytes < 0) {
    return Status::InvalidArgument(std::string("Unicode normalisation failed: ") +
                                   utf8proc_errmsg(bytes));
  }
  const std::string_view nfkc(reinterpret_cast<const char*>(buf.data()),
                              static_cast<size_t>(bytes));

  SpaceFolder folder(pos, out);
  for (size_t i = 0; i < nfkc.size();) {
    int32_t cp;
    const size_t len = DecodeUtf8(nfkc, i, &cp);
    if (len == 0) return Status::Internal("utf8proc produced malformed UTF-8");
    if (cp == 0x20) {
      int32_t next = 0;
      const bool combining =
          i + 1 < nfkc.size() && DecodeUtf8(nfkc, i + 1, &next) != 0 && IsCombiningMark(next);
      if (combining) {
        folder.Char(' ');
      } else {
        folder.Space();
      }
    } else {
      folder.Chars(nfkc.substr(i, len));
    }
    i += len;
  }
  folder.Finish();
  return Status::Ok();
}

void PrepareIA5(std::string_view in, bool fold_case, SubstringPosition pos, std::string* out) {
  // Bytes above 0x7F are ordinary characters to the byte loop: kept, not folded.
  PrepareAscii(in, fold_case, pos, out);
}

void RemoveSpaces(std::string* s) {
  size_t w = 0;
  for (char c : *s) {
    if (c != ' ') (*s)[w++] = c;
  }
  s->resize(w);
}

void RemoveSpacesAndHyphens(std::string* s) {
  std::string& v = *s;
  size_t w = 0;
  for (size_t i = 0; i < v.size();) {
    const auto c = static_cast<unsigned char>(v[i]);
    if (c == ' ' || c == '-') {
      ++i;
      continue;
    }
    if (c >= 0x80) {
      int32_t cp;
      const size_t len = DecodeUtf8(v, i, &cp);
      if (len != 0 && (cp == 0x058A || cp == 0x2010 || cp == 0x2011 || cp == 0x2212 ||
                       cp == 0xFE63 || cp == 0xFF0D)) {
        i += len;
        continue;
      }
      const size_t n = len == 0 ? 1 : len;
      for (size_t k = 0; k < n; ++k) v[w++] = v[i + k];
      i += n;
      continue;
    }
    v[w++] = v[i++];
  }
  v.resize(w);
}

}  // namespace dirload::schema_internal
