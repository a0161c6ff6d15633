// ListComparison: the tally of one index compared with the lists its
// entries give (a verification, lib/format/verify_report.h): keys and IDs
// compared, (key, ID) pairs missing from the index and extra in it, the
// first few of each kept as they are, for the caller to name.
//
// Thread safety: a plain value; one thread at a time.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lib/entry/entry_codec.h"

namespace dirload {

struct KeyIdPair {
  std::string key;
  EntryId id = 0;
};

struct ListComparison {
  explicit ListComparison(size_t examples = 5) : examples(examples) {}

  size_t examples;
  uint64_t keys = 0;    // distinct keys compared
  uint64_t ids = 0;     // (key, ID) pairs the entries give
  uint64_t ranges = 0;  // keys stored as slapd's range (back-mdb only)
  uint64_t missing = 0;
  uint64_t extra = 0;
  std::vector<KeyIdPair> first_missing, first_extra;

  void Missing(std::string_view key, EntryId id) {
    ++missing;
    if (first_missing.size() < examples) first_missing.push_back({std::string(key), id});
  }
  void Extra(std::string_view key, EntryId id) {
    ++extra;
    if (first_extra.size() < examples) first_extra.push_back({std::string(key), id});
  }
  // One key: the IDs the entries give (`expected`) against those stored,
  // both ascending (either may be empty).
  void CompareExact(std::string_view key, std::span<const EntryId> expected,
                    std::span<const EntryId> stored) {
    ++keys;
    ids += expected.size();
    size_t i = 0, j = 0;
    while (i < expected.size() || j < stored.size()) {
      if (j == stored.size() || (i < expected.size() && expected[i] < stored[j])) {
        Missing(key, expected[i++]);
      } else if (i == expected.size() || stored[j] < expected[i]) {
        Extra(key, stored[j++]);
      } else {
        ++i;
        ++j;
      }
    }
  }
};

}  // namespace dirload
