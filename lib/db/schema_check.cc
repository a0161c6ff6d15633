#include "lib/db/schema_check.h"

#include <memory>

#include "lib/entry/entry_record.h"
#include "lib/schema/dn.h"
#include "lib/util/ascii.h"

namespace dirload {
namespace {

// "# (65) Object class violation: object class 'x' requires ..."
std::string ReasonLine(SchemaViolation v, std::string_view message) {
  return "# (" + std::to_string(SchemaViolationCode(v)) + ") " + SchemaViolationName(v) + ": " +
         std::string(message) + "\n";
}

// The stored structuralObjectClass against the one the entry's classes give
// now, as slapd checks it on every entry it reads for a change.
Status CheckStructural(const Schema& schema, const EntryChecker::Prepared& prepared,
                       SchemaViolation* violation) {
  std::string_view stored;
  for (const auto& [description, value] : prepared.values) {
    if (EqualsIgnoreCase(description, "structuralObjectClass")) {
      stored = value;
      break;
    }
  }
  if (stored.data() == nullptr) {
    *violation = SchemaViolation::kOther;
    return Status::InvalidArgument("no structuralObjectClass operational attribute");
  }
  const ObjectClass* was = schema.FindObjectClass(stored);
  if (was == nullptr) {
    *violation = SchemaViolation::kObjectClassViolation;
    return Status::InvalidArgument("unrecognized structuralObjectClass '" + std::string(stored) +
                                   "'");
  }
  if (was != schema.FindObjectClass(prepared.structural)) {
    *violation = SchemaViolation::kNoObjectClassMods;
    return Status::InvalidArgument("structural object class modification from '" +
                                   std::string(stored) + "' to '" +
                                   std::string(prepared.structural) + "' not allowed");
  }
  return Status::Ok();
}

}  // namespace

Result<SchemaCheckSummary> CheckSchema(Database* db, const SchemaCheckOptions& options) {
  DIRLOAD_ASSIGN_OR_RETURN(const Schema* schema, db->schema());
  std::unique_ptr<ldif::ByteSink> errors;
  if (!options.error_file.empty()) {
    DIRLOAD_ASSIGN_OR_RETURN(errors, ldif::OpenByteSink(options.error_file));
  }
  // As slapcat writes: what is read back is what the database holds.
  ldif::WriterOptions wo;
  wo.wrap = 78;
  wo.slapcat_base64 = db->slapcat_ldif();

  EntryChecker checker(schema, /*check_schema=*/true, RepeatedValues::kStore);
  SchemaCheckSummary summary;
  ldif::Record record;
  EntryChecker::Prepared prepared;
  Dn leftmost;
  std::string ndn, pretty, pretty_rdn, text;
  // What stops the scan at the first problem without -c: not an error.
  const Status stop = Status::Internal("schema-check stopped at its first problem");
  Status scanned = db->ForEachEntry(options.selection, [&](const EntryView& e) -> Status {
    ++summary.entries;
    DIRLOAD_RETURN_IF_ERROR(EntryToRecord(e, db->dictionary(), &record));
    Status s = checker.CheckName(record.dn(), &leftmost, &ndn, &pretty, &pretty_rdn);
    SchemaViolation violation = SchemaViolation::kInvalidDnSyntax;
    if (s.ok()) {
      s = checker.Prepare(record, leftmost, &prepared);
      violation = checker.violation();
    }
    if (s.ok()) s = CheckStructural(*schema, prepared, &violation);
    if (s.ok()) return Status::Ok();
    ++summary.problems;
    ++summary.by_violation[violation];
    const std::string reason = ReasonLine(violation, s.message());
    if (options.listing != nullptr) {
      text = reason;
      ldif::AppendAttributeLine("dn", record.dn(), wo, &text);
      text += "\n";
      DIRLOAD_RETURN_IF_ERROR(options.listing->Write(text));
    }
    if (errors != nullptr) {
      text = reason;
      ldif::AppendRecord(record, wo, &text);
      DIRLOAD_RETURN_IF_ERROR(errors->Write(text));
    }
    if (!options.keep_going) {
      summary.stopped = true;
      return stop;
    }
    return Status::Ok();
  });
  if (!scanned.ok() && !summary.stopped) return scanned;
  if (errors != nullptr) DIRLOAD_RETURN_IF_ERROR(errors->Close());
  return summary;
}

}  // namespace dirload
