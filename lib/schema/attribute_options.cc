#include "lib/schema/attribute_options.h"

#include <algorithm>

#include "lib/schema/ascii.h"

namespace dirload {
namespace {

using schema_internal::IsKeyChar;

bool StartsWithIgnoreCase(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() && EqualsIgnoreCase(text.substr(0, prefix.size()), prefix);
}

}  // namespace

AttributeOptions::AttributeOptions() : options_{{"lang-", true}} {}

void AttributeOptions::Declare() {
  if (!is_default_) return;
  options_.clear();
  is_default_ = false;
}

const AttributeOptions::Option* AttributeOptions::Find(std::string_view option) const {
  for (const Option& o : options_) {
    if (o.prefix ? StartsWithIgnoreCase(option, o.name) : EqualsIgnoreCase(option, o.name)) {
      return &o;
    }
  }
  return nullptr;
}

bool AttributeOptions::Accepts(std::string_view option) const { return Find(option) != nullptr; }

Status AttributeOptions::Define(std::string_view name) {
  Declare();
  auto bad = [&](std::string_view why) {
    return Status::InvalidArgument("attribute option \"" + std::string(name) + "\" " +
                                   std::string(why));
  };
  if (name.empty()) return bad("is empty");
  for (size_t i = 0; i < name.size(); ++i) {
    const bool final_equals = name[i] == '=' && i + 1 == name.size();
    if (!IsKeyChar(name[i]) && !final_equals) return bad("is an illegal option name");
  }
  if (EqualsIgnoreCase(name, "binary") || Find(name) != nullptr) return bad("is already defined");
  Option added{std::string(name), name.back() == '-' || name.back() == '='};
  if (added.prefix) {
    for (const Option& o : options_) {
      if (o.name.size() > name.size() && StartsWithIgnoreCase(o.name, name)) {
        return bad("overrides previous option \"" + o.name + "\"");
      }
    }
  }
  if (name.back() == '=') allows_equals_ = true;
  const std::string key = AsciiLowerCopy(name);
  auto at = std::find_if(options_.begin(), options_.end(),
                         [&](const Option& o) { return AsciiLowerCopy(o.name) > key; });
  options_.insert(at, std::move(added));
  return Status::Ok();
}

std::vector<std::string> AttributeOptions::names() const {
  std::vector<std::string> out;
  out.reserve(options_.size());
  for (const Option& o : options_) out.push_back(o.name);
  return out;
}

}  // namespace dirload
