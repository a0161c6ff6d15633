// The databases a reading command reads for a glued tree, as slapcat reads
// one: when the selected database stands for the tree (lib/config/glue.h:
// selected by -b, or by default after a subordinate), the superior first,
// then its subordinates in configuration order; otherwise the selected
// database alone. `use_glue` is false with -g.
//
// Thread safety: pure function.
#pragma once

#include <vector>

#include "lib/db/database.h"

namespace dirload {

// Each database's OpenOptions (the database chosen by number), in reading
// order; `open` itself when the selection names one database.
Result<std::vector<OpenOptions>> GluedTreeDatabases(const OpenOptions& open, bool use_glue);

}  // namespace dirload
