// `dirload modify`: RFC 2849 change records (add, delete, modify, and the
// modrdn that slapmodify cannot do) applied to a database offline, each
// checked as slapd checks it, every index kept exact, all or nothing.
//
// Each record is applied in input order against the database as the
// records before it left it: the entry found by its DN (noSuchObject when
// it is not there), the change worked out on its values, the result
// checked (schema, RDN values present, a leaf for delete, a free name for
// add and modrdn), and the operational attributes set as slapd sets them on
// the same operation (an add gets all of them; a modify and a modrdn a new
// entryCSN, modifiersName and modifyTimestamp; createTimestamp and
// entryUUID stay). The format's editor (lib/format/entry_editor.h) writes
// it, and the index keys follow in key order, a batch at a time.
//
// A record refused stops the run and nothing is written, unless keep_going:
// then the record goes to the reject file with its reason and the run goes
// on; a record is never applied in part. A dry run checks everything and
// writes nothing.
//
// Thread safety: one thread; the database is borrowed.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "lib/db/database.h"
#include "lib/format/entry_editor.h"
#include "lib/modify/change.h"
#include "lib/util/progress.h"
#include "lib/util/status.h"

namespace dirload {

struct ModifyOptions {
  std::string input;         // -l: the change records ("-": standard input)
  bool keep_going = false;   // -c
  std::string reject_file;   // the records refused under -c, each after its reason
  bool dry_run = false;      // -u
  bool subtree = false;      // --subtree: a delete takes the entry's subtree with it
  size_t index_batch = 0;    // (key, ID) changes held before applying; 0: the editor's
  int sid = 0;               // -S: the server ID of the entryCSNs made
  bool context_csn = false;  // -w: the suffix entry's contextCSN follows
  // --relax: operational attributes change as the records say, and a modify
  // that sets entryCSN, modifiersName or modifyTimestamp keeps them (slapd's
  // slap_mods_opattrs keeps what the operation gives).
  bool relax = false;
  ProgressSink* progress = nullptr;
};

struct ModifySummary {
  uint64_t records = 0;
  uint64_t applied = 0;
  uint64_t rejected = 0;
  std::map<ChangeKind, uint64_t> by_kind;  // applied
  uint64_t entries_deleted = 0;            // a subtree delete counts each entry
  EntryEditor::Stats index;
  double seconds = 0;
};

// REQUIRES: `db` opened with Access::kModify.
Result<ModifySummary> ModifyDatabase(Database* db, const ModifyOptions& options);

}  // namespace dirload
