// A verification of a database (`dirload verify`), whichever its format:
// what is asked (VerifyOptions) and what was found (VerifyReport), in the
// shape both formats fill, with its text and JSON forms.
//
// An index is complete when each key lists every entry holding a value that
// gives the key, and clean when it lists no other entry (OpenDJ's
// verify-index definitions). A (key, ID) pair the entries give and the index
// lacks is missing; one the index holds and the entries do not give is
// extra. slapd's range form {0, lo, hi} (a key with more than 65,535 IDs)
// is read as slapd reads it, every ID from lo to hi a candidate that slapd
// then filters: the key is complete when every ID it should list lies in
// [lo, hi]; the IDs between the least and the greatest it should list are
// what the range form means and are never extra; an ID of [lo, hi] outside
// them is extra when an entry with that ID exists (an ID no entry has costs
// slapd nothing).
//
// Thread safety: plain values; the renderers are pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lib/util/status.h"

namespace dirload {

struct VerifyOptions {
  // Attribute names whose indexes to check (as configured); empty: all.
  std::vector<std::string> attributes;
  // Threads scanning the entries for the expected keys.
  unsigned jobs = 2;
  // Bytes the expected keys may take before they are spilled as sorted
  // runs (the phase-2 builders' budget), and where the runs go.
  uint64_t memory = 512ull << 20;
  std::string tmpdir;
  // Problems named per kind (the rest are counted).
  size_t examples = 5;
};

// The first few of a kind of problem, named; the rest only counted.
class ProblemList {
 public:
  explicit ProblemList(size_t keep = 5) : keep_(keep) {}
  void Add(std::string what) {
    ++count_;
    if (named_.size() < keep_) named_.push_back(std::move(what));
  }
  bool wants_more() const { return named_.size() < keep_; }
  uint64_t count() const { return count_; }
  const std::vector<std::string>& named() const { return named_; }

 private:
  size_t keep_;
  uint64_t count_ = 0;
  std::vector<std::string> named_;
};

// One (key, ID) pair found wrong, named.
struct IndexPairProblem {
  std::string attribute;  // the index's attribute (or the subtype's description)
  std::string key;        // readable: the value that gives it, else the key's bytes
  uint64_t id = 0;
  std::string dn;  // the entry's DN, or why it has none
};

struct IndexVerifyResult {
  std::string name;     // the attribute's canonical name
  std::string kinds;    // "pres,eq,sub"
  bool present = true;  // the index table exists
  uint64_t keys = 0;    // distinct keys compared (given by the entries or stored)
  uint64_t ids = 0;     // (key, ID) pairs the entries give
  uint64_t ranges = 0;  // keys stored in slapd's range form
  uint64_t missing = 0;
  uint64_t extra = 0;
  std::vector<IndexPairProblem> first_missing, first_extra;
  bool clean() const { return missing == 0 && extra == 0; }
};

struct VerifyReport {
  std::string format;  // "mdb", "native (lmdb)", "native (bdb)"
  std::string dir;
  uint64_t entries = 0;  // entry records read
  ProblemList entry_problems;
  uint64_t tree_nodes = 0;  // dn2i / dn2id records read
  ProblemList tree_problems;
  // Without an index configuration (slapd's format records none) no index
  // can be checked: this says so.
  std::string index_note;
  std::vector<IndexVerifyResult> indexes;
  // Index tables no configured index names.
  std::vector<std::string> unconfigured;
  // --fix: the indexes rebuilt, and what the verification after it found.
  std::vector<std::string> fixed;

  // The indexes with missing or extra pairs, by attribute name.
  std::vector<std::string> WrongIndexes() const;
  bool clean() const;
};

// The report for a terminal: per part, what was checked and the first
// problems named, then one verdict line per index and one for the whole.
std::string VerifyReportText(const VerifyReport& report);
// The same as one JSON object.
std::string VerifyReportJson(const VerifyReport& report);

}  // namespace dirload
