// Reading LDIF output with ldif::Reader and comparing record lists, so that
// base64 versus plain values and line folding never matter. A mismatch is
// described by its first difference plus a diagnosis of its kind (entry
// order, DN spelling, attribute grouping, option order), which is what a
// reader of a failing oracle test needs to decide who is wrong. Test-only.
//
// Thread safety: free functions over values.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ldif/record.h"

namespace dirload::testing {

struct LdifFile {
  std::vector<ldif::Record> records;
  std::string error;  // the first read error; empty when the whole input read
  bool ok() const { return error.empty(); }
};

// Every record of an LDIF file (plain or gzip), or of bytes in memory.
LdifFile ReadLdifFile(const std::string& path);
LdifFile ReadLdifText(std::string text, std::string name = "<memory>");

struct CompareOptions {
  // Attribute descriptions compared without regard to case (values always
  // exactly).
  bool ignore_description_case = true;
  // Drop from both sides the operational attributes that slapadd adds and the
  // corpus's expected.ldif omits (entryUUID, createTimestamp, ...).
  bool drop_operational = false;
  // Compare only which entries there are and their order, matching DNs
  // without regard to case or the spaces after separators; not attributes.
  // For where no exact expected output exists.
  bool entries_only = false;
};

// Empty when `got` equals `want` under `options`; otherwise the first
// difference and what kind of difference it is.
std::string CompareRecords(const std::vector<ldif::Record>& got,
                           const std::vector<ldif::Record>& want, const CompareOptions& options);

// `records` without the entries that have no parent among them: every entry
// but the one named `suffix` needs its parent earlier in the list, else it
// and its subtree are dropped. DNs are matched without regard to case or the
// spaces after separators.
std::vector<ldif::Record> WithoutOrphans(const std::vector<ldif::Record>& records,
                                         std::string_view suffix);

// The DNs of `records`, in order.
std::vector<std::string> Dns(const std::vector<ldif::Record>& records);

}  // namespace dirload::testing
