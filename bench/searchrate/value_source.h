// The values a run substitutes into its filter: the lines of a file, read
// once, and a per-client cursor that walks them in the order asked for.
// Each client owns its cursor, so no request takes a lock to pick a value.
//
// Thread safety: ValueFile is immutable after Load and may be shared;
// a ValueCursor belongs to one thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/searchrate/options.h"
#include "lib/util/status.h"

namespace dirload::searchrate {

class ValueFile {
 public:
  // One value per line; a trailing '\r' is dropped (files from Windows) and
  // empty lines are skipped. Fails when the file cannot be read or is empty.
  static Result<ValueFile> Load(const std::string& path);

  const std::vector<std::string>& values() const { return values_; }

 private:
  std::vector<std::string> values_;
};

class ValueCursor {
 public:
  // `client` counts from 1. The cursor starts at offset + (client - 1) *
  // client_offset positions into the client's order, wrapping around.
  // REQUIRES: `values` non-empty and outlives the cursor.
  ValueCursor(const std::vector<std::string>* values, const Options& options, int client);

  const std::string& Next();

 private:
  void Shuffle();

  const std::vector<std::string>* values_;
  bool reverse_ = false;
  bool random_ = false;
  uint64_t position_ = 0;  // index into the order of the current pass
  uint64_t rng_;           // splitmix64 state, for --order random
  std::vector<uint32_t> permutation_;
};

// Substitutes `value` for every %s of `filter_template`, escaped as RFC 4515
// asks unless `raw`: a value such as "O(Brien)" must stay one assertion value.
std::string MakeFilter(const std::string& filter_template, const std::string& value, bool raw);

}  // namespace dirload::searchrate
