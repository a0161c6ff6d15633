#include "lib/format/mdb/mdb_index_compare.h"

#include <algorithm>

namespace dirload::mdb {

MdbIndexComparer::MdbIndexComparer(MdbEnv& env, std::vector<std::optional<MdbDb>> dbs,
                                   const std::vector<bool>* exists, size_t examples)
    : env_(env), exists_(exists), examples_(examples), results_(dbs.size()) {
  for (size_t i = 0; i < dbs.size(); ++i) {
    results_[i].db = dbs[i];
    results_[i].tally = ListComparison(examples_);
  }
}

void MdbIndexComparer::Compare(ListComparison& r, std::string_view key,
                               std::span<const uint64_t> expected,
                               const std::vector<uint64_t>& stored) {
  // IDs start at 1: a first duplicate 0 with two more is slapd's range.
  if (stored.size() == 3 && stored[0] == 0) {
    ++r.keys;
    r.ids += expected.size();
    ++r.ranges;
    const uint64_t lo = stored[1], hi = stored[2];
    for (uint64_t id : expected) {
      if (id < lo || id > hi) r.Missing(key, id);
    }
    // Inside [least, greatest] of what the key should list the range form
    // lists every ID by design; outside, an ID of an entry is extra.
    if (exists_->empty()) return;
    const uint64_t end = std::min<uint64_t>(hi, exists_->size() - 1);
    for (uint64_t id = lo; id <= end; ++id) {
      const bool inside = !expected.empty() && id >= expected.front() && id <= expected.back();
      if (inside) {
        id = expected.back();
        continue;
      }
      if (Exists(id)) r.Extra(key, id);
    }
    return;
  }
  r.CompareExact(key, expected, stored);
}

Status MdbIndexComparer::Drain() {
  if (current_ == kNone) return Status::Ok();
  ListComparison& r = results_[current_].tally;
  while (cursor_ && cursor_->valid()) {
    DIRLOAD_RETURN_IF_ERROR(cursor_->ReadIds(&stored_));
    Compare(r, cursor_->key(), {}, stored_);
    DIRLOAD_RETURN_IF_ERROR(cursor_->NextKey());
  }
  results_[current_].done = true;
  cursor_.reset();
  current_ = kNone;
  return Status::Ok();
}

Status MdbIndexComparer::Switch(size_t index) {
  DIRLOAD_RETURN_IF_ERROR(Drain());
  current_ = index;
  const MdbIndexComparison& r = results_[index];
  if (!r.db) return Status::Ok();
  if (!txn_) {
    DIRLOAD_ASSIGN_OR_RETURN(MdbTxn t, env_.Begin(false));
    txn_.emplace(std::move(t));
  }
  DIRLOAD_ASSIGN_OR_RETURN(MdbKeyCursor c, txn_->KeyCursor(*r.db));
  cursor_.emplace(std::move(c));
  return cursor_->First();
}

Status MdbIndexComparer::Add(size_t index, std::string_view key, std::span<const uint64_t> ids) {
  if (index != current_) DIRLOAD_RETURN_IF_ERROR(Switch(index));
  ListComparison& r = results_[index].tally;
  while (cursor_ && cursor_->valid() && cursor_->key() < key) {
    DIRLOAD_RETURN_IF_ERROR(cursor_->ReadIds(&stored_));
    Compare(r, cursor_->key(), {}, stored_);
    DIRLOAD_RETURN_IF_ERROR(cursor_->NextKey());
  }
  if (cursor_ && cursor_->valid() && cursor_->key() == key) {
    DIRLOAD_RETURN_IF_ERROR(cursor_->ReadIds(&stored_));
    Compare(r, key, ids, stored_);
    return cursor_->NextKey();
  }
  stored_.clear();
  Compare(r, key, ids, stored_);
  return Status::Ok();
}

Status MdbIndexComparer::EndGroup() {
  Status st = Drain();
  // A read transaction belongs to its thread: none outlives a group.
  cursor_.reset();
  txn_.reset();
  return st;
}

void MdbIndexComparer::AbortGroup() {
  cursor_.reset();
  txn_.reset();
  current_ = kNone;
}

Status MdbIndexComparer::Finish() {
  for (size_t i = 0; i < results_.size(); ++i) {
    if (results_[i].done) continue;
    DIRLOAD_RETURN_IF_ERROR(Switch(i));
    DIRLOAD_RETURN_IF_ERROR(Drain());
  }
  return EndGroup();
}

}  // namespace dirload::mdb
