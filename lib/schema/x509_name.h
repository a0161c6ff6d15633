// X.509 certificates as certificateExactMatch (RFC 4523 2.5.13.34) sees them:
// a DER reader for the fields up to the issuer, and the normalised form slapd
// 2.5 stores for a userCertificate or cACertificate value:
//
//   { serialNumber 'HEX'H, issuer rdnSequence:"DN" }
//
// with one space after '{', after "serialNumber", after ',' and "issuer",
// and before '}', and:
//   - HEX: the serial's INTEGER content bytes in upper-case hex, a leading
//     zero nibble dropped ('1'H, 'FAB'H, '0'H); a 00 byte before a byte with
//     the high bit set is dropped (00 80 is '80'H), negative serials are
//     written as their two's-complement bytes (FF is 'FF'H); non-minimal
//     encodings (00 01, FF 80) are refused; an empty INTEGER is '0'H.
//   - DN: the issuer Name in LDAP order (the certificate's last RDN first),
//     each attribute type given by its schema's canonical name, each value
//     converted to UTF-8 (PrintableString, IA5String, UTF8String as they are,
//     TeletexString as ISO 8859-1, BMPString and UniversalString as UCS-2 and
//     UCS-4, BIT STRING as '0101'B, any other type's content bytes as they
//     are), then normalised as NormalizeDn (dn.h) normalises a DN, except that
//     every byte of a multi-byte UTF-8 character is written \XX ("cn=\C3\A9").
//     An empty issuer Name gives "". Attribute types the schema does not
//     define, values failing their syntax or empty once normalised, and a type
//     twice in one RDN are refused, as by slapd.
//
// Like slapd, only the fields up to and including the issuer are read: the
// outer SEQUENCE and the TBSCertificate need the right tags, but what follows
// the issuer is not looked at, so a certificate cut short after its issuer
// still has a key (slapadd stores one for it). Every element read must lie
// within the value; anything else is InvalidArgument, never a read out of
// bounds.
//
// Thread safety: pure functions; the Schema is only read.
#pragma once

#include <string>
#include <string_view>

#include "lib/schema/dn.h"
#include "lib/util/status.h"

namespace dirload {

class Schema;

// The fields of a certificate that certificateExactMatch keys on, viewing the
// DER value they were read from.
struct CertificateFields {
  std::string_view serial;  // the serialNumber INTEGER's content bytes
  std::string_view issuer;  // the issuer Name's content bytes (RDNSequence)
};

// Reads the serial number and issuer of the DER certificate `der`.
Status ParseCertificateFields(std::string_view der, CertificateFields* out);

// The 'HEX'H form of an INTEGER's content bytes (see above).
Status FormatCertificateSerial(std::string_view integer_content, std::string* out);

// The Dn of an X.509 Name's content bytes: rdns[0] is the Name's last RDN,
// types are dotted OIDs ("2.5.4.3"), values are converted to UTF-8 as above.
// Empty RDNs (SETs without AVAs) are skipped, as slapd skips them.
Result<Dn> X509NameToDn(std::string_view name_content);

// The certificateExactMatch key of the DER certificate `der` (see above).
Status NormalizeCertificateExact(const Schema& schema, std::string_view der, std::string* out);

}  // namespace dirload
