#include "lib/config/config_schema.h"

#include <algorithm>
#include <cctype>
#include <functional>

#include "lib/util/ascii.h"

namespace dirload {
namespace {

// One token of an RFC 4512 description: "(", ")", "$", a quoted string
// (without its quotes) or a bare word.
struct Token {
  std::string text;
  bool quoted = false;
};

std::vector<Token> Tokenize(std::string_view text) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++i;
    } else if (c == '(' || c == ')' || c == '$') {
      out.push_back({std::string(1, c), false});
      ++i;
    } else if (c == '\'') {
      size_t end = text.find('\'', i + 1);
      if (end == std::string_view::npos) end = text.size();
      out.push_back({std::string(text.substr(i + 1, end - i - 1)), true});
      i = end + 1;
    } else {
      size_t end = i;
      while (end < text.size() && text[end] != ' ' && text[end] != '(' && text[end] != ')' &&
             text[end] != '$' && text[end] != '\'') {
        ++end;
      }
      out.push_back({std::string(text.substr(i, end - i)), false});
      i = end;
    }
  }
  return out;
}

// One description: the OID and each keyword's words ("NAME" -> names).
struct Description {
  std::string oid;
  std::map<std::string, std::vector<std::string>> fields;  // upper-case keyword -> words
};

// Strips the "{N}" prefix slapd's ordered values carry.
std::string_view StripOrder(std::string_view v) {
  if (!v.empty() && v[0] == '{') {
    size_t close = v.find('}');
    if (close != std::string_view::npos) return v.substr(close + 1);
  }
  return v;
}

Result<Description> Parse(std::string_view value, std::string_view what) {
  std::vector<Token> t = Tokenize(StripOrder(value));
  if (t.size() < 3 || t.front().text != "(" || t.back().text != ")") {
    return Status::ParseError(std::string(what) +
                              ": not a schema description: " + std::string(value.substr(0, 60)));
  }
  Description d;
  d.oid = t[1].text;
  std::string keyword;
  for (size_t i = 2; i + 1 < t.size(); ++i) {
    const Token& w = t[i];
    if (!w.quoted && w.text == "(") {
      for (++i; i + 1 < t.size() && !(t[i].text == ")" && !t[i].quoted); ++i) {
        if (t[i].quoted || t[i].text != "$") d.fields[keyword].push_back(t[i].text);
      }
    } else if (!w.quoted && !w.text.empty() &&
               std::isupper(static_cast<unsigned char>(w.text[0])) &&
               w.text.find_first_of("abcdefghijklmnopqrstuvwxyz") == std::string::npos) {
      // A keyword (NAME, SUP, MUST, STRUCTURAL, X-ORDERED, ...): names and
      // OIDs after it are quoted or hold lower case or digits.
      keyword = w.text;
      d.fields[keyword];
    } else {
      d.fields[keyword].push_back(w.text);
    }
  }
  return d;
}

std::vector<std::string> Lower(const std::vector<std::string>& words) {
  std::vector<std::string> out;
  for (const std::string& w : words) out.push_back(AsciiLowerCopy(w));
  return out;
}

void AppendOnce(std::vector<std::string>* list, const std::string& name) {
  if (std::find(list->begin(), list->end(), name) == list->end()) list->push_back(name);
}

}  // namespace

Result<ConfigSchema> ConfigSchema::FromDefinitions(const std::vector<std::string>& attribute_types,
                                                   const std::vector<std::string>& object_classes) {
  ConfigSchema s;
  for (const std::string& v : attribute_types) {
    DIRLOAD_ASSIGN_OR_RETURN(Description d, Parse(v, "olcAttributeTypes"));
    const std::vector<std::string>& names = d.fields["NAME"];
    std::string canonical = names.empty() ? d.oid : names.front();
    s.attribute_names_[AsciiLowerCopy(d.oid)] = canonical;
    for (const std::string& n : names) s.attribute_names_[AsciiLowerCopy(n)] = canonical;
    auto ordered = d.fields.find("X-ORDERED");
    s.ordered_values_[AsciiLowerCopy(canonical)] =
        ordered != d.fields.end() && !ordered->second.empty() &&
        AsciiLowerCopy(ordered->second.front()) == "values";
  }
  for (const std::string& v : object_classes) {
    DIRLOAD_ASSIGN_OR_RETURN(Description d, Parse(v, "olcObjectClasses"));
    ConfigObjectClass oc;
    const std::vector<std::string>& names = d.fields["NAME"];
    oc.name = names.empty() ? d.oid : names.front();
    if (d.fields.count("ABSTRACT")) oc.kind = ConfigClassKind::kAbstract;
    if (d.fields.count("AUXILIARY")) oc.kind = ConfigClassKind::kAuxiliary;
    oc.sups = Lower(d.fields["SUP"]);
    oc.must = Lower(d.fields["MUST"]);
    oc.may = Lower(d.fields["MAY"]);
    // A structural class without SUP inherits from top (RFC 4512 2.4.2).
    if (oc.sups.empty() && oc.kind == ConfigClassKind::kStructural) oc.sups.push_back("top");
    const size_t index = s.classes_.size();
    s.class_index_[AsciiLowerCopy(d.oid)] = index;
    for (const std::string& n : names) s.class_index_[AsciiLowerCopy(n)] = index;
    s.classes_.push_back(std::move(oc));
  }
  return s;
}

std::string ConfigSchema::Key(std::string_view name) const {
  std::string lower = AsciiLowerCopy(name);
  auto it = attribute_names_.find(lower);
  return it == attribute_names_.end() ? lower : AsciiLowerCopy(it->second);
}

std::optional<std::string> ConfigSchema::CanonicalAttribute(std::string_view name) const {
  auto it = attribute_names_.find(AsciiLowerCopy(name));
  if (it == attribute_names_.end()) return std::nullopt;
  return it->second;
}

bool ConfigSchema::OrderedValues(std::string_view attribute) const {
  auto it = ordered_values_.find(Key(attribute));
  return it != ordered_values_.end() && it->second;
}

const ConfigObjectClass* ConfigSchema::FindClass(std::string_view name) const {
  auto it = class_index_.find(AsciiLowerCopy(name));
  return it == class_index_.end() ? nullptr : &classes_[it->second];
}

void ConfigSchema::AddSups(const ConfigObjectClass& oc, std::vector<std::string>* chain) const {
  for (const std::string& sup : oc.sups) {
    const ConfigObjectClass* s = FindClass(sup);
    if (s == nullptr) continue;
    AddSups(*s, chain);
    if (AsciiLowerCopy(s->name).starts_with("olc")) AppendOnce(chain, AsciiLowerCopy(s->name));
  }
}

std::optional<std::string> ConfigSchema::StructuralClass(
    const std::vector<std::string>& classes) const {
  const ConfigObjectClass* best = nullptr;
  for (const std::string& c : classes) {
    const ConfigObjectClass* oc = FindClass(c);
    if (oc == nullptr || oc->kind != ConfigClassKind::kStructural) continue;
    if (best == nullptr) {
      best = oc;
      continue;
    }
    // The more specific of the two: the one whose superiors hold the other.
    std::function<bool(const ConfigObjectClass&, const ConfigObjectClass&)> below =
        [&](const ConfigObjectClass& sub, const ConfigObjectClass& sup) {
          for (const std::string& s : sub.sups) {
            const ConfigObjectClass* p = FindClass(s);
            if (p == nullptr) continue;
            if (p == &sup || below(*p, sup)) return true;
          }
          return false;
        };
    if (below(*oc, *best)) {
      best = oc;
    } else if (!below(*best, *oc)) {
      return std::nullopt;
    }
  }
  if (best == nullptr) return std::nullopt;
  return best->name;
}

std::pair<std::vector<std::string>, std::vector<std::string>> ConfigSchema::Gather(
    const ConfigObjectClass& oc) const {
  std::vector<std::string> required, allowed;
  auto add_required = [&](const std::vector<std::string>& must) {
    for (const std::string& m : must) AppendOnce(&required, Key(m));
    std::erase_if(allowed, [&](const std::string& a) {
      return std::find(required.begin(), required.end(), a) != required.end();
    });
  };
  auto add_allowed = [&](const std::vector<std::string>& may) {
    for (const std::string& m : may) {
      std::string k = Key(m);
      if (std::find(required.begin(), required.end(), k) == required.end()) AppendOnce(&allowed, k);
    }
  };
  // As slapd's schema code builds a class: each superior's superiors, then
  // its MUST and MAY, depth first; then the class's own.
  std::function<void(const ConfigObjectClass&)> sups = [&](const ConfigObjectClass& c) {
    for (const std::string& s : c.sups) {
      const ConfigObjectClass* p = FindClass(s);
      if (p == nullptr) continue;
      sups(*p);
      add_required(p->must);
      add_allowed(p->may);
    }
  };
  sups(oc);
  add_required(oc.must);
  add_allowed(oc.may);
  return {required, allowed};
}

void ConfigSchema::SortConfigAttributes(std::vector<ConfigAttribute>* attributes) const {
  std::vector<std::string> ocs;
  for (const ConfigAttribute& a : *attributes) {
    if (Key(a.description) == "objectclass") ocs = a.values;
  }
  // The entry's configuration classes, most specific first: for each
  // objectClass value from the last, its superiors then itself, each once;
  // then the list reversed.
  std::vector<std::string> order;
  for (auto it = ocs.rbegin(); it != ocs.rend(); ++it) {
    const ConfigObjectClass* oc = FindClass(*it);
    if (oc == nullptr) continue;
    AddSups(*oc, &order);
    if (AsciiLowerCopy(oc->name).starts_with("olc")) AppendOnce(&order, AsciiLowerCopy(oc->name));
  }
  std::reverse(order.begin(), order.end());

  std::vector<ConfigAttribute> sorted;
  std::vector<ConfigAttribute>& rest = *attributes;
  auto take = [&](const std::vector<std::string>& names) {
    for (const std::string& n : names) {
      for (auto a = rest.begin(); a != rest.end(); ++a) {
        // An attribute with options is another description: not moved.
        if (a->description.find(';') == std::string::npos && Key(a->description) == n) {
          sorted.push_back(std::move(*a));
          rest.erase(a);
          break;
        }
      }
    }
  };
  for (const std::string& name : order) {
    const ConfigObjectClass* oc = FindClass(name);
    auto [required, allowed] = Gather(*oc);
    take(required);
    take(allowed);
  }
  for (ConfigAttribute& a : rest) sorted.push_back(std::move(a));
  *attributes = std::move(sorted);
}

}  // namespace dirload
