// EntryEditor: the half of the format seam that `dirload modify` drives
// (lib/db/modify_job.h). The job works out what each change record does to
// the entries, the same way for every format; an editor finds, reads and
// rewrites entries as its format keeps them, one change at a time, and
// keeps every index the database has exact. Nothing is visible to others
// until Commit(): an editor destroyed before it (an error, a dry run) leaves
// the database as it found it.
//
// Entries are named by their normalized DN (lib/schema/dn.h) and by the IDs
// the format gives them; an entry keeps its ID through a rename or a move.
//
// Thread safety: one thread.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lib/entry/entry_codec.h"
#include "lib/util/status.h"

namespace dirload {

class EntryEditor {
 public:
  struct Value {
    std::string description;  // canonical ("cn;lang-de")
    std::string value;
    // The copy the format keeps beside the value (slapd's normalized copy),
    // as read; a value without one is stored without one again.
    std::optional<std::string> beside;
    // Made by this run (timestamps, CSNs): stored as slapd stores the
    // values it makes itself.
    bool generated = false;
  };
  struct Entry {
    EntryId id = 0;
    std::vector<Value> values;
  };
  struct Stats {
    uint64_t index_ids_added = 0;    // (key, ID) pairs written
    uint64_t index_ids_removed = 0;  // (key, ID) pairs taken out
    double index_seconds = 0;        // Commit(): the owed keys applied
    double commit_seconds = 0;       // Commit(): made durable
  };

  virtual ~EntryEditor() = default;

  // The ID of the entry named `ndn`, or nullopt.
  virtual Result<std::optional<EntryId>> Find(std::string_view ndn) = 0;
  virtual Result<Entry> Read(EntryId id) = 0;
  // The IDs of the entries directly below `id`.
  virtual Result<std::vector<EntryId>> Children(EntryId id) = 0;
  // A new entry below `parent` (0: the suffix entry itself), its leftmost
  // RDN `nrdn` normalized and `rdn` as given; the suffix entry's is the
  // whole suffix. Returns its ID.
  virtual Result<EntryId> Add(EntryId parent, std::string_view nrdn, std::string_view rdn,
                              std::span<const Value> values) = 0;
  // Entry `id`'s values replaced; its keys follow.
  virtual Status Replace(EntryId id, std::span<const Value> values) = 0;
  // A leaf removed, with its keys.
  virtual Status Delete(EntryId id) = 0;
  // Entry `id` (and the subtree below it) renamed to `nrdn`/`rdn` below
  // `new_parent`, keeping every ID. Its values are Replace()d apart.
  virtual Status Move(EntryId id, EntryId new_parent, std::string_view nrdn,
                      std::string_view rdn) = 0;
  // How many (key, ID) changes are held before they are applied in key
  // order (a bigger batch touches each key less often; a smaller one holds
  // less memory). Each key's changes keep the run's order either way.
  virtual void SetIndexBatch(size_t pairs) = 0;
  // Applies what the index keys owe, in key order, and makes everything
  // durable at once.
  virtual Status Commit() = 0;
  virtual const Stats& stats() const = 0;
};

}  // namespace dirload
