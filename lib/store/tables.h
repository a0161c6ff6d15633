// The logical tables of a dirload database and the rules for table names.
// Both engines hold the same tables under the same names (LMDB as named
// sub-databases of one environment, Berkeley DB as one <name>.bdb file each),
// so a name must also be a safe file name.
//
// Key layouts are specified where they are made: id2entry's in
// lib/entry/entry_codec.h, dn2id's keys in lib/schema/dn.h (DnSortKey),
// meta's in lib/format/native/database_meta.h, idx.*'s keys in
// lib/index/index_keys.h and their stored lists in lib/idl/idl_format.h. The
// store only requires bytewise key order.
//
// Thread safety: pure functions and constants.
#pragma once

#include <string>
#include <string_view>

#include "lib/util/status.h"

namespace dirload {

inline constexpr std::string_view kMetaTable = "meta";          // format, state, counters
inline constexpr std::string_view kId2EntryTable = "id2entry";  // entry ID -> encoded entry
inline constexpr std::string_view kDn2IdTable = "dn2id";        // normalised DN -> entry ID
inline constexpr std::string_view kIndexTablePrefix = "idx.";   // idx.<attr>: index keys -> IDs

// Longest table name; leaves room for the ".bdb" suffix in a file name.
inline constexpr size_t kMaxTableNameLength = 200;

// "idx." + the attribute name in lower case (attribute names are
// case-insensitive; the table name must not be).
std::string IndexTableName(std::string_view attribute);

// OK when `name` is 1..kMaxTableNameLength characters from [A-Za-z0-9._-]
// and does not start with '.'.
Status ValidateTableName(std::string_view name);

}  // namespace dirload
