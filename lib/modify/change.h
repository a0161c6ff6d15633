// Change: one RFC 2849 change record (add, delete, modify, modrdn/moddn)
// as dirload modify applies it, parsed from what the LDIF reader keeps of
// it (ldif::Record of kind kChange: the lines after "changetype:" in order,
// "-" separators included). Parsing checks the record's shape only; what it
// asks of the database is checked when it is applied (modify_job.h).
//
// Thread safety: plain values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ldif/record.h"
#include "lib/modify/ldap_result.h"
#include "lib/util/status.h"

namespace dirload {

enum class ChangeKind { kAdd, kDelete, kModify, kModRdn };
// "add", "delete", "modify", "modrdn".
const char* ChangeKindName(ChangeKind kind);

enum class ModOp { kAdd, kDelete, kReplace, kIncrement };

struct Modification {
  ModOp op = ModOp::kAdd;
  std::string description;          // as written ("cn;lang-de")
  std::vector<std::string> values;  // none: delete the attribute, or replace it by nothing
};

struct Change {
  ChangeKind kind = ChangeKind::kAdd;
  std::string dn;
  uint64_t line = 0;  // where the record starts
  // kAdd: the entry's values, as written.
  std::vector<std::pair<std::string, std::string>> attributes;
  // kModify: in order.
  std::vector<Modification> modifications;
  // kModRdn.
  std::string new_rdn;
  bool delete_old_rdn = false;
  std::optional<std::string> new_superior;
};

// The change `record` describes. An LdapError (protocolError) naming the
// record's line when its shape is wrong: an unknown changetype, a modify
// line that is none of add/delete/replace/increment, values of another
// attribute inside a modification, a modrdn without newrdn or deleteoldrdn,
// a critical control.
Result<Change> ParseChange(const ldif::Record& record);

}  // namespace dirload
