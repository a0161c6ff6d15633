#include "lib/store/engine_cursor.h"

#include <algorithm>

namespace dirload::store_internal {
namespace {

class ErrorCursor final : public Cursor {
 public:
  explicit ErrorCursor(Status status) : status_(std::move(status)) {}
  void Seek(std::string_view) override {}
  void SeekToFirst() override {}
  void SeekToLast() override {}
  void Next() override {}
  bool valid() const override { return false; }
  std::string_view key() const override { return {}; }
  std::string_view value() const override { return {}; }
  Status status() const override { return status_; }

 private:
  Status status_;
};

}  // namespace

std::unique_ptr<Cursor> NewErrorCursor(Status status) {
  return std::make_unique<ErrorCursor>(std::move(status));
}

void CursorRegistry::Remove(EngineCursor* cursor) {
  auto it = std::find(cursors_.begin(), cursors_.end(), cursor);
  if (it == cursors_.end()) return;
  *it = cursors_.back();
  cursors_.pop_back();
}

void CursorRegistry::DetachAll() {
  for (EngineCursor* c : cursors_) c->Detach();
}

void CursorRegistry::DetachTable(const void* table) {
  for (EngineCursor* c : cursors_) {
    if (c->table() == table) c->Detach();
  }
}

void CursorRegistry::OrphanAll() {
  for (EngineCursor* c : cursors_) c->Orphan();
  cursors_.clear();
}

EngineCursor::EngineCursor(CursorRegistry* registry, const void* table)
    : registry_(registry), table_(table) {
  registry_->Add(this);
}

EngineCursor::~EngineCursor() {
  if (registry_ != nullptr) registry_->Remove(this);
}

void EngineCursor::Detach() {
  if (attached_) {
    CloseHandle();
    attached_ = false;
  }
  if (valid_) detached_at_key_ = true;
  value_ = {};
}

void EngineCursor::Orphan() {
  Detach();
  registry_ = nullptr;
}

void EngineCursor::Fail(Status status) const {
  if (attached_) {
    CloseHandle();
    attached_ = false;
  }
  valid_ = false;
  detached_at_key_ = false;
  value_ = {};
  status_ = std::move(status);
}

bool EngineCursor::Attach() const {
  if (registry_ == nullptr) {
    Fail(Status::Internal("store: cursor used after its store was closed"));
    return false;
  }
  if (attached_) return true;
  Result<bool> opened = OpenHandle();
  if (!opened.ok()) {
    Fail(opened.status());
    return false;
  }
  attached_ = *opened;
  return attached_;
}

void EngineCursor::Position(Move move, std::string_view target) {
  if (!status_.ok()) return;
  valid_ = false;
  detached_at_key_ = false;
  value_ = {};
  if (!Attach()) return;
  // Engines reject seek keys outside 1..kMaxKeySize. Every key sorts at or
  // after the empty one; and no stored key is longer than the limit, so the
  // first key >= a longer target is the first one > its prefix.
  bool past_prefix = false;
  if (move == Move::kSeek && target.empty()) move = Move::kFirst;
  if (move == Move::kSeek && target.size() > kMaxKeySize) {
    target = target.substr(0, kMaxKeySize);
    past_prefix = true;
  }
  std::string_view k, v;
  Result<bool> found = MoveHandle(move, target, &k, &v);
  if (found.ok() && *found && past_prefix && k == target) {
    found = MoveHandle(Move::kNext, {}, &k, &v);
  }
  if (!found.ok()) {
    Fail(found.status());
    return;
  }
  if (!*found) return;
  key_.assign(k.data(), k.size());
  value_ = v;
  valid_ = true;
}

void EngineCursor::Seek(std::string_view key) { Position(Move::kSeek, key); }
void EngineCursor::SeekToFirst() { Position(Move::kFirst, {}); }
void EngineCursor::SeekToLast() { Position(Move::kLast, {}); }

bool EngineCursor::Restore(bool* exact) const {
  detached_at_key_ = false;
  valid_ = false;
  if (!Attach()) return false;
  std::string_view k, v;
  Result<bool> found = MoveHandle(Move::kSeek, key_, &k, &v);
  if (!found.ok()) {
    Fail(found.status());
    return false;
  }
  if (!*found) return false;
  *exact = k == std::string_view(key_);
  if (!*exact) key_.assign(k.data(), k.size());
  value_ = v;
  valid_ = true;
  return true;
}

void EngineCursor::Next() {
  if (!status_.ok()) return;
  if (!valid_) {
    Fail(Status::InvalidArgument("store: Next() on a cursor that is not positioned"));
    return;
  }
  if (detached_at_key_) {
    bool exact = false;
    if (!Restore(&exact)) return;
    // The entry under the cursor was deleted: its successor is already "next".
    if (!exact) return;
  }
  valid_ = false;
  value_ = {};
  std::string_view k, v;
  Result<bool> found = MoveHandle(Move::kNext, {}, &k, &v);
  if (!found.ok()) {
    Fail(found.status());
    return;
  }
  if (!*found) return;
  key_.assign(k.data(), k.size());
  value_ = v;
  valid_ = true;
}

std::string_view EngineCursor::value() const {
  if (!valid_) return {};
  if (detached_at_key_) {
    bool exact = false;
    if (!Restore(&exact)) return {};
  }
  return value_;
}

}  // namespace dirload::store_internal
