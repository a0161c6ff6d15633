#include "lib/search/filter.h"

#include <utility>

#include "lib/schema/ascii.h"

namespace dirload {
namespace {

using schema_internal::DecodeUtf8;
using schema_internal::IsKeyChar;

bool IsSpace(char c) { return c == ' ' || c == '\t'; }

// Checks `attr` against RFC 4512's attributedescription: (descr / numericoid)
// *(";" 1*keychar). Returns the offset within `attr` of the first character
// that does not fit, or npos when it all fits.
size_t AttributeDescriptionError(std::string_view attr) {
  size_t i = 0;
  if (attr.empty()) return 0;
  if (IsAsciiAlpha(attr[0])) {
    while (i < attr.size() && IsKeyChar(attr[i])) ++i;
  } else if (IsAsciiDigit(attr[0])) {
    // number 1*( "." number ), no leading zeros.
    size_t components = 0;
    while (true) {
      const size_t start = i;
      while (i < attr.size() && IsAsciiDigit(attr[i])) ++i;
      if (i == start) return i;
      if (attr[start] == '0' && i - start > 1) return start;
      ++components;
      if (i < attr.size() && attr[i] == '.') {
        ++i;
        continue;
      }
      break;
    }
    if (components < 2) return i;
  } else {
    return 0;
  }
  while (i < attr.size()) {
    if (attr[i] != ';') return i;
    ++i;
    const size_t start = i;
    while (i < attr.size() && IsKeyChar(attr[i])) ++i;
    if (i == start) return i;  // empty option
  }
  return std::string_view::npos;
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Result<Filter> Run() {
    SkipSpaces();
    if (pos_ == text_.size()) return Error(pos_, "empty filter");
    Filter f;
    if (text_[pos_] == '(') {
      DIRLOAD_RETURN_IF_ERROR(ParseParenthesized(1, &f));
    } else {
      DIRLOAD_RETURN_IF_ERROR(ParseItem(/*bare=*/true, &f));
    }
    SkipSpaces();
    if (pos_ != text_.size()) {
      return Error(pos_,
                   "unexpected '" + std::string(1, text_[pos_]) + "' after the end of the filter");
    }
    return f;
  }

 private:
  Status Error(size_t offset, std::string_view what) const {
    return Status::ParseError("filter: offset " + std::to_string(offset) + ": " +
                              std::string(what));
  }

  void SkipSpaces() {
    while (pos_ < text_.size() && IsSpace(text_[pos_])) ++pos_;
  }

  // REQUIRES: text_[pos_] == '('
  Status ParseParenthesized(size_t depth, Filter* out) {
    if (depth > kMaxFilterDepth) {
      return Error(pos_,
                   "filter nested deeper than " + std::to_string(kMaxFilterDepth) + " levels");
    }
    const size_t open = pos_;
    ++pos_;
    SkipSpaces();
    if (pos_ == text_.size())
      return Error(pos_, "missing ')' for the '(' at offset " + std::to_string(open));
    const char c = text_[pos_];
    if (c == '&' || c == '|') {
      out->kind = c == '&' ? FilterKind::kAnd : FilterKind::kOr;
      ++pos_;
      while (true) {
        SkipSpaces();
        if (pos_ == text_.size()) {
          return Error(pos_, "missing ')' for the '(' at offset " + std::to_string(open));
        }
        if (text_[pos_] == ')') break;
        if (text_[pos_] != '(') return Error(pos_, "expected '(' or ')' in a filter list");
        Filter child;
        DIRLOAD_RETURN_IF_ERROR(ParseParenthesized(depth + 1, &child));
        out->children.push_back(std::move(child));
      }
    } else if (c == '!') {
      out->kind = FilterKind::kNot;
      ++pos_;
      SkipSpaces();
      if (pos_ == text_.size() || text_[pos_] != '(') {
        return Error(pos_, "expected '(' after '!'");
      }
      Filter child;
      DIRLOAD_RETURN_IF_ERROR(ParseParenthesized(depth + 1, &child));
      out->children.push_back(std::move(child));
      SkipSpaces();
      if (pos_ == text_.size()) {
        return Error(pos_, "missing ')' for the '(' at offset " + std::to_string(open));
      }
      if (text_[pos_] != ')') return Error(pos_, "expected ')': '!' takes exactly one filter");
    } else {
      DIRLOAD_RETURN_IF_ERROR(ParseItem(/*bare=*/false, out));
      if (pos_ == text_.size()) {
        return Error(pos_, "missing ')' for the '(' at offset " + std::to_string(open));
      }
    }
    ++pos_;  // the ')'
    return Status::Ok();
  }

  // An item: attr filtertype value. In a parenthesised item the value ends at
  // the ')' (left unconsumed); a bare item runs to the end of the input.
  Status ParseItem(bool bare, Filter* out) {
    const size_t attr_start = pos_;
    while (pos_ < text_.size() &&
           (IsKeyChar(text_[pos_]) || text_[pos_] == '.' || text_[pos_] == ';')) {
      ++pos_;
    }
    const std::string_view attr = text_.substr(attr_start, pos_ - attr_start);
    if (pos_ < text_.size() && text_[pos_] == ':') {
      return Status::Unsupported("filter: offset " + std::to_string(attr_start) +
                                 ": extensible match filters are not supported");
    }
    if (attr.empty()) return Error(attr_start, "expected an attribute description");
    if (size_t bad = AttributeDescriptionError(attr); bad != std::string_view::npos) {
      return Error(attr_start + bad, "invalid attribute description '" + std::string(attr) + "'");
    }
    if (pos_ == text_.size())
      return Error(pos_, "expected '=', '>=', '<=' or '~=' after '" + std::string(attr) + "'");
    FilterKind kind;
    const char c = text_[pos_];
    if (c == '=') {
      kind = FilterKind::kEquality;
      pos_ += 1;
    } else if ((c == '>' || c == '<' || c == '~') && pos_ + 1 < text_.size() &&
               text_[pos_ + 1] == '=') {
      kind = c == '>'   ? FilterKind::kGreaterOrEqual
             : c == '<' ? FilterKind::kLessOrEqual
                        : FilterKind::kApprox;
      pos_ += 2;
    } else {
      return Error(pos_, "expected '=', '>=', '<=' or '~=' after '" + std::string(attr) + "'");
    }
    out->kind = kind;
    out->attribute = std::string(attr);

    // The value, split at unescaped '*'.
    std::vector<std::string> parts(1);
    std::vector<size_t> star_offsets;
    while (pos_ < text_.size()) {
      const char v = text_[pos_];
      if (v == ')') {
        if (bare) return Error(pos_, "unescaped ')' in a value (write \\29)");
        break;
      }
      if (v == '(') return Error(pos_, "unescaped '(' in a value (write \\28)");
      if (v == '\0') return Error(pos_, "NUL byte in a value (write \\00)");
      if (v == '*') {
        if (kind != FilterKind::kEquality) {
          return Error(pos_, "'*' is only allowed in '=' items (write \\2a for a literal '*')");
        }
        star_offsets.push_back(pos_);
        parts.emplace_back();
        ++pos_;
        continue;
      }
      if (v == '\\') {
        if (pos_ + 2 < text_.size() && IsHexDigit(text_[pos_ + 1]) && IsHexDigit(text_[pos_ + 2])) {
          parts.back().push_back(static_cast<char>(HexDigitValue(text_[pos_ + 1]) * 16 +
                                                   HexDigitValue(text_[pos_ + 2])));
          pos_ += 3;
          continue;
        }
        if (pos_ + 1 < text_.size() && (text_[pos_ + 1] == '(' || text_[pos_ + 1] == ')' ||
                                        text_[pos_ + 1] == '*' || text_[pos_ + 1] == '\\')) {
          parts.back().push_back(text_[pos_ + 1]);
          pos_ += 2;
          continue;
        }
        return Error(pos_, "invalid escape: '\\' must be followed by two hexadecimal digits");
      }
      parts.back().push_back(v);
      ++pos_;
    }

    if (parts.size() == 1) {
      out->value = std::move(parts[0]);
      return Status::Ok();
    }
    if (parts.size() == 2 && parts[0].empty() && parts[1].empty()) {
      out->kind = FilterKind::kPresent;
      return Status::Ok();
    }
    out->kind = FilterKind::kSubstrings;
    for (size_t i = 1; i + 1 < parts.size(); ++i) {
      if (parts[i].empty()) return Error(star_offsets[i], "empty substring between two '*'");
    }
    if (!parts.front().empty()) out->initial = std::move(parts.front());
    if (!parts.back().empty()) out->final = std::move(parts.back());
    for (size_t i = 1; i + 1 < parts.size(); ++i) out->any.push_back(std::move(parts[i]));
    return Status::Ok();
  }

  std::string_view text_;
  size_t pos_ = 0;
};

void AppendEscaped(std::string_view value, std::string* out) {
  auto escape = [&](unsigned char b) {
    out->push_back('\\');
    AppendHexByte(b, out);
  };
  size_t i = 0;
  while (i < value.size()) {
    const auto b = static_cast<unsigned char>(value[i]);
    if (b < 0x80) {
      if (b < 0x20 || b == 0x7f || b == '(' || b == ')' || b == '*' || b == '\\') {
        escape(b);
      } else {
        out->push_back(static_cast<char>(b));
      }
      ++i;
      continue;
    }
    int32_t cp;
    const size_t n = DecodeUtf8(value, i, &cp);
    if (n == 0) {
      escape(b);
      ++i;
    } else {
      out->append(value.substr(i, n));
      i += n;
    }
  }
}

void AppendFilter(const Filter& f, std::string* out) {
  out->push_back('(');
  switch (f.kind) {
    case FilterKind::kAnd:
    case FilterKind::kOr:
    case FilterKind::kNot:
      out->push_back(f.kind == FilterKind::kAnd ? '&' : f.kind == FilterKind::kOr ? '|' : '!');
      for (const Filter& c : f.children) AppendFilter(c, out);
      break;
    case FilterKind::kEquality:
    case FilterKind::kGreaterOrEqual:
    case FilterKind::kLessOrEqual:
    case FilterKind::kApprox:
      out->append(f.attribute);
      out->append(f.kind == FilterKind::kEquality         ? "="
                  : f.kind == FilterKind::kGreaterOrEqual ? ">="
                  : f.kind == FilterKind::kLessOrEqual    ? "<="
                                                          : "~=");
      AppendEscaped(f.value, out);
      break;
    case FilterKind::kPresent:
      out->append(f.attribute);
      out->append("=*");
      break;
    case FilterKind::kSubstrings:
      out->append(f.attribute);
      out->push_back('=');
      if (f.initial) AppendEscaped(*f.initial, out);
      out->push_back('*');
      for (const std::string& a : f.any) {
        AppendEscaped(a, out);
        out->push_back('*');
      }
      if (f.final) AppendEscaped(*f.final, out);
      break;
  }
  out->push_back(')');
}

}  // namespace

std::string_view FilterKindName(FilterKind kind) {
  switch (kind) {
    case FilterKind::kAnd:
      return "and";
    case FilterKind::kOr:
      return "or";
    case FilterKind::kNot:
      return "not";
    case FilterKind::kEquality:
      return "equality";
    case FilterKind::kSubstrings:
      return "substrings";
    case FilterKind::kGreaterOrEqual:
      return ">=";
    case FilterKind::kLessOrEqual:
      return "<=";
    case FilterKind::kPresent:
      return "present";
    case FilterKind::kApprox:
      return "approx";
  }
  return "?";
}

std::string Filter::ToString() const {
  std::string out;
  AppendFilter(*this, &out);
  return out;
}

Filter Filter::And(std::vector<Filter> children) {
  Filter f;
  f.kind = FilterKind::kAnd;
  f.children = std::move(children);
  return f;
}

Filter Filter::Or(std::vector<Filter> children) {
  Filter f;
  f.kind = FilterKind::kOr;
  f.children = std::move(children);
  return f;
}

Filter Filter::Not(Filter child) {
  Filter f;
  f.kind = FilterKind::kNot;
  f.children.push_back(std::move(child));
  return f;
}

Filter Filter::Item(FilterKind kind, std::string attribute, std::string value) {
  Filter f;
  f.kind = kind;
  f.attribute = std::move(attribute);
  f.value = std::move(value);
  return f;
}

Result<Filter> ParseFilter(std::string_view text) { return Parser(text).Run(); }

}  // namespace dirload
