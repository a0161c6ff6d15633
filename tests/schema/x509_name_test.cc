// certificateExactMatch keys of DER certificates. The expected strings are
// what slapadd 2.5 stores in id2e for the same bytes (checked against the
// real slapadd by tests/integration/certificate_oracle_test.cc).
#include "lib/schema/x509_name.h"

#include <doctest/doctest.h>

#include <string>
#include <string_view>

#include "lib/schema/normalize.h"
#include "lib/schema/schema.h"
#include "tests/schema/builtin_fixture.h"
#include "tests/support/hex.h"

namespace dirload {
namespace {

using testing::BuiltinSchema;

using testing::FromHex;

// What every test certificate has after its issuer: validity, subject
// cn=subject and an empty RSA key ...
constexpr std::string_view kTbsTail =
    "301e170d3230303130313030303030305a170d3330303130313030303030305a30123110300e06035504031307"
    "7375626a6563743012300d06092a864886f70d0101010500030100";
// ... and after the TBSCertificate: the signature algorithm and a signature.
constexpr std::string_view kSignature = "300d06092a864886f70d01010b050003020001";

// A certificate with the given serial INTEGER content and issuer Name
// element (both hex), lengths computed.
std::string Cert(std::string_view serial_hex, std::string_view issuer_hex, bool v3 = true) {
  auto tlv = [](uint8_t tag, const std::string& body) {
    std::string out(1, static_cast<char>(tag));
    if (body.size() >= 128) out.push_back(static_cast<char>(0x81));
    out.push_back(static_cast<char>(body.size()));
    return out + body;
  };
  std::string tbs = v3 ? FromHex("a003020102") : "";
  tbs += tlv(0x02, FromHex(serial_hex)) + FromHex("300d06092a864886f70d01010b0500") +
         FromHex(issuer_hex) + FromHex(kTbsTail);
  return tlv(0x30, tlv(0x30, tbs) + FromHex(kSignature));
}

std::string Key(const std::string& der) {
  std::string out;
  Status st = NormalizeCertificateExact(BuiltinSchema(), der, &out);
  REQUIRE_MESSAGE(st.ok(), st.ToString());
  return out;
}

bool Refused(const std::string& der) {
  std::string out;
  return !NormalizeCertificateExact(BuiltinSchema(), der, &out).ok();
}

TEST_CASE("whole certificates give slapd's form") {
  // C=US, O=Example Org, CN=Test CA (PrintableStrings), serial 1.
  const std::string c1 = FromHex(
      "3081ac308196a003020102020101300d06092a864886f70d01010b05003035310b3009060355040613025553"
      "31143012060355040a130b4578616d706c65204f72673110300e0603550403130754657374204341301e170d"
      "3230303130313030303030305a170d3330303130313030303030305a30123110300e06035504031307737562"
      "6a6563743012300d06092a864886f70d0101010500030100300d06092a864886f70d01010b050003020001");
  CHECK(Key(c1) == "{ serialNumber '1'H, issuer rdnSequence:\"cn=test ca,o=example org,c=us\" }");
  // The builder gives the same bytes.
  CHECK(Cert("01",
             "3035310b300906035504061302555331143012060355040a130b4578616d706c65204f7267311030"
             "0e0603550403130754657374204341") == c1);
  // Through the matching rule, as the loader calls it.
  const MatchingRule* rule = FindMatchingRule("certificateExactMatch");
  REQUIRE(rule != nullptr);
  CHECK(rule->normalizer == Normalizer::kCertificate);
  CHECK(SlapaddRejectsUnnormalizable(rule->normalizer));
  Result<std::string> k = NormalizeValue(BuiltinSchema(), *rule, c1);
  REQUIRE(k.ok());
  CHECK(*k == Key(c1));
  const AttributeType* user_certificate = BuiltinSchema().FindAttribute("userCertificate");
  REQUIRE(user_certificate != nullptr);
  Result<std::string> e = NormalizeEquality(BuiltinSchema(), *user_certificate, c1);
  REQUIRE(e.ok());
  CHECK(*e == Key(c1));
}

TEST_CASE("serial numbers") {
  const std::string cn_x = "300c310a30080603550403130178";
  auto serial = [&](std::string_view hex) {
    std::string key = Key(Cert(hex, cn_x));
    const size_t a = key.find('\''), b = key.find('\'', a + 1);
    return key.substr(a, b - a + 2);
  };
  CHECK(serial("01") == "'1'H");
  CHECK(serial("00") == "'0'H");
  CHECK(serial("") == "'0'H");  // no content bytes at all
  CHECK(serial("0fab") == "'FAB'H");
  CHECK(serial("0080") == "'80'H");  // the sign byte goes
  CHECK(serial("ff") == "'FF'H");    // negative: the bytes as they are
  CHECK(serial("8000") == "'8000'H");
  CHECK(serial("7fffffffffffffffff") == "'7FFFFFFFFFFFFFFFFF'H");
  CHECK(serial("0123456789abcdef0123456789abcdef01") == "'123456789ABCDEF0123456789ABCDEF01'H");
  // Not minimal: slapd refuses them.
  CHECK(Refused(Cert("0001", cn_x)));
  CHECK(Refused(Cert("ff80", cn_x)));
  CHECK(Refused(Cert("00007f", cn_x)));
}

TEST_CASE("issuer names") {
  auto issuer = [](std::string_view name_hex, bool v3 = true) {
    std::string key = Key(Cert("01", name_hex, v3));
    const size_t a = key.find('"'), b = key.rfind('"');
    return key.substr(a + 1, b - a - 1);
  };
  // Multi-valued RDN (UTF8String, PrintableString), then dc (IA5String):
  // LDAP order reverses the RDNs; spaces are squeezed.
  CHECK(issuer("3031311a300d06035504030c064162202043643009060355040b13025a7a31133011060a09922689"
               "93f22c6401191603434f4d") == "dc=com,cn=ab cd+ou=zz");
  // AVAs sorted by type name.
  CHECK(issuer("3020311e300806035504030c01583008060355040b1301793008060355040a13017a") ==
        "cn=x+o=z+ou=y");
  // Non-ASCII: every byte of a multi-byte character escaped.
  CHECK(issuer("30173115301306035504030c0cc39c6ec3af636f646520c3a9") ==
        "cn=\\C3\\BCn\\C3\\AFcode \\C3\\A9");
  // Case folding one code point at a time; a UniversalString.
  CHECK(issuer("3023310e300c06035504030c05c39f78cea33111300f060355040a1c080000004100000062") ==
        "o=ab,cn=\\C3\\9Fx\\CF\\83");
  // Special characters, and email (not in every schema) by its schema name.
  CHECK(issuer("303c311a301806035504031311612c622b633d6422655c663c673e683b69311e301c06092a864886f7"
               "0d010901160f466f6f404578616d706c652e434f4d") ==
        "email=foo@example.com,cn=a\\2Cb\\2Bc\\3Dd\\22e\\5Cf\\3Cg\\3Eh\\3Bi");
  // A leading '#' once the leading space is gone; TeletexString as Latin-1;
  // BMPString.
  CHECK(issuer("3036311630140603550403130d20236c65616420747261696c20310d300b06035504071404636166e9"
               "310d300b06035504081e04007800fc") == "st=x\\C3\\BC,l=caf\\C3\\A9,cn=\\23lead trail");
  // Types slapd's conversion table lacks, by their schema names; a v1
  // certificate without a version field.
  CHECK(issuer("30353133300c060355040513053132203334300f060355040913084d61696e202053743012060a0992"
               "268993f22c64010113044a446f65",
               false) == "serialNumber=12 34+street=main st+uid=jdoe");
  // A BIT STRING value.
  CHECK(issuer("300d310b3009060355042d030200a5") == "x500UniqueIdentifier='10100101'B");
  // A value of no string type: its content bytes.
  CHECK(issuer("300c310a30080603550403040178") == "cn=x");
  // An empty RDN is skipped.
  CHECK(issuer("300e310a300806035504031301783100") == "cn=x");
  // slapd keeps control characters (cn=\05, cn=a\00b) where dirload's
  // RFC 4518 preparation drops them or makes them spaces (dn.h): such
  // issuers are not compared here.
  CHECK(issuer("302631163009060355042913024e6d300906035504041302536e310c300a06035504031302"
               "6162") == "cn=ab,name=nm+sn=sn");
  // An empty issuer.
  CHECK(issuer("3000") == "");
}

TEST_CASE("issuers slapd refuses") {
  CHECK(Refused(Cert("01", "30153113301106042a03040513094f64642056616c7565")));    // 1.2.3.4.5
  CHECK(Refused(Cert("01", "300e310c300a06035504061303555341")));                  // c=USA
  CHECK(Refused(Cert("01", "301631143008060355040313016130080603550403130162")));  // cn twice
  CHECK(Refused(Cert("01", "300b3109300706035504031300")));                        // empty cn
  CHECK(Refused(Cert("01", "30023100")));  // only an empty RDN
}

TEST_CASE("only the fields up to the issuer are read") {
  // Cut short inside the signature: slapadd keys it all the same.
  std::string c = Cert("01", "300c310a30080603550403130178");
  CHECK(Key(c.substr(0, c.size() - 3)) == "{ serialNumber '1'H, issuer rdnSequence:\"cn=x\" }");
}

TEST_CASE("malformed DER is refused, never read out of bounds") {
  CHECK(Refused(""));
  // Differs from slapadd on purpose: slapadd stores a value that is no
  // certificate at all with a key made from whatever memory follows the
  // value (another key on every run); dirload refuses the entry instead, as
  // it refuses any value its equality rule cannot normalize.
  CHECK(Refused("not a certificate"));
  CHECK(Refused(FromHex("3080308000")));      // indefinite lengths
  CHECK(Refused(FromHex("3085ffffffffff")));  // five length bytes
  CHECK(Refused(FromHex("30843000")));        // length bytes missing
  CHECK(Refused(FromHex("3003020101")));      // TBSCertificate not a SEQUENCE
  // Wrong tags, an overlong element, a bad OID.
  CHECK(Refused(Cert("01", "310c310a30080603550403130178")));        // issuer a SET
  CHECK(Refused(Cert("01", "300c300a30080603550403130178")));        // RDN a SEQUENCE
  CHECK(Refused(Cert("01", "300c310a30080403550403130178")));        // type not an OID
  CHECK(Refused(Cert("01", "300c310a30080603550483130178")));        // OID ends mid-arc
  CHECK(Refused(Cert("01", "300c310a300806035504031302")));          // value overruns its AVA
  CHECK(Refused(Cert("01", "300c310a301e0603550403130178")));        // AVA overruns its RDN
  CHECK(Refused(Cert("01", "300d310b3009060355040c1e0100")));        // odd-length BMPString
  CHECK(Refused(Cert("01", "300f310d300b060355040c1c0400110000")));  // not a code point

  // Every prefix cut inside the fields read, and every single-byte change
  // anywhere: an error or a key, and no crash (the sanitizers build checks
  // the reads).
  const std::string c = Cert("0080",
                             "3031311a300d06035504030c064162202043643009060355040b13025a7a311330"
                             "11060a0992268993f22c6401191603434f4d");
  const size_t issuer_end = 2 * 3 + 5 + 4 + 15 + 51;  // headers, version, serial, alg, issuer
  for (size_t n = 0; n < issuer_end; ++n) {
    CAPTURE(n);
    CHECK(Refused(c.substr(0, n)));
  }
  CHECK_FALSE(Refused(c.substr(0, issuer_end)));
  std::string out;
  for (size_t i = 0; i < c.size(); ++i) {
    for (int b : {0x00, 0x01, 0x7f, 0x80, 0x81, 0x84, 0xff}) {
      std::string m = c;
      m[i] = static_cast<char>(b);
      (void)NormalizeCertificateExact(BuiltinSchema(), m, &out);
    }
  }
}

}  // namespace
}  // namespace dirload
