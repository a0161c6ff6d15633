// AttributeOptions: which tagging options an attribute description may carry
// ("description;x-foo", "cn;lang-de"), as slapd's global `attributeoptions`
// directive (slapd.conf) or olcAttributeOptions (cn=config) declares them.
//
// A declared name ending in '-' is a prefix: it accepts every option that
// starts with it, and itself (a tag range, "lang-"). Any other name accepts
// only itself. Matching ignores ASCII case. A name may also end in '=', a
// prefix too (slapd's range hack for Active Directory's "member;range=0-9"),
// and once one does, '=' may appear in attribute descriptions.
//
// Without any declaration the set is slapd's default, the prefix "lang-"
// alone. Declaring replaces that default rather than adding to it (as in
// slapd): a configuration with `attributeoptions x-foo` and no `lang-` makes
// "cn;lang-de" an unrecognised option.
//
// Thread safety: Declare/Define need exclusive access; const methods may be
// called from any number of threads.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "lib/util/status.h"

namespace dirload {

class AttributeOptions {
 public:
  // slapd's default: the prefix "lang-".
  AttributeOptions();

  // What every `attributeoptions` line (or olcAttributeOptions value) does
  // first, even one naming nothing: drops the default "lang-" if it is still
  // the whole set. Later declarations add to what earlier ones declared.
  void Declare();

  // Declare(), then adds `name`. InvalidArgument, adding nothing, when
  // `name` has a character other than a letter, digit or '-' (a final '='
  // aside), is "binary", is already accepted by a declared name, or is a
  // prefix that would accept a declared name.
  Status Define(std::string_view name);

  // True if `option` (as written in a description, any case) is a declared
  // name or starts with a declared prefix.
  bool Accepts(std::string_view option) const;

  // A declared name ends in '=', which lets '=' into descriptions.
  bool allows_equals() const { return allows_equals_; }

  // True while no declaration has replaced the default.
  bool is_default() const { return is_default_; }

  // The declared names as written, in slapd's order (ASCII case-insensitive).
  std::vector<std::string> names() const;

  bool operator==(const AttributeOptions&) const = default;

 private:
  struct Option {
    std::string name;  // as written
    bool prefix = false;
    bool operator==(const Option&) const = default;
  };
  const Option* Find(std::string_view option) const;

  std::vector<Option> options_;  // sorted by lower-cased name
  bool is_default_ = true;
  bool allows_equals_ = false;
};

}  // namespace dirload
