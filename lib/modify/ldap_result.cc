#include "lib/modify/ldap_result.h"

#include <cstdlib>

namespace dirload {

const char* LdapResultName(LdapResult result) {
  switch (result) {
    case LdapResult::kSuccess:
      return "success";
    case LdapResult::kProtocolError:
      return "protocolError";
    case LdapResult::kNoSuchAttribute:
      return "noSuchAttribute";
    case LdapResult::kUndefinedAttributeType:
      return "undefinedAttributeType";
    case LdapResult::kConstraintViolation:
      return "constraintViolation";
    case LdapResult::kAttributeOrValueExists:
      return "attributeOrValueExists";
    case LdapResult::kInvalidAttributeSyntax:
      return "invalidAttributeSyntax";
    case LdapResult::kNoSuchObject:
      return "noSuchObject";
    case LdapResult::kInvalidDnSyntax:
      return "invalidDNSyntax";
    case LdapResult::kUnwillingToPerform:
      return "unwillingToPerform";
    case LdapResult::kNamingViolation:
      return "namingViolation";
    case LdapResult::kObjectClassViolation:
      return "objectClassViolation";
    case LdapResult::kNotAllowedOnNonLeaf:
      return "notAllowedOnNonLeaf";
    case LdapResult::kNotAllowedOnRdn:
      return "notAllowedOnRDN";
    case LdapResult::kEntryAlreadyExists:
      return "entryAlreadyExists";
    case LdapResult::kObjectClassModsProhibited:
      return "objectClassModsProhibited";
    case LdapResult::kAffectsMultipleDsas:
      return "affectsMultipleDSAs";
    case LdapResult::kOther:
      return "other";
  }
  return "other";
}

Status LdapError(LdapResult result, const std::string& message) {
  return Status::InvalidArgument(std::string(LdapResultName(result)) + " (" +
                                 std::to_string(static_cast<int>(result)) + "): " + message)
      .WithOrigin(ErrorOrigin::kInput);
}

LdapResult LdapResultOf(const Status& status) {
  const std::string& m = status.message();
  const size_t open = m.find(" (");
  if (open == std::string::npos || m.find(' ') < open) return LdapResult::kOther;
  const int code = std::atoi(m.c_str() + open + 2);
  if (code <= 0 ||
      std::string(LdapResultName(static_cast<LdapResult>(code))) != m.substr(0, open)) {
    return LdapResult::kOther;
  }
  return static_cast<LdapResult>(code);
}

}  // namespace dirload
