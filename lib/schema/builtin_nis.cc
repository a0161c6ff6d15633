// The NIS schema, RFC 2307 (uidNumber and gidNumber are in the system text).
#include "lib/schema/builtin_schema.h"

namespace dirload::schema_internal {

const std::string_view kNisSchemaText = R"schema(
attributetype ( 1.3.6.1.1.1.1.2 NAME 'gecos'
  DESC 'RFC 2307: the GECOS field, typically the full name'
  EQUALITY caseIgnoreIA5Match SUBSTR caseIgnoreIA5SubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.26 SINGLE-VALUE )
attributetype ( 1.3.6.1.1.1.1.3 NAME 'homeDirectory'
  DESC 'RFC 2307: absolute path of the home directory'
  EQUALITY caseExactIA5Match SYNTAX 1.3.6.1.4.1.1466.115.121.1.26 SINGLE-VALUE )
attributetype ( 1.3.6.1.1.1.1.4 NAME 'loginShell'
  DESC 'RFC 2307: path of the login shell'
  EQUALITY caseExactIA5Match SYNTAX 1.3.6.1.4.1.1466.115.121.1.26 SINGLE-VALUE )
attributetype ( 1.3.6.1.1.1.1.5 NAME 'shadowLastChange'
  EQUALITY integerMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 SINGLE-VALUE )
attributetype ( 1.3.6.1.1.1.1.6 NAME 'shadowMin'
  EQUALITY integerMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 SINGLE-VALUE )
attributetype ( 1.3.6.1.1.1.1.7 NAME 'shadowMax'
  EQUALITY integerMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 SINGLE-VALUE )
attributetype ( 1.3.6.1.1.1.1.8 NAME 'shadowWarning'
  EQUALITY integerMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 SINGLE-VALUE )
attributetype ( 1.3.6.1.1.1.1.9 NAME 'shadowInactive'
  EQUALITY integerMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 SINGLE-VALUE )
attributetype ( 1.3.6.1.1.1.1.10 NAME 'shadowExpire'
  EQUALITY integerMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 SINGLE-VALUE )
attributetype ( 1.3.6.1.1.1.1.11 NAME 'shadowFlag'
  EQUALITY integerMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 SINGLE-VALUE )
attributetype ( 1.3.6.1.1.1.1.12 NAME 'memberUid'
  EQUALITY caseExactIA5Match SUBSTR caseExactIA5SubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.26 )
attributetype ( 1.3.6.1.1.1.1.13 NAME 'memberNisNetgroup'
  EQUALITY caseExactIA5Match SUBSTR caseExactIA5SubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.26 )
attributetype ( 1.3.6.1.1.1.1.14 NAME 'nisNetgroupTriple'
  DESC 'RFC 2307: netgroup triple (host, user, domain)'
  SYNTAX 1.3.6.1.1.1.0.0 )
attributetype ( 1.3.6.1.1.1.1.15 NAME 'ipServicePort'
  EQUALITY integerMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 SINGLE-VALUE )
attributetype ( 1.3.6.1.1.1.1.16 NAME 'ipServiceProtocol'
  SUP name )
attributetype ( 1.3.6.1.1.1.1.17 NAME 'ipProtocolNumber'
  EQUALITY integerMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 SINGLE-VALUE )
attributetype ( 1.3.6.1.1.1.1.18 NAME 'oncRpcNumber'
  EQUALITY integerMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 SINGLE-VALUE )
attributetype ( 1.3.6.1.1.1.1.19 NAME 'ipHostNumber'
  DESC 'RFC 2307: IPv4 address in dotted decimal'
  EQUALITY caseIgnoreIA5Match SYNTAX 1.3.6.1.4.1.1466.115.121.1.26{128} )
attributetype ( 1.3.6.1.1.1.1.20 NAME 'ipNetworkNumber'
  DESC 'RFC 2307: IPv4 network in dotted decimal'
  EQUALITY caseIgnoreIA5Match SYNTAX 1.3.6.1.4.1.1466.115.121.1.26{128} SINGLE-VALUE )
attributetype ( 1.3.6.1.1.1.1.21 NAME 'ipNetmaskNumber'
  DESC 'RFC 2307: IPv4 netmask in dotted decimal'
  EQUALITY caseIgnoreIA5Match SYNTAX 1.3.6.1.4.1.1466.115.121.1.26{128} SINGLE-VALUE )
attributetype ( 1.3.6.1.1.1.1.22 NAME 'macAddress'
  DESC 'RFC 2307: MAC address in colon-separated hex'
  EQUALITY caseIgnoreIA5Match SYNTAX 1.3.6.1.4.1.1466.115.121.1.26{128} )
attributetype ( 1.3.6.1.1.1.1.23 NAME 'bootParameter'
  DESC 'RFC 2307: boot parameter (key=server:path)'
  SYNTAX 1.3.6.1.1.1.0.1 )
attributetype ( 1.3.6.1.1.1.1.24 NAME 'bootFile'
  DESC 'RFC 2307: boot image name'
  EQUALITY caseExactIA5Match SYNTAX 1.3.6.1.4.1.1466.115.121.1.26 )
attributetype ( 1.3.6.1.1.1.1.26 NAME 'nisMapName'
  SUP name )
attributetype ( 1.3.6.1.1.1.1.27 NAME 'nisMapEntry'
  EQUALITY caseExactIA5Match SUBSTR caseExactIA5SubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.26{1024} SINGLE-VALUE )

objectclass ( 1.3.6.1.1.1.2.0 NAME 'posixAccount'
  DESC 'RFC 2307: a POSIX account'
  SUP top AUXILIARY
  MUST ( cn $ uid $ uidNumber $ gidNumber $ homeDirectory )
  MAY ( userPassword $ loginShell $ gecos $ description ) )
objectclass ( 1.3.6.1.1.1.2.1 NAME 'shadowAccount'
  DESC 'RFC 2307: shadow password data'
  SUP top AUXILIARY MUST uid
  MAY ( userPassword $ shadowLastChange $ shadowMin $ shadowMax $
        shadowWarning $ shadowInactive $ shadowExpire $ shadowFlag $ description ) )
objectclass ( 1.3.6.1.1.1.2.2 NAME 'posixGroup'
  DESC 'RFC 2307: a POSIX group'
  SUP top STRUCTURAL MUST ( cn $ gidNumber )
  MAY ( userPassword $ memberUid $ description ) )
objectclass ( 1.3.6.1.1.1.2.3 NAME 'ipService'
  DESC 'RFC 2307: an IP service'
  SUP top STRUCTURAL MUST ( cn $ ipServicePort $ ipServiceProtocol )
  MAY ( description ) )
objectclass ( 1.3.6.1.1.1.2.4 NAME 'ipProtocol'
  DESC 'RFC 2307: an IP protocol'
  SUP top STRUCTURAL MUST ( cn $ ipProtocolNumber $ description )
  MAY description )
objectclass ( 1.3.6.1.1.1.2.5 NAME 'oncRpc'
  DESC 'RFC 2307: an ONC RPC binding'
  SUP top STRUCTURAL MUST ( cn $ oncRpcNumber $ description )
  MAY description )
objectclass ( 1.3.6.1.1.1.2.6 NAME 'ipHost'
  DESC 'RFC 2307: a host with an IP address'
  SUP top AUXILIARY MUST ( cn $ ipHostNumber )
  MAY ( l $ description $ manager ) )
objectclass ( 1.3.6.1.1.1.2.7 NAME 'ipNetwork'
  DESC 'RFC 2307: an IP network'
  SUP top STRUCTURAL MUST ( cn $ ipNetworkNumber )
  MAY ( ipNetmaskNumber $ l $ description $ manager ) )
objectclass ( 1.3.6.1.1.1.2.8 NAME 'nisNetgroup'
  DESC 'RFC 2307: a netgroup'
  SUP top STRUCTURAL MUST cn
  MAY ( nisNetgroupTriple $ memberNisNetgroup $ description ) )
objectclass ( 1.3.6.1.1.1.2.9 NAME 'nisMap'
  DESC 'RFC 2307: a generic NIS map'
  SUP top STRUCTURAL MUST nisMapName MAY description )
objectclass ( 1.3.6.1.1.1.2.10 NAME 'nisObject'
  DESC 'RFC 2307: an entry of a NIS map'
  SUP top STRUCTURAL MUST ( cn $ nisMapEntry $ nisMapName )
  MAY description )
objectclass ( 1.3.6.1.1.1.2.11 NAME 'ieee802Device'
  DESC 'RFC 2307: a device with a MAC address'
  SUP top AUXILIARY MAY macAddress )
objectclass ( 1.3.6.1.1.1.2.12 NAME 'bootableDevice'
  DESC 'RFC 2307: a device with boot parameters'
  SUP top AUXILIARY MAY ( bootFile $ bootParameter ) )
)schema";

}  // namespace dirload::schema_internal
