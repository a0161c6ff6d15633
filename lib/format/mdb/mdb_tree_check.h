// The DN tree check of a back-mdb database: dn2i (mdb_dn_node.h) must form
// one tree over exactly the IDs id2e holds. Under key 0 the dummy root node
// and the suffix's child node; every other key is an ID of id2e with one
// self node naming its parent; each self node is matched by exactly one
// child node under that parent with the same normalized RDN; every ID is
// reachable from key 0; and each child node's nsubs is slapd's subtree
// count, 1 + the number of descendants (slapd plans subtree searches with
// it, so a wrong count silently loses entries).
//
// Thread safety: one thread; its own read transaction.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "lib/format/mdb/mdb_env.h"
#include "lib/format/verify_report.h"
#include "lib/util/status.h"

namespace dirload::mdb {

// `has_record`: by ID, whether id2e holds a record (entries and slapadd's
// empty placeholders alike). `describe` names an ID for a message ("entry 7
// (cn=x,dc=example,dc=com)"). Problems go to *problems, the nodes read to
// *nodes; only the engine's errors are returned.
Status CheckMdbDnTree(MdbEnv& env, const std::vector<bool>& has_record,
                      const std::function<std::string(uint64_t)>& describe, ProblemList* problems,
                      uint64_t* nodes);

}  // namespace dirload::mdb
