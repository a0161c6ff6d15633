// WriteGuard: what makes a write into a native database survivable. Begun
// before the store is opened for writing, it
//   - refuses a database whose earlier work is pending (pending_work.h) or
//     left in state "loading", naming `dirload recover`;
//   - for an append (the directory holds a ready database) or a modify takes
//     the undo copy (undo_copy.h);
//   - writes the pending-work mark, synced, before the first write.
// Done() is called once everything is written and synced: it removes the
// mark, then the copy. RollBack() is called, with the store closed, when the
// work failed: an append or a modify goes back to the copy, a load into an empty
// directory removes what it wrote; an index rebuild cannot go back (the old
// lists are gone) and stays pending, for `dirload index` or `dirload
// recover` to finish. A guard destroyed without either leaves everything as
// a crash would, for `dirload recover`.
//
// The caller holds the database's writer lock (database_lock.h).
//
// Thread safety: one thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lib/db/pending_work.h"
#include "lib/format/format_detect.h"
#include "lib/store/store.h"
#include "lib/util/status.h"

namespace dirload {

class WriteGuard {
 public:
  // `add` into the native database in `dir` on `backend`.
  static Result<WriteGuard> BeginLoad(const std::string& dir, Backend backend,
                                      const StoreOptions& options);
  // `modify` on a ready native database: the undo copy, as for an append.
  static Result<WriteGuard> BeginModify(const std::string& dir);
  // `index` on a native or slapd-format database: `lines` are the indexes
  // being built; `resuming` an index rebuild that is pending already is
  // allowed (it is the same work).
  static Result<WriteGuard> BeginIndex(const std::string& dir, DatabaseFormat format,
                                       const std::vector<std::string>& lines);

  WorkKind kind() const { return kind_; }
  // Bytes the undo copy took (0 unless an append).
  uint64_t copied_bytes() const { return copied_bytes_; }
  double copy_seconds() const { return copy_seconds_; }

  Status Done();
  Status RollBack();

 private:
  WriteGuard(std::string dir, WorkKind kind) : dir_(std::move(dir)), kind_(kind) {}
  // The undo copy when `copy`, then the synced pending-work mark of `kind`.
  static Result<WriteGuard> MarkNative(const std::string& dir, WorkKind kind, bool copy);
  std::string dir_;
  WorkKind kind_;
  uint64_t copied_bytes_ = 0;
  double copy_seconds_ = 0;
};

}  // namespace dirload
