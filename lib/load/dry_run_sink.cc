#include "lib/load/dry_run_sink.h"

namespace dirload {

Result<std::optional<EntryId>> DryRunSink::Find(std::string_view ndn, const Prepared*) {
  if (auto it = ids_.find(ndn); it != ids_.end()) return std::optional<EntryId>(it->second);
  return std::optional<EntryId>();
}

Status DryRunSink::Add(const NewEntry& entry) {
  ids_.emplace(entry.ndn, entry.id);
  return Status::Ok();
}

Result<EntrySink::StoredEntry> DryRunSink::Read(EntryId) { return StoredEntry{}; }

Status DryRunSink::Remove(EntryId, std::string_view ndn) {
  if (auto it = ids_.find(ndn); it != ids_.end()) ids_.erase(it);
  return Status::Ok();
}

}  // namespace dirload
