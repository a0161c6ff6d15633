// The inetOrgPerson schema, RFC 2798.
#include "lib/schema/builtin_schema.h"

namespace dirload::schema_internal {

const std::string_view kInetOrgPersonSchemaText = R"schema(
attributetype ( 2.16.840.1.113730.3.1.1 NAME 'carLicense'
  DESC 'RFC 2798: vehicle license or registration plate'
  EQUALITY caseIgnoreMatch SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )
attributetype ( 2.16.840.1.113730.3.1.2 NAME 'departmentNumber'
  DESC 'RFC 2798: department within an organization'
  EQUALITY caseIgnoreMatch SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )
attributetype ( 2.16.840.1.113730.3.1.241 NAME 'displayName'
  DESC 'RFC 2798: preferred name for display'
  EQUALITY caseIgnoreMatch SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 SINGLE-VALUE )
attributetype ( 2.16.840.1.113730.3.1.3 NAME 'employeeNumber'
  DESC 'RFC 2798: numeric or alphanumeric employee identifier'
  EQUALITY caseIgnoreMatch SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 SINGLE-VALUE )
attributetype ( 2.16.840.1.113730.3.1.4 NAME 'employeeType'
  DESC 'RFC 2798: type of employment'
  EQUALITY caseIgnoreMatch SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )
attributetype ( 0.9.2342.19200300.100.1.60 NAME 'jpegPhoto'
  DESC 'RFC 2798: JPEG photograph'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.28 )
attributetype ( 2.16.840.1.113730.3.1.39 NAME 'preferredLanguage'
  DESC 'RFC 2798: preferred written or spoken language'
  EQUALITY caseIgnoreMatch SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 SINGLE-VALUE )
attributetype ( 2.16.840.1.113730.3.1.40 NAME 'userSMIMECertificate'
  DESC 'RFC 2798: PKCS #7 SignedData used for S/MIME'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.5 )
attributetype ( 2.16.840.1.113730.3.1.216 NAME 'userPKCS12'
  DESC 'RFC 2798: PKCS #12 PFX holding a private key'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.5 )

objectclass ( 2.16.840.1.113730.3.2.2 NAME 'inetOrgPerson'
  DESC 'RFC 2798: a person in an Internet organization'
  SUP organizationalPerson STRUCTURAL
  MAY ( audio $ businessCategory $ carLicense $ departmentNumber $
        displayName $ employeeNumber $ employeeType $ givenName $ homePhone $
        homePostalAddress $ initials $ jpegPhoto $ labeledURI $ mail $ manager $
        mobile $ o $ pager $ photo $ roomNumber $ secretary $ uid $
        userCertificate $ x500uniqueIdentifier $ preferredLanguage $
        userSMIMECertificate $ userPKCS12 ) )
)schema";

}  // namespace dirload::schema_internal
