#include "lib/schema/authz.h"

#include "lib/schema/ascii.h"
#include "lib/schema/dn.h"
#include "lib/schema/schema.h"

namespace dirload {
namespace {

bool StartsWithIgnoreCase(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && EqualsIgnoreCase(s.substr(0, prefix.size()), prefix);
}

Status Invalid(std::string_view value, std::string_view why) {
  return Status::InvalidArgument("authz value '" + std::string(value) + "': " + std::string(why));
}

// "PREFIX" + the normalised DN, or "dn:*" for a lone '*'.
Status PrefixedDn(const Schema& schema, std::string_view prefix, std::string_view dn,
                  std::string* out) {
  if (dn == "*") {
    out->assign("dn:*");
    return Status::Ok();
  }
  std::string ndn;
  Status st = NormalizeDn(schema, dn, &ndn);
  if (!st.ok()) return Invalid(dn, st.message());
  out->assign(prefix);
  out->append(ndn);
  return Status::Ok();
}

// u[.mech[/realm]]:user (slap_parse_user): a ':' must follow, and the
// character after 'u' is ':' or '.'.
bool ValidUserForm(std::string_view v) {
  const size_t colon = v.find(':');
  if (colon == std::string_view::npos) return false;
  return v[1] == ':' || (v[1] == '.' && colon > 1);
}

Status NormalizeGroup(const Schema& schema, std::string_view value, std::string* out) {
  std::string_view rest = value.substr(5);  // after "group"
  const size_t colon = rest.find(':');
  if (colon == std::string_view::npos) return PrefixedDn(schema, "dn:", value, out);
  std::string prefix = "group";
  if (!rest.empty() && rest[0] == '/') {
    std::string_view spec = rest.substr(1, colon - 1);
    const size_t slash = spec.find('/');
    std::string_view oc_name = spec.substr(0, slash);
    std::string attr;
    if (slash != std::string_view::npos) {
      std::string_view at_name = spec.substr(slash + 1);
      const AttributeType* at = schema.FindAttribute(at_name);
      if (at == nullptr) return Invalid(value, "undefined attribute type");
      attr = std::string(at->name());
    }
    const ObjectClass* oc = schema.FindObjectClass(oc_name);
    if (oc == nullptr) return Invalid(value, "undefined object class");
    prefix += "/" + std::string(oc->name());
    if (!attr.empty()) prefix += "/" + attr;
  }
  prefix += ":";
  std::string_view dn = rest.substr(colon + 1);
  std::string ndn;
  Status st = NormalizeDn(schema, dn, &ndn);
  if (!st.ok()) return Invalid(value, st.message());
  out->assign(prefix);
  out->append(ndn);
  return Status::Ok();
}

// What ldap_url_parse takes for an LDAP URL: the schemes it knows, bare or
// in "<...>" or after "URL:".
bool LooksLikeLdapUrl(std::string_view v) {
  if (!v.empty() && v[0] == '<') v.remove_prefix(1);
  if (StartsWithIgnoreCase(v, "URL:")) v.remove_prefix(4);
  for (std::string_view scheme : {"ldap://", "ldaps://", "ldapi://", "cldap://"}) {
    if (StartsWithIgnoreCase(v, scheme)) return true;
  }
  return false;
}

}  // namespace

Status NormalizeAuthz(const Schema& schema, std::string_view value, std::string* out) {
  // authzTo and authzFrom are X-ORDERED 'VALUES': a leading "{N}" gives the
  // value's place and stays in front of the normalised rest, as slapd's
  // ordered_value_normalize keeps it.
  if (!value.empty() && value[0] == '{') {
    const size_t close = value.find('}');
    const std::string_view index =
        close == std::string_view::npos ? std::string_view() : value.substr(1, close - 1);
    const bool numeric = !index.empty() &&
                         index.find_first_not_of("0123456789 ") == std::string_view::npos &&
                         index.find_first_of("0123456789") != std::string_view::npos;
    if (numeric) {
      std::string rest;
      if (close + 1 < value.size()) {
        DIRLOAD_RETURN_IF_ERROR(NormalizeAuthz(schema, value.substr(close + 1), &rest));
      }
      out->assign(value.substr(0, close + 1));
      out->append(rest);
      return Status::Ok();
    }
  }
  if (StartsWithIgnoreCase(value, "dn")) {
    std::string_view rest = value.substr(2);
    std::string_view prefix = "dn:";
    if (!rest.empty() && rest[0] == '.') {
      rest.remove_prefix(1);
      struct Style {
        std::string_view written, normalized;
      };
      static constexpr Style kStyles[] = {{"exact:", "dn:"},
                                          {"regex:", "dn.regex:"},
                                          {"children:", "dn.children:"},
                                          {"subtree:", "dn.subtree:"},
                                          {"onelevel:", "dn.onelevel:"}};
      const Style* style = nullptr;
      for (const Style& s : kStyles) {
        if (StartsWithIgnoreCase(rest, s.written)) style = &s;
      }
      if (style == nullptr) return Invalid(value, "unknown dn style");
      rest.remove_prefix(style->written.size());
      prefix = style->normalized;
    } else if (!rest.empty() && rest[0] == ':') {
      rest.remove_prefix(1);
    } else {
      return Invalid(value, "'dn' followed by neither '.' nor ':'");
    }
    while (!rest.empty() && rest[0] == ' ') rest.remove_prefix(1);
    if (prefix == "dn.regex:" && rest != "*") {
      out->assign(prefix);
      out->append(rest);
      return Status::Ok();
    }
    return PrefixedDn(schema, prefix, rest, out);
  }
  if (value.size() >= 2 && (value[0] == 'u' || value[0] == 'U') &&
      (value[1] == ':' || value[1] == '/' || value[1] == '.')) {
    if (!ValidUserForm(value)) return Invalid(value, "not of the form u[.mech[/realm]]:id");
    out->assign(value);
    return Status::Ok();
  }
  if (StartsWithIgnoreCase(value, "group")) return NormalizeGroup(schema, value, out);
  if (LooksLikeLdapUrl(value)) {
    out->assign(value);
    return Status::Ok();
  }
  return PrefixedDn(schema, "dn:", value, out);
}

}  // namespace dirload
