#include "lib/pipeline/loader.h"

#include <algorithm>

#include "ldif/writer.h"
#include "lib/pipeline/database_meta.h"
#include "lib/store/tables.h"
#include "lib/util/coding.h"

namespace dirload {

Loader::Loader(LoadOptions options, Store* store, const EntryChecker* checker,
               RejectSink* rejects, ProgressSink* progress)
    : options_(std::move(options)),
      store_(store),
      checker_(checker),
      rejects_(rejects),
      progress_(progress) {
  if (options_.quick) options_.commit_every = std::max<uint64_t>(options_.commit_every, 200000);
  if (options_.commit_every == 0) options_.commit_every = 1;
}

Status Loader::Begin() {
  Result<std::string> ns = checker_->NormalizeDn(options_.suffix);
  if (!ns.ok()) return Status::InvalidArgument("suffix '" + options_.suffix + "': " + ns.status().message());
  nsuffix_ = *ns;
  if (store_ == nullptr) return Status::Ok();

  DIRLOAD_ASSIGN_OR_RETURN(DatabaseMeta meta, ReadMeta(store_, &dictionary_));
  if (meta.state == DatabaseState::kLoading) return RequireReady(meta, store_->path());
  if (meta.state == DatabaseState::kReady) {
    // Appending, as slapadd does to an existing database: same suffix, new IDs after the last.
    Result<std::string> old = checker_->NormalizeDn(meta.suffix);
    if (!old.ok() || *old != nsuffix_) {
      return Status::InvalidArgument(store_->path() + ": the database holds suffix '" +
                                     meta.suffix + "', not '" + options_.suffix + "'");
    }
    next_id_ = meta.next_id;
    entries_before_ = meta.entries;
  }
  dictionary_saved_ = dictionary_.size();
  meta.state = DatabaseState::kLoading;
  meta.suffix = options_.suffix;
  meta.next_id = next_id_;
  meta.entries = entries_before_;
  DIRLOAD_RETURN_IF_ERROR(WriteMeta(store_, meta));
  // The loading mark must be durable before any entry is: a crash after this
  // point can only leave a database that says it is incomplete.
  return store_->Sync();
}

Result<bool> Loader::DnExists(const std::string& ndn, uint64_t* line) {
  *line = 0;
  if (auto it = pending_dns_.find(ndn); it != pending_dns_.end()) {
    *line = it->second;
    return true;
  }
  if (store_ == nullptr) {
    auto it = dry_run_dns_.find(ndn);
    if (it == dry_run_dns_.end()) return false;
    *line = it->second;
    return true;
  }
  DIRLOAD_ASSIGN_OR_RETURN(bool found, store_->Get(kDn2IdTable, checker_->SortKey(ndn), &value_));
  if (found && value_.size() == 8) {
    EntryId id = GetBigEndian64(value_);
    if (id >= summary_.first_id && id - summary_.first_id < line_of_.size() && summary_.first_id) {
      *line = line_of_[id - summary_.first_id];
    }
  }
  return found;
}

Status Loader::Reject(uint64_t line, const std::string& dn, const std::string& why,
                      const ldif::Record* record) {
  std::string msg = file_ + ":" + std::to_string(line) + ": ";
  if (!dn.empty()) msg += dn + ": ";
  msg += why;
  ++summary_.rejected;
  if (summary_.first_error.empty()) summary_.first_error = msg;
  if (!options_.continue_on_error) return Status::ParseError(msg);
  if (rejects_ != nullptr) {
    std::string text;
    if (record != nullptr) ldif::AppendRecord(*record, ldif::WriterOptions{}, &text);
    return rejects_->Reject(msg, text);
  }
  return Status::Ok();
}

Status Loader::Process(ldif::Record* record) {
  const uint64_t line = record->line();
  std::string dn(record->dn());
  if (record->kind() == ldif::RecordKind::kChange) {
    return Reject(line, dn,
                  "change record (changetype: " + std::string(record->changetype()) +
                      ") cannot be bulk loaded; apply it with ldapmodify",
                  record);
  }
  Result<std::string> ndn = checker_->NormalizeDn(dn);
  if (!ndn.ok()) return Reject(line, dn, "invalid DN: " + ndn.status().message(), record);
  if (!checker_->IsUnder(*ndn, nsuffix_)) {
    return Reject(line, dn, "not under the suffix '" + options_.suffix + "'", record);
  }
  uint64_t other = 0;
  DIRLOAD_ASSIGN_OR_RETURN(bool exists, DnExists(*ndn, &other));
  if (exists) {
    return Reject(line, dn,
                  other ? "duplicate DN: already given at line " + std::to_string(other)
                        : "an entry with this DN is already in the database",
                  record);
  }
  Status schema = checker_->CheckEntry(*record);
  if (!schema.ok()) return Reject(line, dn, schema.message(), record);

  if (*ndn != nsuffix_) {
    std::string parent = checker_->ParentOf(*ndn);
    uint64_t parent_line = 0;
    DIRLOAD_ASSIGN_OR_RETURN(bool parent_exists, DnExists(parent, &parent_line));
    if (!parent_exists || pending_dns_.count(parent)) {
      pending_dns_.emplace(*ndn, line);
      pending_[parent].push_back({std::move(*record), *ndn});
      return Status::Ok();
    }
  }
  DIRLOAD_RETURN_IF_ERROR(Insert(*record, *ndn));
  return ReleaseChildren(*ndn);
}

Status Loader::Insert(const ldif::Record& record, const std::string& ndn) {
  EntryId id = next_id_++;
  if (summary_.first_id == 0) summary_.first_id = id;
  summary_.last_id = id;
  line_of_.push_back(record.line());
  ++summary_.entries_loaded;
  if (store_ == nullptr) {
    dry_run_dns_.emplace(ndn, record.line());
    return Status::Ok();
  }
  values_.clear();
  for (size_t i = 0; i < record.size(); ++i) {
    ldif::AttributeView a = record.attribute(i);
    values_.push_back({dictionary_.Intern(a.description), a.value});
  }
  value_.clear();
  EncodeEntry(record.dn(), values_, &value_);
  key_.clear();
  PutBigEndian64(id, &key_);
  DIRLOAD_RETURN_IF_ERROR(store_->Append(kId2EntryTable, key_, value_));
  DIRLOAD_RETURN_IF_ERROR(store_->Put(kDn2IdTable, checker_->SortKey(ndn), key_));
  if (++since_commit_ >= options_.commit_every) {
    since_commit_ = 0;
    if (dictionary_.size() != dictionary_saved_) {
      DIRLOAD_RETURN_IF_ERROR(WriteDictionary(store_, dictionary_));
      dictionary_saved_ = dictionary_.size();
    }
    DIRLOAD_RETURN_IF_ERROR(store_->Commit());
  }
  return Status::Ok();
}

Status Loader::ReleaseChildren(const std::string& ndn) {
  if (pending_.empty()) return Status::Ok();
  std::vector<std::string> ready = {ndn};
  while (!ready.empty()) {
    std::string parent = std::move(ready.back());
    ready.pop_back();
    auto it = pending_.find(parent);
    if (it == pending_.end()) continue;
    std::vector<Pending> children = std::move(it->second);
    pending_.erase(it);
    for (Pending& child : children) {
      pending_dns_.erase(child.ndn);
      DIRLOAD_RETURN_IF_ERROR(Insert(child.record, child.ndn));
      ready.push_back(std::move(child.ndn));
    }
  }
  return Status::Ok();
}

Status Loader::Finish() {
  // Whatever still waits has a parent that never came.
  std::vector<Pending*> orphans;
  for (auto& [parent, children] : pending_) {
    for (Pending& c : children) orphans.push_back(&c);
  }
  std::sort(orphans.begin(), orphans.end(),
            [](const Pending* a, const Pending* b) { return a->record.line() < b->record.line(); });
  for (Pending* o : orphans) {
    std::string parent = checker_->ParentOf(o->ndn);
    DIRLOAD_RETURN_IF_ERROR(Reject(o->record.line(), std::string(o->record.dn()),
                                   "parent entry '" + parent + "' does not exist",
                                   &o->record));
  }
  pending_.clear();
  pending_dns_.clear();
  if (store_ == nullptr) return Status::Ok();
  DIRLOAD_RETURN_IF_ERROR(WriteDictionary(store_, dictionary_));
  DatabaseMeta meta;
  meta.state = DatabaseState::kLoading;
  meta.suffix = options_.suffix;
  meta.next_id = next_id_;
  meta.entries = entries_before_ + summary_.entries_loaded;
  DIRLOAD_RETURN_IF_ERROR(WriteMeta(store_, meta));
  // Everything on disk first, then the mark that says so.
  DIRLOAD_RETURN_IF_ERROR(store_->Sync());
  DIRLOAD_RETURN_IF_ERROR(WriteState(store_, DatabaseState::kReady));
  return store_->Sync();
}

void Loader::ReportProgress(ldif::Reader* reader, bool final) {
  if (progress_ == nullptr) return;
  double now = clock_.wall_seconds();
  if (!final && now - last_progress_ < 0.2) return;
  last_progress_ = now;
  ProgressSnapshot s;
  s.phase = "phase 1: load";
  s.done_bytes = reader->input_offset();
  s.total_bytes = reader->input_size();
  s.entries = summary_.records_read;
  s.uncompressed_bytes = reader->bytes_parsed();
  s.elapsed_seconds = now;
  if (final) {
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "phase 1: %llu entries loaded, %llu rejected, %.1f MB in %.2f s (%.0f entries/s)",
                  static_cast<unsigned long long>(summary_.entries_loaded),
                  static_cast<unsigned long long>(summary_.rejected),
                  static_cast<double>(s.uncompressed_bytes) / 1e6, now,
                  now > 0 ? static_cast<double>(summary_.entries_loaded) / now : 0.0);
    progress_->Finish(s, buf);
  } else {
    progress_->Update(s);
  }
}

Result<LoadSummary> Loader::Run(ldif::Reader* reader) {
  file_ = reader->name();
  DIRLOAD_RETURN_IF_ERROR(Begin());
  ldif::Record record;
  uint64_t tick = 0;
  for (;;) {
    Result<bool> got = reader->Next(&record);
    if (!got.ok()) {
      const ldif::ReadError& e = reader->last_error();
      if (e.fatal) return got.status();
      ++summary_.records_read;
      // The reader's message already names file and lines.
      ++summary_.rejected;
      if (summary_.first_error.empty()) summary_.first_error = got.status().message();
      if (!options_.continue_on_error) return got.status();
      if (rejects_ != nullptr) DIRLOAD_RETURN_IF_ERROR(rejects_->Reject(got.status().message(), e.text));
      continue;
    }
    if (!*got) break;
    ++summary_.records_read;
    DIRLOAD_RETURN_IF_ERROR(Process(&record));
    if ((++tick & 255) == 0) ReportProgress(reader, false);
  }
  DIRLOAD_RETURN_IF_ERROR(Finish());
  summary_.input_bytes = reader->bytes_parsed();
  ReportProgress(reader, true);
  return summary_;
}

}  // namespace dirload
