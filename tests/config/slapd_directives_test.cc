#include "lib/config/slapd_directives.h"

#include <doctest/doctest.h>

namespace dirload {
namespace {

// Directives of OpenLDAP 2.5.13's own test configurations (tests/data/
// slapd*.conf), of back-mdb and of overlays, in any case: slapd takes them.
TEST_CASE("directives slapd 2.5 knows, whole, by prefix, and the chain overlay's") {
  for (const char* d : {"access",
                        "allow",
                        "allows",
                        "argsfile",
                        "authz-regexp",
                        "checkpoint",
                        "dbnosync",
                        "directory",
                        "envflags",
                        "index",
                        "limits",
                        "listen",
                        "loglevel",
                        "maxreaders",
                        "maxsize",
                        "moduleload",
                        "modulepath",
                        "multiprovider",
                        "mirrormode",
                        "overlay",
                        "password-hash",
                        "pcache",
                        "pcacheTemplate",
                        "pidfile",
                        "require",
                        "rootdn",
                        "rootpw",
                        "rwm-rewriteEngine",
                        "rwm-rewriteRule",
                        "rwm-suffixmassage",
                        "sasl-host",
                        "serverID",
                        "sizelimit",
                        "suffix",
                        "syncprov-checkpoint",
                        "syncrepl",
                        "TLSCertificateFile",
                        "tool-threads",
                        "uri",
                        "chain-uri",
                        "chain-idassert-bind",
                        "memberof-group-oc",
                        "refint_attributes",
                        "unique_uri",
                        "ppolicy_default",
                        "logdb",
                        "constraint_attribute"}) {
    CAPTURE(d);
    CHECK(SlapdKnowsDirective(d));
  }
  for (const char* d : {"frobnicate", "chain-frobnicate", "chain-", "dbconfig", "idlcachesize",
                        "tls_cacert", "database2", ""}) {
    CAPTURE(d);
    CHECK_FALSE(SlapdKnowsDirective(d));
  }
  CHECK(BackBdbDirective("dbconfig"));
  CHECK(BackBdbDirective("IDLCacheSize"));
  CHECK_FALSE(BackBdbDirective("maxsize"));
}

TEST_CASE("cn=config attributes slapd 2.5 defines") {
  for (const char* a : {"olcDatabase", "olcSuffix", "olcDbDirectory", "olcDbIndex", "olcDbMaxSize",
                        "olcAccess", "olcRootPW", "olcModuleLoad", "olcAttributeTypes",
                        "olcObjectClasses", "olcOverlay", "olcSyncrepl", "olcDbCheckpoint",
                        "olcPPolicyDefault", "OLCLOGLEVEL", "olcTLSCertificateFile"}) {
    CAPTURE(a);
    CHECK(SlapdKnowsConfigAttribute(a));
  }
  for (const char* a : {"olcFrobnicate", "olc", "cn", ""}) {
    CAPTURE(a);
    CHECK_FALSE(SlapdKnowsConfigAttribute(a));
  }
}

}  // namespace
}  // namespace dirload
