// OwedKeys: what a run of entry edits (`dirload modify`) owes the index
// lists, kept apart from the lists until a batch is full or the run ends.
// Each change records the (index, key) pairs of the entry's old values that
// its new values lack (the entry's ID leaves those keys) and the reverse (it
// joins them); then the batch's pairs come out key by key, each key's
// changes in the order of the run, so that a format applies them as its own
// sequence of operations would have left each key. Both editors use it
// (lib/format/mdb/mdb_entry_editor.h, lib/format/native/native_entry_editor.h).
//
// Thread safety: one thread.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/entry/entry_codec.h"
#include "lib/util/status.h"

namespace dirload {

class OwedKeys {
 public:
  using Key = std::pair<uint32_t, std::string_view>;  // (index, key)
  struct Change {
    uint32_t index;
    std::string key;
    uint64_t sequence;  // the change it came from, in the run's order
    EntryId id;
    bool add;  // the ID joins the key; else it leaves
  };

  // One change of entry `id`: its keys before and after, each sorted and
  // without repeats.
  void Record(EntryId id, std::span<const Key> old_keys, std::span<const Key> new_keys);

  // Whether the debts have reached the bound (by default about 1M pairs,
  // some 60 MB) at which an editor settles them before going on, so that a
  // run of any length holds bounded memory. Settling early keeps each key's
  // changes in the run's order: a settle takes every change recorded
  // before it.
  bool full() const { return changes_.size() >= bound_; }
  void set_bound(size_t pairs) { bound_ = pairs < 1 ? 1 : pairs; }
  static constexpr size_t kDefaultBound = size_t{1} << 20;

  // Calls `fn` once per (index, key) owed something, in key order, with that
  // key's changes in the run's order; then forgets them all.
  Status Settle(const std::function<Status(std::span<const Change> changes)>& fn);

 private:
  size_t bound_ = kDefaultBound;
  std::vector<Change> changes_;
  uint64_t sequence_ = 0;
};

}  // namespace dirload
