#include "lib/search/evaluate.h"

#include <utility>

#include "lib/schema/approx_match.h"
#include "lib/schema/normalize.h"
#include "lib/schema/syntax.h"

namespace dirload {

const MatchingRule* MatchingRuleFor(FilterKind kind, const AttributeType* type) {
  switch (kind) {
    case FilterKind::kEquality:
    case FilterKind::kApprox:
      return type->equality;
    case FilterKind::kGreaterOrEqual:
    case FilterKind::kLessOrEqual:
      return type->ordering;
    case FilterKind::kSubstrings:
      return type->substr;
    default:
      return nullptr;
  }
}

// An assertion normalised under one matching rule.
struct Assertion {
  const MatchingRule* rule = nullptr;
  bool valid = false;                  // false: the rule could not normalise the assertion
  std::string key;                     // equality and ordering
  bool phonetic = false;               // approx under slapd's approximate rule
  std::vector<std::string> codes;      // its words' phonetic codes
  std::optional<std::string> initial;  // substrings
  std::vector<std::string> any;
  std::optional<std::string> final;
};

struct FilterMatcher::Node {
  FilterKind kind = FilterKind::kPresent;
  std::vector<Node> children;
  // Items: Undefined for every entry (see the header for when).
  bool undefined = false;
  AttributeDescription description;
  // objectClass equality: the asserted class, matched with its subclasses.
  const ObjectClass* object_class = nullptr;
  // Per distinct rule among the filter type and its subtypes; the first is
  // the filter type's own rule.
  std::vector<Assertion> assertions;

  const Assertion* AssertionFor(const MatchingRule* rule) const {
    for (const Assertion& a : assertions) {
      if (a.rule == rule) return &a;
    }
    return nullptr;
  }
};

namespace {

using Node = FilterMatcher::Node;

// Normalises the item's assertion under the rule `type` uses for the item.
Assertion Normalize(const Schema& schema, const Filter& f, const AttributeType& type,
                    const MatchingRule* rule) {
  Assertion a;
  a.rule = rule;
  if (f.kind == FilterKind::kSubstrings) {
    auto frag = [&](const std::string& text, SubstringPosition pos, std::string* out) {
      return NormalizeSubstring(schema, type, text, pos, out).ok();
    };
    if (f.initial && !frag(*f.initial, SubstringPosition::kInitial, &a.initial.emplace())) return a;
    for (const std::string& any : f.any) {
      if (!frag(any, SubstringPosition::kAny, &a.any.emplace_back())) return a;
    }
    if (f.final && !frag(*f.final, SubstringPosition::kFinal, &a.final.emplace())) return a;
    a.valid = true;
    return a;
  }
  a.valid = NormalizeValue(schema, *rule, f.value, &a.key).ok();
  if (a.valid && f.kind == FilterKind::kApprox && HasApproxRule(rule)) {
    a.phonetic = true;
    a.valid = ApproxAssertionCodes(a.key, &a.codes).ok();
  }
  return a;
}

Node Compile(const Filter& f, const Schema& schema, const AttributeType* object_class_type) {
  Node n;
  n.kind = f.kind;
  if (f.kind == FilterKind::kAnd || f.kind == FilterKind::kOr || f.kind == FilterKind::kNot) {
    n.children.reserve(f.children.size());
    for (const Filter& c : f.children) n.children.push_back(Compile(c, schema, object_class_type));
    return n;
  }
  Result<AttributeDescription> ad = schema.ParseAttributeDescription(f.attribute);
  if (!ad.ok()) {
    n.undefined = true;
    return n;
  }
  n.description = std::move(*ad);
  if (f.kind == FilterKind::kPresent) return n;

  const AttributeType* type = n.description.type;
  const MatchingRule* rule = MatchingRuleFor(f.kind, type);
  if (rule == nullptr) {
    n.undefined = true;
    return n;
  }
  const bool eq_like = f.kind != FilterKind::kSubstrings;
  if (eq_like) {
    // slapd validates an assertion against the syntax its rule asserts before
    // anything else; a value outside it makes the item Undefined.
    const Syntax* syntax = schema.FindSyntax(rule->syntax_oid);
    if (syntax != nullptr && !ValidateSyntaxValue(*syntax, f.value).ok()) {
      n.undefined = true;
      return n;
    }
  }
  if (type == object_class_type && eq_like && f.kind != FilterKind::kGreaterOrEqual &&
      f.kind != FilterKind::kLessOrEqual) {
    n.object_class = schema.FindObjectClass(f.value);
    if (n.object_class == nullptr) n.undefined = true;
    return n;
  }

  n.assertions.push_back(Normalize(schema, f, *type, rule));
  if (!n.assertions.front().valid) {
    n.undefined = true;
    return n;
  }
  // Subtypes with a rule of their own get the assertion under that rule.
  for (const AttributeType* t : schema.attribute_types()) {
    if (t == type || !Schema::IsSubtypeOf(t, type)) continue;
    const MatchingRule* r = MatchingRuleFor(f.kind, t);
    if (r == nullptr || n.AssertionFor(r) != nullptr) continue;
    n.assertions.push_back(Normalize(schema, f, *t, r));
  }
  return n;
}

bool OptionCovers(std::string_view filter_option, std::string_view value_option) {
  if (filter_option == value_option) return true;
  if (filter_option.ends_with('-')) {
    // A language range: "lang-en-" covers "lang-en" and "lang-en-...".
    return value_option.starts_with(filter_option) ||
           value_option == filter_option.substr(0, filter_option.size() - 1);
  }
  return false;
}

bool SubstringsMatch(std::string_view v, const Assertion& a) {
  size_t pos = 0;
  size_t end = v.size();
  if (a.initial) {
    if (!v.starts_with(*a.initial)) return false;
    pos = a.initial->size();
  }
  if (a.final) {
    if (end - pos < a.final->size() || !v.ends_with(*a.final)) return false;
    end -= a.final->size();
  }
  for (const std::string& any : a.any) {
    const size_t at = v.substr(0, end).find(any, pos);
    if (at == std::string_view::npos) return false;
    pos = at + any.size();
  }
  return true;
}

struct Evaluator {
  const Schema& schema;
  const DescriptionTable& descriptions;
  const EntryView& entry;
  std::string scratch;
  std::vector<std::string> codes;  // a value's phonetic codes

  Truth Item(const Node& n) {
    if (n.undefined) return Truth::kUndefined;
    for (const ValueRef& v : entry.values) {
      const AttributeDescription* d = descriptions.Find(v.description);
      if (d == nullptr || !DescriptionCovers(n.description, *d)) continue;
      if (ValueMatches(n, *d->type, v.value)) return Truth::kTrue;
    }
    return Truth::kFalse;
  }

  bool ValueMatches(const Node& n, const AttributeType& type, std::string_view value) {
    if (n.kind == FilterKind::kPresent) return true;
    if (n.object_class != nullptr) {
      const ObjectClass* oc = schema.FindObjectClass(value);
      return oc != nullptr && oc->IsSubclassOf(n.object_class);
    }
    const MatchingRule* rule = MatchingRuleFor(n.kind, &type);
    if (rule == nullptr) return false;
    const Assertion* a = n.AssertionFor(rule);
    if (a == nullptr || !a->valid) return false;
    switch (n.kind) {
      case FilterKind::kApprox:
        if (a->phonetic) {
          return NormalizeValue(schema, *rule, value, &scratch).ok() &&
                 ApproxValueCodes(scratch, &codes).ok() && ApproxCodesMatch(codes, a->codes);
        }
        return NormalizeValue(schema, *rule, value, &scratch).ok() && scratch == a->key;
      case FilterKind::kEquality:
        return NormalizeValue(schema, *rule, value, &scratch).ok() && scratch == a->key;
      case FilterKind::kGreaterOrEqual:
        return NormalizeValue(schema, *rule, value, &scratch).ok() &&
               CompareNormalized(*rule, scratch, a->key) >= 0;
      case FilterKind::kLessOrEqual:
        return NormalizeValue(schema, *rule, value, &scratch).ok() &&
               CompareNormalized(*rule, scratch, a->key) <= 0;
      case FilterKind::kSubstrings:
        return NormalizeSubstring(schema, type, value, SubstringPosition::kWhole, &scratch).ok() &&
               SubstringsMatch(scratch, *a);
      default:
        return false;
    }
  }

  Truth Eval(const Node& n) {
    switch (n.kind) {
      case FilterKind::kAnd: {
        Truth t = Truth::kTrue;
        for (const Node& c : n.children) {
          t = TruthAnd(t, Eval(c));
          if (t == Truth::kFalse) break;
        }
        return t;
      }
      case FilterKind::kOr: {
        Truth t = Truth::kFalse;
        for (const Node& c : n.children) {
          t = TruthOr(t, Eval(c));
          if (t == Truth::kTrue) break;
        }
        return t;
      }
      case FilterKind::kNot:
        return TruthNot(Eval(n.children.front()));
      default:
        return Item(n);
    }
  }
};

}  // namespace

std::string_view TruthName(Truth t) {
  switch (t) {
    case Truth::kFalse:
      return "FALSE";
    case Truth::kTrue:
      return "TRUE";
    case Truth::kUndefined:
      return "Undefined";
  }
  return "?";
}

Truth TruthAnd(Truth a, Truth b) {
  if (a == Truth::kFalse || b == Truth::kFalse) return Truth::kFalse;
  if (a == Truth::kUndefined || b == Truth::kUndefined) return Truth::kUndefined;
  return Truth::kTrue;
}

Truth TruthOr(Truth a, Truth b) {
  if (a == Truth::kTrue || b == Truth::kTrue) return Truth::kTrue;
  if (a == Truth::kUndefined || b == Truth::kUndefined) return Truth::kUndefined;
  return Truth::kFalse;
}

Truth TruthNot(Truth a) {
  if (a == Truth::kTrue) return Truth::kFalse;
  if (a == Truth::kFalse) return Truth::kTrue;
  return Truth::kUndefined;
}

DescriptionTable::DescriptionTable(const AttributeDictionary& dictionary, const Schema& schema) {
  entries_.reserve(dictionary.size());
  for (uint32_t id = 0; id < dictionary.size(); ++id) {
    Result<AttributeDescription> ad = schema.ParseAttributeDescription(dictionary.Name(id));
    if (ad.ok()) {
      entries_.emplace_back(std::move(*ad));
    } else {
      entries_.emplace_back();
    }
  }
}

bool DescriptionCovers(const AttributeDescription& filter, const AttributeDescription& value) {
  if (!Schema::IsSubtypeOf(value.type, filter.type)) return false;
  if (filter.binary && !value.binary) return false;
  for (const std::string& want : filter.options) {
    bool found = false;
    for (const std::string& have : value.options) {
      if (OptionCovers(want, have)) {
        found = true;
        break;
      }
    }
    if (!found) return false;
  }
  return true;
}

FilterMatcher::FilterMatcher(const Filter& filter, const Schema& schema)
    : schema_(&schema),
      root_(std::make_unique<Node>(Compile(filter, schema, schema.FindAttribute("objectClass")))) {}

FilterMatcher::~FilterMatcher() = default;
FilterMatcher::FilterMatcher(FilterMatcher&&) noexcept = default;
FilterMatcher& FilterMatcher::operator=(FilterMatcher&&) noexcept = default;

Result<Truth> FilterMatcher::Evaluate(const EntryView& entry,
                                      const DescriptionTable& descriptions) const {
  for (const ValueRef& v : entry.values) {
    if (v.description >= descriptions.size()) {
      return Status::Corruption("entry '" + std::string(entry.dn) + "': attribute description id " +
                                std::to_string(v.description) +
                                " is not in the attribute dictionary (" +
                                std::to_string(descriptions.size()) + " descriptions)");
    }
  }
  Evaluator ev{*schema_, descriptions, entry, {}, {}};
  return ev.Eval(*root_);
}

Result<bool> FilterMatcher::Matches(const EntryView& entry,
                                    const DescriptionTable& descriptions) const {
  DIRLOAD_ASSIGN_OR_RETURN(Truth t, Evaluate(entry, descriptions));
  return t == Truth::kTrue;
}

Result<bool> Matches(const Filter& filter, const EntryView& entry,
                     const AttributeDictionary& dictionary, const Schema& schema) {
  DescriptionTable descriptions(dictionary, schema);
  return FilterMatcher(filter, schema).Matches(entry, descriptions);
}

}  // namespace dirload
