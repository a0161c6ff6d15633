// RAII over libldap's handles: a connection (LDAP*, unbound when it goes) and
// a received message chain (LDAPMessage*, freed when it goes), so that no
// return path of the client loop leaks either.
//
// Thread safety: a Connection belongs to one thread (dirload-searchrate opens
// one per client thread; libldap handles are not shared).
#pragma once

#include <ldap.h>

#include <memory>
#include <string>

#include "lib/util/build_info.h"
#include "lib/util/status.h"

namespace dirload::searchrate {

struct UnbindLdap {
  void operator()(LDAP* ld) const { ldap_unbind_ext_s(ld, nullptr, nullptr); }
};
struct FreeLdapMessage {
  void operator()(LDAPMessage* m) const { ldap_msgfree(m); }
};
using LdapPtr = std::unique_ptr<LDAP, UnbindLdap>;
using MessagePtr = std::unique_ptr<LDAPMessage, FreeLdapMessage>;

// The libldap the program runs with, as it reports itself (LDAP_OPT_API_INFO):
// "OpenLDAP 2.5.13", for --version.
LibraryVersion LdapLibraryVersion();

// "text (code N)" for an LDAP result code, for messages and reports.
std::string ResultCodeText(int code);

// Opens an LDAPv3 connection to `uri` and binds: simple bind as `bind_dn`
// with `password`, or anonymously when `bind_dn` is empty. The bind is done
// here, not left to the first search, so that an unreachable server or a
// refused bind fails the run before it starts. `timeout` bounds the connect.
[[nodiscard]] Result<LdapPtr> Connect(const std::string& uri, const std::string& bind_dn,
                                      const std::string& password, double timeout);

}  // namespace dirload::searchrate
