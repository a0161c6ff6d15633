// MdbEntryWriter: what a load into slapd's back-mdb format (MdbSink,
// mdb_sink.h) asks of the writer behind it: add an entry under a parent,
// find a child in dn2i, read and rewrite a stored entry. Two writers keep
// it: MdbLoadWriter (mdb_writer.h) builds a database aside, alone in its
// environment; MdbOnlineWriter (mdb_online_writer.h) writes into the live
// environment slapd serves, in batches.
//
// IDs here are the load's own: ascending from last_id() + 1 as the loader
// numbers the entries (lib/load/loader.h). A writer that stores entries
// under other IDs (the online one, whose IDs slapd's own adds may push on)
// translates them both ways.
//
// Thread safety: one thread.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

#include "lib/format/mdb/mdb_entry_encoder.h"
#include "lib/util/status.h"

namespace dirload::mdb {

class MdbEntryWriter {
 public:
  virtual ~MdbEntryWriter() = default;

  // Adds entry `id`, child of `parent_id` (0 for the suffix entry), whose
  // leftmost RDN is `nrdn` normalized and `rdn` in slapd's "pretty" form
  // (for the suffix entry: the whole suffix DN, both ways).
  // REQUIRES: id greater than every earlier (and stored) ID; parent_id 0, an
  // ID added before, or a stored ID.
  virtual Status AddEntry(uint64_t id, uint64_t parent_id, std::string_view nrdn,
                          std::string_view rdn, std::span<const MdbValue> values) = 0;
  // Numbers in ad2i the attribute descriptions of entry `id`, which AddEntry
  // gets later (a reserved ID below it is still to come), so that numbers
  // follow the input as slapadd gives them. A writer that numbers at
  // AddEntry only may leave it so.
  virtual Status NumberDescriptions(uint64_t /*id*/, std::span<const MdbValue> /*values*/) {
    return Status::Ok();
  }
  // The ID of the child of `parent_id` (0: the root) with normalized RDN
  // `nrdn`, or nullopt: dn2i answers, with what this load wrote so far.
  virtual Result<std::optional<uint64_t>> FindChild(uint64_t parent_id, std::string_view nrdn) = 0;
  // Re-encodes entry `id` with `values` (slapadd -w's contextCSN).
  virtual Status ReplaceEntry(uint64_t id, std::span<const MdbValue> values) = 0;
  // Entry `id`'s id2e record, or nullopt; valid until the next write.
  virtual Result<std::optional<std::string_view>> StoredEntry(uint64_t id) = 0;
  // How many entries id2e holds now.
  virtual Result<uint64_t> StoredEntries() = 0;
  // The last ID stored: the next entry's ID - 1.
  virtual uint64_t last_id() const = 0;
  // ad2i: description -> number, every one known so far.
  virtual const std::unordered_map<std::string, uint32_t>& ad2i() const = 0;
};

}  // namespace dirload::mdb
