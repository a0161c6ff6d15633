// The password-policy schema of draft-behera-ldap-password-policy, as the
// ppolicy module of OpenLDAP 2.5 defines it when it is loaded (the module
// carries it in its code; there is no ppolicy.schema in 2.5). The policy
// attributes are user attributes of pwdPolicy subentries; the per-account
// state (pwdChangedTime, pwdAccountLockedTime, pwdFailureTime, ...) is
// operational, kept by the server. pwdPolicyChecker and its two attributes
// come from the same module (the password quality checker hook).
#include "lib/schema/builtin_schema.h"

namespace dirload::schema_internal {

const std::string_view kPpolicySchemaText = R"schema(
# Operational attributes: the state of an account under a policy.
attributetype ( 1.3.6.1.4.1.42.2.27.8.1.16 NAME 'pwdChangedTime'
  DESC 'password policy: when the password was last changed'
  EQUALITY generalizedTimeMatch ORDERING generalizedTimeOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.24
  SINGLE-VALUE NO-USER-MODIFICATION USAGE directoryOperation )
attributetype ( 1.3.6.1.4.1.42.2.27.8.1.17 NAME 'pwdAccountLockedTime'
  DESC 'password policy: when the account was locked'
  EQUALITY generalizedTimeMatch ORDERING generalizedTimeOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.24
  SINGLE-VALUE USAGE directoryOperation )
attributetype ( 1.3.6.1.4.1.42.2.27.8.1.19 NAME 'pwdFailureTime'
  DESC 'password policy: times of the consecutive failed binds'
  EQUALITY generalizedTimeMatch ORDERING generalizedTimeOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.24
  NO-USER-MODIFICATION USAGE directoryOperation )
attributetype ( 1.3.6.1.4.1.42.2.27.8.1.20 NAME 'pwdHistory'
  DESC 'password policy: earlier passwords of the account'
  EQUALITY octetStringMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.40
  NO-USER-MODIFICATION USAGE directoryOperation )
attributetype ( 1.3.6.1.4.1.42.2.27.8.1.21 NAME 'pwdGraceUseTime'
  DESC 'password policy: times of the grace binds after expiry'
  EQUALITY generalizedTimeMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.24
  NO-USER-MODIFICATION USAGE directoryOperation )
attributetype ( 1.3.6.1.4.1.42.2.27.8.1.22 NAME 'pwdReset'
  DESC 'password policy: the password was reset and must be changed'
  EQUALITY booleanMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.7
  SINGLE-VALUE USAGE directoryOperation )
attributetype ( 1.3.6.1.4.1.42.2.27.8.1.23 NAME 'pwdPolicySubentry'
  DESC 'password policy: DN of the policy that applies to the entry'
  EQUALITY distinguishedNameMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.12
  SINGLE-VALUE USAGE directoryOperation )
attributetype ( 1.3.6.1.4.1.42.2.27.8.1.27 NAME 'pwdStartTime'
  DESC 'password policy: when the password becomes valid'
  EQUALITY generalizedTimeMatch ORDERING generalizedTimeOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.24
  SINGLE-VALUE USAGE directoryOperation )
attributetype ( 1.3.6.1.4.1.42.2.27.8.1.28 NAME 'pwdEndTime'
  DESC 'password policy: when the password stops being valid'
  EQUALITY generalizedTimeMatch ORDERING generalizedTimeOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.24
  SINGLE-VALUE USAGE directoryOperation )
attributetype ( 1.3.6.1.4.1.42.2.27.8.1.33 NAME 'pwdAccountTmpLockoutEnd'
  DESC 'password policy: end of a temporary lockout'
  EQUALITY generalizedTimeMatch ORDERING generalizedTimeOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.24
  SINGLE-VALUE NO-USER-MODIFICATION USAGE directoryOperation )

# The policy itself: attributes of a pwdPolicy entry.
attributetype ( 1.3.6.1.4.1.42.2.27.8.1.1 NAME 'pwdAttribute'
  EQUALITY objectIdentifierMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.38 )
attributetype ( 1.3.6.1.4.1.42.2.27.8.1.2 NAME 'pwdMinAge'
  EQUALITY integerMatch ORDERING integerOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 SINGLE-VALUE )
attributetype ( 1.3.6.1.4.1.42.2.27.8.1.3 NAME 'pwdMaxAge'
  EQUALITY integerMatch ORDERING integerOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 SINGLE-VALUE )
attributetype ( 1.3.6.1.4.1.42.2.27.8.1.4 NAME 'pwdInHistory'
  EQUALITY integerMatch ORDERING integerOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 SINGLE-VALUE )
attributetype ( 1.3.6.1.4.1.42.2.27.8.1.5 NAME 'pwdCheckQuality'
  EQUALITY integerMatch ORDERING integerOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 SINGLE-VALUE )
attributetype ( 1.3.6.1.4.1.42.2.27.8.1.6 NAME 'pwdMinLength'
  EQUALITY integerMatch ORDERING integerOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 SINGLE-VALUE )
attributetype ( 1.3.6.1.4.1.42.2.27.8.1.31 NAME 'pwdMaxLength'
  EQUALITY integerMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 SINGLE-VALUE )
attributetype ( 1.3.6.1.4.1.42.2.27.8.1.7 NAME 'pwdExpireWarning'
  EQUALITY integerMatch ORDERING integerOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 SINGLE-VALUE )
attributetype ( 1.3.6.1.4.1.42.2.27.8.1.8 NAME 'pwdGraceAuthNLimit'
  EQUALITY integerMatch ORDERING integerOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 SINGLE-VALUE )
attributetype ( 1.3.6.1.4.1.42.2.27.8.1.30 NAME 'pwdGraceExpiry'
  EQUALITY integerMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 SINGLE-VALUE )
attributetype ( 1.3.6.1.4.1.42.2.27.8.1.9 NAME 'pwdLockout'
  EQUALITY booleanMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.7 SINGLE-VALUE )
attributetype ( 1.3.6.1.4.1.42.2.27.8.1.10 NAME 'pwdLockoutDuration'
  EQUALITY integerMatch ORDERING integerOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 SINGLE-VALUE )
attributetype ( 1.3.6.1.4.1.42.2.27.8.1.11 NAME 'pwdMaxFailure'
  EQUALITY integerMatch ORDERING integerOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 SINGLE-VALUE )
attributetype ( 1.3.6.1.4.1.42.2.27.8.1.12 NAME 'pwdFailureCountInterval'
  EQUALITY integerMatch ORDERING integerOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 SINGLE-VALUE )
attributetype ( 1.3.6.1.4.1.42.2.27.8.1.13 NAME 'pwdMustChange'
  EQUALITY booleanMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.7 SINGLE-VALUE )
attributetype ( 1.3.6.1.4.1.42.2.27.8.1.14 NAME 'pwdAllowUserChange'
  EQUALITY booleanMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.7 SINGLE-VALUE )
attributetype ( 1.3.6.1.4.1.42.2.27.8.1.15 NAME 'pwdSafeModify'
  EQUALITY booleanMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.7 SINGLE-VALUE )
attributetype ( 1.3.6.1.4.1.42.2.27.8.1.24 NAME 'pwdMinDelay'
  EQUALITY integerMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 SINGLE-VALUE )
attributetype ( 1.3.6.1.4.1.42.2.27.8.1.25 NAME 'pwdMaxDelay'
  EQUALITY integerMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 SINGLE-VALUE )
attributetype ( 1.3.6.1.4.1.42.2.27.8.1.26 NAME 'pwdMaxIdle'
  EQUALITY integerMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 SINGLE-VALUE )
attributetype ( 1.3.6.1.4.1.42.2.27.8.1.32 NAME 'pwdMaxRecordedFailure'
  EQUALITY integerMatch ORDERING integerOrderingMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 SINGLE-VALUE )

# The quality checker hook.
attributetype ( 1.3.6.1.4.1.4754.1.99.1 NAME 'pwdCheckModule'
  DESC 'password policy: module providing the password quality check'
  EQUALITY caseExactIA5Match SYNTAX 1.3.6.1.4.1.1466.115.121.1.26 SINGLE-VALUE )
attributetype ( 1.3.6.1.4.1.4754.1.99.2 NAME 'pwdCheckModuleArg'
  DESC 'password policy: argument given to the quality check'
  EQUALITY octetStringMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.40 SINGLE-VALUE )

objectclass ( 1.3.6.1.4.1.42.2.27.8.2.1 NAME 'pwdPolicy'
  SUP top AUXILIARY
  MUST pwdAttribute
  MAY ( pwdMinAge $ pwdMaxAge $ pwdInHistory $ pwdCheckQuality $ pwdMinLength $
    pwdMaxLength $ pwdExpireWarning $ pwdGraceAuthNLimit $ pwdGraceExpiry $
    pwdLockout $ pwdLockoutDuration $ pwdMaxFailure $ pwdFailureCountInterval $
    pwdMustChange $ pwdAllowUserChange $ pwdSafeModify $ pwdMinDelay $
    pwdMaxDelay $ pwdMaxIdle $ pwdMaxRecordedFailure ) )
objectclass ( 1.3.6.1.4.1.4754.2.99.1 NAME 'pwdPolicyChecker'
  SUP top AUXILIARY
  MAY ( pwdCheckModule $ pwdCheckModuleArg ) )
)schema";

}  // namespace dirload::schema_internal
