#include "lib/format/mdb/mdb_ad2i.h"

#include "lib/format/mdb/mdb_reader.h"

namespace dirload::mdb {

std::string MdbAd2iKey(uint32_t n) {
  std::string k(4, '\0');
  for (int i = 0; i < 4; ++i) k[i] = static_cast<char>(n >> (8 * i));
  return k;
}

Status MdbAd2i::ReadNew(MdbTxn* txn, MdbEnv* env) {
  const auto from = static_cast<uint32_t>(names_.size());
  return txn->ScanFrom(
      env->ad2i(), MdbAd2iKey(from), [&](std::string_view k, std::string_view v) -> Result<bool> {
        const uint64_t n = MdbDecodeId(k);
        if (k.size() != 4 || n != names_.size()) {
          return Status::Corruption(env->path() + ": ad2i: number " + std::to_string(n) +
                                    " after " + std::to_string(names_.size() - 1))
              .WithOrigin(ErrorOrigin::kDatabase);
        }
        names_.emplace_back(v);
        numbers_.emplace(std::string(v), static_cast<uint32_t>(n));
        return true;
      });
}

Result<uint32_t> MdbAd2i::Number(MdbTxn* txn, MdbEnv* env, const std::string& description) {
  if (auto it = numbers_.find(description); it != numbers_.end()) return it->second;
  // ReadNew saw every number committed before this transaction; LMDB lets
  // no other writer in until it commits.
  const auto n = static_cast<uint32_t>(names_.size());
  DIRLOAD_RETURN_IF_ERROR(
      txn->Put(env->ad2i(), MdbAd2iKey(n), description, MdbPutMode::kNoOverwrite));
  names_.push_back(description);
  numbers_.emplace(description, n);
  return n;
}

}  // namespace dirload::mdb
