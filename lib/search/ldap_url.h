// LDAP URLs as slapcat's -H takes them (RFC 4516): ldap:///BASE??SCOPE?FILTER.
// A tool URL names no host and asks for no attributes (slapcat refuses
// both); percent-escapes are decoded in each part. A missing scope means the
// subtree and a missing base the database's suffix, as slapcat reads them.
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "lib/search/search.h"
#include "lib/util/status.h"

namespace dirload {

struct ToolUrl {
  std::optional<std::string> base;  // unset: the suffix
  SearchScope scope = SearchScope::kSub;
  std::optional<std::string> filter;  // unset: every entry
};

// Parses `url`; errors (marked kUsage) name the part that is wrong.
Result<ToolUrl> ParseToolUrl(std::string_view url);

// Decodes %XX escapes; a malformed escape is an error.
Result<std::string> PercentDecode(std::string_view text);

}  // namespace dirload
