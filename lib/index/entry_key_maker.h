// EntryKeyMaker: the native index keys of one entry at a time (lib/index/
// index_keys.h: equality, approx and substring keys per value, a presence
// key per entry and spec), for every spec or only for those a caller hands
// it values of, with the number of values per spec. The index builders use
// it per entry of a rebuild; `dirload modify` per entry it changes.
//
// Thread safety: one thread; the specs and schema must outlive it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lib/entry/entry_codec.h"
#include "lib/index/index_keys.h"
#include "lib/index/index_spec.h"
#include "lib/schema/dn_normalizer.h"
#include "lib/schema/schema.h"

namespace dirload {

class EntryKeyMaker {
 public:
  EntryKeyMaker(const std::vector<IndexSpec>& specs, const Schema& schema)
      : specs_(specs),
        schema_(schema),
        dns_(&schema),
        present_(specs.size(), 0),
        values_(specs.size(), 0),
        unnormalizable_(specs.size(), 0) {}

  // One value of entry `id` for spec `s`.
  void Value(EntryId id, uint32_t s, std::string_view value) {
    const IndexSpec& spec = specs_[s];
    ++values_[s];
    if ((spec.mask & kIndexPresence) && present_[s] != id) {
      present_[s] = id;
      touched_.push_back(s);
    }
    if (!AddValueKeys(schema_, spec, value, &keys_, &scratch_, &dns_).ok()) {
      ++unnormalizable_[s];
      return;
    }
    tables_.resize(keys_.size(), s);
  }

  // Adds the entry's presence keys; keys() and tables() are then the
  // entry's, until Clear().
  void End() {
    for (uint32_t s : touched_) {
      keys_.Add(kPresenceKeyTag, {});
      tables_.push_back(s);
    }
    touched_.clear();
    views_.clear();
    for (size_t k = 0; k < keys_.size(); ++k) views_.push_back(keys_[k]);
  }
  // The presence keys of the next entry are made again even when it has
  // the ID of the last (an entry's old values, then its new ones).
  void ForgetPresence() { std::fill(present_.begin(), present_.end(), 0); }
  void Clear() {
    keys_.Clear();
    tables_.clear();
  }

  std::span<const std::string_view> key_views() const { return views_; }
  std::span<const uint32_t> tables() const { return tables_; }
  uint64_t values(size_t s) const { return values_[s]; }
  uint64_t unnormalizable(size_t s) const { return unnormalizable_[s]; }

 private:
  const std::vector<IndexSpec>& specs_;
  const Schema& schema_;
  // manager and member values end in a few parents' names.
  DnNormalizer dns_;
  std::vector<EntryId> present_;   // per spec: last entry given a presence key
  std::vector<uint32_t> touched_;  // specs needing a presence key for this entry
  KeyList keys_;
  std::vector<uint32_t> tables_;  // spec number of each key
  std::vector<std::string_view> views_;
  std::string scratch_;
  std::vector<uint64_t> values_;
  std::vector<uint64_t> unnormalizable_;
};

}  // namespace dirload
