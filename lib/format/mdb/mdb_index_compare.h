// MdbIndexComparer: the sink (mdb_index_builder.h) that compares the keys a
// rebuild would write with what each index database holds, merging the two
// in key order: a key only the entries give has all its IDs missing, a key
// only the database holds all its IDs extra, and a key in both compares its
// lists. slapd's range form {0, lo, hi} is read as verify_report.h defines.
// Pairs found wrong are kept as (key bytes, ID), the first few per index
// and kind, for the caller to name.
//
// Thread safety: as MdbKeySink (groups one at a time, each from one
// thread); Finish and the results afterwards, on one thread.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lib/format/mdb/mdb_env.h"
#include "lib/format/mdb/mdb_index_builder.h"
#include "lib/index/list_comparison.h"
#include "lib/util/status.h"

namespace dirload::mdb {

struct MdbIndexComparison {
  std::optional<MdbDb> db;  // none: the index database does not exist
  ListComparison tally;
  bool done = false;  // every stored key was reached
};

class MdbIndexComparer final : public MdbKeySink {
 public:
  // `dbs`: per index, its database, or nullopt when it has none. `exists`:
  // by ID, whether an entry with that ID exists (a range's extra IDs are
  // those of entries). Both must outlive the comparer.
  MdbIndexComparer(MdbEnv& env, std::vector<std::optional<MdbDb>> dbs,
                   const std::vector<bool>* exists, size_t examples);

  Status Add(size_t index, std::string_view key, std::span<const uint64_t> ids) override;
  Status EndGroup() override;
  void AbortGroup() override;

  // After the stream: the indexes the entries gave no key at all are
  // compared with nothing (each stored pair is extra).
  Status Finish();
  const std::vector<MdbIndexComparison>& results() const { return results_; }

 private:
  // Moves the current index to `index`, finishing the one before.
  Status Switch(size_t index);
  // The stored keys of the current index not yet reached, each all extra.
  Status Drain();
  // Stored IDs `stored` of `key` against the IDs expected (may be empty).
  void Compare(ListComparison& r, std::string_view key, std::span<const uint64_t> expected,
               const std::vector<uint64_t>& stored);
  bool Exists(uint64_t id) const { return id < exists_->size() && (*exists_)[id]; }

  MdbEnv& env_;
  const std::vector<bool>* exists_;
  size_t examples_;
  std::vector<MdbIndexComparison> results_;
  static constexpr size_t kNone = static_cast<size_t>(-1);
  size_t current_ = kNone;
  std::optional<MdbTxn> txn_;
  std::optional<MdbKeyCursor> cursor_;
  std::vector<uint64_t> stored_;  // scratch
};

}  // namespace dirload::mdb
