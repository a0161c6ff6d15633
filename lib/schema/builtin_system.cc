// The definitions slapd keeps internally rather than in a .schema file: the
// RFC 4512 operational attributes and classes, OpenLDAP's replication and
// bookkeeping attributes, and the few user attributes slapd itself relies on
// (name, cn, uid, uidNumber, gidNumber, userPassword, description, seeAlso,
// labeledURI), which OpenLDAP's core.schema and nis.schema therefore leave
// commented out.
#include "lib/schema/builtin_schema.h"

namespace dirload::schema_internal {

const std::string_view kSystemSchemaText = R"schema(
# RFC 4512 section 3.3 and 4.2: the attributes every entry or server has.
attributetype ( 2.5.4.0 NAME 'objectClass'
  DESC 'RFC 4512: object classes of the entry'
  EQUALITY objectIdentifierMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.38 )
attributetype ( 2.5.21.9 NAME 'structuralObjectClass'
  DESC 'X.501: the structural object class of the entry'
  EQUALITY objectIdentifierMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.38
  SINGLE-VALUE NO-USER-MODIFICATION USAGE directoryOperation )
attributetype ( 2.5.18.1 NAME 'createTimestamp'
  DESC 'RFC 4512: when the entry was added'
  EQUALITY generalizedTimeMatch ORDERING generalizedTimeOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.24
  SINGLE-VALUE NO-USER-MODIFICATION USAGE directoryOperation )
attributetype ( 2.5.18.2 NAME 'modifyTimestamp'
  DESC 'RFC 4512: when the entry was last changed'
  EQUALITY generalizedTimeMatch ORDERING generalizedTimeOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.24
  SINGLE-VALUE NO-USER-MODIFICATION USAGE directoryOperation )
attributetype ( 2.5.18.3 NAME 'creatorsName'
  DESC 'RFC 4512: who added the entry'
  EQUALITY distinguishedNameMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.12
  SINGLE-VALUE NO-USER-MODIFICATION USAGE directoryOperation )
attributetype ( 2.5.18.4 NAME 'modifiersName'
  DESC 'RFC 4512: who last changed the entry'
  EQUALITY distinguishedNameMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.12
  SINGLE-VALUE NO-USER-MODIFICATION USAGE directoryOperation )
attributetype ( 2.5.18.9 NAME 'hasSubordinates'
  DESC 'X.501: whether the entry has children'
  EQUALITY booleanMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.7
  SINGLE-VALUE NO-USER-MODIFICATION USAGE directoryOperation )
attributetype ( 2.5.18.10 NAME 'subschemaSubentry'
  DESC 'RFC 4512: the subschema entry that governs this entry'
  EQUALITY distinguishedNameMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.12
  SINGLE-VALUE NO-USER-MODIFICATION USAGE directoryOperation )
attributetype ( 2.5.18.5 NAME 'administrativeRole'
  DESC 'RFC 3672: administrative role of an area'
  EQUALITY objectIdentifierMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.38
  USAGE directoryOperation )
attributetype ( 2.5.18.6 NAME 'subtreeSpecification'
  DESC 'RFC 3672: the subtree a subentry applies to'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.45 SINGLE-VALUE USAGE directoryOperation )
attributetype ( 1.3.6.1.1.20 NAME 'entryDN'
  DESC 'RFC 5020: the DN of the entry'
  EQUALITY distinguishedNameMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.12
  SINGLE-VALUE NO-USER-MODIFICATION USAGE directoryOperation )
attributetype ( 1.3.6.1.1.16.4 NAME 'entryUUID'
  DESC 'RFC 4530: the UUID of the entry'
  EQUALITY UUIDMatch ORDERING UUIDOrderingMatch SYNTAX 1.3.6.1.1.16.1
  SINGLE-VALUE NO-USER-MODIFICATION USAGE directoryOperation )
attributetype ( 1.3.6.1.4.1.4203.666.1.7 NAME 'entryCSN'
  DESC 'OpenLDAP: change sequence number of the entry'
  EQUALITY CSNMatch ORDERING CSNOrderingMatch
  SYNTAX 1.3.6.1.4.1.4203.666.11.2.1{64}
  SINGLE-VALUE NO-USER-MODIFICATION USAGE directoryOperation )
attributetype ( 1.3.6.1.4.1.4203.666.1.25 NAME 'contextCSN'
  DESC 'OpenLDAP: largest committed CSN of a naming context'
  EQUALITY CSNMatch ORDERING CSNOrderingMatch
  SYNTAX 1.3.6.1.4.1.4203.666.11.2.1{64}
  NO-USER-MODIFICATION USAGE dSAOperation )
attributetype ( 1.3.6.1.4.1.4203.666.1.23 NAME 'syncreplCookie'
  DESC 'OpenLDAP: replication consumer state'
  EQUALITY octetStringMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.40
  NO-USER-MODIFICATION USAGE dSAOperation )

# RFC 4512 section 5.1: root DSE attributes.
attributetype ( 1.3.6.1.4.1.1466.101.120.6 NAME 'altServer'
  DESC 'RFC 4512: alternative servers'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.26 USAGE dSAOperation )
attributetype ( 1.3.6.1.4.1.1466.101.120.5 NAME 'namingContexts'
  DESC 'RFC 4512: naming contexts held by the server'
  EQUALITY distinguishedNameMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.12
  USAGE dSAOperation )
attributetype ( 1.3.6.1.4.1.1466.101.120.13 NAME 'supportedControl'
  DESC 'RFC 4512: controls the server supports'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.38 USAGE dSAOperation )
attributetype ( 1.3.6.1.4.1.1466.101.120.7 NAME 'supportedExtension'
  DESC 'RFC 4512: extended operations the server supports'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.38 USAGE dSAOperation )
attributetype ( 1.3.6.1.4.1.1466.101.120.15 NAME 'supportedLDAPVersion'
  DESC 'RFC 4512: LDAP versions the server supports'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 USAGE dSAOperation )
attributetype ( 1.3.6.1.4.1.1466.101.120.14 NAME 'supportedSASLMechanisms'
  DESC 'RFC 4512: SASL mechanisms the server supports'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 USAGE dSAOperation )
attributetype ( 1.3.6.1.4.1.4203.1.3.5 NAME 'supportedFeatures'
  DESC 'RFC 4512: features the server supports'
  EQUALITY objectIdentifierMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.38
  USAGE dSAOperation )
attributetype ( 1.3.6.1.1.4 NAME 'vendorName'
  DESC 'RFC 3045: implementation vendor'
  EQUALITY caseExactMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.15
  SINGLE-VALUE NO-USER-MODIFICATION USAGE dSAOperation )
attributetype ( 1.3.6.1.1.5 NAME 'vendorVersion'
  DESC 'RFC 3045: implementation version'
  EQUALITY caseExactMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.15
  SINGLE-VALUE NO-USER-MODIFICATION USAGE dSAOperation )

# RFC 4512 section 4.2: subschema attributes.
attributetype ( 2.5.21.1 NAME 'dITStructureRules'
  DESC 'RFC 4512: DIT structure rules'
  EQUALITY integerFirstComponentMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.17
  USAGE directoryOperation )
attributetype ( 2.5.21.2 NAME 'dITContentRules'
  DESC 'RFC 4512: DIT content rules'
  EQUALITY objectIdentifierFirstComponentMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.16 USAGE directoryOperation )
attributetype ( 2.5.21.4 NAME 'matchingRules'
  DESC 'RFC 4512: matching rules'
  EQUALITY objectIdentifierFirstComponentMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.30 USAGE directoryOperation )
attributetype ( 2.5.21.5 NAME 'attributeTypes'
  DESC 'RFC 4512: attribute types'
  EQUALITY objectIdentifierFirstComponentMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.3 USAGE directoryOperation )
attributetype ( 2.5.21.6 NAME 'objectClasses'
  DESC 'RFC 4512: object classes'
  EQUALITY objectIdentifierFirstComponentMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.37 USAGE directoryOperation )
attributetype ( 2.5.21.7 NAME 'nameForms'
  DESC 'RFC 4512: name forms'
  EQUALITY objectIdentifierFirstComponentMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.35 USAGE directoryOperation )
attributetype ( 2.5.21.8 NAME 'matchingRuleUse'
  DESC 'RFC 4512: matching rule uses'
  EQUALITY objectIdentifierFirstComponentMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.31 USAGE directoryOperation )
attributetype ( 1.3.6.1.4.1.1466.101.120.16 NAME 'ldapSyntaxes'
  DESC 'RFC 4512: LDAP syntaxes'
  EQUALITY objectIdentifierFirstComponentMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.54 USAGE directoryOperation )

# Aliases, referrals and dynamic entries.
attributetype ( 2.5.4.1 NAME ( 'aliasedObjectName' 'aliasedEntryName' )
  DESC 'RFC 4512: the entry an alias points to'
  EQUALITY distinguishedNameMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.12
  SINGLE-VALUE )
attributetype ( 2.16.840.1.113730.3.1.34 NAME 'ref'
  DESC 'RFC 3296: URL of a subordinate referral'
  EQUALITY caseExactMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.15
  USAGE distributedOperation )
attributetype ( 1.3.6.1.4.1.1466.101.119.3 NAME 'entryTtl'
  DESC 'RFC 2589: time to live of a dynamic entry'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27
  SINGLE-VALUE NO-USER-MODIFICATION USAGE dSAOperation )
attributetype ( 1.3.6.1.4.1.1466.101.119.4 NAME 'dynamicSubtrees'
  DESC 'RFC 2589: subtrees holding dynamic entries'
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.12 NO-USER-MODIFICATION USAGE dSAOperation )

# User attributes slapd needs for itself (authentication, ACLs, identity).
attributetype ( 2.5.4.49 NAME 'distinguishedName'
  DESC 'RFC 4519: supertype of DN-valued attributes'
  EQUALITY distinguishedNameMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.12 )
attributetype ( 2.5.4.41 NAME 'name'
  DESC 'RFC 4519: supertype of naming attributes'
  EQUALITY caseIgnoreMatch SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15{32768} )
attributetype ( 2.5.4.3 NAME ( 'cn' 'commonName' )
  DESC 'RFC 4519: common name'
  SUP name )
attributetype ( 0.9.2342.19200300.100.1.1 NAME ( 'uid' 'userid' )
  DESC 'RFC 4519: user identifier'
  EQUALITY caseIgnoreMatch SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15{256} )
attributetype ( 1.3.6.1.1.1.1.0 NAME 'uidNumber'
  DESC 'RFC 2307: numeric user id'
  EQUALITY integerMatch ORDERING integerOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 SINGLE-VALUE )
attributetype ( 1.3.6.1.1.1.1.1 NAME 'gidNumber'
  DESC 'RFC 2307: numeric group id'
  EQUALITY integerMatch ORDERING integerOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 SINGLE-VALUE )
attributetype ( 2.5.4.35 NAME 'userPassword'
  DESC 'RFC 4519: password or password hash'
  EQUALITY octetStringMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.40{128} )
attributetype ( 1.3.6.1.4.1.250.1.57 NAME 'labeledURI'
  DESC 'RFC 2079: URI with an optional label'
  EQUALITY caseExactMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )
attributetype ( 2.5.4.13 NAME 'description'
  DESC 'RFC 4519: free-form description'
  EQUALITY caseIgnoreMatch SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15{1024} )
attributetype ( 2.5.4.34 NAME 'seeAlso'
  DESC 'RFC 4519: DN of a related entry'
  SUP distinguishedName )
attributetype ( 1.3.6.1.4.1.4203.666.1.8 NAME ( 'authzTo' 'saslAuthzTo' )
  DESC 'OpenLDAP: identities this one may act as'
  EQUALITY authzMatch SYNTAX 1.3.6.1.4.1.4203.666.2.7 USAGE distributedOperation )
attributetype ( 1.3.6.1.4.1.4203.666.1.9 NAME ( 'authzFrom' 'saslAuthzFrom' )
  DESC 'OpenLDAP: identities that may act as this one'
  EQUALITY authzMatch SYNTAX 1.3.6.1.4.1.4203.666.2.7 USAGE distributedOperation )
attributetype ( 1.3.6.1.4.1.4203.666.1.60 NAME 'pKCS8PrivateKey'
  DESC 'PKCS #8 private key, transferred with ;binary'
  EQUALITY privateKeyMatch SYNTAX 1.2.840.113549.1.8.1.1 )
attributetype ( 1.3.6.1.4.1.42.2.27.8.1.29 NAME 'pwdLastSuccess'
  DESC 'password policy: time of the last successful bind'
  EQUALITY generalizedTimeMatch ORDERING generalizedTimeOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.24
  SINGLE-VALUE NO-USER-MODIFICATION USAGE directoryOperation )

objectclass ( 2.5.6.0 NAME 'top'
  DESC 'RFC 4512: the root of every class hierarchy'
  ABSTRACT MUST objectClass )
objectclass ( 1.3.6.1.4.1.1466.101.120.111 NAME 'extensibleObject'
  DESC 'RFC 4512: entry may hold any user attribute'
  SUP top AUXILIARY )
objectclass ( 2.5.6.1 NAME 'alias'
  DESC 'RFC 4512: an alias entry'
  SUP top STRUCTURAL MUST aliasedObjectName )
objectclass ( 2.16.840.1.113730.3.2.6 NAME 'referral'
  DESC 'RFC 3296: a named subordinate referral'
  SUP top STRUCTURAL MUST ref )
objectclass ( 1.3.6.1.4.1.4203.1.4.1 NAME ( 'OpenLDAProotDSE' 'LDAProotDSE' )
  DESC 'OpenLDAP: the root DSE'
  SUP top STRUCTURAL MAY cn )
objectclass ( 2.5.17.0 NAME 'subentry'
  DESC 'RFC 3672: a subentry'
  SUP top STRUCTURAL MUST ( cn $ subtreeSpecification ) )
objectclass ( 2.5.20.1 NAME 'subschema'
  DESC 'RFC 4512: a subschema (sub)entry'
  AUXILIARY
  MAY ( dITStructureRules $ nameForms $ dITContentRules $ objectClasses $
        attributeTypes $ matchingRules $ matchingRuleUse ) )
objectclass ( 1.3.6.1.4.1.1466.101.119.2 NAME 'dynamicObject'
  DESC 'RFC 2589: a dynamic entry'
  SUP top AUXILIARY )
objectclass ( 1.3.6.1.4.1.4203.666.3.4 NAME 'glue'
  DESC 'OpenLDAP: placeholder for a missing superior entry'
  SUP top STRUCTURAL )
objectclass ( 1.3.6.1.4.1.4203.666.3.5 NAME 'syncConsumerSubentry'
  DESC 'OpenLDAP: replication consumer state holder'
  AUXILIARY MAY syncreplCookie )
objectclass ( 1.3.6.1.4.1.4203.666.3.6 NAME 'syncProviderSubentry'
  DESC 'OpenLDAP: replication provider state holder'
  AUXILIARY MAY contextCSN )
)schema";

}  // namespace dirload::schema_internal
