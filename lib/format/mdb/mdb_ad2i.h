// MdbAd2i: back-mdb's ad2i table as the writers that share an environment
// with slapd keep it (the online load, `dirload modify`'s editor): the
// numbers 1, 2, 3, ... of the attribute descriptions, read from ad2i and
// extended in the writer's own transaction, as slapd's attr.c does
// (mdb_ad_read, then mdb_ad_get), so that one number never gets two
// meanings. The bulk writer, alone in its environment, numbers by itself.
//
// Thread safety: the transaction's thread.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "lib/format/mdb/mdb_env.h"
#include "lib/util/status.h"

namespace dirload::mdb {

// The 4-byte ad2i key of number `n` (native order).
std::string MdbAd2iKey(uint32_t n);

class MdbAd2i {
 public:
  MdbAd2i() : names_(1) {}  // numbers start at 1

  // The numbers written since the last call (every one the first time).
  Status ReadNew(MdbTxn* txn, MdbEnv* env);
  // The number of `description` (canonical), written into ad2i in `txn`
  // when it has none yet. REQUIRES: ReadNew in the same transaction.
  Result<uint32_t> Number(MdbTxn* txn, MdbEnv* env, const std::string& description);

  // By number; [0] is unused.
  const std::vector<std::string>& names() const { return names_; }
  const std::unordered_map<std::string, uint32_t>& numbers() const { return numbers_; }

 private:
  std::vector<std::string> names_;
  std::unordered_map<std::string, uint32_t> numbers_;
};

}  // namespace dirload::mdb
