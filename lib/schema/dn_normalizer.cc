#include "lib/schema/dn_normalizer.h"

#include <cstring>

#include "lib/schema/attribute_type.h"
#include "lib/schema/dn.h"
#include "lib/schema/matching_rule.h"
#include "lib/schema/normalize.h"
#include "lib/schema/schema.h"
#include "lib/schema/syntax.h"
#include "lib/util/ascii.h"

namespace dirload {
namespace {

// Where the parser would end the leftmost RDN of `text`: the index of its
// ',' separator, or npos when that cannot be told without parsing (escapes,
// quotes, a ';' separator, spaces around the ',') or there is no parent.
size_t SimpleSplit(std::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    switch (text[i]) {
      case '\\':
      case '"':
      case ';':
        return std::string_view::npos;
      case ',':
        if (i == 0 || i + 1 >= text.size() || text[i - 1] == ' ' || text[i + 1] == ' ') {
          return std::string_view::npos;
        }
        return i;
      default:
        break;
    }
  }
  return std::string_view::npos;
}

}  // namespace

DnNormalizer::KnownType DnNormalizer::Classify(const AttributeType* type) {
  KnownType k;
  k.type = type;
  if (type == nullptr || type->equality == nullptr || type->syntax == nullptr) return k;
  const SyntaxKind syntax = type->syntax->kind;
  if (syntax != SyntaxKind::kDirectoryString && syntax != SyntaxKind::kIA5String) return k;
  switch (type->equality->normalizer) {
    case Normalizer::kCaseIgnore:
    case Normalizer::kCaseIgnoreIA5:
      k.plain = PlainValue::kLowered;
      break;
    case Normalizer::kCaseExact:
    case Normalizer::kCaseExactIA5:
      k.plain = PlainValue::kKept;
      break;
    default:
      break;
  }
  return k;
}

Status DnNormalizer::NormalizeRdn(std::string_view rdn, std::string* out) {
  std::string_view type_name, value;
  if (!IsPlainAva(rdn, &type_name, &value)) return NormalizeDn(*schema_, rdn, out);
  const KnownType* known = types_.Find(type_name);
  if (known == nullptr) {
    if (types_.size() >= kMaxCached) types_ = StringMap<KnownType>();
    known = types_.Insert(type_name, Classify(schema_->FindAttribute(type_name))).first;
  }
  const AttributeType* type = known->type;
  if (known->plain != PlainValue::kGeneral) {
    // The value is printable ASCII with no space first or last: valid in
    // both syntaxes, and the rule's preparation changes only its case and
    // runs of spaces. Without such a run, the result is written here.
    const std::string_view name = type->name();
    out->resize(name.size() + 1 + value.size());
    char* w = out->data();
    std::memcpy(w, name.data(), name.size());
    w += name.size();
    *w++ = '=';
    const bool lower = known->plain == PlainValue::kLowered;
    bool spaces = false;
    for (size_t i = 0; i < value.size(); ++i) {
      const char c = value[i];
      spaces |= c == ' ' && i > 0 && value[i - 1] == ' ';
      w[i] = lower ? AsciiLower(c) : c;
    }
    if (!spaces) return Status::Ok();
  }
  // What NormalizeDn does with one AVA; anything it refuses goes to it for
  // the message.
  if (type == nullptr || type->equality == nullptr || !ValidateValue(*type, value).ok() ||
      !NormalizeValue(*schema_, *type->equality, value, &value_).ok()) {
    return NormalizeDn(*schema_, rdn, out);
  }
  out->assign(type->name());
  out->push_back('=');
  AppendEscapedDnValue(value_, out);
  return Status::Ok();
}

Status DnNormalizer::Normalize(std::string_view text, std::string* out) {
  const size_t comma = SimpleSplit(text);
  if (comma == std::string_view::npos) return NormalizeDn(*schema_, text, out);
  const std::string_view parent = text.substr(comma + 1);
  const std::string* nparent = parents_.Find(parent);
  if (nparent == nullptr) {
    std::string normalized;
    if (!NormalizeDn(*schema_, parent, &normalized).ok()) return NormalizeDn(*schema_, text, out);
    if (parents_.size() >= kMaxCached) parents_ = StringMap<std::string>();
    nparent = parents_.Insert(parent, std::move(normalized)).first;
  }
  if (!NormalizeRdn(text.substr(0, comma), &rdn_).ok()) {
    return NormalizeDn(*schema_, text, out);
  }
  out->assign(rdn_);
  out->push_back(',');
  out->append(*nparent);
  return Status::Ok();
}

}  // namespace dirload
