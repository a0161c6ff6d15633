// Glue: which databases one `dirload add` writes, and which database slapd
// gives each entry, as slapadd decides them when databases are glued.
//
// A database marked `subordinate` (olcSubordinate) is glued to its superior:
// the first database after it in the configuration that is not a
// subordinate itself and whose suffix holds the subordinate's. slapd then
// serves the superior's suffix as one tree. Without -g, slapadd loads such a
// tree from one input when the superior is selected by -b, or by default
// (the first database is a subordinate, so the superior is the first one
// slapadd takes): each entry goes to the database whose suffix holds it most
// closely. -n selects one database alone, glued or not.
//
// Whatever the selection, an entry is accepted only when the database
// slapd's select_backend gives it (the first in configuration order whose
// suffix holds it; subordinates skipped when the selected database stands
// for its glued tree) is the selected one. So `-n` of a superior refuses the
// entries of its subordinates, and -g with the default selection loads a
// whole glued tree into the superior, as slapadd does.
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lib/config/slapd_config.h"
#include "lib/util/status.h"

namespace dirload {

// A suffix and the database that has it (as written in the configuration).
struct SuffixOwner {
  int database = 0;
  std::string suffix;
};

struct LoadRouting {
  // The database selected (-n, -b or by default).
  int selected = 0;
  // The databases the load writes: the selected one, then (glued) its
  // subordinates in configuration order.
  std::vector<int> databases;
  // select_backend's candidates, in configuration order.
  std::vector<SuffixOwner> holders;
  // The selected database's subordinates with their suffixes: an entry the
  // selected database holds goes to the one of these whose suffix holds it
  // most closely, if any. Empty unless glued.
  std::vector<SuffixOwner> glued;
  // Glued subordinates dirload does not load (back-ldap, ...), with why: an
  // entry that goes to one is refused, as slapadd fails to put it there;
  // the others load.
  std::vector<std::pair<int, std::string>> unloadable;
  // Another database's suffix lies inside the selected one's: its entries
  // are slapd's to give to it, so records must be routed even when one
  // database is loaded.
  bool nested = false;
};

// Plans the load as slapadd would (see above). `use_glue` is false with -g.
// An error when a subordinate has no superior (slapadd: "subordinate
// configuration error"), or as SelectDatabase (database_config.h) for -n
// and -b.
Result<LoadRouting> PlanLoadRouting(const SlapdConfig& config, std::optional<int> number,
                                    const std::optional<std::string>& dn, bool use_glue);

}  // namespace dirload
