// LoadConfigDatabase: `slapadd -n 0 -F DIR` (or -b cn=config): the cn=config
// database written, from a configuration LDIF, into an empty slapd.d
// directory (or added to one that holds a configuration) as slapd's
// configuration backend stores it (the files:
// lib/config/config_tree_writer.h).
//
// What slapd's configuration backend does to each entry before it stores
// it, done here the same way:
//   - names: an RDN of an ordered kind without its "{N}" (olcDatabase=mdb,
//     olcOverlay=..., cn=NAME under cn=schema) gets the next number among
//     its siblings of that kind ({1} for the first database after
//     {-1}frontend and {0}config), cn=module and cn=include get "{N}"
//     appended; the naming value in the entry and the DNs of its children
//     follow;
//   - attribute types are written under their canonical names, the
//     values of one type together, in the order of the first;
//   - values of X-ORDERED 'VALUES' attributes (olcAccess, olcAttributeTypes,
//     ...): numbered {0}, {1}, ... when none has a number, sorted by their
//     numbers otherwise and renumbered when the numbers are not 0..N-1; a
//     mix is refused. The values themselves are kept as given (slapd does
//     not re-serialise schema definitions or access rules);
//   - attributes ordered by the entry's configuration classes, required
//     then allowed (ConfigSchema::SortConfigAttributes);
//   - as slapadd: structuralObjectClass, entryUUID, creatorsName ("cn=config"),
//     createTimestamp, entryCSN, modifiersName, modifyTimestamp appended
//     when missing.
// The cn=schema,cn=config entry (slapd's own schema) is stored as given.
//
// dirload takes the configuration schema (attribute names, X-ORDERED,
// class definitions) from the input's cn=schema,cn=config entry when it
// holds definitions, as `slapcat -n 0` writes it, else from slapd's built-in
// configuration schema (lib/schema/builtin_config_schema.h) when the entry
// is bare, as bootstrap LDIFs give it. An input without that entry,
// or without olcDatabase={-1}frontend and olcDatabase={0}config before the
// other databases (slapadd would make both with slapd's defaults), is
// refused, as are change records and entries out of order (the parent
// first, cn=config first of all).
//
// Errors: the input's (ErrorOrigin::kInput, "FILE:LINE: DN: what"; an
// entry the directory holds already), the directory's (kConfiguration:
// files without cn=config.ldif, no directory), the file system's
// (kStorage). Nothing is written unless every entry is accepted.
//
// Into a directory that already holds a configuration, the input's entries
// are added to it (AddToConfigTree), numbered after the siblings there and
// checked against its schema: an entry it holds, a module it loads and an
// overlay a database has already are refused, as slapd refuses them.
//
// Thread safety: one call at a time per directory.
#pragma once

#include <cstdint>
#include <string>

#include "lib/config/database_config.h"
#include "lib/util/status.h"

namespace dirload {

struct ConfigLoadOptions {
  std::string ldif = "-";  // "-": standard input
  std::string dir;         // -F
  bool dry_run = false;    // check everything, write nothing
  int sid = 0;             // in the entryCSNs made
};

struct ConfigLoadSummary {
  uint64_t entries = 0;
};

// True when the options select the cn=config database of a slapd.d
// directory: -F with -n 0, or with -b cn=config.
bool SelectsConfigDatabase(const DatabaseOptions& options);

Result<ConfigLoadSummary> LoadConfigDatabase(const ConfigLoadOptions& options);

}  // namespace dirload
