// The LDAP result codes a change can fail with, named as slapd and
// ldapmodify name them (RFC 4511), and a Status that carries one: every
// refusal of `dirload modify` says which result slapd would have sent.
//
// Thread safety: pure functions.
#pragma once

#include <string>

#include "lib/util/status.h"

namespace dirload {

enum class LdapResult : int {
  kSuccess = 0,
  kProtocolError = 2,
  kNoSuchAttribute = 16,
  kUndefinedAttributeType = 17,
  kConstraintViolation = 19,
  kAttributeOrValueExists = 20,
  kInvalidAttributeSyntax = 21,
  kNoSuchObject = 32,
  kInvalidDnSyntax = 34,
  kUnwillingToPerform = 53,
  kNamingViolation = 64,
  kObjectClassViolation = 65,
  kNotAllowedOnNonLeaf = 66,
  kNotAllowedOnRdn = 67,
  kEntryAlreadyExists = 68,
  kObjectClassModsProhibited = 69,
  kAffectsMultipleDsas = 71,
  kOther = 80,
};

// "noSuchObject", "notAllowedOnNonLeaf", ... (RFC 4511's names).
const char* LdapResultName(LdapResult result);

// A refusal of the input (origin kInput) whose message starts with the
// result's name and number: "noSuchObject (32): ...".
Status LdapError(LdapResult result, const std::string& message);

// The result a refusal carries (kOther for a Status LdapError did not make).
LdapResult LdapResultOf(const Status& status);

}  // namespace dirload
