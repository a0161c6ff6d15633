// EngineCursor: the engine-independent half of a Store cursor. It keeps a copy
// of the current key so that the engine's cursor handle can be closed whenever
// the store must end a transaction, drop or reopen a table, or remap memory,
// and reopened later at the same place; the engine half only opens, closes and
// moves a handle. CursorRegistry is the store's list of live cursors.
//
// Internal to lib/store. Thread safety: as for Store (one thread at a time).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lib/store/store.h"

namespace dirload::store_internal {

class EngineCursor;

// A cursor that is never valid and reports `status`: what NewCursor returns
// when it cannot make a real one (a bad table name).
std::unique_ptr<Cursor> NewErrorCursor(Status status);

// The cursors a store has handed out. The store owns the registry; each
// cursor adds itself on construction and removes itself on destruction.
class CursorRegistry {
 public:
  CursorRegistry() = default;
  CursorRegistry(const CursorRegistry&) = delete;
  CursorRegistry& operator=(const CursorRegistry&) = delete;
  ~CursorRegistry() { OrphanAll(); }

  void Add(EngineCursor* cursor) { cursors_.push_back(cursor); }
  void Remove(EngineCursor* cursor);

  // Closes the engine handles of all cursors (or those over `table`); each
  // reopens at its position on next use.
  void DetachAll();
  void DetachTable(const void* table);
  // The store is closing: every cursor still alive closes its handle and
  // reports an error from then on.
  void OrphanAll();

 private:
  std::vector<EngineCursor*> cursors_;
};

class EngineCursor : public Cursor {
 public:
  ~EngineCursor() override;

  void Seek(std::string_view key) final;
  void SeekToFirst() final;
  void SeekToLast() final;
  void Next() final;

  bool valid() const final { return valid_; }
  std::string_view key() const final { return key_; }
  std::string_view value() const final;
  Status status() const final { return status_; }

  // Closes the engine handle, keeping the position. Called by the store.
  void Detach();
  // The store is going away: close the handle and fail from now on.
  void Orphan();
  const void* table() const { return table_; }

 protected:
  enum class Move { kFirst, kLast, kSeek, kNext };

  // `table` identifies the engine's table object, for DetachTable(). The
  // subclass holds its engine handle in an RAII member, so destruction closes
  // it without a virtual call from here.
  EngineCursor(CursorRegistry* registry, const void* table);

  // Opens the engine handle. false (and OK) when the table does not exist.
  // Const like value(), which may reopen; the engine handle is the cursor's
  // own state, so subclasses keep it mutable.
  virtual Result<bool> OpenHandle() const = 0;
  virtual void CloseHandle() const = 0;
  // Moves the open handle. true with *key and *value pointing at engine memory,
  // false at the end of the table. kSeek's `target` is 1..kMaxKeySize bytes.
  virtual Result<bool> MoveHandle(Move move, std::string_view target, std::string_view* key,
                                  std::string_view* value) const = 0;

 private:
  // Makes sure the handle is open. false when the cursor cannot move (error
  // recorded, or no table: then it is simply not valid).
  bool Attach() const;
  void Position(Move move, std::string_view target);
  // After a Detach: reopens and moves to key_ (or the entry after it, when key_
  // is gone). Sets *exact when key_ itself was found.
  bool Restore(bool* exact) const;
  void Fail(Status status) const;

  // Mutable because value() reopens the handle lazily after a Detach; the
  // position a caller sees does not change by it.
  CursorRegistry* registry_;
  const void* table_;
  mutable bool attached_ = false;
  mutable bool valid_ = false;
  mutable bool detached_at_key_ = false;  // valid, but the handle was closed under us
  mutable std::string key_;
  mutable std::string_view value_;
  mutable Status status_;
};

}  // namespace dirload::store_internal
