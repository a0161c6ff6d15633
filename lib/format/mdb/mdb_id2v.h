// id2v, back-mdb's sub-database for the values of `multival` attributes
// (back-mdb's id2entry.c, mdb_mval_put/get): an entry's attribute record
// with more values than the attribute's `multival` high threshold keeps
// only its adx (| kMdbAdxMultival) and numvals words in id2e
// (mdb_entry_codec.h) and its values here, one duplicate per value.
//
// Key, 10 bytes: the entry ID (8 bytes, little-endian, as id2e's) and the
// record's ad2i number (2 bytes, little-endian). Keys are ordered by ID,
// then by ad2i number (mdb_env.cc installs the comparator).
// Duplicate, per value:
//   with a normalized copy:  nv NUL v NUL len(v)   (len: 2 bytes, little-endian)
//   without:                 v NUL 0x00 0x00
// ordered by the attribute's equality order on nv (or v): mdb_value_order.h.
// slapd reads numvals duplicates from the first, in that order: that is the
// order of the values slapcat and searches show.
//
// Thread safety: pure functions, except ResolveMdbMultival, which reads
// through the caller's transaction.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lib/format/mdb/mdb_entry_codec.h"
#include "lib/util/status.h"

namespace dirload::mdb {

class MdbTxn;
struct MdbDb;

// The longest value (and normalized copy) an id2v duplicate can carry: its
// length word has 16 bits.
inline constexpr size_t kMdbId2vMaxValue = 0xffff;
// The largest ad2i number an id2v key can carry.
inline constexpr uint32_t kMdbId2vMaxAdx = 0xffff;

// The 10-byte key of entry `id`'s record with ad2i number `adx`.
// REQUIRES: adx <= kMdbId2vMaxAdx.
std::string MdbId2vKey(uint64_t id, uint32_t adx);

// Appends one duplicate (see above); `normalized` null for a record without
// normalized copies. REQUIRES: value.size() <= kMdbId2vMaxValue.
void AppendMdbId2vValue(std::string_view value, const std::string_view* normalized,
                        std::string* out);

// The part of a stored duplicate the duplicate order compares: nv, or v
// when the record has no normalized copies. Never reads outside `stored`.
std::string_view MdbId2vOrderedPart(std::string_view stored);

// Splits a stored duplicate; Corruption when it is not well formed for a
// record with (`has_normalized`) or without normalized copies.
Status DecodeMdbId2vValue(std::string_view stored, bool has_normalized, std::string_view* value,
                          std::string_view* normalized);

// Reads the id2v values of every multival record of entry `id` in *view
// (decoded from its id2e record) through `txn`: each such record's values,
// then its normalized copies, are appended to view->values and the record
// marked `resolved`, so that Values() and Normalized() give them as for any
// record. The views point into the map: valid as long as the transaction's
// reads are. Corruption (naming `where` and the entry) when id2v holds
// fewer values than the record counts or a malformed one.
Status ResolveMdbMultival(MdbTxn& txn, MdbDb id2v, uint64_t id, MdbEntryView* view,
                          std::string_view where);

}  // namespace dirload::mdb
