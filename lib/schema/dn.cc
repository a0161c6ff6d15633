#include "lib/schema/dn.h"

#include <algorithm>
#include <utility>

#include "lib/schema/ascii.h"
#include "lib/schema/lunicode.h"
#include "lib/schema/normalize.h"
#include "lib/schema/schema.h"
#include "lib/util/coding.h"

namespace dirload {
namespace {

using schema_internal::IsKeyChar;

// RFC 4514 characters that an escape may name directly ("\,").
bool IsEscapable(char c) {
  switch (c) {
    case ' ':
    case '"':
    case '#':
    case '+':
    case ',':
    case ';':
    case '<':
    case '=':
    case '>':
    case '\\':
      return true;
    default:
      return false;
  }
}

class DnParser {
 public:
  explicit DnParser(std::string_view text) : text_(text) {}

  Result<Dn> Parse() {
    Dn dn;
    DIRLOAD_RETURN_IF_ERROR(Parse(&dn));
    return dn;
  }

  // Into `dn`, whose vectors keep their memory.
  Status Parse(Dn* dn) {
    size_t used = 0;
    bool more = false;
    Status st = Start(&more);
    while (st.ok() && more) {
      if (used == dn->rdns.size()) dn->rdns.emplace_back();
      st = NextRdn(&dn->rdns[used++], &more);
    }
    dn->rdns.resize(used);
    return st;
  }

  // Streaming interface, so normalisation needs no Dn: Start() says whether
  // there is a first RDN; each NextRdn() fills *rdn (clearing it first) and
  // says whether another follows.
  Status Start(bool* more) {
    SkipSpaces();
    if (pos_ == text_.size() && !text_.empty()) return Error("DN consists only of spaces");
    *more = pos_ < text_.size();
    return Status::Ok();
  }

  Status NextRdn(Rdn* rdn, bool* more) {
    rdn->clear();
    for (;;) {
      Ava& ava = rdn->emplace_back();
      DIRLOAD_RETURN_IF_ERROR(ParseAva(&ava));
      if (pos_ == text_.size()) {
        *more = false;
        return Status::Ok();
      }
      const char sep = text_[pos_];
      if (sep == '+') {
        ++pos_;
        continue;
      }
      if (sep == ',' || sep == ';') {
        ++pos_;
        SkipSpaces();
        if (pos_ == text_.size()) return Error("separator at the end, RDN missing");
        *more = true;
        return Status::Ok();
      }
      return Error(std::string("unexpected '") + sep + "' after a value");
    }
  }

 private:
  Status Error(std::string_view what) const { return ErrorAt(pos_, what); }
  Status ErrorAt(size_t pos, std::string_view what) const {
    return Status::InvalidArgument("invalid DN '" + std::string(text_) + "': " + std::string(what) +
                                   " at offset " + std::to_string(pos));
  }

  void SkipSpaces() {
    while (pos_ < text_.size() && text_[pos_] == ' ') ++pos_;
  }

  Status ParseAva(Ava* ava) {
    SkipSpaces();
    const size_t start = pos_;
    if (pos_ == text_.size()) return Error("attribute type missing");
    if (IsAsciiAlpha(text_[pos_])) {
      while (pos_ < text_.size() && IsKeyChar(text_[pos_])) ++pos_;
    } else if (IsAsciiDigit(text_[pos_])) {
      while (pos_ < text_.size() && (IsAsciiDigit(text_[pos_]) || text_[pos_] == '.')) ++pos_;
      if (!schema_internal::IsNumericOid(text_.substr(start, pos_ - start))) {
        return ErrorAt(start, "malformed numeric OID");
      }
    } else if (text_[pos_] == '=') {
      return Error("empty attribute type");
    } else {
      return Error("attribute type expected");
    }
    ava->type.assign(text_.substr(start, pos_ - start));
    // Options ("cn;lang-en=") are accepted and dropped, as slapd does.
    while (pos_ < text_.size() && text_[pos_] == ';' && pos_ + 1 < text_.size() &&
           IsKeyChar(text_[pos_ + 1])) {
      ++pos_;
      while (pos_ < text_.size() && IsKeyChar(text_[pos_])) ++pos_;
    }
    SkipSpaces();
    if (pos_ == text_.size() || text_[pos_] != '=') {
      return Error("'=' expected after attribute type '" + ava->type + "'");
    }
    ++pos_;
    SkipSpaces();
    const size_t value_start = pos_;
    if (pos_ < text_.size() && text_[pos_] == '#') {
      DIRLOAD_RETURN_IF_ERROR(ParseHexValue(ava));
    } else if (pos_ < text_.size() && text_[pos_] == '"') {
      DIRLOAD_RETURN_IF_ERROR(ParseQuotedValue(ava));
    } else {
      DIRLOAD_RETURN_IF_ERROR(ParseStringValue(ava));
    }
    if (!ava->ber && !lunicode::IsSlapdUtf8(ava->value)) {
      return ErrorAt(value_start, "value is not valid UTF-8");
    }
    return Status::Ok();
  }

  Status ParseHexValue(Ava* ava) {
    ++pos_;  // '#'
    const size_t start = pos_;
    while (pos_ + 1 < text_.size() && IsHexDigit(text_[pos_]) && IsHexDigit(text_[pos_ + 1])) {
      ava->value.push_back(
          static_cast<char>(HexDigitValue(text_[pos_]) * 16 + HexDigitValue(text_[pos_ + 1])));
      pos_ += 2;
    }
    if (pos_ == start) return Error("hex pairs expected after '#'");
    ava->ber = true;
    SkipSpaces();
    if (pos_ < text_.size() && !IsSeparator(text_[pos_]))
      return Error("bad character in #hex value");
    return Status::Ok();
  }

  Status ParseQuotedValue(Ava* ava) {
    const size_t open = pos_++;
    for (;;) {
      if (pos_ == text_.size()) return ErrorAt(open, "unterminated quoted value");
      const char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        break;
      }
      if (c == '\\') {
        DIRLOAD_RETURN_IF_ERROR(ParseEscape(&ava->value));
        continue;
      }
      ava->value.push_back(c);
      ++pos_;
    }
    SkipSpaces();
    if (pos_ < text_.size() && !IsSeparator(text_[pos_])) {
      return Error("characters after a quoted value");
    }
    return Status::Ok();
  }

  Status ParseStringValue(Ava* ava) {
    // Unescaped trailing spaces are insignificant; escaped ones are kept.
    size_t significant = 0;
    while (pos_ < text_.size()) {
      // Copy a run of ordinary characters at once; most values are nothing else.
      size_t run = pos_;
      while (run < text_.size() && IsPlain(text_[run])) ++run;
      if (run > pos_) {
        ava->value.append(text_.substr(pos_, run - pos_));
        pos_ = run;
        significant = ava->value.size();
        continue;
      }
      const char c = text_[pos_];
      if (IsSeparator(c)) break;
      if (c == '\\') {
        DIRLOAD_RETURN_IF_ERROR(ParseEscape(&ava->value));
        significant = ava->value.size();
        continue;
      }
      if (c == '"' || c == '<' || c == '>') {
        return Error(std::string("unescaped '") + c + "' in value");
      }
      if (c == '\0') return Error("NUL byte in value");
      ava->value.push_back(c);
      ++pos_;
      if (c != ' ') significant = ava->value.size();
    }
    ava->value.resize(significant);
    return Status::Ok();
  }

  Status ParseEscape(std::string* out) {
    const size_t at = pos_++;
    if (pos_ == text_.size()) return ErrorAt(at, "unterminated escape");
    const char c = text_[pos_];
    if (IsHexDigit(c)) {
      if (pos_ + 1 >= text_.size() || !IsHexDigit(text_[pos_ + 1])) {
        return ErrorAt(at, "incomplete hex escape");
      }
      out->push_back(static_cast<char>(HexDigitValue(c) * 16 + HexDigitValue(text_[pos_ + 1])));
      pos_ += 2;
      return Status::Ok();
    }
    if (!IsEscapable(c)) return ErrorAt(at, std::string("invalid escape '\\") + c + "'");
    out->push_back(c);
    ++pos_;
    return Status::Ok();
  }

  static bool IsSeparator(char c) { return c == ',' || c == ';' || c == '+'; }
  // Not a separator, escape, quote, angle bracket, space or NUL.
  static bool IsPlain(char c) {
    switch (c) {
      case ',':
      case ';':
      case '+':
      case '\\':
      case '"':
      case '<':
      case '>':
      case ' ':
      case '\0':
        return false;
      default:
        return true;
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

bool IsPlainAva(std::string_view rdn, std::string_view* type, std::string_view* value) {
  const size_t eq = rdn.find('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == rdn.size()) return false;
  *type = rdn.substr(0, eq);
  *value = rdn.substr(eq + 1);
  if (!IsAsciiAlpha(type->front())) return false;
  for (char c : *type) {
    if (!IsKeyChar(c)) return false;
  }
  if (value->front() == ' ' || value->front() == '#' || value->back() == ' ') return false;
  for (char c : *value) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7F) return false;
    switch (c) {
      case '\\':
      case '"':
      case '+':
      case ',':
      case ';':
      case '<':
      case '>':
      case '=':
        return false;
      default:
        break;
    }
  }
  return true;
}

Status ParseLeftmostRdn(std::string_view text, Dn* out) {
  if (IsPlainDn(text)) {
    const std::string_view rdn = text.substr(0, std::min(text.find(','), text.size()));
    if (ParseDn(rdn, out).ok() && out->size() == 1) return Status::Ok();
  }
  DIRLOAD_RETURN_IF_ERROR(ParseDn(text, out));
  if (!out->empty()) out->rdns.resize(1);
  return Status::Ok();
}

bool IsPlainDn(std::string_view dn) {
  if (dn.empty()) return false;
  for (size_t start = 0;;) {
    const size_t comma = dn.find(',', start);
    const size_t end = comma == std::string_view::npos ? dn.size() : comma;
    std::string_view type, value;
    if (!IsPlainAva(dn.substr(start, end - start), &type, &value)) return false;
    if (comma == std::string_view::npos) return true;
    start = comma + 1;
  }
}

void AppendEscapedDnValue(std::string_view v, std::string* out) {
  size_t plain_from = 0;  // start of the run of bytes not yet copied
  for (size_t i = 0; i < v.size(); ++i) {
    const auto c = static_cast<unsigned char>(v[i]);
    // libldap's normalised form (LDAPv3, pretty) escapes NUL only among the
    // control characters: a TAB or U+007F in a value is written as is.
    bool escape = c == 0;
    switch (c) {
      case ',':
      case '+':
      case '"':
      case '\\':
      case '<':
      case '>':
      case ';':
      case '=':
        escape = true;
        break;
      case '#':
        escape = escape || i == 0;
        break;
      case ' ':
        escape = escape || i == 0 || i + 1 == v.size();
        break;
      default:
        break;
    }
    if (!escape) continue;
    out->append(v.substr(plain_from, i - plain_from));
    const char hex[3] = {'\\', kUpperHexDigits[c >> 4], kUpperHexDigits[c & 0xF]};
    out->append(hex, 3);
    plain_from = i + 1;
  }
  out->append(v.substr(plain_from));
}

namespace {

struct NormalizedAva {
  const AttributeType* type;
  std::string value;  // normalised and escaped
};

}  // namespace

Dn Dn::Parent() const {
  Dn parent;
  parent.rdns.assign(rdns.begin() + 1, rdns.end());
  return parent;
}

std::string Dn::ToString() const {
  std::string out;
  for (size_t r = 0; r < rdns.size(); ++r) {
    if (r > 0) out.push_back(',');
    for (size_t a = 0; a < rdns[r].size(); ++a) {
      const Ava& ava = rdns[r][a];
      if (a > 0) out.push_back('+');
      out += ava.type;
      out.push_back('=');
      if (ava.ber) {
        out.push_back('#');
        for (unsigned char c : ava.value) AppendHexByte(c, &out, kUpperHexDigits);
        continue;
      }
      for (size_t i = 0; i < ava.value.size(); ++i) {
        const auto c = static_cast<unsigned char>(ava.value[i]);
        const bool special = c == ',' || c == '+' || c == '"' || c == '\\' || c == '<' ||
                             c == '>' || c == ';' || (c == '#' && i == 0) ||
                             (c == ' ' && (i == 0 || i + 1 == ava.value.size()));
        if (special) {
          out.push_back('\\');
          out.push_back(static_cast<char>(c));
        } else if (c < 0x20 || c == 0x7F) {
          out.push_back('\\');
          AppendHexByte(c, &out, kUpperHexDigits);
        } else {
          out.push_back(static_cast<char>(c));
        }
      }
    }
  }
  return out;
}

Result<Dn> ParseDn(std::string_view text) { return DnParser(text).Parse(); }

Status ParseDn(std::string_view text, Dn* out) { return DnParser(text).Parse(out); }

namespace {

// Normalises one RDN and appends it to *out. `avas` and `scratch` are
// buffers reused across RDNs. `fail` turns a reason into the final Status.
template <typename Fail>
Status AppendNormalizedRdn(const Schema& schema, const Rdn& rdn, std::vector<NormalizedAva>* avas,
                           std::string* scratch, std::string* out, const Fail& fail) {
  avas->clear();
  for (const Ava& ava : rdn) {
    const AttributeType* type = schema.FindAttribute(ava.type);
    if (type == nullptr) return fail("undefined attribute type '" + ava.type + "'");
    if (type->equality == nullptr) {
      return fail("attribute type '" + ava.type + "' has no equality matching rule");
    }
    if (ava.ber) return fail("#hex (BER) value of '" + ava.type + "' is not supported");
    if (ava.value.empty()) return fail("empty value for '" + ava.type + "'");
    if (Status st = ValidateValue(*type, ava.value); !st.ok()) return fail(st.message());
    if (Status st = NormalizeValue(schema, *type->equality, ava.value, scratch); !st.ok()) {
      return fail("value of '" + ava.type + "': " + st.message());
    }
    for (const NormalizedAva& seen : *avas) {
      if (seen.type == type) {
        return fail("attribute type '" + std::string(type->name()) + "' twice in one RDN");
      }
    }
    NormalizedAva& n = avas->emplace_back(NormalizedAva{type, {}});
    AppendEscapedDnValue(*scratch, &n.value);
  }
  if (avas->size() > 1) {
    std::sort(avas->begin(), avas->end(), [](const NormalizedAva& a, const NormalizedAva& b) {
      return a.type->name() < b.type->name();
    });
  }
  for (size_t a = 0; a < avas->size(); ++a) {
    if (a > 0) out->push_back('+');
    out->append((*avas)[a].type->name());
    out->push_back('=');
    out->append((*avas)[a].value);
  }
  return Status::Ok();
}

}  // namespace

Status NormalizeDn(const Schema& schema, const Dn& dn, std::string* out) {
  out->clear();
  std::vector<NormalizedAva> avas;
  std::string scratch;
  const auto fail = [&](std::string_view why) {
    return Status::InvalidArgument("invalid DN '" + dn.ToString() + "': " + std::string(why));
  };
  for (size_t r = 0; r < dn.rdns.size(); ++r) {
    if (r > 0) out->push_back(',');
    DIRLOAD_RETURN_IF_ERROR(AppendNormalizedRdn(schema, dn.rdns[r], &avas, &scratch, out, fail));
  }
  return Status::Ok();
}

Status NormalizeDn(const Schema& schema, std::string_view text, std::string* out) {
  // RDN by RDN, with buffers reused, so the common DN costs no allocation
  // beyond *out (this runs for every entry and every DN-valued attribute).
  out->clear();
  DnParser parser(text);
  bool more = false;
  DIRLOAD_RETURN_IF_ERROR(parser.Start(&more));
  Rdn rdn;
  std::vector<NormalizedAva> avas;
  std::string scratch;
  const auto fail = [&](std::string_view why) {
    return Status::InvalidArgument("invalid DN '" + std::string(text) + "': " + std::string(why));
  };
  bool first = true;
  while (more) {
    DIRLOAD_RETURN_IF_ERROR(parser.NextRdn(&rdn, &more));
    if (!first) out->push_back(',');
    first = false;
    DIRLOAD_RETURN_IF_ERROR(AppendNormalizedRdn(schema, rdn, &avas, &scratch, out, fail));
  }
  return Status::Ok();
}

Result<std::string> NormalizeDn(const Schema& schema, std::string_view text) {
  std::string out;
  DIRLOAD_RETURN_IF_ERROR(NormalizeDn(schema, text, &out));
  return out;
}

std::string_view ParentDn(std::string_view normalized_dn) {
  const size_t comma = normalized_dn.find(',');
  return comma == std::string_view::npos ? std::string_view() : normalized_dn.substr(comma + 1);
}

bool IsUnder(std::string_view dn, std::string_view suffix) {
  if (suffix.empty() || dn == suffix) return true;
  return dn.size() > suffix.size() && dn.ends_with(suffix) &&
         dn[dn.size() - suffix.size() - 1] == ',';
}

void DnSortKey(std::string_view normalized_dn, std::string* key) {
  key->clear();
  key->reserve(normalized_dn.size());
  size_t end = normalized_dn.size();
  while (end > 0) {
    const size_t comma = normalized_dn.rfind(',', end - 1);
    const size_t start = comma == std::string_view::npos ? 0 : comma + 1;
    if (!key->empty()) key->push_back('\0');
    key->append(normalized_dn.substr(start, end - start));
    if (comma == std::string_view::npos) break;
    end = comma;
  }
}

std::string DnSortKey(std::string_view normalized_dn) {
  std::string key;
  DnSortKey(normalized_dn, &key);
  return key;
}

std::string DnDescendantPrefix(std::string_view sort_key) {
  std::string prefix(sort_key);
  if (!prefix.empty()) prefix.push_back('\0');
  return prefix;
}

std::string_view DnSortKeyParent(std::string_view sort_key) {
  const size_t sep = sort_key.rfind('\0');
  return sep == std::string_view::npos ? std::string_view() : sort_key.substr(0, sep);
}

uint64_t Dn2IdHash(std::string_view sort_key) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : sort_key) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  }
  // FNV-1a alone spreads the last bytes poorly; long keys differ only there.
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

std::string_view Dn2IdKey(std::string_view sort_key, std::string* buffer) {
  if (!IsLongDn2IdKey(sort_key)) return sort_key;
  buffer->assign(sort_key.substr(0, kDn2IdKeyPrefix));
  PutBigEndian64(Dn2IdHash(sort_key), buffer);
  return *buffer;
}

void AppendDn2IdValue(uint64_t id, std::string_view sort_key, std::string* out) {
  PutBigEndian64(id, out);
  if (IsLongDn2IdKey(sort_key)) out->append(sort_key);
}

bool DecodeDn2IdRecord(std::string_view key, std::string_view value, Dn2IdRecord* out) {
  if (value.size() < 8) return false;
  out->id = GetBigEndian64(value);
  if (value.size() == 8) {
    out->sort_key = key;
    return true;
  }
  out->sort_key = value.substr(8);
  if (!IsLongDn2IdKey(out->sort_key)) return false;
  std::string expected;
  return Dn2IdKey(out->sort_key, &expected) == key;
}

std::string_view Dn2IdScanPrefix(std::string_view descendant_prefix) {
  return descendant_prefix.substr(0, std::min(descendant_prefix.size(), kDn2IdKeyPrefix));
}

}  // namespace dirload
