#include "lib/modify/apply_modifications.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "lib/schema/normalize.h"
#include "lib/schema/schema.h"
#include "lib/schema/syntax.h"
#include "lib/util/ascii.h"

namespace dirload {
namespace {

const char* OpName(ModOp op) {
  switch (op) {
    case ModOp::kAdd:
      return "add";
    case ModOp::kDelete:
      return "delete";
    case ModOp::kReplace:
      return "replace";
    case ModOp::kIncrement:
      return "increment";
  }
  return "modify";
}

// What one modification works with: its type, canonical description and
// the equality keys of the values it names.
struct Target {
  const AttributeType* type = nullptr;
  std::string description;
};

// The key two values of `type` compare by: the equality rule's normalized
// form, or the bytes. nullopt when the rule cannot normalize the value.
std::optional<std::string> Key(const Schema& schema, const AttributeType& type,
                               std::string_view value) {
  if (type.equality == nullptr) return std::string(value);
  std::string key;
  if (!NormalizeEquality(schema, type, value, &key).ok()) return std::nullopt;
  return key;
}

// A stored value's key: the normalized copy the entry keeps, when it keeps
// one (slapd compares with it, even when an equality rule changed since).
std::optional<std::string> StoredKey(const Schema& schema, const AttributeType& type,
                                     const EntryEditor::Value& v) {
  if (v.beside.has_value() && type.equality != nullptr) return *v.beside;
  return Key(schema, type, v.value);
}

// [first, last) of `description`'s values in `values`.
std::pair<size_t, size_t> Span(const std::vector<EntryEditor::Value>& values,
                               std::string_view description) {
  size_t first = 0;
  while (first < values.size() && !EqualsIgnoreCase(values[first].description, description)) {
    ++first;
  }
  size_t last = first;
  while (last < values.size() && EqualsIgnoreCase(values[last].description, description)) ++last;
  return {first, last};
}

Status AddValues(const Schema& schema, const Modification& m, const Target& t,
                 std::vector<EntryEditor::Value>* values) {
  auto [first, last] = Span(*values, t.description);
  std::vector<std::string> keys;
  for (size_t i = first; i < last; ++i) {
    std::optional<std::string> k = StoredKey(schema, *t.type, (*values)[i]);
    if (k.has_value()) keys.push_back(std::move(*k));
  }
  const size_t existing = keys.size();
  std::vector<EntryEditor::Value> added;
  for (size_t i = 0; i < m.values.size(); ++i) {
    const std::string& v = m.values[i];
    std::optional<std::string> k = Key(schema, *t.type, v);
    if (!k.has_value()) {
      return LdapError(LdapResult::kInvalidAttributeSyntax,
                       std::string("modify/") + OpName(m.op) + ": " + m.description + ": value #" +
                           std::to_string(i) + " invalid per syntax");
    }
    const auto at = std::find(keys.begin(), keys.end(), *k);
    if (at != keys.end()) {
      const bool repeated = static_cast<size_t>(at - keys.begin()) >= existing;
      return LdapError(LdapResult::kAttributeOrValueExists,
                       std::string("modify/") + OpName(m.op) + ": " + m.description + ": value #" +
                           std::to_string(i) +
                           (repeated ? " provided more than once" : " already exists"));
    }
    keys.push_back(std::move(*k));
    EntryEditor::Value nv;
    nv.description = t.description;
    nv.value = v;
    added.push_back(std::move(nv));
  }
  if (first == last) first = last = values->size();  // a new attribute goes last
  values->insert(values->begin() + static_cast<std::ptrdiff_t>(last), added.begin(), added.end());
  return Status::Ok();
}

Status DeleteValues(const Schema& schema, const Modification& m, const Target& t,
                    std::vector<EntryEditor::Value>* values) {
  auto [first, last] = Span(*values, t.description);
  if (first == last) {
    if (m.op == ModOp::kReplace) return Status::Ok();
    return LdapError(LdapResult::kNoSuchAttribute, std::string("modify/") + OpName(m.op) + ": " +
                                                       m.description + ": no such attribute");
  }
  if (m.values.empty() || m.op == ModOp::kReplace) {
    values->erase(values->begin() + static_cast<std::ptrdiff_t>(first),
                  values->begin() + static_cast<std::ptrdiff_t>(last));
    return Status::Ok();
  }
  std::vector<bool> gone(last - first, false);
  for (size_t i = 0; i < m.values.size(); ++i) {
    std::optional<std::string> k = Key(schema, *t.type, m.values[i]);
    bool found = false;
    for (size_t j = first; k.has_value() && j < last && !found; ++j) {
      if (!gone[j - first] && StoredKey(schema, *t.type, (*values)[j]) == k) {
        gone[j - first] = true;
        found = true;
      }
    }
    if (!found) {
      return LdapError(LdapResult::kNoSuchAttribute,
                       std::string("modify/delete: ") + m.description + ": no such value");
    }
  }
  size_t out = first;
  for (size_t j = first; j < values->size(); ++j) {
    if (j < last && gone[j - first]) continue;
    // Not onto itself: a string moved onto itself may be left empty.
    if (out != j) (*values)[out] = std::move((*values)[j]);
    ++out;
  }
  values->resize(out);
  return Status::Ok();
}

Status Increment(const Modification& m, const Target& t, std::vector<EntryEditor::Value>* values) {
  if (t.type->equality == nullptr || t.type->equality->normalizer != Normalizer::kInteger) {
    return LdapError(LdapResult::kConstraintViolation, "modify/increment: " + m.description +
                                                           ": increment not supported for value "
                                                           "syntax");
  }
  if (m.values.size() != 1) {
    return LdapError(LdapResult::kConstraintViolation,
                     "modify/increment: " + m.description + ": one increment value expected");
  }
  auto parse = [](std::string_view s, int64_t* out) {
    if (s.empty()) return false;
    size_t i = s[0] == '-' || s[0] == '+' ? 1 : 0;
    if (i == s.size()) return false;
    int64_t v = 0;
    for (; i < s.size(); ++i) {
      if (!IsAsciiDigit(s[i]) || v > (std::numeric_limits<int64_t>::max() - 9) / 10) return false;
      v = v * 10 + (s[i] - '0');
    }
    *out = s[0] == '-' ? -v : v;
    return true;
  };
  int64_t delta = 0;
  if (!parse(m.values[0], &delta)) {
    return LdapError(LdapResult::kInvalidAttributeSyntax,
                     "modify/increment: " + m.description + ": invalid syntax of increment value");
  }
  auto [first, last] = Span(*values, t.description);
  if (first == last) {
    return LdapError(LdapResult::kNoSuchAttribute,
                     "modify/increment: " + m.description + ": no such attribute");
  }
  for (size_t i = first; i < last; ++i) {
    EntryEditor::Value& v = (*values)[i];
    int64_t n = 0;
    if (!parse(v.value, &n)) {
      return LdapError(LdapResult::kConstraintViolation,
                       "modify/increment: " + m.description + ": value is not an integer");
    }
    v.value = std::to_string(n + delta);
    v.beside.reset();  // made again from the new value
  }
  return Status::Ok();
}

}  // namespace

Status ApplyModifications(const Schema& schema, std::span<const Modification> mods,
                          std::vector<EntryEditor::Value>* values, bool relax) {
  for (const Modification& m : mods) {
    Result<AttributeDescription> ad = schema.ParseAttributeDescription(m.description);
    if (!ad.ok()) {
      if (ad.status().code() == StatusCode::kNotFound) {
        return LdapError(LdapResult::kUndefinedAttributeType,
                         m.description + ": attribute type undefined");
      }
      return LdapError(LdapResult::kUndefinedAttributeType, ad.status().message());
    }
    Target t{ad->type, ad->ToString()};
    if (t.type->no_user_modification && !relax) {
      return LdapError(LdapResult::kConstraintViolation,
                       std::string(t.type->name()) + ": no user modification allowed");
    }
    // Values new to the entry must be valid for the syntax.
    if (m.op == ModOp::kAdd || m.op == ModOp::kReplace) {
      for (size_t i = 0; i < m.values.size(); ++i) {
        if (!ValidateValue(*t.type, m.values[i]).ok()) {
          return LdapError(LdapResult::kInvalidAttributeSyntax,
                           std::string("modify/") + OpName(m.op) + ": " + m.description +
                               ": value #" + std::to_string(i) + " invalid per syntax");
        }
      }
    }
    switch (m.op) {
      case ModOp::kAdd:
        DIRLOAD_RETURN_IF_ERROR(AddValues(schema, m, t, values));
        break;
      case ModOp::kDelete:
        DIRLOAD_RETURN_IF_ERROR(DeleteValues(schema, m, t, values));
        break;
      case ModOp::kReplace:
        DIRLOAD_RETURN_IF_ERROR(DeleteValues(schema, m, t, values));
        if (!m.values.empty()) {
          // After the deletion, an add at the end: no value may repeat.
          DIRLOAD_RETURN_IF_ERROR(AddValues(schema, m, t, values));
        }
        break;
      case ModOp::kIncrement:
        DIRLOAD_RETURN_IF_ERROR(Increment(m, t, values));
        break;
    }
  }
  return Status::Ok();
}

void ReplaceOperational(std::vector<EntryEditor::Value>* values, std::string_view description,
                        std::string_view value, bool generated) {
  values->erase(std::remove_if(values->begin(), values->end(),
                               [&](const EntryEditor::Value& v) {
                                 return EqualsIgnoreCase(v.description, description);
                               }),
                values->end());
  EntryEditor::Value v;
  v.description = std::string(description);
  v.value = std::string(value);
  v.generated = generated;
  values->push_back(std::move(v));
}

}  // namespace dirload
