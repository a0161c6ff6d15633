// The small writes back-mdb makes inside a write transaction when entries
// come, go and move one at a time (slapd's own operations, slapadd without
// -q): an ID joining or leaving an index key, and the subtree counts of a
// node's ancestors. Shared by the online writer (mdb_online_writer.h) and
// the editor of `dirload modify` (mdb_entry_editor.h), so both keep
// slapd's forms exactly (facts of back-mdb 2.5, idl.c and dn2id.c):
//
// - Insert (mdb_idl_insert_keys): an ID joins its key's duplicates; a key
//   holding max_ids_per_key() IDs (65,535 unless idlexp says otherwise) becomes the range {0, lo,
//   hi} when one more comes; a range widens its bounds.
// - Delete (mdb_idl_delete_keys): a listed ID leaves its key (the key goes
//   with its last ID); in a range, only an ID at a bound moves that bound
//   in, an ID inside stays covered; a range whose bounds meet becomes the
//   one ID left.
// - Subtree counts (mdb_dn2id_add's and _delete's upsub): the child node
//   of every ancestor, from the parent up to the suffix, counts the entries
//   below it, itself included.
//
// Thread safety: the transaction's thread.
#pragma once

#include <cstdint>
#include <string_view>

#include "lib/format/mdb/mdb_env.h"
#include "lib/util/status.h"

namespace dirload::mdb {

// mdb_idl_insert_keys for one key, a list holding at most `max_ids` IDs
// (MdbKeyOptions::max_ids_per_key); *made_range is set when the key became
// a range.
Status InsertIndexId(MdbTxn* txn, MdbDb db, std::string_view key, uint64_t id, size_t max_ids,
                     bool* made_range = nullptr);
// mdb_idl_delete_keys for one key. An ID the key does not list, or a key
// that is not there, is left as it is.
Status DeleteIndexId(MdbTxn* txn, MdbDb db, std::string_view key, uint64_t id);

// Adds `delta` to the subtree count of the child node of `parent` (a stored
// ID) and of each of its ancestors up to the root.
Status AddToSubtreeCounts(MdbTxn* txn, MdbEnv* env, uint64_t parent, int64_t delta);

}  // namespace dirload::mdb
