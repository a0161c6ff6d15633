#include "lib/modify/change.h"

#include "lib/util/ascii.h"

namespace dirload {
namespace {

Status Malformed(const ldif::Record& record, uint64_t line, const std::string& what) {
  return LdapError(LdapResult::kProtocolError, "line " + std::to_string(line) + ": " + what +
                                                   " (record '" + std::string(record.dn()) +
                                                   "' at line " + std::to_string(record.line()) +
                                                   ")");
}

// A control line's value: "OID [true|false] [: value]". A critical control
// dirload cannot honour refuses the record, as slapd would
// (unavailableCriticalExtension); a non-critical one is ignored, as slapd
// may ignore it.
bool IsCritical(std::string_view control) {
  const size_t space = control.find(' ');
  if (space == std::string_view::npos) return false;
  std::string_view rest = control.substr(space + 1);
  return rest.substr(0, 4) == "true";
}

}  // namespace

const char* ChangeKindName(ChangeKind kind) {
  switch (kind) {
    case ChangeKind::kAdd:
      return "add";
    case ChangeKind::kDelete:
      return "delete";
    case ChangeKind::kModify:
      return "modify";
    case ChangeKind::kModRdn:
      return "modrdn";
  }
  return "modify";
}

Result<Change> ParseChange(const ldif::Record& record) {
  Change c;
  c.dn = std::string(record.dn());
  c.line = record.line();
  const std::string_view type = record.changetype();
  if (EqualsIgnoreCase(type, "add")) {
    c.kind = ChangeKind::kAdd;
  } else if (EqualsIgnoreCase(type, "delete")) {
    c.kind = ChangeKind::kDelete;
  } else if (EqualsIgnoreCase(type, "modify")) {
    c.kind = ChangeKind::kModify;
  } else if (EqualsIgnoreCase(type, "modrdn") || EqualsIgnoreCase(type, "moddn")) {
    c.kind = ChangeKind::kModRdn;
  } else {
    return Malformed(record, record.line(), "unknown changetype '" + std::string(type) + "'");
  }
  size_t i = 0;
  for (; i < record.size() && record.attribute(i).description == "control"; ++i) {
    if (IsCritical(record.attribute(i).value)) {
      return LdapError(LdapResult::kUnwillingToPerform,
                       "line " + std::to_string(record.line_of(i)) + ": critical control '" +
                           std::string(record.attribute(i).value) + "' is not supported offline");
    }
  }
  switch (c.kind) {
    case ChangeKind::kAdd:
      for (; i < record.size(); ++i) {
        const ldif::AttributeView a = record.attribute(i);
        if (a.description == "-") return Malformed(record, record.line_of(i), "'-' in an add");
        c.attributes.emplace_back(a.description, a.value);
      }
      if (c.attributes.empty()) return Malformed(record, record.line(), "an add without values");
      return c;
    case ChangeKind::kDelete:
      if (i < record.size()) {
        return Malformed(record, record.line_of(i), "a delete has no lines after changetype");
      }
      return c;
    case ChangeKind::kModRdn: {
      bool have_rdn = false, have_delete = false;
      for (; i < record.size(); ++i) {
        const ldif::AttributeView a = record.attribute(i);
        if (EqualsIgnoreCase(a.description, "newrdn") && !have_rdn) {
          c.new_rdn = std::string(a.value);
          have_rdn = true;
        } else if (EqualsIgnoreCase(a.description, "deleteoldrdn") && have_rdn && !have_delete) {
          if (a.value != "0" && a.value != "1") {
            return Malformed(record, record.line_of(i), "deleteoldrdn must be 0 or 1");
          }
          c.delete_old_rdn = a.value == "1";
          have_delete = true;
        } else if (EqualsIgnoreCase(a.description, "newsuperior") && have_delete &&
                   !c.new_superior.has_value()) {
          c.new_superior = std::string(a.value);
        } else {
          return Malformed(record, record.line_of(i),
                           "unexpected '" + std::string(a.description) +
                               "' (a modrdn is newrdn, deleteoldrdn, then newsuperior)");
        }
      }
      if (!have_rdn || !have_delete) {
        return Malformed(record, record.line(), "a modrdn needs newrdn and deleteoldrdn");
      }
      return c;
    }
    case ChangeKind::kModify:
      break;
  }
  while (i < record.size()) {
    const ldif::AttributeView head = record.attribute(i);
    Modification m;
    if (EqualsIgnoreCase(head.description, "add")) {
      m.op = ModOp::kAdd;
    } else if (EqualsIgnoreCase(head.description, "delete")) {
      m.op = ModOp::kDelete;
    } else if (EqualsIgnoreCase(head.description, "replace")) {
      m.op = ModOp::kReplace;
    } else if (EqualsIgnoreCase(head.description, "increment")) {
      m.op = ModOp::kIncrement;
    } else {
      return Malformed(record, record.line_of(i),
                       "expected add:, delete:, replace: or increment:, not '" +
                           std::string(head.description) + ":'");
    }
    m.description = std::string(head.value);
    const uint64_t head_line = record.line_of(i);
    for (++i; i < record.size() && record.attribute(i).description != "-"; ++i) {
      const ldif::AttributeView a = record.attribute(i);
      if (!EqualsIgnoreCase(a.description, m.description)) {
        return Malformed(record, record.line_of(i),
                         "a value of '" + std::string(a.description) + "' in the " +
                             std::string(head.description) + " of '" + m.description + "'");
      }
      m.values.emplace_back(a.value);
    }
    if (i < record.size()) ++i;  // the "-"
    if ((m.op == ModOp::kAdd || m.op == ModOp::kIncrement) && m.values.empty()) {
      return Malformed(record, head_line,
                       std::string(m.op == ModOp::kAdd ? "add" : "increment") + " of '" +
                           m.description + "' without a value");
    }
    c.modifications.push_back(std::move(m));
  }
  if (c.modifications.empty()) {
    return Malformed(record, record.line(), "a modify without modifications");
  }
  return c;
}

}  // namespace dirload
