// DryRunSink: where `dirload add -u` puts its entries: nowhere. Every check
// of a load runs, and the checks that ask what is stored (duplicate DNs,
// parents) are answered from the names this run added, kept in memory.
//
// Thread safety: as EntrySink.
#pragma once

#include <string>
#include <unordered_map>

#include "lib/format/entry_sink.h"
#include "lib/schema/ascii.h"

namespace dirload {

class DryRunSink final : public EntrySink {
 public:
  std::unique_ptr<Preparer> NewPreparer() override { return nullptr; }
  Result<Start> Stored() override { return Start{}; }
  Status Begin(std::string_view, std::string_view) override { return Status::Ok(); }
  Result<std::optional<EntryId>> Find(std::string_view ndn, const Prepared*) override;
  Status Add(const NewEntry& entry) override;
  // Nothing is kept: the entry's DN alone is known, no values.
  Result<StoredEntry> Read(EntryId id) override;
  Status Remove(EntryId id, std::string_view ndn) override;
  Status Replace(EntryId, std::span<const Value>) override { return Status::Ok(); }
  Status Finish(const Start&) override { return Status::Ok(); }

 private:
  std::unordered_map<std::string, EntryId, schema_internal::StringHash, std::equal_to<>> ids_;
};

}  // namespace dirload
