#include "lib/config/slapd_directives.h"

#include <algorithm>
#include <string>

#include "lib/util/ascii.h"

namespace dirload {

using slapd_directives_internal::kConfigAttributeCount;
using slapd_directives_internal::kConfigAttributes;
using slapd_directives_internal::kDirectiveCount;
using slapd_directives_internal::kDirectives;
using slapd_directives_internal::kModuleCount;
using slapd_directives_internal::kModules;

bool SlapdKnowsDirective(std::string_view name) {
  const std::string lower = AsciiLowerCopy(name);
  // The chain overlay takes back-ldap's directives, each prefixed with
  // "chain-" (chain-uri, chain-idassert-bind, ...).
  constexpr std::string_view kChain = "chain-";
  if (lower.starts_with(kChain) && lower.size() > kChain.size() &&
      SlapdKnowsDirective(std::string_view(lower).substr(kChain.size()))) {
    return true;
  }
  for (size_t i = 0; i < kDirectiveCount; ++i) {
    const std::string_view known = kDirectives[i].name;
    const size_t prefix = static_cast<size_t>(kDirectives[i].prefix);
    if (lower == known) return true;
    // slapd compares the first `prefix` characters only (strncasecmp).
    if (prefix > 0 && lower.size() >= prefix &&
        known.substr(0, prefix) == lower.substr(0, prefix)) {
      return true;
    }
  }
  return false;
}

bool SlapdKnowsConfigAttribute(std::string_view name) {
  const std::string lower = AsciiLowerCopy(name);
  return std::binary_search(kConfigAttributes, kConfigAttributes + kConfigAttributeCount, lower,
                            [](std::string_view a, std::string_view b) { return a < b; });
}

bool SlapdKnowsModule(std::string_view name) {
  if (name == "back_bdb" || name == "back_hdb") return true;
  return std::binary_search(kModules, kModules + kModuleCount, name,
                            [](std::string_view a, std::string_view b) { return a < b; });
}

bool BackBdbDirective(std::string_view name) {
  // OpenLDAP 2.4's back-bdb/config.c.
  static constexpr std::string_view kBdb[] = {
      "cachefree",   "cachesize",  "checkpoint",  "dbconfig",     "dbnosync",
      "dbpagesize",  "dirtyread",  "dncachesize", "idlcachesize", "index",
      "linearindex", "lockdetect", "mode",        "searchstack",  "shm_key"};
  const std::string lower = AsciiLowerCopy(name);
  return std::find(std::begin(kBdb), std::end(kBdb), lower) != std::end(kBdb);
}

}  // namespace dirload
