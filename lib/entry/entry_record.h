// Turns a stored entry back into an ldif::Record, resolving attribute
// description ids through the database's dictionary: what `cat` writes and
// what the loader puts in the reject file for entries it removes.
//
// Thread safety: pure function.
#pragma once

#include "ldif/record.h"
#include "lib/entry/entry_codec.h"
#include "lib/util/status.h"

namespace dirload {

// Fills *record (cleared first). Corruption when an id is not in `dictionary`.
Status EntryToRecord(const EntryView& entry, const AttributeDictionary& dictionary,
                     ldif::Record* record);

}  // namespace dirload
