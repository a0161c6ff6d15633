#include "lib/format/mdb/mdb_tree_updates.h"

#include <algorithm>
#include <string>

#include "lib/format/mdb/mdb_dn_node.h"
#include "lib/format/mdb/mdb_index_keys.h"
#include "lib/format/mdb/mdb_reader.h"

namespace dirload::mdb {
namespace {

// A range's bounds (its first duplicate is the marker 0).
Status RangeBounds(MdbTxn* txn, MdbDb db, std::string_view key, uint64_t* lo, uint64_t* hi) {
  *lo = 0;
  *hi = 0;
  return txn->ForEachDup(db, key, [&](std::string_view v) {
    const uint64_t d = MdbDecodeId(v);
    if (d == 0) return Status::Ok();
    if (*lo == 0) {
      *lo = d;
    } else {
      *hi = d;
    }
    return Status::Ok();
  });
}

}  // namespace

Status InsertIndexId(MdbTxn* txn, MdbDb db, std::string_view key, uint64_t id, size_t max_ids,
                     bool* made_range) {
  if (made_range != nullptr) *made_range = false;
  DIRLOAD_ASSIGN_OR_RETURN(MdbTxn::DupRange have, txn->Dups(db, key));
  if (have.count == 0) return txn->Put(db, key, MdbIdBytes(id), MdbPutMode::kOverwrite);
  const uint64_t first = MdbDecodeId(have.first), last = MdbDecodeId(have.last);
  if (first == 0) {
    uint64_t lo = 0, hi = 0;
    DIRLOAD_RETURN_IF_ERROR(RangeBounds(txn, db, key, &lo, &hi));
    if (id >= lo && id <= last) return Status::Ok();
    const uint64_t old = id < lo ? lo : last;
    DIRLOAD_RETURN_IF_ERROR(txn->DeleteDup(db, key, MdbIdBytes(old)));
    return txn->Put(db, key, MdbIdBytes(id), MdbPutMode::kOverwrite);
  }
  if (have.count >= max_ids) {
    // No room: the key becomes a range.
    const uint64_t lo = std::min(first, id), hi = std::max(last, id);
    DIRLOAD_RETURN_IF_ERROR(txn->DeleteKey(db, key));
    if (made_range != nullptr) *made_range = true;
    return txn->AddMultiple(db, key, MdbIdBytes(0) + MdbIdBytes(lo) + MdbIdBytes(hi), 8);
  }
  Status put = txn->Put(db, key, MdbIdBytes(id), MdbPutMode::kNoOverwrite);
  if (put.code() == StatusCode::kAlreadyExists) return Status::Ok();
  return put;
}

Status DeleteIndexId(MdbTxn* txn, MdbDb db, std::string_view key, uint64_t id) {
  DIRLOAD_ASSIGN_OR_RETURN(MdbTxn::DupRange have, txn->Dups(db, key));
  if (have.count == 0) return Status::Ok();
  if (MdbDecodeId(have.first) != 0) {
    Status gone = txn->DeleteDup(db, key, MdbIdBytes(id));
    return gone.code() == StatusCode::kNotFound ? Status::Ok() : gone;
  }
  uint64_t lo = 0, hi = 0;
  DIRLOAD_RETURN_IF_ERROR(RangeBounds(txn, db, key, &lo, &hi));
  if (id != lo && id != hi) return Status::Ok();
  const uint64_t lo2 = id == lo ? lo + 1 : lo, hi2 = id == hi ? hi - 1 : hi;
  if (lo2 >= hi2) {
    // The range has collapsed to the bound that stays.
    DIRLOAD_RETURN_IF_ERROR(txn->DeleteKey(db, key));
    return txn->Put(db, key, MdbIdBytes(id == lo ? hi : lo), MdbPutMode::kOverwrite);
  }
  DIRLOAD_RETURN_IF_ERROR(txn->DeleteDup(db, key, MdbIdBytes(id)));
  return txn->Put(db, key, MdbIdBytes(id == lo ? lo2 : hi2), MdbPutMode::kOverwrite);
}

Status AddToSubtreeCounts(MdbTxn* txn, MdbEnv* env, uint64_t parent, int64_t delta) {
  for (uint64_t cur = parent; cur != 0;) {
    DIRLOAD_ASSIGN_OR_RETURN(std::string_view self_bytes, txn->Get(env->dn2i(), MdbIdBytes(cur)));
    DIRLOAD_ASSIGN_OR_RETURN(MdbDnNode self, DecodeMdbDnNode(self_bytes));
    if (self.child) {
      return Status::Corruption(env->path() + ": dn2i: no self node for ID " + std::to_string(cur))
          .WithOrigin(ErrorOrigin::kDatabase);
    }
    DIRLOAD_ASSIGN_OR_RETURN(std::string probe,
                             EncodeMdbDnNode(MdbDnNode{true, self.nrdn, self.rdn, cur, 0}));
    const std::string key = MdbIdBytes(self.id);
    DIRLOAD_ASSIGN_OR_RETURN(std::string_view child_bytes, txn->GetDup(env->dn2i(), key, probe));
    DIRLOAD_ASSIGN_OR_RETURN(MdbDnNode child, DecodeMdbDnNode(child_bytes));
    child.nsubs = static_cast<uint64_t>(static_cast<int64_t>(child.nsubs) + delta);
    DIRLOAD_ASSIGN_OR_RETURN(std::string updated, EncodeMdbDnNode(child));
    DIRLOAD_RETURN_IF_ERROR(txn->ReplaceDup(env->dn2i(), key, updated));
    cur = self.id;
  }
  return Status::Ok();
}

}  // namespace dirload::mdb
