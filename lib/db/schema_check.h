// `dirload schema-check`: slapschema's job. Reads every entry of a database
// (or those a selection names) and checks it against the schema given now,
// as a load checks its input (EntryChecker::CheckStored): attribute types
// defined, values valid for their syntax and equality rule, one structural
// object class chain, MUST and MAY, SINGLE-VALUE, and as slapschema checks a
// stored entry, the stored structuralObjectClass and the RDN's values.
// After a schema change this finds the entries the new schema no longer
// allows, which slapd otherwise reveals only when someone modifies them.
//
// Each entry that does not conform is listed as slapschema lists it ("#
// (65) Object class violation: ..." and its DN), and written whole, as LDIF
// after a "# reason" comment, to the error file when one is given, ready to
// be fixed and loaded again.
//
// Where dirload and slapschema 2.5 differ, on purpose: slapschema finds no
// fault in a value its syntax no longer allows, nor in an attribute whose
// type the schema no longer defines (slapd reads it as an "UNKNOWN"
// description); schema-check reports both (21 and 17), since slapd can
// neither match nor index those values as the schema says. slapschema goes
// on after the first entry that fails with or without -c, and its exit
// status is the last entry's verdict; schema-check stops at the first
// unless told to go on, and its summary counts every entry that fails.
//
// The naming check reads what slapd reads: on slapd's format, the RDN's
// value is looked for among the normalized copies the entry keeps, made
// under the equality rule of the day it was written; a native database
// keeps none, and the rule of today decides.
//
// Thread safety: one thread; the database is borrowed.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "ldif/writer.h"
#include "lib/db/database.h"
#include "lib/load/entry_checker.h"
#include "lib/util/status.h"

namespace dirload {

struct SchemaCheckOptions {
  const EntrySelection* selection = nullptr;  // -a, -H, -s; null: every entry
  bool keep_going = false;                    // -c: check every entry
  std::string error_file;                     // -l: the failing entries, whole; empty: none
  ldif::ByteSink* listing = nullptr;          // slapschema's listing (stdout); may be null
  unsigned threads = 2;                       // checking threads (--jobs)
  // The operator's reminder and progress lines; may be empty.
  NoticeSink notice;
};

struct SchemaCheckSummary {
  uint64_t entries = 0;   // entries checked
  uint64_t problems = 0;  // entries that do not conform
  std::map<SchemaViolation, uint64_t> by_violation;
  bool stopped = false;  // stopped at the first problem (no keep_going)
};

// Checks the entries of `db` (opened with Access::kRead) against its schema.
// Errors: the database's and the output files' (kStorage); a problem found
// is a summary, not an error.
Result<SchemaCheckSummary> CheckSchema(Database* db, const SchemaCheckOptions& options);

}  // namespace dirload
