#include "lib/index/index_spec.h"

#include <algorithm>

#include "lib/schema/approx_match.h"
#include "lib/store/tables.h"
#include "lib/util/ascii.h"

namespace dirload {
namespace {

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(sep, start);
    if (end == std::string_view::npos) end = s.size();
    if (end > start) out.push_back(s.substr(start, end - start));  // empty items skipped, as slapd
    start = end + 1;
  }
  return out;
}

std::vector<std::string_view> Tokens(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n')) ++i;
    size_t start = i;
    while (i < s.size() && !(s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n')) ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

std::string Prefix(std::string_view where) {
  return where.empty() ? std::string() : std::string(where) + ": ";
}

}  // namespace

std::string IndexMaskToString(IndexMask mask) {
  std::string out;
  auto add = [&out](std::string_view word) {
    if (!out.empty()) out += ',';
    out += word;
  };
  if (mask & kIndexPresence) add("pres");
  if (mask & kIndexEquality) add("eq");
  if (mask & kIndexApprox) add("approx");
  if ((mask & kIndexSubstr) == kIndexSubstr) {
    add("sub");
  } else {
    if (mask & kIndexSubInitial) add("subinitial");
    if (mask & kIndexSubAny) add("subany");
    if (mask & kIndexSubFinal) add("subfinal");
  }
  if (mask & kIndexNoSubtypes) add("nosubtypes");
  if (mask & kIndexNoTags) add("notags");
  return out;
}

Result<IndexMask> ParseIndexKind(std::string_view word) {
  struct Word {
    std::string_view name;
    IndexMask mask;
  };
  static constexpr Word kWords[] = {
      {"pres", kIndexPresence}, {"eq", kIndexEquality},       {"approx", kIndexApprox},
      {"sub", kIndexSubstr},    {"substr", kIndexSubstr},     {"subinitial", kIndexSubInitial},
      {"subany", kIndexSubAny}, {"subfinal", kIndexSubFinal}, {"nosubtypes", kIndexNoSubtypes},
      {"notags", kIndexNoTags}, {"nolang", kIndexNoTags},
  };
  for (const Word& w : kWords) {
    if (EqualsIgnoreCase(word, w.name)) return w.mask;
  }
  return Status::ParseError("index type '" + std::string(word) +
                            "' undefined (expected pres, eq, approx, sub, subinitial, subany, "
                            "subfinal, nosubtypes or notags)");
}

std::string IndexSpec::table() const { return IndexTableName(name()); }

Status IndexConfig::AddLine(const Schema& schema, std::string_view args, std::string_view where) {
  std::vector<std::string_view> tokens = Tokens(args);
  if (!tokens.empty() && EqualsIgnoreCase(tokens[0], "index")) tokens.erase(tokens.begin());
  if (tokens.empty() || tokens.size() > 2) {
    return Status::ParseError(Prefix(where) + "index: expected 'index <attr>[,<attr>...] " +
                              "[<kind>[,<kind>...]]', got " + std::to_string(tokens.size()) +
                              " arguments" +
                              (tokens.size() > 2 ? " (lists take no blanks after commas)" : ""));
  }
  std::vector<std::string_view> attrs = Split(tokens[0], ',');
  if (attrs.empty()) {
    return Status::ParseError(Prefix(where) + "index: no attributes specified: '" +
                              std::string(tokens[0]) + "'");
  }
  IndexMask mask = 0;
  if (tokens.size() == 2) {
    std::vector<std::string_view> kinds = Split(tokens[1], ',');
    if (kinds.empty()) {
      return Status::ParseError(Prefix(where) + "index: no indexes specified: '" +
                                std::string(tokens[1]) + "'");
    }
    for (std::string_view k : kinds) {
      Result<IndexMask> m = ParseIndexKind(k);
      if (!m.ok()) return m.status().WithPrefix(Prefix(where));
      mask |= *m;
    }
  } else {
    mask = default_mask_;
  }
  if ((mask & kIndexKindsMask) == 0) {
    return Status::ParseError(Prefix(where) + "index: no indexes selected" +
                              (tokens.size() == 1 ? " (no kinds given and no 'index default' "
                                                    "line before this one)"
                                                  : ""));
  }

  // Check every attribute before adding any, so a bad line changes nothing.
  std::vector<IndexSpec> add;
  bool to_default = false;
  for (std::string_view a : attrs) {
    if (EqualsIgnoreCase(a, "default")) {
      to_default = true;
      continue;
    }
    if (a.find(';') != std::string_view::npos) {
      return Status::Unsupported(Prefix(where) + "index attribute '" + std::string(a) +
                                 "': attribute options are not supported in index lines");
    }
    const AttributeType* type = schema.FindAttribute(a);
    if (type == nullptr) {
      return Status::ParseError(Prefix(where) + "index attribute '" + std::string(a) +
                                "' undefined");
    }
    if ((mask & kIndexApprox) && !HasApproxRule(type->equality)) {
      return Status::ParseError(Prefix(where) + "approx index of attribute '" + std::string(a) +
                                "' disallowed: it has no approximate matching rule");
    }
    if ((mask & kIndexEquality) && type->equality == nullptr) {
      return Status::ParseError(Prefix(where) + "equality index of attribute '" + std::string(a) +
                                "' disallowed: it has no equality matching rule");
    }
    if ((mask & kIndexSubstr) && type->substr == nullptr) {
      return Status::ParseError(Prefix(where) + "substr index of attribute '" + std::string(a) +
                                "' disallowed: it has no substrings matching rule");
    }
    bool duplicate = Find(type) != nullptr;
    for (const IndexSpec& s : add) duplicate |= s.type == type;
    if (duplicate) {
      return Status::ParseError(Prefix(where) + "duplicate index definition for attr '" +
                                std::string(a) + "'");
    }
    add.push_back(IndexSpec{type, mask, std::string(where)});
  }
  if (to_default) default_mask_ |= mask;
  for (IndexSpec& s : add) specs_.push_back(std::move(s));
  return Status::Ok();
}

Result<IndexConfig> IndexConfig::Parse(const Schema& schema, const std::vector<Line>& lines) {
  IndexConfig config;
  for (const Line& line : lines) {
    DIRLOAD_RETURN_IF_ERROR(config.AddLine(schema, line.text, line.where));
  }
  return config;
}

const IndexSpec* IndexConfig::Find(const AttributeType* type) const {
  for (const IndexSpec& s : specs_) {
    if (s.type == type) return &s;
  }
  return nullptr;
}

const IndexSpec* IndexConfig::Find(const Schema& schema, std::string_view name) const {
  const AttributeType* type = schema.FindAttribute(name);
  return type == nullptr ? nullptr : Find(type);
}

const IndexSpec* IndexConfig::ForSearch(const AttributeType* type) const {
  if (type == nullptr) return nullptr;
  if (const IndexSpec* own = Find(type)) return own;
  for (const AttributeType* t = type->sup; t != nullptr; t = t->sup) {
    const IndexSpec* s = Find(t);
    if (s != nullptr && !(s->mask & kIndexNoSubtypes)) return s;
  }
  return nullptr;
}

std::vector<const IndexSpec*> IndexTargets(const std::vector<IndexSpec>& specs,
                                           const AttributeType* type) {
  std::vector<const IndexSpec*> out;
  for (const AttributeType* t = type; t != nullptr; t = t->sup) {
    for (const IndexSpec& s : specs) {
      if (s.type == t) out.push_back(&s);
    }
  }
  return out;
}

std::vector<const IndexSpec*> IndexConfig::Targets(const AttributeType* type) const {
  return IndexTargets(specs_, type);
}

std::string IndexConfig::CanonicalLine(const IndexSpec& spec) {
  return AsciiLowerCopy(spec.name()) + " " + IndexMaskToString(spec.mask & kIndexKindsMask);
}

std::string IndexConfig::Canonical() const {
  std::vector<std::string> lines;
  for (const IndexSpec& s : specs_) lines.push_back(CanonicalLine(s));
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (const std::string& l : lines) {
    out += l;
    out += '\n';
  }
  return out;
}

}  // namespace dirload
