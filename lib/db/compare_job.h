// `dirload compare`: two copies of a directory side by side, A (a database)
// and B (a database or an LDIF file of entries). Entries are matched by
// normalized DN; an entry found on one side only is paired with one of the
// same entryUUID on the other, if any (moved: same entry, new name).
// Matched entries are compared attribute by attribute as canonical entries
// (lib/compare/canonical_entry.h): canonical descriptions, value sets.
//
// The change records that turn A into B (RFC 2849, for `dirload modify
// --relax` or `ldapmodify -e relax`) are written as they are found: first
// the deletes of the entries only in A, children before parents (A's ID
// order reversed), then, in B's order (parents first), a modify for each
// entry that differs and an add for each entry only in B.
//
// Memory: both sides are read in their own order (ID order, or file order)
// three times at most: B, then A, then B again. What stays in memory is a
// 64-bit name and a 20-byte hash per entry of B (about 64 bytes each in the
// hash table), the entries of A that differ from B (in full, until B's
// second pass writes their modify), and the names, entryUUIDs and entryCSNs
// of the entries found on one side only; never the whole of either side.
//
// Thread safety: one thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lib/compare/canonical_entry.h"
#include "lib/compare/entry_diff.h"
#include "lib/db/database.h"
#include "lib/util/status.h"

namespace dirload {

struct CompareOptions {
  CanonicalOptions canonical;
  // Where the change records go ("-": standard output); empty: nowhere.
  std::string changes;
};

// An entry found on one side only.
struct LoneEntry {
  std::string dn;
  std::string entry_uuid;
  std::string entry_csn;
};

struct MovedEntry {
  std::string entry_uuid;
  std::string dn_a, dn_b;
};

struct DifferingEntry {
  std::string dn;
  std::string csn_a, csn_b;  // entryCSN on each side (empty: none)
  std::vector<AttributeDifference> attributes;
};

struct CompareReport {
  uint64_t entries_a = 0;
  uint64_t entries_b = 0;
  uint64_t equal = 0;
  std::vector<LoneEntry> only_a;  // A's order
  std::vector<LoneEntry> only_b;  // B's order
  std::vector<MovedEntry> moved;  // also in only_a and only_b
  std::vector<DifferingEntry> differing;
  uint64_t change_records = 0;
  bool same() const { return only_a.empty() && only_b.empty() && differing.empty(); }
};

// One side: a database opened for reading, or an LDIF file of content
// records (read twice, so a file, not standard input).
struct CompareSide {
  Database* database = nullptr;
  std::string ldif;
};

// REQUIRES: a.database set. Errors are the sides' (a B record that does not
// parse is kInput, naming the file and line) and the change file's.
Result<CompareReport> CompareEntries(const CompareSide& a, const CompareSide& b,
                                     const CompareOptions& options);

}  // namespace dirload
