#include "lib/pipeline/loader.h"

#include <pthread.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "ldif/writer.h"
#include "lib/pipeline/database_meta.h"
#include "lib/pipeline/entry_record.h"
#include "lib/store/tables.h"
#include "lib/util/coding.h"

namespace dirload {

Loader::Loader(LoadOptions options, Store* store, const EntryChecker* checker, RejectSink* rejects,
               ProgressSink* progress)
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
  if (!ns.ok()) {
    return Status::InvalidArgument("suffix '" + options_.suffix + "': " + ns.status().message());
  }
  nsuffix_ = *ns;
  summary_.first_id = next_id_;
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
  summary_.first_id = next_id_;
  meta.state = DatabaseState::kLoading;
  meta.suffix = options_.suffix;
  meta.next_id = next_id_;
  meta.entries = entries_before_;
  DIRLOAD_RETURN_IF_ERROR(WriteMeta(store_, meta));
  // The loading mark is committed before any entry: whatever a crash leaves
  // says it is incomplete. No sync: the engine writes commits in order, and
  // one sync at the end is what makes the load durable (as slapadd -q does).
  return store_->Commit();
}

Result<Loader::Found> Loader::Find(const std::string& ndn, uint64_t* line,
                                   const std::string* sort_key) {
  *line = 0;
  if (auto it = holes_.find(ndn); it != holes_.end()) return Found::kHole;
  if (store_ == nullptr) {
    auto it = dry_run_dns_.find(ndn);
    if (it == dry_run_dns_.end()) return Found::kNone;
    *line = it->second;
    return Found::kStored;
  }
  DIRLOAD_ASSIGN_OR_RETURN(
      bool found,
      store_->Get(kDn2IdTable, sort_key ? *sort_key : EntryChecker::SortKey(ndn), &value_));
  if (!found) return Found::kNone;
  if (value_.size() == 8) {
    EntryId id = GetBigEndian64(value_);
    if (id >= summary_.first_id && id - summary_.first_id < line_of_.size()) {
      *line = line_of_[id - summary_.first_id];
    }
  }
  return Found::kStored;
}

Status Loader::Reject(uint64_t line, const std::string& dn, const std::string& why,
                      const ldif::Record* record) {
  std::string text;
  if (record != nullptr) ldif::AppendRecord(*record, ldif::WriterOptions{}, &text);
  return RejectText(line, dn, why, text);
}

Status Loader::RejectText(uint64_t line, const std::string& dn, const std::string& why,
                          std::string_view text) {
  std::string msg = file_ + ":" + std::to_string(line) + ": ";
  if (!dn.empty()) msg += dn + ": ";
  msg += why;
  ++summary_.rejected;
  if (summary_.first_error.empty()) summary_.first_error = msg;
  if (!options_.continue_on_error) return Status::ParseError(msg);
  if (rejects_ != nullptr) return rejects_->Reject(msg, text);
  return Status::Ok();
}

struct Loader::Item {
  ldif::Record record;
  bool read_error = false;  // the reader rejected the record; `error` says why
  Status error;             // why the record is rejected, else OK
  std::string text;         // read_error: the record's bytes as read
  std::string ndn;
  std::string pretty_rdn;  // the entry's own RDN, insignificant spaces removed
  std::string pretty_dn;
  std::string sort_key;        // dn2id key
  std::string encoded_values;  // id2entry value after the DN (lib/entry)
  EntryChecker::Prepared prepared;
};

struct Loader::Batch {
  std::vector<Item> items;
  size_t count = 0;
  bool checked = false;  // guarded by the pipeline's mutex
  bool last = false;     // no batch follows
  Status fatal;          // reading stopped here (I/O, gzip)
  uint64_t input_offset = 0;
  uint64_t parsed_bytes = 0;
};

void Loader::Check(EntryChecker* checker, WorkerState* local, Item* item) {
  if (item->read_error) return;
  const ldif::Record& r = item->record;
  if (r.kind() == ldif::RecordKind::kChange) {
    item->error =
        Status::InvalidArgument("change record (changetype: " + std::string(r.changetype()) +
                                ") cannot be bulk loaded; apply it with ldapmodify");
    return;
  }
  Dn dn;
  Status st = checker->CheckDn(r.dn(), &dn, &item->ndn);
  if (!st.ok()) {
    item->error = st.message().rfind("invalid DN", 0) == 0
                      ? Status::InvalidArgument(st.message())
                      : Status::InvalidArgument("invalid DN: " + st.message());
    return;
  }
  if (!EntryChecker::IsUnder(item->ndn, nsuffix_)) {
    item->error = Status::InvalidArgument("not under the suffix '" + options_.suffix + "'");
    return;
  }
  if (item->ndn.empty()) {
    item->error = Status::InvalidArgument("the empty DN (the root DSE) cannot be loaded");
    return;
  }
  item->sort_key = EntryChecker::SortKey(item->ndn);
  if (item->sort_key.size() > kMaxKeySize) {
    item->error =
        Status::InvalidArgument("DN too long: " + std::to_string(item->sort_key.size()) +
                                " bytes normalised, at most " + std::to_string(kMaxKeySize));
    return;
  }
  item->pretty_dn = dn.ToString();
  item->pretty_rdn.clear();
  if (!dn.empty()) {
    Dn own;
    own.rdns.push_back(dn.rdns[0]);
    item->pretty_rdn = own.ToString();
  }
  item->error = checker->Prepare(r, dn, &item->prepared);
  if (!item->error.ok()) return;
  // Description ids: looked up in this worker's table, which is filled from
  // the shared dictionary the first time each description shows up.
  std::vector<ValueRef>& values = local->values;
  values.clear();
  for (const auto& [description, value] : item->prepared.values) {
    auto it = local->ids.find(description.data());
    if (it == local->ids.end()) {
      std::lock_guard<std::mutex> lock(dictionary_mu_);
      it = local->ids.emplace(description.data(), dictionary_.Intern(description)).first;
    }
    values.push_back({it->second, value});
  }
  item->encoded_values.clear();
  EncodeValues(values, &item->encoded_values);
}

Status Loader::Process(Item* item) {
  ldif::Record* record = &item->record;
  ++summary_.records_read;
  if (item->read_error) {
    // The reader's message already names file and lines.
    ++summary_.rejected;
    if (summary_.first_error.empty()) summary_.first_error = item->error.message();
    if (!options_.continue_on_error) return item->error;
    if (rejects_ != nullptr) return rejects_->Reject(item->error.message(), item->text);
    return Status::Ok();
  }
  const uint64_t line = record->line();
  if (!item->error.ok())
    return Reject(line, std::string(record->dn()), item->error.message(), record);
  const std::string& ndn = item->ndn;
  uint64_t other = 0;
  DIRLOAD_ASSIGN_OR_RETURN(Found self, Find(ndn, &other, &item->sort_key));
  if (self == Found::kStored) {
    return Reject(line, std::string(record->dn()),
                  other ? "duplicate DN: already given at line " + std::to_string(other)
                        : "an entry with this DN is already in the database",
                  record);
  }
  EntryId id = 0;
  if (self == Found::kHole) {
    // A child came first and reserved this entry's ID, as slapadd does.
    auto it = holes_.find(ndn);
    id = it->second.id;
    holes_.erase(it);
  } else {
    DIRLOAD_RETURN_IF_ERROR(ReserveAncestors(ndn, line, std::string(record->dn())));
    id = next_id_++;
  }
  // The stored DN: the entry's own RDN under its parent's DN as stored, so
  // that a parent spelt "ou=People" is not shown as "ou=people" by a child
  // (back-mdb builds DNs from the tree the same way).
  std::string stored_dn = item->pretty_dn;
  if (ndn != nsuffix_) {
    std::string parent = EntryChecker::ParentOf(ndn);
    if (!parent.empty()) {
      DIRLOAD_ASSIGN_OR_RETURN(std::string parent_dn, StoredDn(parent));
      if (!parent_dn.empty()) stored_dn = item->pretty_rdn + "," + parent_dn;
    }
  }
  return Insert(id, *record, *item, stored_dn);
}

Status Loader::ReserveAncestors(const std::string& ndn, uint64_t line, const std::string& dn) {
  if (ndn == nsuffix_) return Status::Ok();
  std::vector<std::string> missing;
  std::string parent = EntryChecker::ParentOf(ndn);
  while (!parent.empty()) {
    uint64_t ignored = 0;
    DIRLOAD_ASSIGN_OR_RETURN(Found f, Find(parent, &ignored));
    if (f != Found::kNone) break;
    missing.push_back(parent);
    if (parent == nsuffix_) break;
    parent = EntryChecker::ParentOf(parent);
  }
  // Ancestors get their IDs top down, before the entry that needs them.
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    holes_.emplace(*it, Hole{next_id_++, line, dn});
  }
  return Status::Ok();
}

Result<std::string> Loader::StoredDn(const std::string& ndn) {
  if (ndn == last_parent_ndn_) return last_parent_dn_;
  if (holes_.count(ndn)) return std::string();  // not stored yet
  std::string dn;
  if (auto it = parent_dns_.find(ndn); it != parent_dns_.end()) {
    dn = it->second;
  } else if (store_ == nullptr) {
    return std::string();  // -u stores nothing: entries keep their own spelling
  } else {
    DIRLOAD_ASSIGN_OR_RETURN(bool found,
                             store_->Get(kDn2IdTable, EntryChecker::SortKey(ndn), &value_));
    if (found) {
      std::string entry;
      DIRLOAD_ASSIGN_OR_RETURN(bool has, store_->Get(kId2EntryTable, value_, &entry));
      EntryView view;
      if (has && DecodeEntry(entry, &view).ok()) dn = std::string(view.dn);
    }
  }
  // Parents are few and looked up again and again.
  if (parent_dns_.size() >= kParentDns) parent_dns_.clear();
  parent_dns_.emplace(ndn, dn);
  last_parent_ndn_ = ndn;
  last_parent_dn_ = dn;
  return dn;
}

Status Loader::Insert(EntryId id, const ldif::Record& record, const Item& item,
                      const std::string& stored_dn) {
  const std::string& ndn = item.ndn;
  summary_.last_id = std::max(summary_.last_id, id);
  if (line_of_.size() <= id - summary_.first_id) line_of_.resize(id - summary_.first_id + 1, 0);
  line_of_[id - summary_.first_id] = record.line();
  ++summary_.entries_loaded;
  if (store_ == nullptr) {
    dry_run_dns_.emplace(ndn, record.line());
    return Status::Ok();
  }
  value_.clear();
  EncodeEntryFromValues(stored_dn, item.encoded_values, &value_);
  key_.clear();
  PutBigEndian64(id, &key_);
  if (id + 1 == next_id_ && id >= append_floor_) {
    DIRLOAD_RETURN_IF_ERROR(store_->Append(kId2EntryTable, key_, value_));
  } else {
    // A reserved ID, below entries already appended.
    DIRLOAD_RETURN_IF_ERROR(store_->Put(kId2EntryTable, key_, value_));
  }
  append_floor_ = std::max(append_floor_, id + 1);
  DIRLOAD_RETURN_IF_ERROR(store_->Put(kDn2IdTable, item.sort_key, key_));
  if (++since_commit_ >= options_.commit_every) {
    since_commit_ = 0;
    std::lock_guard<std::mutex> lock(dictionary_mu_);
    if (dictionary_.size() != dictionary_saved_) {
      DIRLOAD_RETURN_IF_ERROR(WriteDictionary(store_, dictionary_));
      dictionary_saved_ = dictionary_.size();
    }
    DIRLOAD_RETURN_IF_ERROR(store_->Commit());
  }
  return Status::Ok();
}

Status Loader::RemoveOrphans() {
  // Holes that were never filled: the entries below them have no parent.
  std::vector<std::pair<std::string, Hole>> holes(holes_.begin(), holes_.end());
  std::sort(holes.begin(), holes.end(),
            [](const auto& a, const auto& b) { return a.second.id < b.second.id; });
  holes_.clear();
  for (const auto& [hole_ndn, hole] : holes) {
    // Named as the first entry that needed it spelt it, not normalised.
    std::string parent = hole_ndn;
    if (Result<Dn> child = ParseDn(hole.first_dn); child.ok()) {
      Dn d = std::move(*child);
      while (d.size() > 1) {
        d = d.Parent();
        std::string n;
        if (NormalizeDn(checker_->schema(), d, &n).ok() && n == hole_ndn) {
          parent = d.ToString();
          break;
        }
      }
    }
    std::string why = "parent entry '" + parent + "' does not exist";
    if (store_ == nullptr) {
      DIRLOAD_RETURN_IF_ERROR(RejectText(hole.first_line, hole.first_dn, why, {}));
      continue;
    }
    // Every entry stored below the missing one goes to the reject file.
    std::string prefix = DnDescendantPrefix(EntryChecker::SortKey(hole_ndn));
    std::vector<std::pair<std::string, std::string>> doomed;  // (dn2id key, id key)
    std::unique_ptr<Cursor> c = store_->NewCursor(kDn2IdTable);
    for (c->Seek(prefix); c->valid() && c->key().substr(0, prefix.size()) == prefix; c->Next()) {
      doomed.emplace_back(std::string(c->key()), std::string(c->value()));
    }
    DIRLOAD_RETURN_IF_ERROR(c->status());
    c.reset();
    auto line_of = [&](std::string_view id_key) {
      EntryId id = GetBigEndian64(id_key);
      return id >= summary_.first_id && id - summary_.first_id < line_of_.size()
                 ? line_of_[id - summary_.first_id]
                 : hole.first_line;
    };
    // Reported in input order.
    std::sort(doomed.begin(), doomed.end(),
              [&](const auto& a, const auto& b) { return line_of(a.second) < line_of(b.second); });
    for (const auto& [dn_key, id_key] : doomed) {
      std::string entry;
      DIRLOAD_ASSIGN_OR_RETURN(bool has, store_->Get(kId2EntryTable, id_key, &entry));
      std::string text, dn;
      EntryView view;
      if (has && DecodeEntry(entry, &view).ok()) {
        ldif::Record r;
        DIRLOAD_RETURN_IF_ERROR(EntryToRecord(view, dictionary_, &r));
        ldif::AppendRecord(r, ldif::WriterOptions{}, &text);
        dn = std::string(view.dn);
      }
      uint64_t line = line_of(id_key);
      DIRLOAD_RETURN_IF_ERROR(RejectText(line, dn, why, text));
      DIRLOAD_RETURN_IF_ERROR(store_->Delete(kId2EntryTable, id_key));
      DIRLOAD_RETURN_IF_ERROR(store_->Delete(kDn2IdTable, dn_key));
      --summary_.entries_loaded;
    }
  }
  return Status::Ok();
}

Status Loader::Finish() {
  DIRLOAD_RETURN_IF_ERROR(RemoveOrphans());
  if (store_ == nullptr) return Status::Ok();
  DIRLOAD_RETURN_IF_ERROR(WriteDictionary(store_, dictionary_));  // the workers are gone
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

void Loader::ReportProgress(uint64_t input_offset, uint64_t input_size, uint64_t parsed,
                            bool final) {
  if (progress_ == nullptr) return;
  double now = clock_.wall_seconds();
  if (!final && now - last_progress_ < 0.2) return;
  last_progress_ = now;
  ProgressSnapshot s;
  s.phase = "phase 1: load";
  s.done_bytes = input_offset;
  s.total_bytes = input_size;
  s.entries = summary_.records_read;
  s.uncompressed_bytes = parsed;
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

// Runs the reader thread and the checking workers; the calling thread takes
// the batches in order with Next() and gives them back with Release().
// Destruction stops and joins every thread, whatever state they are in.
class Loader::Pipeline {
 public:
  Pipeline(Loader* loader, ldif::Reader* reader, const EntryChecker& prototype, unsigned workers,
           size_t batch_records)
      : loader_(loader), reader_(reader), batch_records_(batch_records) {
    size_t depth = 2 * static_cast<size_t>(workers) + 2;
    for (size_t i = 0; i < depth; ++i) free_.push_back(std::make_unique<Batch>());
    reader_thread_ = std::thread([this] {
      pthread_setname_np(pthread_self(), "dirload-read");
      ReadLoop();
    });
    for (unsigned i = 0; i < workers; ++i) {
      workers_.emplace_back([this, checker = prototype]() mutable {
        pthread_setname_np(pthread_self(), "dirload-check");
        WorkerState local;
        WorkLoop(&checker, &local);
      });
    }
  }
  ~Pipeline() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    reader_thread_.join();
    for (std::thread& t : workers_) t.join();
  }

  // The next batch in input order, once checked.
  Batch* Next() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return !ordered_.empty() && ordered_.front()->checked; });
    return ordered_.front().get();
  }
  void Release() {
    std::lock_guard<std::mutex> lock(mu_);
    free_.push_back(std::move(ordered_.front()));
    ordered_.pop_front();
    cv_.notify_all();
  }

 private:
  void ReadLoop() {
    for (bool last = false; !last;) {
      std::unique_ptr<Batch> batch;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [this] { return !free_.empty() || stop_; });
        if (stop_) return;
        batch = std::move(free_.back());
        free_.pop_back();
      }
      Fill(batch.get());
      last = batch->last;
      std::lock_guard<std::mutex> lock(mu_);
      Batch* raw = batch.get();
      ordered_.push_back(std::move(batch));
      if (raw->count == 0) {
        raw->checked = true;
      } else {
        work_.push_back(raw);
      }
      cv_.notify_all();
    }
  }

  void Fill(Batch* b) {
    b->count = 0;
    b->checked = false;
    b->last = false;
    b->fatal = Status::Ok();
    if (b->items.size() < batch_records_) b->items.resize(batch_records_);
    while (b->count < batch_records_) {
      Item& item = b->items[b->count];
      Result<bool> got = reader_->Next(&item.record);
      if (!got.ok()) {
        if (reader_->last_error().fatal) {
          b->fatal = got.status();
          b->last = true;
          break;
        }
        item.read_error = true;
        item.error = got.status();
        item.text = reader_->last_error().text;
        ++b->count;
        continue;
      }
      if (!*got) {
        b->last = true;
        break;
      }
      item.read_error = false;
      item.error = Status::Ok();
      item.ndn.clear();
      ++b->count;
    }
    b->input_offset = reader_->input_offset();
    b->parsed_bytes = reader_->bytes_parsed();
  }

  void WorkLoop(EntryChecker* checker, WorkerState* local) {
    for (;;) {
      Batch* b;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [this] { return !work_.empty() || stop_; });
        if (stop_) return;
        b = work_.front();
        work_.pop_front();
      }
      for (size_t i = 0; i < b->count; ++i) loader_->Check(checker, local, &b->items[i]);
      std::lock_guard<std::mutex> lock(mu_);
      b->checked = true;
      cv_.notify_all();
    }
  }

  Loader* loader_;
  ldif::Reader* reader_;
  size_t batch_records_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;                           // guarded by mu_
  std::vector<std::unique_ptr<Batch>> free_;    // guarded by mu_
  std::deque<std::unique_ptr<Batch>> ordered_;  // guarded by mu_, input order
  std::deque<Batch*> work_;                     // guarded by mu_, awaiting checks
  std::thread reader_thread_;
  std::vector<std::thread> workers_;
};

Result<LoadSummary> Loader::Run(ldif::Reader* reader) {
  file_ = reader->name();
  DIRLOAD_RETURN_IF_ERROR(Begin());
  const uint64_t input_size = reader->input_size();
  uint64_t input_offset = 0, parsed = 0;
  {
    Pipeline pipeline(this, reader, *checker_, std::max(1u, options_.threads),
                      std::max<size_t>(1, options_.batch_records));
    for (bool last = false; !last;) {
      Batch* batch = pipeline.Next();
      for (size_t i = 0; i < batch->count; ++i) {
        DIRLOAD_RETURN_IF_ERROR(Process(&batch->items[i]));
      }
      if (!batch->fatal.ok()) return batch->fatal;
      last = batch->last;
      input_offset = batch->input_offset;
      parsed = batch->parsed_bytes;
      pipeline.Release();
      ReportProgress(input_offset, input_size, parsed, false);
    }
  }
  DIRLOAD_RETURN_IF_ERROR(Finish());
  summary_.input_bytes = parsed;
  ReportProgress(input_offset, input_size, parsed, true);
  return summary_;
}

}  // namespace dirload
