// MdbSink: a load into slapd's own database (OpenLDAP 2.5 back-mdb,
// lib/format/mdb), through an MdbEntryWriter: one that builds the database
// aside (MdbLoadWriter) or one that writes into slapd's live environment
// (MdbOnlineWriter). The loader (loader.h) does
// every check as for the native format; whether a DN is taken, and a
// parent's ID, the sink asks of slapd's own DN tree (dn2i) as it is being
// written (and of the child nodes the writer holds back, mdb_writer.h), as
// slapadd does: a second tree of names, kept in step, cost phase 1 a fifth
// of its time at 1M entries.
//
// Entries that come before their parent wait in memory until the parent's
// reserved ID is written, so that id2e is written in ID order.
//
// Thread safety: as EntrySink.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "lib/format/entry_sink.h"
#include "lib/format/mdb/mdb_entry_writer.h"
#include "lib/schema/ascii.h"
#include "lib/schema/schema.h"
#include "lib/util/status.h"

namespace dirload {

// Writes the loader's entries through an MdbEntryWriter in ascending ID
// order. Whether a DN is taken, and a parent's ID, it asks of the writer's
// DN tree (dn2i) and of the entries it holds back. The writer is borrowed
// and must outlive the sink.
class MdbSink final : public EntrySink {
 public:
  // Both borrowed; they must outlive the sink and its preparers.
  MdbSink(mdb::MdbEntryWriter* writer, const Schema* schema);

  std::unique_ptr<Preparer> NewPreparer() override;
  // The next ID after the last in id2e, and how many entries it holds.
  Result<Start> Stored() override;
  Status Begin(std::string_view suffix, std::string_view nsuffix) override;
  Result<std::optional<EntryId>> Find(std::string_view ndn, const Prepared* prepared) override;
  void Reserve(EntryId id, DnName name) override;
  Status Add(const NewEntry& entry) override;
  // No DN: slapd's tree keeps RDNs. An entry stored before this load is
  // read from id2e (the suffix entry, for -w).
  Result<StoredEntry> Read(EntryId id) override;
  Status Remove(EntryId id, std::string_view ndn) override;
  Status Replace(EntryId id, std::span<const Value> values) override;
  // Writes the entries still waiting (their reserved predecessors never came
  // and were rejected).
  Status Finish(const Start& end) override;

  // Entries waiting for a reserved ID right now.
  size_t waiting() const { return pending_.size(); }

 private:
  // An entry's values, owned.
  struct Owned {
    EntryId parent = 0;
    std::string nrdn, rdn;
    std::vector<std::string> descriptions, values, normalized;
    std::vector<bool> generated, has_normalized;
    void Assign(std::span<const mdb::MdbValue> in);
    std::vector<mdb::MdbValue> View() const;
  };
  template <typename V>
  using NameMap = std::unordered_map<std::string, V, schema_internal::StringHash, std::equal_to<>>;
  // Parents are few and asked for again and again.
  static constexpr size_t kParentIds = 4096;

  // The ID of the entry named `ndn` filed under `parent`, written or waiting.
  Result<std::optional<EntryId>> FindChild(EntryId parent, std::string_view ndn);
  // The ID an entry below `parent_ndn` hangs from (a reserved one
  // included), or nullopt when there is none.
  Result<std::optional<EntryId>> ParentId(std::string_view parent_ndn);
  Status Write(EntryId id, const Owned& entry);
  Status WriteView(EntryId id, EntryId parent, std::string_view nrdn, std::string_view rdn,
                   std::span<const mdb::MdbValue> values);
  Status Drain();
  // An entry stored before this load, from id2e.
  Status ReadStored(EntryId id, Owned* out);
  // pending_names_'s key: the parent's ID and the normalized RDN, as dn2i
  // files a child.
  static std::string NameKey(EntryId parent, std::string_view nrdn);
  void ErasePending(std::map<EntryId, Owned>::iterator it);

  mdb::MdbEntryWriter* writer_;
  const Schema* schema_;
  std::string nsuffix_;
  EntryId written_;  // highest ID written
  std::map<EntryId, Owned> pending_;
  // The names of pending_'s entries, which dn2i does not hold yet.
  std::unordered_map<std::string, EntryId> pending_names_;
  // ndn -> the ID kept for it, until it comes; the loader keeps the bytes.
  std::unordered_map<DnName, EntryId, DnNameHash> reserved_;
  NameMap<EntryId> parent_ids_;  // ndn -> ID, bounded by kParentIds
  // The suffix entry as added, for -w (Read/Replace).
  EntryId suffix_id_ = 0;
  Owned suffix_;
  Owned read_owned_;                   // Read's, for an entry stored before this load
  std::vector<mdb::MdbValue> values_;  // Add's scratch
  std::vector<Value> read_;            // Read's
};

}  // namespace dirload
