// The COSINE pilot schema, RFC 4524 (the parts OpenLDAP's cosine.schema
// carries; uid, mail, dc and associatedDomain are defined by the system and
// core texts).
#include "lib/schema/builtin_schema.h"

namespace dirload::schema_internal {

const std::string_view kCosineSchemaText = R"schema(
attributetype ( 0.9.2342.19200300.100.1.2 NAME 'textEncodedORAddress'
  DESC 'RFC 1274: text-encoded X.400 O/R address'
  EQUALITY caseIgnoreMatch SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15{256} )
attributetype ( 0.9.2342.19200300.100.1.4 NAME 'info'
  DESC 'RFC 4524: general information'
  EQUALITY caseIgnoreMatch SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15{2048} )
attributetype ( 0.9.2342.19200300.100.1.5 NAME ( 'drink' 'favouriteDrink' )
  DESC 'RFC 4524: favourite drink'
  EQUALITY caseIgnoreMatch SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15{256} )
attributetype ( 0.9.2342.19200300.100.1.6 NAME 'roomNumber'
  DESC 'RFC 4524: room number'
  EQUALITY caseIgnoreMatch SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15{256} )
attributetype ( 0.9.2342.19200300.100.1.7 NAME 'photo'
  DESC 'RFC 1274: photograph (G3 fax)'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.23{25000} )
attributetype ( 0.9.2342.19200300.100.1.8 NAME 'userClass'
  DESC 'RFC 4524: category of computer user'
  EQUALITY caseIgnoreMatch SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15{256} )
attributetype ( 0.9.2342.19200300.100.1.9 NAME 'host'
  DESC 'RFC 4524: a host computer'
  EQUALITY caseIgnoreMatch SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15{256} )
attributetype ( 0.9.2342.19200300.100.1.10 NAME 'manager'
  DESC 'RFC 4524: DN of the manager'
  EQUALITY distinguishedNameMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.12 )
attributetype ( 0.9.2342.19200300.100.1.11 NAME 'documentIdentifier'
  DESC 'RFC 4524: unique document identifier'
  EQUALITY caseIgnoreMatch SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15{256} )
attributetype ( 0.9.2342.19200300.100.1.12 NAME 'documentTitle'
  DESC 'RFC 4524: title of a document'
  EQUALITY caseIgnoreMatch SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15{256} )
attributetype ( 0.9.2342.19200300.100.1.13 NAME 'documentVersion'
  DESC 'RFC 4524: version of a document'
  EQUALITY caseIgnoreMatch SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15{256} )
attributetype ( 0.9.2342.19200300.100.1.14 NAME 'documentAuthor'
  DESC 'RFC 4524: DN of a document author'
  EQUALITY distinguishedNameMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.12 )
attributetype ( 0.9.2342.19200300.100.1.15 NAME 'documentLocation'
  DESC 'RFC 4524: where a document is kept'
  EQUALITY caseIgnoreMatch SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15{256} )
attributetype ( 0.9.2342.19200300.100.1.20 NAME ( 'homePhone' 'homeTelephoneNumber' )
  DESC 'RFC 4524: home telephone number'
  EQUALITY telephoneNumberMatch SUBSTR telephoneNumberSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.50 )
attributetype ( 0.9.2342.19200300.100.1.21 NAME 'secretary'
  DESC 'RFC 4524: DN of a secretary'
  EQUALITY distinguishedNameMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.12 )
attributetype ( 0.9.2342.19200300.100.1.22 NAME 'otherMailbox'
  DESC 'RFC 1274: mailbox of another mail system'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.39 )
attributetype ( 0.9.2342.19200300.100.1.26 NAME 'aRecord'
  DESC 'RFC 1274: DNS A record'
  EQUALITY caseIgnoreIA5Match SYNTAX 1.3.6.1.4.1.1466.115.121.1.26 )
attributetype ( 0.9.2342.19200300.100.1.27 NAME 'mDRecord'
  DESC 'RFC 1274: DNS MD record'
  EQUALITY caseIgnoreIA5Match SYNTAX 1.3.6.1.4.1.1466.115.121.1.26 )
attributetype ( 0.9.2342.19200300.100.1.28 NAME 'mXRecord'
  DESC 'RFC 1274: DNS MX record'
  EQUALITY caseIgnoreIA5Match SYNTAX 1.3.6.1.4.1.1466.115.121.1.26 )
attributetype ( 0.9.2342.19200300.100.1.29 NAME 'nSRecord'
  DESC 'RFC 1274: DNS NS record'
  EQUALITY caseIgnoreIA5Match SYNTAX 1.3.6.1.4.1.1466.115.121.1.26 )
attributetype ( 0.9.2342.19200300.100.1.30 NAME 'sOARecord'
  DESC 'RFC 1274: DNS SOA record'
  EQUALITY caseIgnoreIA5Match SYNTAX 1.3.6.1.4.1.1466.115.121.1.26 )
attributetype ( 0.9.2342.19200300.100.1.31 NAME 'cNAMERecord'
  DESC 'RFC 1274: DNS CNAME record'
  EQUALITY caseIgnoreIA5Match SYNTAX 1.3.6.1.4.1.1466.115.121.1.26 )
attributetype ( 0.9.2342.19200300.100.1.38 NAME 'associatedName'
  DESC 'RFC 4524: DN of an entry associated with a domain'
  EQUALITY distinguishedNameMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.12 )
attributetype ( 0.9.2342.19200300.100.1.39 NAME 'homePostalAddress'
  DESC 'RFC 4524: home postal address'
  EQUALITY caseIgnoreListMatch SUBSTR caseIgnoreListSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.41 )
attributetype ( 0.9.2342.19200300.100.1.40 NAME 'personalTitle'
  DESC 'RFC 4524: personal title'
  EQUALITY caseIgnoreMatch SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15{256} )
attributetype ( 0.9.2342.19200300.100.1.41 NAME ( 'mobile' 'mobileTelephoneNumber' )
  DESC 'RFC 4524: mobile telephone number'
  EQUALITY telephoneNumberMatch SUBSTR telephoneNumberSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.50 )
attributetype ( 0.9.2342.19200300.100.1.42 NAME ( 'pager' 'pagerTelephoneNumber' )
  DESC 'RFC 4524: pager telephone number'
  EQUALITY telephoneNumberMatch SUBSTR telephoneNumberSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.50 )
attributetype ( 0.9.2342.19200300.100.1.43 NAME ( 'co' 'friendlyCountryName' )
  DESC 'RFC 4524: country name in prose'
  EQUALITY caseIgnoreMatch SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )
attributetype ( 0.9.2342.19200300.100.1.44 NAME 'uniqueIdentifier'
  DESC 'RFC 4524: unique identifier'
  EQUALITY caseIgnoreMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.15{256} )
attributetype ( 0.9.2342.19200300.100.1.45 NAME 'organizationalStatus'
  DESC 'RFC 4524: status within an organization'
  EQUALITY caseIgnoreMatch SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15{256} )
attributetype ( 0.9.2342.19200300.100.1.46 NAME 'janetMailbox'
  DESC 'RFC 1274: JANET mailbox'
  EQUALITY caseIgnoreIA5Match SUBSTR caseIgnoreIA5SubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.26{256} )
attributetype ( 0.9.2342.19200300.100.1.47 NAME 'mailPreferenceOption'
  DESC 'RFC 1274: mail preference option'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 )
attributetype ( 0.9.2342.19200300.100.1.48 NAME 'buildingName'
  DESC 'RFC 4524: name of a building'
  EQUALITY caseIgnoreMatch SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15{256} )
attributetype ( 0.9.2342.19200300.100.1.49 NAME 'dSAQuality'
  DESC 'RFC 1274: quality of a DSA'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.19 SINGLE-VALUE )
attributetype ( 0.9.2342.19200300.100.1.50 NAME 'singleLevelQuality'
  DESC 'RFC 1274: quality of a single level'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.13 SINGLE-VALUE )
attributetype ( 0.9.2342.19200300.100.1.51 NAME 'subtreeMinimumQuality'
  DESC 'RFC 1274: minimum quality of a subtree'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.13 SINGLE-VALUE )
attributetype ( 0.9.2342.19200300.100.1.52 NAME 'subtreeMaximumQuality'
  DESC 'RFC 1274: maximum quality of a subtree'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.13 SINGLE-VALUE )
attributetype ( 0.9.2342.19200300.100.1.53 NAME 'personalSignature'
  DESC 'RFC 1274: signature image (G3 fax)'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.23 )
attributetype ( 0.9.2342.19200300.100.1.54 NAME 'dITRedirect'
  DESC 'RFC 1274: DN to use instead'
  EQUALITY distinguishedNameMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.12 )
attributetype ( 0.9.2342.19200300.100.1.55 NAME 'audio'
  DESC 'RFC 1274: audio (u-law)'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.4{25000} )
attributetype ( 0.9.2342.19200300.100.1.56 NAME 'documentPublisher'
  DESC 'RFC 4524: publisher of a document'
  EQUALITY caseIgnoreMatch SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )

objectclass ( 0.9.2342.19200300.100.4.4 NAME ( 'pilotPerson' 'newPilotPerson' )
  DESC 'RFC 1274: a person in the pilot'
  SUP person STRUCTURAL
  MAY ( userid $ textEncodedORAddress $ rfc822Mailbox $ favouriteDrink $
        roomNumber $ userClass $ homeTelephoneNumber $ homePostalAddress $
        secretary $ personalTitle $ preferredDeliveryMethod $ businessCategory $
        janetMailbox $ otherMailbox $ mobileTelephoneNumber $
        pagerTelephoneNumber $ organizationalStatus $ mailPreferenceOption $
        personalSignature ) )
objectclass ( 0.9.2342.19200300.100.4.5 NAME 'account'
  DESC 'RFC 4524: a computer account'
  SUP top STRUCTURAL MUST userid
  MAY ( description $ seeAlso $ localityName $ organizationName $
        organizationalUnitName $ host ) )
objectclass ( 0.9.2342.19200300.100.4.6 NAME 'document'
  DESC 'RFC 4524: a document'
  SUP top STRUCTURAL MUST documentIdentifier
  MAY ( commonName $ description $ seeAlso $ localityName $ organizationName $
        organizationalUnitName $ documentTitle $ documentVersion $
        documentAuthor $ documentLocation $ documentPublisher ) )
objectclass ( 0.9.2342.19200300.100.4.7 NAME 'room'
  DESC 'RFC 4524: a room'
  SUP top STRUCTURAL MUST commonName
  MAY ( roomNumber $ description $ seeAlso $ telephoneNumber ) )
objectclass ( 0.9.2342.19200300.100.4.9 NAME 'documentSeries'
  DESC 'RFC 4524: a series of documents'
  SUP top STRUCTURAL MUST commonName
  MAY ( description $ seeAlso $ telephoneNumber $ localityName $
        organizationName $ organizationalUnitName ) )
objectclass ( 0.9.2342.19200300.100.4.13 NAME 'domain'
  DESC 'RFC 4524: a DNS domain'
  SUP top STRUCTURAL MUST domainComponent
  MAY ( associatedName $ organizationName $ description $ businessCategory $
        seeAlso $ searchGuide $ userPassword $ localityName $
        stateOrProvinceName $ streetAddress $ physicalDeliveryOfficeName $
        postalAddress $ postalCode $ postOfficeBox $ facsimileTelephoneNumber $
        internationaliSDNNumber $ telephoneNumber $ teletexTerminalIdentifier $
        telexNumber $ preferredDeliveryMethod $ destinationIndicator $
        registeredAddress $ x121Address ) )
objectclass ( 0.9.2342.19200300.100.4.14 NAME 'RFC822localPart'
  DESC 'RFC 4524: local part of an RFC 822 address'
  SUP domain STRUCTURAL
  MAY ( commonName $ surname $ description $ seeAlso $ telephoneNumber $
        physicalDeliveryOfficeName $ postalAddress $ postalCode $ postOfficeBox $
        streetAddress $ facsimileTelephoneNumber $ internationaliSDNNumber $
        teletexTerminalIdentifier $ telexNumber $ preferredDeliveryMethod $
        destinationIndicator $ registeredAddress $ x121Address ) )
objectclass ( 0.9.2342.19200300.100.4.15 NAME 'dNSDomain'
  DESC 'RFC 1274: a domain with DNS records'
  SUP domain STRUCTURAL
  MAY ( aRecord $ mDRecord $ mXRecord $ nSRecord $ sOARecord $ cNAMERecord ) )
objectclass ( 0.9.2342.19200300.100.4.17 NAME 'domainRelatedObject'
  DESC 'RFC 4524: an entry tied to a DNS domain'
  SUP top AUXILIARY MUST associatedDomain )
objectclass ( 0.9.2342.19200300.100.4.18 NAME 'friendlyCountry'
  DESC 'RFC 4524: a country with a prose name'
  SUP country STRUCTURAL MUST friendlyCountryName )
objectclass ( 0.9.2342.19200300.100.4.20 NAME 'pilotOrganization'
  DESC 'RFC 1274: an organization in the pilot'
  SUP ( organization $ organizationalUnit ) STRUCTURAL MAY buildingName )
objectclass ( 0.9.2342.19200300.100.4.21 NAME 'pilotDSA'
  DESC 'RFC 1274: a DSA in the pilot'
  SUP dSA STRUCTURAL MAY dSAQuality )
objectclass ( 0.9.2342.19200300.100.4.22 NAME 'qualityLabelledData'
  DESC 'RFC 1274: data with quality labels'
  SUP top AUXILIARY MUST dSAQuality
  MAY ( subtreeMinimumQuality $ subtreeMaximumQuality ) )
)schema";

}  // namespace dirload::schema_internal
