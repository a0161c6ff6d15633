// The normalised form slapd gives authzTo / authzFrom values (syntax
// 1.3.6.1.4.1.4203.666.2.7, rule authzMatch: saslauthz.c's authzNormalize).
// slapd compares a proxy-authorization request against the normalised
// copies stored with the entry, so they must be slapd's byte for byte:
//   dn[.exact]:DN          "dn:" + normalised DN ("dn.exact:" is "dn:")
//   dn.children|subtree|onelevel:DN   the same prefix + normalised DN
//   dn[.STYLE]:*           "dn:*"
//   dn.regex:PATTERN       as written
//   u[.MECH[/REALM]]:ID    as written (checked for its form)
//   group[/CLASS[/ATTR]]:DN   "group", the class and attribute under their
//                          canonical names, ":" + normalised DN
//   a plain DN             "dn:" + normalised DN
//   ldap:///BASE??SCOPE?FILTER  as written: slapd rewrites the URL with its
//                          filter normalised, which dirload does not do
// Spaces after the style's colon are skipped, as slapd skips them. A
// leading "{N}" (the attributes are X-ORDERED 'VALUES') is kept as written
// in front of the normalised rest.
//
// Thread safety: a pure function; the Schema is only read.
#pragma once

#include <string>
#include <string_view>

#include "lib/util/status.h"

namespace dirload {

class Schema;

// InvalidArgument when slapd's authz syntax refuses the value.
Status NormalizeAuthz(const Schema& schema, std::string_view value, std::string* out);

}  // namespace dirload
