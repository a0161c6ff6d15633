// The core user schema: RFC 4519 (with the X.509 attributes of RFC 4523 and
// the classes OpenLDAP's core.schema also carries from RFC 2079, RFC 2247,
// RFC 2377, RFC 4524 and PKCS #9). The attributes slapd defines internally
// (name, cn, description, seeAlso, userPassword, distinguishedName, uid,
// labeledURI, objectClass, aliasedObjectName) live in builtin_system.cc.
#include "lib/schema/builtin_schema.h"

namespace dirload::schema_internal {

const std::string_view kCoreSchemaText = R"schema(
# RFC 4519 attribute types, in OID order.
attributetype ( 2.5.4.2 NAME 'knowledgeInformation'
  DESC 'X.520: knowledge information'
  EQUALITY caseIgnoreMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.15{32768} )
attributetype ( 2.5.4.4 NAME ( 'sn' 'surname' )
  DESC 'RFC 4519: family name' SUP name )
attributetype ( 2.5.4.5 NAME 'serialNumber'
  DESC 'RFC 4519: serial number of a device'
  EQUALITY caseIgnoreMatch SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.44{64} )
attributetype ( 2.5.4.6 NAME ( 'c' 'countryName' )
  DESC 'RFC 4519: ISO 3166 two-letter country code'
  SUP name SYNTAX 1.3.6.1.4.1.1466.115.121.1.11 SINGLE-VALUE )
attributetype ( 2.5.4.7 NAME ( 'l' 'localityName' )
  DESC 'RFC 4519: locality' SUP name )
attributetype ( 2.5.4.8 NAME ( 'st' 'stateOrProvinceName' )
  DESC 'RFC 4519: state or province' SUP name )
attributetype ( 2.5.4.9 NAME ( 'street' 'streetAddress' )
  DESC 'RFC 4519: street address'
  EQUALITY caseIgnoreMatch SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15{128} )
attributetype ( 2.5.4.10 NAME ( 'o' 'organizationName' )
  DESC 'RFC 4519: organization' SUP name )
attributetype ( 2.5.4.11 NAME ( 'ou' 'organizationalUnitName' )
  DESC 'RFC 4519: organizational unit' SUP name )
attributetype ( 2.5.4.12 NAME 'title'
  DESC 'RFC 4519: title or position' SUP name )
attributetype ( 2.5.4.14 NAME 'searchGuide'
  DESC 'RFC 4519: search criteria hint'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.25 )
attributetype ( 2.5.4.15 NAME 'businessCategory'
  DESC 'RFC 4519: kind of business'
  EQUALITY caseIgnoreMatch SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15{128} )
attributetype ( 2.5.4.16 NAME 'postalAddress'
  DESC 'RFC 4519: postal address'
  EQUALITY caseIgnoreListMatch SUBSTR caseIgnoreListSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.41 )
attributetype ( 2.5.4.17 NAME 'postalCode'
  DESC 'RFC 4519: postal code'
  EQUALITY caseIgnoreMatch SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15{40} )
attributetype ( 2.5.4.18 NAME 'postOfficeBox'
  DESC 'RFC 4519: post office box'
  EQUALITY caseIgnoreMatch SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15{40} )
attributetype ( 2.5.4.19 NAME 'physicalDeliveryOfficeName'
  DESC 'RFC 4519: delivery office'
  EQUALITY caseIgnoreMatch SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15{128} )
attributetype ( 2.5.4.20 NAME 'telephoneNumber'
  DESC 'RFC 4519: telephone number'
  EQUALITY telephoneNumberMatch SUBSTR telephoneNumberSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.50{32} )
attributetype ( 2.5.4.21 NAME 'telexNumber'
  DESC 'RFC 4519: telex number'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.52 )
attributetype ( 2.5.4.22 NAME 'teletexTerminalIdentifier'
  DESC 'RFC 4519: teletex terminal identifier'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.51 )
attributetype ( 2.5.4.23 NAME ( 'facsimileTelephoneNumber' 'fax' )
  DESC 'RFC 4519: fax number'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.22 )
attributetype ( 2.5.4.24 NAME 'x121Address'
  DESC 'RFC 4519: X.121 address'
  EQUALITY numericStringMatch SUBSTR numericStringSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.36{15} )
attributetype ( 2.5.4.25 NAME 'internationaliSDNNumber'
  DESC 'RFC 4519: international ISDN number'
  EQUALITY numericStringMatch SUBSTR numericStringSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.36{16} )
attributetype ( 2.5.4.26 NAME 'registeredAddress'
  DESC 'RFC 4519: address for registered mail'
  SUP postalAddress SYNTAX 1.3.6.1.4.1.1466.115.121.1.41 )
attributetype ( 2.5.4.27 NAME 'destinationIndicator'
  DESC 'RFC 4519: telegram destination'
  EQUALITY caseIgnoreMatch SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.44{128} )
attributetype ( 2.5.4.28 NAME 'preferredDeliveryMethod'
  DESC 'RFC 4519: preferred means of contact'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.14 SINGLE-VALUE )
attributetype ( 2.5.4.29 NAME 'presentationAddress'
  DESC 'X.520: OSI presentation address'
  EQUALITY presentationAddressMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.43 SINGLE-VALUE )
attributetype ( 2.5.4.30 NAME 'supportedApplicationContext'
  DESC 'X.520: supported application contexts'
  EQUALITY objectIdentifierMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.38 )
attributetype ( 2.5.4.31 NAME 'member'
  DESC 'RFC 4519: member of a group' SUP distinguishedName )
attributetype ( 2.5.4.32 NAME 'owner'
  DESC 'RFC 4519: owner of the entry' SUP distinguishedName )
attributetype ( 2.5.4.33 NAME 'roleOccupant'
  DESC 'RFC 4519: holder of a role' SUP distinguishedName )
attributetype ( 2.5.4.36 NAME 'userCertificate'
  DESC 'RFC 4523: X.509 user certificate, transferred with ;binary'
  EQUALITY certificateExactMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.8 )
attributetype ( 2.5.4.37 NAME 'cACertificate'
  DESC 'RFC 4523: X.509 CA certificate, transferred with ;binary'
  EQUALITY certificateExactMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.8 )
attributetype ( 2.5.4.38 NAME 'authorityRevocationList'
  DESC 'RFC 4523: X.509 authority revocation list, transferred with ;binary'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.9 )
attributetype ( 2.5.4.39 NAME 'certificateRevocationList'
  DESC 'RFC 4523: X.509 certificate revocation list, transferred with ;binary'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.9 )
attributetype ( 2.5.4.40 NAME 'crossCertificatePair'
  DESC 'RFC 4523: X.509 cross certificate pair, transferred with ;binary'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.10 )
attributetype ( 2.5.4.42 NAME ( 'givenName' 'gn' )
  DESC 'RFC 4519: given name' SUP name )
attributetype ( 2.5.4.43 NAME 'initials'
  DESC 'RFC 4519: initials' SUP name )
attributetype ( 2.5.4.44 NAME 'generationQualifier'
  DESC 'RFC 4519: generation, e.g. Jr.' SUP name )
attributetype ( 2.5.4.45 NAME 'x500UniqueIdentifier'
  DESC 'RFC 4519: distinguishes reused names'
  EQUALITY bitStringMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.6 )
attributetype ( 2.5.4.46 NAME 'dnQualifier'
  DESC 'RFC 4519: disambiguates DNs'
  EQUALITY caseIgnoreMatch ORDERING caseIgnoreOrderingMatch
  SUBSTR caseIgnoreSubstringsMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.44 )
attributetype ( 2.5.4.47 NAME 'enhancedSearchGuide'
  DESC 'RFC 4519: enhanced search criteria hint'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.21 )
attributetype ( 2.5.4.48 NAME 'protocolInformation'
  DESC 'X.520: protocol information'
  EQUALITY protocolInformationMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.42 )
attributetype ( 2.5.4.50 NAME 'uniqueMember'
  DESC 'RFC 4519: member of a group, with an optional unique id'
  EQUALITY uniqueMemberMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.34 )
attributetype ( 2.5.4.51 NAME 'houseIdentifier'
  DESC 'RFC 4519: house or building identifier'
  EQUALITY caseIgnoreMatch SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15{32768} )
attributetype ( 2.5.4.52 NAME 'supportedAlgorithms'
  DESC 'RFC 4523: supported algorithms, transferred with ;binary'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.49 )
attributetype ( 2.5.4.53 NAME 'deltaRevocationList'
  DESC 'RFC 4523: delta revocation list, transferred with ;binary'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.9 )
attributetype ( 2.5.4.54 NAME 'dmdName'
  DESC 'RFC 2256: name of a directory management domain' SUP name )
attributetype ( 2.5.4.65 NAME 'pseudonym'
  DESC 'X.520: pseudonym' SUP name )

# RFC 4519 object classes.
objectclass ( 2.5.6.2 NAME 'country'
  DESC 'RFC 4519: a country'
  SUP top STRUCTURAL MUST c MAY ( searchGuide $ description ) )
objectclass ( 2.5.6.3 NAME 'locality'
  DESC 'RFC 4519: a place'
  SUP top STRUCTURAL
  MAY ( street $ seeAlso $ searchGuide $ st $ l $ description ) )
objectclass ( 2.5.6.4 NAME 'organization'
  DESC 'RFC 4519: an organization'
  SUP top STRUCTURAL MUST o
  MAY ( userPassword $ searchGuide $ seeAlso $ businessCategory $ x121Address $
        registeredAddress $ destinationIndicator $ preferredDeliveryMethod $
        telexNumber $ teletexTerminalIdentifier $ telephoneNumber $
        internationaliSDNNumber $ facsimileTelephoneNumber $ street $
        postOfficeBox $ postalCode $ postalAddress $ physicalDeliveryOfficeName $
        st $ l $ description ) )
objectclass ( 2.5.6.5 NAME 'organizationalUnit'
  DESC 'RFC 4519: a unit of an organization'
  SUP top STRUCTURAL MUST ou
  MAY ( userPassword $ searchGuide $ seeAlso $ businessCategory $ x121Address $
        registeredAddress $ destinationIndicator $ preferredDeliveryMethod $
        telexNumber $ teletexTerminalIdentifier $ telephoneNumber $
        internationaliSDNNumber $ facsimileTelephoneNumber $ street $
        postOfficeBox $ postalCode $ postalAddress $ physicalDeliveryOfficeName $
        st $ l $ description ) )
objectclass ( 2.5.6.6 NAME 'person'
  DESC 'RFC 4519: a person'
  SUP top STRUCTURAL MUST ( sn $ cn )
  MAY ( userPassword $ telephoneNumber $ seeAlso $ description ) )
objectclass ( 2.5.6.7 NAME 'organizationalPerson'
  DESC 'RFC 4519: a person within an organization'
  SUP person STRUCTURAL
  MAY ( title $ x121Address $ registeredAddress $ destinationIndicator $
        preferredDeliveryMethod $ telexNumber $ teletexTerminalIdentifier $
        telephoneNumber $ internationaliSDNNumber $ facsimileTelephoneNumber $
        street $ postOfficeBox $ postalCode $ postalAddress $
        physicalDeliveryOfficeName $ ou $ st $ l ) )
objectclass ( 2.5.6.8 NAME 'organizationalRole'
  DESC 'RFC 4519: a position or role'
  SUP top STRUCTURAL MUST cn
  MAY ( x121Address $ registeredAddress $ destinationIndicator $
        preferredDeliveryMethod $ telexNumber $ teletexTerminalIdentifier $
        telephoneNumber $ internationaliSDNNumber $ facsimileTelephoneNumber $
        seeAlso $ roleOccupant $ street $ postOfficeBox $ postalCode $
        postalAddress $ physicalDeliveryOfficeName $ ou $ st $ l $ description ) )
objectclass ( 2.5.6.9 NAME 'groupOfNames'
  DESC 'RFC 4519: a group of names'
  SUP top STRUCTURAL MUST ( member $ cn )
  MAY ( businessCategory $ seeAlso $ owner $ ou $ o $ description ) )
objectclass ( 2.5.6.10 NAME 'residentialPerson'
  DESC 'RFC 4519: a person at home'
  SUP person STRUCTURAL MUST l
  MAY ( businessCategory $ x121Address $ registeredAddress $
        destinationIndicator $ preferredDeliveryMethod $ telexNumber $
        teletexTerminalIdentifier $ telephoneNumber $ internationaliSDNNumber $
        facsimileTelephoneNumber $ street $ postOfficeBox $ postalCode $
        postalAddress $ physicalDeliveryOfficeName $ st $ l ) )
objectclass ( 2.5.6.11 NAME 'applicationProcess'
  DESC 'RFC 4519: an application'
  SUP top STRUCTURAL MUST cn MAY ( seeAlso $ ou $ l $ description ) )
objectclass ( 2.5.6.12 NAME 'applicationEntity'
  DESC 'X.521: an OSI application entity'
  SUP top STRUCTURAL MUST ( presentationAddress $ cn )
  MAY ( supportedApplicationContext $ seeAlso $ ou $ o $ l $ description ) )
objectclass ( 2.5.6.13 NAME 'dSA'
  DESC 'X.521: a directory system agent'
  SUP applicationEntity STRUCTURAL MAY knowledgeInformation )
objectclass ( 2.5.6.14 NAME 'device'
  DESC 'RFC 4519: a device'
  SUP top STRUCTURAL MUST cn
  MAY ( serialNumber $ seeAlso $ owner $ ou $ o $ l $ description ) )
objectclass ( 2.5.6.15 NAME 'strongAuthenticationUser'
  DESC 'RFC 4523: a user with a certificate'
  SUP top AUXILIARY MUST userCertificate )
objectclass ( 2.5.6.16 NAME 'certificationAuthority'
  DESC 'RFC 4523: a certification authority'
  SUP top AUXILIARY
  MUST ( authorityRevocationList $ certificateRevocationList $ cACertificate )
  MAY crossCertificatePair )
objectclass ( 2.5.6.17 NAME 'groupOfUniqueNames'
  DESC 'RFC 4519: a group of unique names'
  SUP top STRUCTURAL MUST ( uniqueMember $ cn )
  MAY ( businessCategory $ seeAlso $ owner $ ou $ o $ description ) )
objectclass ( 2.5.6.18 NAME 'userSecurityInformation'
  DESC 'RFC 4523: security information of a user'
  SUP top AUXILIARY MAY ( supportedAlgorithms ) )
objectclass ( 2.5.6.16.2 NAME 'certificationAuthority-V2'
  DESC 'RFC 4523: a certification authority, version 2'
  SUP certificationAuthority AUXILIARY MAY ( deltaRevocationList ) )
objectclass ( 2.5.6.19 NAME 'cRLDistributionPoint'
  DESC 'RFC 4523: a CRL distribution point'
  SUP top STRUCTURAL MUST ( cn )
  MAY ( certificateRevocationList $ authorityRevocationList $ deltaRevocationList ) )
objectclass ( 2.5.6.20 NAME 'dmd'
  DESC 'RFC 2256: a directory management domain'
  SUP top STRUCTURAL MUST ( dmdName )
  MAY ( userPassword $ searchGuide $ seeAlso $ businessCategory $ x121Address $
        registeredAddress $ destinationIndicator $ preferredDeliveryMethod $
        telexNumber $ teletexTerminalIdentifier $ telephoneNumber $
        internationaliSDNNumber $ facsimileTelephoneNumber $ street $
        postOfficeBox $ postalCode $ postalAddress $ physicalDeliveryOfficeName $
        st $ l $ description ) )
objectclass ( 2.5.6.21 NAME 'pkiUser'
  DESC 'RFC 4523: a PKI user'
  SUP top AUXILIARY MAY userCertificate )
objectclass ( 2.5.6.22 NAME 'pkiCA'
  DESC 'RFC 4523: a PKI certification authority'
  SUP top AUXILIARY
  MAY ( authorityRevocationList $ certificateRevocationList $ cACertificate $
        crossCertificatePair ) )
objectclass ( 2.5.6.23 NAME 'deltaCRL'
  DESC 'RFC 4523: holder of a delta CRL'
  SUP top AUXILIARY MAY deltaRevocationList )

# RFC 2079.
objectclass ( 1.3.6.1.4.1.250.3.15 NAME 'labeledURIObject'
  DESC 'RFC 2079: an entry with labeled URIs'
  SUP top AUXILIARY MAY ( labeledURI ) )

# RFC 4524 / RFC 2247 / RFC 2377 items that core carries.
attributetype ( 0.9.2342.19200300.100.1.3 NAME ( 'mail' 'rfc822Mailbox' )
  DESC 'RFC 4524: RFC 822 mailbox'
  EQUALITY caseIgnoreIA5Match SUBSTR caseIgnoreIA5SubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.26{256} )
objectclass ( 0.9.2342.19200300.100.4.19 NAME 'simpleSecurityObject'
  DESC 'RFC 4524: an entry with a password'
  SUP top AUXILIARY MUST userPassword )
attributetype ( 0.9.2342.19200300.100.1.25 NAME ( 'dc' 'domainComponent' )
  DESC 'RFC 4519: one label of a DNS domain name'
  EQUALITY caseIgnoreIA5Match SUBSTR caseIgnoreIA5SubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.26 SINGLE-VALUE )
objectclass ( 1.3.6.1.4.1.1466.344 NAME 'dcObject'
  DESC 'RFC 4519: an entry named by a domain component'
  SUP top AUXILIARY MUST dc )
objectclass ( 1.3.6.1.1.3.1 NAME 'uidObject'
  DESC 'RFC 4519: an entry named by a user id'
  SUP top AUXILIARY MUST uid )
attributetype ( 0.9.2342.19200300.100.1.37 NAME 'associatedDomain'
  DESC 'RFC 4524: DNS domain associated with the entry'
  EQUALITY caseIgnoreIA5Match SUBSTR caseIgnoreIA5SubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.26 )

# PKCS #9 (legacy) email address.
attributetype ( 1.2.840.113549.1.9.1 NAME ( 'email' 'emailAddress' 'pkcs9email' )
  DESC 'PKCS #9: email address (legacy)'
  EQUALITY caseIgnoreIA5Match SUBSTR caseIgnoreIA5SubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.26{128} )
)schema";

}  // namespace dirload::schema_internal
