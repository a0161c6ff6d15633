// Oracle of certificateExactMatch: for userCertificate and cACertificate
// values (DER, transferred with ;binary) slapadd stores beside each value its
// normalised form, "{ serialNumber 'HEX'H, issuer rdnSequence:"DN" }" built
// from the certificate's serial number and issuer. `dirload add -f` on the
// same LDIF (operational attributes given, so that every byte can agree)
// writes the same id2e (up to the padding slapd leaves unzeroed), the same
// equality index on userCertificate, and slapcat prints the same LDIF. A
// certificate whose issuer names an attribute type the schema does not
// define, or whose serial number is not minimally encoded, is refused by both.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "lib/util/ascii.h"
#include "tests/integration/dirload_process.h"
#include "tests/support/child_process.h"
#include "tests/support/hex.h"
#include "tests/support/mdb_dump.h"
#include "tests/support/openldap.h"
#include "tests/support/slapd_conf.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

namespace fs = std::filesystem;
using testing::FirstDifference;
using testing::Hex;
using testing::MaskId2ePadding;
using testing::MdbDatabases;
using testing::MdbDump;
using testing::ProcessResult;
using testing::RunDirload;
using testing::TempDir;

#define SKIP_WITHOUT_TOOLS() DIRLOAD_SKIP_WITHOUT_OPENLDAP()

struct Certificate {
  const char* name;
  const char* base64;  // DER
};

// Hand-built certificates (only the fields up to the issuer are real; slapd
// reads no further) and one made by openssl.
constexpr Certificate kCertificates[] = {
    // openssl: C=DE, ST=Baden-Württemberg (UTF8String), O, OU+CN, emailAddress; serial
    // 9ABCDEF0123456789
    {"real",
     "MIICvzCCAiigAwIBAgIJCavN7wEjRWeJMA0GCSqGSIb3DQEBCwUAMHcxCzAJBgNVBAYTAkRFMRswGQYDVQQIDBJC"
     "YWRlbi1Xw7xydHRlbWJlcmcxEjAQBgNVBAoMCUFjbWUgR21iSDEcMAoGA1UECwwDRGV2MA4GA1UEAwwHUm9vdCBD"
     "QTEZMBcGCSqGSIb3DQEJARYKY2FAYWNtZS5kZTAeFw0yNjEyMDExMjAwMThaFw0zNjExMjgxMjAwMThaMHcxCzAJ"
     "BgNVBAYTAkRFMRswGQYDVQQIDBJCYWRlbi1Xw7xydHRlbWJlcmcxEjAQBgNVBAoMCUFjbWUgR21iSDEcMAoGA1UE"
     "CwwDRGV2MA4GA1UEAwwHUm9vdCBDQTEZMBcGCSqGSIb3DQEJARYKY2FAYWNtZS5kZTCBnzANBgkqhkiG9w0BAQEF"
     "AAOBjQAwgYkCgYEAnTnNiN6N9gr44aH5xPER0Dt8BmD4k3S5lQLaxbyOsmLxh5UtpUwuDDenmekvdwvmWV1Rx7XQ"
     "MJq6oOBM8bmj6dTOnIA/DQAZC9GhwHAheAdWi+uBAvf4/r5htqRxVKgwVvrLzjqHJxyIwwO3DdRZ/TWVdxH8ZLz6"
     "mJ07rj0bVCUCAwEAAaNTMFEwHQYDVR0OBBYEFLacqsKHa6qkubCxGmXJvGV8ymHZMB8GA1UdIwQYMBaAFLacqsKH"
     "a6qkubCxGmXJvGV8ymHZMA8GA1UdEwEB/wQFMAMBAf8wDQYJKoZIhvcNAQELBQADgYEAZWH92boEDI+F+YSj7PU8"
     "oA5HrWhGX9IYWLuaNFf0ge3nbTTqdLBahhSluTmtrkHIp1MGWCe2F67hLMCbZM/dT35gPL3FUCXws9oR9fqhFTkq"
     "BXSoqjG1+ost4vJLm2ih6IRZzeeC+0qL2dAGMNdZAwcMWCxkpItOQp0+L2LNglc="},
    // C=US, O=Example Org, CN=Test CA; serial 1
    {"c1",
     "MIGsMIGWoAMCAQICAQEwDQYJKoZIhvcNAQELBQAwNTELMAkGA1UEBhMCVVMxFDASBgNVBAoTC0V4YW1wbGUgT3Jn"
     "MRAwDgYDVQQDEwdUZXN0IENBMB4XDTIwMDEwMTAwMDAwMFoXDTMwMDEwMTAwMDAwMFowEjEQMA4GA1UEAxMHc3Vi"
     "amVjdDASMA0GCSqGSIb3DQEBAQUAAwEAMA0GCSqGSIb3DQEBCwUAAwIAAQ=="},
    // CN (UTF8String, two spaces)+OU, then DC (IA5String); serial 00 80
    {"c2",
     "MIGpMIGToAMCAQICAgCAMA0GCSqGSIb3DQEBCwUAMDExGjANBgNVBAMMBkFiICBDZDAJBgNVBAsTAlp6MRMwEQYK"
     "CZImiZPyLGQBGRYDQ09NMB4XDTIwMDEwMTAwMDAwMFoXDTMwMDEwMTAwMDAwMFowEjEQMA4GA1UEAxMHc3ViamVj"
     "dDASMA0GCSqGSIb3DQEBAQUAAwEAMA0GCSqGSIb3DQEBCwUAAwIAAQ=="},
    // non-ASCII UTF8String CN; serial FF (negative)
    {"c3",
     "MIGNMHigAwIBAgIB/zANBgkqhkiG9w0BAQsFADAXMRUwEwYDVQQDDAzDnG7Dr2NvZGUgw6kwHhcNMjAwMTAxMDAw"
     "MDAwWhcNMzAwMTAxMDAwMDAwWjASMRAwDgYDVQQDEwdzdWJqZWN0MBIwDQYJKoZIhvcNAQEBBQADAQAwDQYJKoZI"
     "hvcNAQELBQADAgAB"},
    // CN with , + = " \\ < > ; and emailAddress; serial 0
    {"c5",
     "MIGzMIGdoAMCAQICAQAwDQYJKoZIhvcNAQELBQAwPDEaMBgGA1UEAxMRYSxiK2M9ZCJlXGY8Zz5oO2kxHjAcBgkq"
     "hkiG9w0BCQEWD0Zvb0BFeGFtcGxlLkNPTTAeFw0yMDAxMDEwMDAwMDBaFw0zMDAxMDEwMDAwMDBaMBIxEDAOBgNV"
     "BAMTB3N1YmplY3QwEjANBgkqhkiG9w0BAQEFAAMBADANBgkqhkiG9w0BAQsFAAMCAAE="},
    // CN with leading space and #, TeletexString L, BMPString ST; serial 0F AB
    {"c6",
     "MIGuMIGYoAMCAQICAg+rMA0GCSqGSIb3DQEBCwUAMDYxFjAUBgNVBAMTDSAjbGVhZCB0cmFpbCAxDTALBgNVBAcU"
     "BGNhZukxDTALBgNVBAgeBAB4APwwHhcNMjAwMTAxMDAwMDAwWhcNMzAwMTAxMDAwMDAwWjASMRAwDgYDVQQDEwdz"
     "dWJqZWN0MBIwDQYJKoZIhvcNAQEBBQADAQAwDQYJKoZIhvcNAQELBQADAgAB"},
    // an empty issuer; serial 80 00
    {"c7",
     "MHcwYqADAgECAgKAADANBgkqhkiG9w0BAQsFADAAMB4XDTIwMDEwMTAwMDAwMFoXDTMwMDEwMTAwMDAwMFowEjEQ"
     "MA4GA1UEAxMHc3ViamVjdDASMA0GCSqGSIb3DQEBAQUAAwEAMA0GCSqGSIb3DQEBCwUAAwIAAQ=="},
    // cut short inside the signature
    {"d7",
     "MIGCMG2gAwIBAgIBATANBgkqhkiG9w0BAQsFADAMMQowCAYDVQQDEwF4MB4XDTIwMDEwMTAwMDAwMFoXDTMwMDEw"
     "MTAwMDAwMFowEjEQMA4GA1UEAxMHc3ViamVjdDASMA0GCSqGSIb3DQEBAQUAAwEAMA0GCSqGSIb3DQEBCwUAAw=="},
    // a BIT STRING x500UniqueIdentifier
    {"d8",
     "MIGDMG6gAwIBAgIBATANBgkqhkiG9w0BAQsFADANMQswCQYDVQQtAwIApTAeFw0yMDAxMDEwMDAwMDBaFw0zMDAx"
     "MDEwMDAwMDBaMBIxEDAOBgNVBAMTB3N1YmplY3QwEjANBgkqhkiG9w0BAQEFAAMBADANBgkqhkiG9w0BAQsFAAMC"
     "AAE="},
    // v1 (no version): serialNumber+street+uid
    {"e1",
     "MIGnMIGRAgEBMA0GCSqGSIb3DQEBCwUAMDUxMzAMBgNVBAUTBTEyIDM0MA8GA1UECRMITWFpbiAgU3QwEgYKCZIm"
     "iZPyLGQBARMESkRvZTAeFw0yMDAxMDEwMDAwMDBaFw0zMDAxMDEwMDAwMDBaMBIxEDAOBgNVBAMTB3N1YmplY3Qw"
     "EjANBgkqhkiG9w0BAQEFAAMBADANBgkqhkiG9w0BAQsFAAMCAAE="},
    // serial 7F FF.. (9 bytes), UTF8String CN with ß and Σ, UniversalString O
    {"e2",
     "MIGiMIGMoAMCAQICCX///////////zANBgkqhkiG9w0BAQsFADAjMQ4wDAYDVQQDDAXDn3jOozERMA8GA1UEChwI"
     "AAAAQQAAAGIwHhcNMjAwMTAxMDAwMDAwWhcNMzAwMTAxMDAwMDAwWjASMRAwDgYDVQQDEwdzdWJqZWN0MBIwDQYJ"
     "KoZIhvcNAQEBBQADAQAwDQYJKoZIhvcNAQELBQADAgAB"},
    // an empty RDN after CN
    {"e3",
     "MIGEMG+gAwIBAgIBATANBgkqhkiG9w0BAQsFADAOMQowCAYDVQQDEwF4MQAwHhcNMjAwMTAxMDAwMDAwWhcNMzAw"
     "MTAxMDAwMDAwWjASMRAwDgYDVQQDEwdzdWJqZWN0MBIwDQYJKoZIhvcNAQEBBQADAQAwDQYJKoZIhvcNAQELBQAD"
     "AgAB"},
    // an OCTET STRING-typed CN
    {"e4",
     "MIGCMG2gAwIBAgIBATANBgkqhkiG9w0BAQsFADAMMQowCAYDVQQDBAF4MB4XDTIwMDEwMTAwMDAwMFoXDTMwMDEw"
     "MTAwMDAwMFowEjEQMA4GA1UEAxMHc3ViamVjdDASMA0GCSqGSIb3DQEBAQUAAwEAMA0GCSqGSIb3DQEBCwUAAwIA"
     "AQ=="},
    // CN+OU+O in one RDN, unsorted
    {"e5",
     "MIGXMIGBoAMCAQICAQEwDQYJKoZIhvcNAQELBQAwIDEeMAgGA1UEAwwBWDAIBgNVBAsTAXkwCAYDVQQKEwF6MB4X"
     "DTIwMDEwMTAwMDAwMFoXDTMwMDEwMTAwMDAwMFowEjEQMA4GA1UEAxMHc3ViamVjdDASMA0GCSqGSIb3DQEBAQUA"
     "AwEAMA0GCSqGSIb3DQEBCwUAAwIAAQ=="},
    // an empty serial INTEGER
    {"e6",
     "MIGBMGygAwIBAgIAMA0GCSqGSIb3DQEBCwUAMAwxCjAIBgNVBAMTAXgwHhcNMjAwMTAxMDAwMDAwWhcNMzAwMTAx"
     "MDAwMDAwWjASMRAwDgYDVQQDEwdzdWJqZWN0MBIwDQYJKoZIhvcNAQEBBQADAQAwDQYJKoZIhvcNAQELBQADAgAB"},
};

// Issuer 1.2.3.4.5 (no such attribute type), and serial 00 01 (not minimal).
constexpr char kUnknownIssuerType[] =
    "MIGcMIGGoAMCAQICEQEjRWeJq83vASNFZ4mrze8BMA0GCSqGSIb3DQEBCwUAMBUxEzARBgQqAwQFEwlPZGQgVmFs"
    "dWUwHhcNMjAwMTAxMDAwMDAwWhcNMzAwMTAxMDAwMDAwWjASMRAwDgYDVQQDEwdzdWJqZWN0MBIwDQYJKoZIhvcN"
    "AQEBBQADAQAwDQYJKoZIhvcNAQELBQADAgAB";
constexpr char kNonMinimalSerial[] =
    "MIGDMG6gAwIBAgICAAEwDQYJKoZIhvcNAQELBQAwDDEKMAgGA1UEAxMBeDAeFw0yMDAxMDEwMDAwMDBaFw0zMDAx"
    "MDEwMDAwMDBaMBIxEDAOBgNVBAMTB3N1YmplY3QwEjANBgkqhkiG9w0BAQEFAAMBADANBgkqhkiG9w0BAQsFAAMC"
    "AAE=";

// A back-mdb database and its slapd.conf, with an equality index on
// userCertificate.
struct Db {
  std::string dir, conf;
};

Db MakeDb(const TempDir& tmp, const std::string& name) {
  Db db{tmp.File(name), ""};
  fs::create_directory(db.dir);
  db.conf = testing::SlapdConf()
                .LoadBackMdb()
                .Include({"core", "cosine", "inetorgperson"})
                .Database("mdb")
                .Suffix(testing::kExampleSuffix)
                .RootDn(testing::kExampleRootDn)
                .Directory(db.dir)
                .MaxSize(104857600)
                .Indexes({"objectClass eq", "cn eq", "userCertificate eq"})
                .Write(tmp, name + ".conf");
  return db;
}

std::string Operational(int n, std::string_view structural) {
  char uuid[40];
  std::snprintf(uuid, sizeof(uuid), "4a7e0c2e-8f3e-4d0b-9d7a-%012d", n);
  return "entryUUID: " + std::string(uuid) +
         "\nentryCSN: 20240101000000.000000Z#000000#000#000000\n"
         "createTimestamp: 20240101000000Z\nmodifyTimestamp: 20240101000000Z\n"
         "creatorsName: cn=admin,dc=example,dc=com\n"
         "modifiersName: cn=admin,dc=example,dc=com\n"
         "structuralObjectClass: " +
         std::string(structural) + "\n";
}

std::string Suffix() {
  return "dn: dc=example,dc=com\nobjectClass: dcObject\nobjectClass: organization\n"
         "o: Example\ndc: example\n" +
         Operational(0, "organization") + "\n";
}

// One person per certificate, a person holding three, and a CA.
std::string Directory() {
  std::string ldif = Suffix();
  int n = 1;
  for (const Certificate& c : kCertificates) {
    ldif += "dn: cn=" + std::string(c.name) + ",dc=example,dc=com\nobjectClass: inetOrgPerson\n" +
            "cn: " + c.name + "\nsn: S\nuserCertificate;binary:: " + c.base64 + "\n" +
            Operational(n++, "inetOrgPerson") + "\n";
  }
  ldif += "dn: cn=several,dc=example,dc=com\nobjectClass: inetOrgPerson\ncn: several\nsn: S\n";
  for (size_t i : {0, 3, 5}) {
    ldif += "userCertificate;binary:: " + std::string(kCertificates[i].base64) + "\n";
  }
  ldif += Operational(n++, "inetOrgPerson") + "\n";
  ldif +=
      "dn: cn=ca,dc=example,dc=com\nobjectClass: device\nobjectClass: pkiCA\ncn: ca\n"
      "cACertificate;binary:: " +
      std::string(kCertificates[0].base64) + "\n" + Operational(n++, "device") + "\n";
  return ldif;
}

std::string Slapcat(const Db& db) {
  ProcessResult r = testing::RunSlapcat({"-f", db.conf}, 60);
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  return r.out;
}

TEST_CASE("certificate oracle: id2e, index and slapcat as slapadd writes them") {
  SKIP_WITHOUT_TOOLS();
  TempDir tmp;
  const std::string input = tmp.Write("certs.ldif", Directory());
  Db theirs = MakeDb(tmp, "slapadd");
  ProcessResult a = testing::RunSlapadd({"-q", "-f", theirs.conf, "-l", input}, 60);
  REQUIRE_MESSAGE(a.exit_code == 0, a.Describe());
  Db mine = MakeDb(tmp, "dirload");
  ProcessResult b = RunDirload({"add", "-f", mine.conf, "-l", input, "--progress", "never"}, 60);
  REQUIRE_MESSAGE(b.exit_code == 0, b.Describe());

  const std::vector<std::string> dbs = MdbDatabases(theirs.dir);
  CHECK(MdbDatabases(mine.dir) == dbs);
  CHECK(std::find(dbs.begin(), dbs.end(), "userCertificate") != dbs.end());
  for (const std::string& name : dbs) {
    CAPTURE(name);
    std::string x = MdbDump(mine.dir, name), y = MdbDump(theirs.dir, name);
    if (name == "id2e") {
      size_t mine_dirty = 0, theirs_dirty = 0;
      x = MaskId2ePadding(x, &mine_dirty);
      y = MaskId2ePadding(y, &theirs_dirty);
      CHECK(mine_dirty == 0);
      // The normalised form is really there, as slapd writes it.
      CHECK(y.find(HexEncode("{ serialNumber '1'H, issuer rdnSequence:\"cn=test ca,o=example org,"
                             "c=us\" }")) != std::string::npos);
      CHECK(y.find(HexEncode("rdnSequence:\"cn=\\C3\\BCn\\C3\\AFcode \\C3\\A9\" }")) !=
            std::string::npos);
    }
    CHECK(FirstDifference(x, y) == "");
  }
  CHECK(FirstDifference(Slapcat(mine), Slapcat(theirs)) == "");
}

TEST_CASE("certificate oracle: issuers and serials slapadd refuses") {
  SKIP_WITHOUT_TOOLS();
  TempDir tmp;
  for (const char* bad : {kUnknownIssuerType, kNonMinimalSerial}) {
    const std::string input = tmp.Write(
        "bad.ldif", Suffix() +
                        "dn: cn=bad,dc=example,dc=com\nobjectClass: inetOrgPerson\ncn: bad\n"
                        "sn: S\nuserCertificate;binary:: " +
                        bad + "\n" + Operational(1, "inetOrgPerson") + "\n");
    Db theirs = MakeDb(tmp, "slapadd");
    ProcessResult a = testing::RunSlapadd({"-q", "-f", theirs.conf, "-l", input}, 60);
    CHECK_MESSAGE(a.exit_code != 0, a.Describe());
    Db mine = MakeDb(tmp, "dirload");
    ProcessResult b = RunDirload({"add", "-f", mine.conf, "-l", input, "--progress", "never"}, 60);
    CHECK_MESSAGE(b.exit_code == 1, b.Describe());
    fs::remove_all(theirs.dir);
    fs::remove_all(mine.dir);
  }
}

}  // namespace
}  // namespace dirload
