// The values of a modify applied to an entry's values, as slapd's modify
// applies them (slapd/mods.c): add refuses a value the attribute holds
// already, delete one it does not hold, replace makes the attribute anew
// (at the end of the entry, where slapd puts it back), increment adds to
// every integer value. Values are compared under the attribute's equality
// rule, against the normalized copy the entry keeps where it keeps one (as
// slapd compares), or as bytes without a rule. New values are checked
// against their syntax; NO-USER-MODIFICATION attributes are refused, as
// slapd refuses them to a client. Each refusal is an LdapError naming the
// modification as ldapmodify reports it.
//
// Thread safety: pure; the Schema is only read.
#pragma once

#include <span>
#include <vector>

#include "lib/format/entry_editor.h"
#include "lib/modify/change.h"
#include "lib/util/status.h"

namespace dirload {
class Schema;

// `values` holds an entry's values, the values of one description adjacent,
// descriptions canonical; on error it is left half-changed (the caller
// works on a copy). Operational attributes no user may modify are refused
// (constraintViolation) unless `relax`: then they change as the records say,
// as a syncrepl consumer writes them.
Status ApplyModifications(const Schema& schema, std::span<const Modification> mods,
                          std::vector<EntryEditor::Value>* values, bool relax = false);

// Replaces the values of `description` (canonical) by `value`, at the end of
// the entry, as slapd replaces modifiersName, modifyTimestamp and entryCSN.
void ReplaceOperational(std::vector<EntryEditor::Value>* values, std::string_view description,
                        std::string_view value, bool generated);

}  // namespace dirload
