#include "bench/searchrate/ldap_connection.h"

#include <sys/time.h>

namespace dirload::searchrate {

LibraryVersion LdapLibraryVersion() {
  LDAPAPIInfo info{};
  info.ldapai_info_version = LDAP_API_INFO_VERSION;
  if (ldap_get_option(nullptr, LDAP_OPT_API_INFO, &info) != LDAP_OPT_SUCCESS) {
    return {"libldap", "unknown"};
  }
  // The vendor version is major * 10000 + minor * 100 + patch.
  const int v = info.ldapai_vendor_version;
  std::string version = info.ldapai_vendor_name != nullptr ? info.ldapai_vendor_name : "libldap";
  version += " " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
             std::to_string(v % 100);
  // The caller owns what libldap allocated for the answer.
  ldap_memfree(info.ldapai_vendor_name);
  ldap_memvfree(reinterpret_cast<void**>(info.ldapai_extensions));
  return {"libldap", version};
}

std::string ResultCodeText(int code) {
  return std::string(ldap_err2string(code)) + " (code " + std::to_string(code) + ")";
}

Result<LdapPtr> Connect(const std::string& uri, const std::string& bind_dn,
                        const std::string& password, double timeout) {
  LDAP* raw = nullptr;
  int rc = ldap_initialize(&raw, uri.c_str());
  if (rc != LDAP_SUCCESS) return Status::InvalidArgument(uri + ": " + ResultCodeText(rc));
  LdapPtr ld(raw);
  int version = LDAP_VERSION3;
  ldap_set_option(ld.get(), LDAP_OPT_PROTOCOL_VERSION, &version);
  // Referrals would silently open connections the statistics do not see.
  ldap_set_option(ld.get(), LDAP_OPT_REFERRALS, LDAP_OPT_OFF);
  timeval tv{static_cast<time_t>(timeout),
             static_cast<suseconds_t>((timeout - static_cast<time_t>(timeout)) * 1e6)};
  ldap_set_option(ld.get(), LDAP_OPT_NETWORK_TIMEOUT, &tv);

  berval cred{password.size(), const_cast<char*>(password.data())};
  rc = ldap_sasl_bind_s(ld.get(), bind_dn.empty() ? nullptr : bind_dn.c_str(), LDAP_SASL_SIMPLE,
                        &cred, nullptr, nullptr, nullptr);
  if (rc != LDAP_SUCCESS) {
    const std::string who = bind_dn.empty() ? "anonymous bind" : "bind as " + bind_dn;
    return Status::IoError(uri + ": " + who + ": " + ResultCodeText(rc));
  }
  return ld;
}

}  // namespace dirload::searchrate
