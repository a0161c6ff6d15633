#include "lib/pipeline/loader.h"

#include <pthread.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "ldif/writer.h"
#include "lib/pipeline/database_meta.h"
#include "lib/pipeline/entry_record.h"
#include "lib/store/tables.h"
#include "lib/util/ascii.h"
#include "lib/util/coding.h"
#include "lib/util/key_hash.h"

namespace dirload {
namespace {

static_assert(kDn2IdMaxPlainKey == kMaxKeySize, "dn2id keys are plain up to the store's limit");

Status Dn2IdCorruption(std::string_view key) {
  return Status::Corruption("dn2id: the record of a key of " + std::to_string(key.size()) +
                            " bytes is not an ID (and, for a long key, the DN's key)")
      .WithOrigin(ErrorOrigin::kDatabase);
}

}  // namespace

Loader::Loader(LoadOptions options, Store* store, const EntryChecker* checker, RejectSink* rejects,
               ProgressSink* progress)
    : options_(std::move(options)),
      store_(store),
      checker_(checker),
      rejects_(rejects),
      progress_(progress),
      held_dn2id_(options_.dn2id_buffer_bytes) {
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
  if (options_.sid < 0 || options_.sid > 0xfff) {
    return Status::InvalidArgument("server ID " + std::to_string(options_.sid) +
                                   " is out of range (0 to 4095)")
        .WithOrigin(ErrorOrigin::kUsage);
  }
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
  if (options_.lastmod) {
    OperationalAttributes::Options oo;
    oo.rootdn = options_.rootdn;
    oo.sid = options_.sid;
    oo.clock = options_.clock;
    oo.seed = options_.uuid_seed;
    operational_ = std::make_unique<OperationalAttributes>(std::move(oo));
    // The workers have not started: no lock needed yet.
    for (size_t i = 0; i < kOperationalAttributeCount; ++i) {
      operational_ids_[i] = dictionary_.Intern(kOperationalAttributeNames[i]);
    }
  }
  dictionary_saved_ = dictionary_.size();
  summary_.first_id = next_id_;
  if (entries_before_ == 0) {
    filter_added_ = true;
    added_dns_ = BloomFilter(kAddedFilterBytes);
  }
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

// A record of another DN under the same long key (dn.h) is an AlreadyExists
// error naming both: the database cannot hold the two.
Result<std::optional<EntryId>> Loader::LookupDn2Id(std::string_view sort_key) {
  std::string buffer;
  const std::string_view key = Dn2IdKey(sort_key, &buffer);
  const uint64_t hash = HeldRecords::Hash(key);
  if (filter_added_ && !added_dns_.MayContain(hash)) return std::optional<EntryId>();
  std::string_view stored;
  if (std::optional<std::string_view> held = held_dn2id_.Find(key, hash)) {
    stored = *held;
  } else {
    DIRLOAD_ASSIGN_OR_RETURN(bool found, store_->Get(kDn2IdTable, key, &value_));
    if (!found) return std::optional<EntryId>();
    stored = value_;
  }
  Dn2IdRecord r;
  if (!DecodeDn2IdRecord(key, stored, &r)) return Dn2IdCorruption(key);
  if (r.sort_key != sort_key) {
    return Status::AlreadyExists(
        "the DN's dn2id key (its first " + std::to_string(kDn2IdKeyPrefix) +
        " bytes and a 64-bit hash) is already taken by entry " + std::to_string(r.id) +
        ", whose DN differs: the database cannot hold both");
  }
  return std::optional<EntryId>(r.id);
}

Status Loader::WriteHeldDn2Id() {
  if (held_dn2id_.empty()) return Status::Ok();
  // Into an empty table the records are appended, every page filled; else
  // put in key order, each leaf page touched once.
  bool append = false;
  {
    std::unique_ptr<Cursor> c = store_->NewCursor(kDn2IdTable);
    c->SeekToFirst();
    DIRLOAD_RETURN_IF_ERROR(c->status());
    append = !c->valid();
  }
  uint64_t since_commit = 0;
  DIRLOAD_RETURN_IF_ERROR(
      held_dn2id_.ForEachSorted([&](std::string_view key, std::string_view value) -> Status {
        DIRLOAD_RETURN_IF_ERROR(append ? store_->Append(kDn2IdTable, key, value)
                                       : store_->Put(kDn2IdTable, key, value));
        // Transactions of the usual size: in key order they touch each page once anyway.
        if (++since_commit >= options_.commit_every) {
          since_commit = 0;
          DIRLOAD_RETURN_IF_ERROR(store_->Commit());
        }
        return Status::Ok();
      }));
  held_dn2id_.Clear();
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
  DIRLOAD_ASSIGN_OR_RETURN(std::optional<EntryId> id, LookupId(ndn, sort_key));
  if (!id.has_value()) return Found::kNone;
  if (*id >= summary_.first_id && *id - summary_.first_id < line_of_.size()) {
    *line = line_of_[*id - summary_.first_id];
  }
  return Found::kStored;
}

Result<std::optional<EntryId>> Loader::LookupId(const std::string& ndn,
                                                const std::string* sort_key) {
  if (options_.sink == nullptr) {
    std::string own_key;
    if (sort_key == nullptr) own_key = EntryChecker::SortKey(ndn);
    return LookupDn2Id(sort_key ? std::string_view(*sort_key) : own_key);
  }
  if (filter_added_ && !added_dns_.MayContain(HashBytes(ndn.data(), ndn.size(), 0))) {
    return std::optional<EntryId>();
  }
  // The sink's tree files an entry under its parent's ID.
  EntryId parent = 0;
  if (ndn != nsuffix_) {
    const std::string_view parent_ndn = EntryChecker::ParentView(ndn);
    // Under the empty suffix the top entries hang from the root, ID 0.
    if (!parent_ndn.empty()) {
      DIRLOAD_ASSIGN_OR_RETURN(std::optional<EntryId> p, ParentId(parent_ndn));
      if (!p.has_value()) return std::optional<EntryId>();
      parent = *p;
    }
  }
  return options_.sink->Find(parent, ndn);
}

Result<std::optional<EntryId>> Loader::ParentId(std::string_view parent_ndn) {
  if (auto hole = holes_.find(parent_ndn); hole != holes_.end()) {
    return std::optional<EntryId>(hole->second.id);
  }
  if (auto it = parent_ids_.find(parent_ndn); it != parent_ids_.end()) {
    return std::optional<EntryId>(it->second);
  }
  DIRLOAD_ASSIGN_OR_RETURN(std::optional<EntryId> id, LookupId(std::string(parent_ndn), nullptr));
  // Parents are few and asked for again and again; an entry keeps its ID
  // until the end, when only entries below holes are removed.
  if (id.has_value()) {
    if (parent_ids_.size() >= kParentDns) parent_ids_.clear();
    parent_ids_.emplace(parent_ndn, *id);
  }
  return id;
}

bool Loader::BelowAHole(std::string_view ndn) const {
  if (holes_.empty()) return false;
  for (std::string a = EntryChecker::ParentOf(ndn); !a.empty(); a = EntryChecker::ParentOf(a)) {
    if (holes_.contains(a)) return true;
    if (a == nsuffix_) break;
  }
  return false;
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
  if (!options_.continue_on_error) return Status::ParseError(msg).WithOrigin(ErrorOrigin::kInput);
  if (rejects_ != nullptr) return rejects_->Reject(msg, text);
  return Status::Ok();
}

struct Loader::Item {
  ldif::Record record;
  bool read_error = false;  // the reader rejected the record; `error` says why
  Status error;             // why the record is rejected, else OK
  std::string text;         // read_error: the record's bytes as read
  uint64_t read_line = 0;   // read_error: the record's first line
  std::string ndn;
  std::string pretty_rdn;  // the entry's own RDN, insignificant spaces removed
  std::string pretty_dn;
  std::string sort_key;        // dn2id key
  std::string encoded_values;  // id2entry value after the DN (lib/entry)
  // With a sink's ValueNormalizer: what the format stores beside each of
  // prepared.values (has_normalized[i] set when computed).
  std::vector<std::string> normalized;
  std::vector<uint8_t> has_normalized;
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

bool Loader::Skipped(const Item& item) const {
  if (options_.skip_to_line <= 1) return false;
  // slapadd -j compares the record's first line, comment lines in front of
  // the DN included.
  uint64_t line = item.read_error ? item.read_line : item.record.line();
  return line < options_.skip_to_line;
}

void Loader::Check(EntryChecker* checker, WorkerState* local, Item* item) {
  if (item->read_error || Skipped(*item)) return;
  const ldif::Record& r = item->record;
  if (r.kind() == ldif::RecordKind::kChange) {
    item->error =
        Status::InvalidArgument("change record (changetype: " + std::string(r.changetype()) +
                                ") cannot be bulk loaded; apply it with ldapmodify");
    return;
  }
  Dn& dn = local->leftmost;
  Status st = checker->CheckName(r.dn(), &dn, &item->ndn, &item->pretty_dn, &item->pretty_rdn);
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
  EntryChecker::SortKey(item->ndn, &item->sort_key);  // any length: dn.h's long keys
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
  // A sink encodes the entry its own way.
  if (options_.sink == nullptr) EncodeValues(values, &item->encoded_values);
  item->normalized.resize(item->prepared.values.size());
  item->has_normalized.assign(item->prepared.values.size(), 0);
  // The checks' normalizations live in this worker's checker until its next
  // entry: used here, never carried to the writing thread.
  // Swapped, not moved: both vectors keep their memory for the next entry.
  std::vector<const std::string*>& equalities = local->equalities;
  equalities.clear();
  equalities.swap(item->prepared.normalized);
  if (local->normalizer == nullptr) return;
  for (size_t i = 0; i < item->prepared.values.size(); ++i) {
    const auto& [description, value] = item->prepared.values[i];
    bool stored = false;
    const std::string* equality = i < equalities.size() ? equalities[i] : nullptr;
    Status st =
        local->normalizer->Normalize(description, value, equality, &item->normalized[i], &stored);
    if (!st.ok()) {
      item->error = st;
      return;
    }
    item->has_normalized[i] = 1;
    if (!stored) item->normalized[i].clear();
  }
}

Status Loader::Process(Item* item) {
  ldif::Record* record = &item->record;
  if (Skipped(*item)) {
    ++summary_.skipped;
    return Status::Ok();
  }
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
  Result<Found> found = Find(ndn, &other, &item->sort_key);
  if (!found.ok() && found.status().code() == StatusCode::kAlreadyExists) {
    return Reject(line, std::string(record->dn()), found.status().message(), record);
  }
  DIRLOAD_ASSIGN_OR_RETURN(Found self, std::move(found));
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
    Status reserved = ReserveAncestors(ndn, line, record->dn());
    if (reserved.code() == StatusCode::kAlreadyExists) {
      return Reject(line, std::string(record->dn()), reserved.message(), record);
    }
    DIRLOAD_RETURN_IF_ERROR(reserved);
    id = next_id_++;
  }
  // The stored DN: the entry's own RDN under its parent's DN as stored, so
  // that a parent spelt "ou=People" is not shown as "ou=people" by a child.
  // A sink keeps the RDN alone (back-mdb builds DNs from its tree the same
  // way).
  const std::string* stored_dn = &item->pretty_dn;
  if (ndn != nsuffix_ && options_.sink == nullptr) {
    const std::string_view parent = EntryChecker::ParentView(ndn);
    if (!parent.empty()) {
      DIRLOAD_ASSIGN_OR_RETURN(const std::string* parent_dn, StoredDn(parent));
      if (!parent_dn->empty()) {
        stored_dn_.assign(item->pretty_rdn).append(",").append(*parent_dn);
        stored_dn = &stored_dn_;
      }
    }
  }
  return Insert(id, *record, *item, *stored_dn);
}

Status Loader::ReserveAncestors(const std::string& ndn, uint64_t line, std::string_view dn) {
  if (ndn == nsuffix_) return Status::Ok();
  // Entries stay until the end of the run: a parent found once is there.
  const std::string_view first = EntryChecker::ParentView(ndn);
  if (!first.empty() && present_parents_.contains(first)) return Status::Ok();
  std::vector<std::string> missing;
  std::string parent(first);
  while (!parent.empty()) {
    uint64_t ignored = 0;
    DIRLOAD_ASSIGN_OR_RETURN(Found f, Find(parent, &ignored));
    if (f != Found::kNone) {
      if (missing.empty()) {
        if (present_parents_.size() >= kParentDns) present_parents_.clear();
        present_parents_.insert(parent);
      }
      break;
    }
    missing.push_back(parent);
    if (parent == nsuffix_) break;
    parent = EntryChecker::ParentOf(parent);
  }
  // Ancestors get their IDs top down, before the entry that needs them.
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    holes_.emplace(*it, Hole{next_id_++, line, std::string(dn)});
  }
  return Status::Ok();
}

Result<const std::string*> Loader::StoredDn(std::string_view ndn) {
  static const std::string kNone;
  if (ndn == last_parent_ndn_) return &last_parent_dn_;
  if (holes_.contains(ndn)) return &kNone;  // not stored yet
  // Entries come in no order of their parents: most calls find the parent
  // here, and copy its DN into the memory the last one used.
  if (auto it = parent_dns_.find(ndn); it != parent_dns_.end()) {
    last_parent_ndn_.assign(ndn);
    last_parent_dn_.assign(it->second);
    return &last_parent_dn_;
  }
  if (store_ == nullptr) return &kNone;  // -u stores nothing: entries keep their own spelling
  std::string dn;
  DIRLOAD_ASSIGN_OR_RETURN(std::optional<EntryId> id, LookupDn2Id(EntryChecker::SortKey(ndn)));
  if (id.has_value()) {
    std::string entry, id_key;
    PutBigEndian64(*id, &id_key);
    DIRLOAD_ASSIGN_OR_RETURN(bool has, store_->Get(kId2EntryTable, id_key, &entry));
    EntryView view;
    if (has && DecodeEntry(entry, &view).ok()) dn = std::string(view.dn);
  }
  // Parents are few and looked up again and again.
  if (parent_dns_.size() >= kParentDns) parent_dns_.clear();
  parent_dns_.emplace(ndn, dn);
  last_parent_ndn_.assign(ndn);
  last_parent_dn_ = std::move(dn);
  return &last_parent_dn_;
}

Status Loader::Insert(EntryId id, const ldif::Record& record, const Item& item,
                      const std::string& stored_dn) {
  const std::string& ndn = item.ndn;
  summary_.last_id = std::max(summary_.last_id, id);
  if (line_of_.size() <= id - summary_.first_id) line_of_.resize(id - summary_.first_id + 1, 0);
  line_of_[id - summary_.first_id] = record.line();
  ++summary_.entries_loaded;
  if (options_.sink != nullptr && store_ != nullptr) {
    // The native store finds them by a dn2id scan at the end; a sink has
    // them among its waiting entries anyway.
    if (BelowAHole(ndn)) {
      below_holes_.push_back({id, ndn, stored_dn});
    } else if (holes_.empty()) {
      below_holes_.clear();  // every hole was filled
    }
  }
  if (store_ == nullptr) {
    dry_run_dns_.emplace(ndn, record.line());
    return Status::Ok();
  }
  if (options_.sink != nullptr) {
    if (filter_added_) added_dns_.Add(HashBytes(ndn.data(), ndn.size(), 0));
    AddOperationalValues(item);
    return InsertIntoSink(id, item, stored_dn);
  }
  value_.clear();
  EncodeStoredEntry(item, stored_dn, &value_);
  key_.clear();
  PutBigEndian64(id, &key_);
  if (id + 1 == next_id_ && id >= append_floor_) {
    DIRLOAD_RETURN_IF_ERROR(store_->Append(kId2EntryTable, key_, value_));
  } else {
    // A reserved ID, below entries already appended.
    DIRLOAD_RETURN_IF_ERROR(store_->Put(kId2EntryTable, key_, value_));
  }
  if (options_.index_feed != nullptr) {
    // The checking workers may be adding descriptions to the dictionary.
    std::lock_guard<std::mutex> lock(dictionary_mu_);
    DIRLOAD_RETURN_IF_ERROR(options_.index_feed->Add(id, value_, dictionary_));
  }
  append_floor_ = std::max(append_floor_, id + 1);
  std::string dn2id_key, dn2id_value;  // no allocation unless the key is long
  AppendDn2IdValue(id, item.sort_key, &dn2id_value);
  const std::string_view dn2id = Dn2IdKey(item.sort_key, &dn2id_key);
  const uint64_t hash = HeldRecords::Hash(dn2id);
  if (filter_added_) added_dns_.Add(hash);
  if (options_.dn2id_buffer_bytes == 0) {
    DIRLOAD_RETURN_IF_ERROR(store_->Put(kDn2IdTable, dn2id, dn2id_value));
  } else {
    held_dn2id_.Add(dn2id, hash, dn2id_value);
    if (held_dn2id_.full()) DIRLOAD_RETURN_IF_ERROR(WriteHeldDn2Id());
  }
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

Status Loader::InsertIntoSink(EntryId id, const Item& item, const std::string& stored_dn) {
  EntryId parent = 0;
  const std::string_view parent_ndn =
      item.ndn == nsuffix_ ? std::string_view() : EntryChecker::ParentView(item.ndn);
  // Under the empty suffix the top entries hang from the root, ID 0.
  if (!parent_ndn.empty()) {
    DIRLOAD_ASSIGN_OR_RETURN(std::optional<EntryId> found, ParentId(parent_ndn));
    if (!found.has_value()) {
      return Status::Internal("entry " + std::to_string(id) + ": its parent is not stored");
    }
    parent = *found;
  }
  // The entry's own values in the order the workers saw them, then the
  // operational values this load made (AddOperationalValues): of those, only
  // timestamps and CSNs are marked, as slapd stores them without a
  // normalised copy.
  sink_values_.clear();
  const auto& own = item.prepared.values;
  for (size_t i = 0; i < own.size(); ++i) {
    EntrySink::Value v{own[i].first, own[i].second, false, {}, false};
    if (i < item.has_normalized.size() && item.has_normalized[i]) {
      v.normalized = item.normalized[i];
      v.has_normalized = true;
    }
    sink_values_.push_back(v);
  }
  if (!added_.empty()) {
    // Workers intern new descriptions meanwhile.
    std::lock_guard<std::mutex> lock(dictionary_mu_);
    for (const ValueRef& a : added_) {
      std::string_view d = dictionary_.Name(a.description);
      sink_values_.push_back({d,
                              a.value,
                              d == "createTimestamp" || d == "modifyTimestamp" || d == "entryCSN",
                              {},
                              false});
    }
  }
  return options_.sink->Add(id, parent, item.ndn, stored_dn, sink_values_);
}

void Loader::AddOperationalValues(const Item& item) {
  const EntryChecker::Prepared& p = item.prepared;
  added_.clear();
  uint8_t missing = 0;
  if (operational_ != nullptr) {
    missing = static_cast<uint8_t>(~p.operational & ((1u << kOperationalAttributeCount) - 1));
    if (p.structural.empty()) {
      missing &=
          static_cast<uint8_t>(~OperationalBit(OperationalAttribute::kStructuralObjectClass));
    }
  }
  if (missing == 0) {
    if (options_.write_context_csn && !p.entry_csn.empty()) csns_.Add(p.entry_csn);
    return;
  }
  operational_->Next();
  for (size_t i = 0; i < kOperationalAttributeCount; ++i) {
    if ((missing & (1u << i)) == 0) continue;
    auto a = static_cast<OperationalAttribute>(i);
    added_.push_back({operational_ids_[i], a == OperationalAttribute::kStructuralObjectClass
                                               ? p.structural
                                               : operational_->value(a)});
  }
  if (options_.write_context_csn) {
    csns_.Add((missing & OperationalBit(OperationalAttribute::kEntryCsn)) != 0
                  ? operational_->entry_csn()
                  : p.entry_csn);
  }
}

void Loader::EncodeStoredEntry(const Item& item, std::string_view stored_dn, std::string* out) {
  AddOperationalValues(item);
  if (!added_.empty()) {
    // The added attributes are new runs after the entry's own, each a
    // description the entry does not have.
    added_runs_.clear();
    EncodeValues(added_, &added_runs_);
    if (EncodeEntryFromValues(stored_dn, item.encoded_values, added_runs_, out)) return;
  }
  EncodeEntryFromValues(stored_dn, item.encoded_values, out);
}

Status Loader::WriteContextCsn() {
  // The empty suffix is the root DSE, which is never loaded.
  if (csns_.empty() || nsuffix_.empty()) return Status::Ok();
  DIRLOAD_ASSIGN_OR_RETURN(std::optional<EntryId> suffix_id, LookupId(nsuffix_, nullptr));
  if (!suffix_id.has_value()) return Status::Ok();  // no suffix entry to hold it
  key_.clear();
  PutBigEndian64(*suffix_id, &key_);
  EntryView view;
  std::string entry;
  std::vector<EntrySink::Value> stored;
  if (options_.sink != nullptr) {
    // The loader's store has the DN alone; the sink kept the values.
    DIRLOAD_ASSIGN_OR_RETURN(stored, options_.sink->Values(*suffix_id));
    for (const EntrySink::Value& v : stored) {
      view.values.push_back({dictionary_.Intern(v.description), v.value});
    }
  } else {
    DIRLOAD_ASSIGN_OR_RETURN(bool has, store_->Get(kId2EntryTable, key_, &entry));
    if (!has) return Status::Ok();
    DIRLOAD_RETURN_IF_ERROR(DecodeEntry(entry, &view));
  }
  const uint32_t context_id = dictionary_.Intern(kContextCsnName);
  // One value per server ID, the greater of the stored one and the load's;
  // where the attribute was, or at the end.
  std::map<int, std::string> merged = csns_.values();
  std::vector<ValueRef> values;
  size_t at = SIZE_MAX;
  for (const ValueRef& v : view.values) {
    if (!EqualsIgnoreCase(dictionary_.Name(v.description), kContextCsnName)) {
      values.push_back(v);
      continue;
    }
    if (at == SIZE_MAX) at = values.size();
    int sid = CsnTracker::Sid(v.value);
    auto [it, inserted] = merged.try_emplace(sid, v.value);
    if (!inserted && v.value > std::string_view(it->second)) it->second.assign(v.value);
  }
  if (at == SIZE_MAX) at = values.size();
  std::vector<ValueRef> csn_values;
  for (const auto& [sid, csn] : merged) csn_values.push_back({context_id, csn});
  values.insert(values.begin() + static_cast<std::ptrdiff_t>(at), csn_values.begin(),
                csn_values.end());
  if (options_.sink != nullptr) {
    sink_values_.clear();
    for (const ValueRef& v : values) {
      std::string_view d = dictionary_.Name(v.description);
      bool generated = false;
      for (const EntrySink::Value& old : stored) generated |= old.generated && old.description == d;
      sink_values_.push_back({d, v.value, generated, {}, false});
    }
    return options_.sink->Replace(*suffix_id, sink_values_);
  }
  value_.clear();
  EncodeEntry(view.dn, values, &value_);
  if (options_.index_feed != nullptr) {
    options_.index_feed->Abandon("-w changed the suffix entry after it was indexed");
  }
  return store_->Put(kId2EntryTable, key_, value_);
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
    // Every entry stored below the missing one goes to the reject file, in
    // input order.
    struct Doomed {
      EntryId id;
      std::string dn;         // with a sink; else read from id2entry
      std::string dn2id_key;  // native
    };
    std::vector<Doomed> doomed;
    if (options_.sink != nullptr) {
      for (BelowHole& b : below_holes_) {
        if (b.removed || !EntryChecker::IsUnder(b.ndn, hole_ndn)) continue;
        b.removed = true;
        doomed.push_back({b.id, b.dn, {}});
      }
    } else {
      std::string prefix = DnDescendantPrefix(EntryChecker::SortKey(hole_ndn));
      const std::string_view scan = Dn2IdScanPrefix(prefix);
      std::unique_ptr<Cursor> c = store_->NewCursor(kDn2IdTable);
      for (c->Seek(scan); c->valid() && c->key().starts_with(scan); c->Next()) {
        Dn2IdRecord r;
        if (!DecodeDn2IdRecord(c->key(), c->value(), &r)) return Dn2IdCorruption(c->key());
        // Long keys of other subtrees may share the cut prefix (dn.h).
        if (!r.sort_key.starts_with(prefix)) continue;
        doomed.push_back({r.id, {}, std::string(c->key())});
      }
      DIRLOAD_RETURN_IF_ERROR(c->status());
    }
    // A named copy: clang 14 cannot capture a structured binding in a lambda.
    const uint64_t hole_line = hole.first_line;
    auto line_of = [&](EntryId id) {
      return id >= summary_.first_id && id - summary_.first_id < line_of_.size()
                 ? line_of_[id - summary_.first_id]
                 : hole_line;
    };
    std::stable_sort(doomed.begin(), doomed.end(), [&](const Doomed& a, const Doomed& b) {
      return line_of(a.id) < line_of(b.id);
    });
    for (Doomed& d : doomed) {
      std::string id_key, entry, text;
      PutBigEndian64(d.id, &id_key);
      EntryView view;
      std::vector<EntrySink::Value> kept;
      bool has = true;
      if (options_.sink != nullptr) {
        // The sink holds it still: an entry below a hole waits behind the
        // hole's reserved ID.
        DIRLOAD_ASSIGN_OR_RETURN(kept, options_.sink->Values(d.id));
        view.dn = d.dn;
        for (const EntrySink::Value& v : kept) {
          view.values.push_back({dictionary_.Intern(v.description), v.value});
        }
      } else {
        DIRLOAD_ASSIGN_OR_RETURN(has, store_->Get(kId2EntryTable, id_key, &entry));
        has = has && DecodeEntry(entry, &view).ok();
        if (has) d.dn.assign(view.dn);
      }
      if (has) {
        ldif::Record r;
        DIRLOAD_RETURN_IF_ERROR(EntryToRecord(view, dictionary_, &r));
        ldif::AppendRecord(r, ldif::WriterOptions{}, &text);
      }
      DIRLOAD_RETURN_IF_ERROR(RejectText(line_of(d.id), d.dn, why, text));
      if (options_.sink != nullptr) {
        DIRLOAD_RETURN_IF_ERROR(options_.sink->Remove(d.id));
      } else {
        if (options_.index_feed != nullptr) {
          options_.index_feed->Abandon("-c removed entries after they were indexed");
        }
        DIRLOAD_RETURN_IF_ERROR(store_->Delete(kId2EntryTable, id_key));
        DIRLOAD_RETURN_IF_ERROR(store_->Delete(kDn2IdTable, d.dn2id_key));
      }
      --summary_.entries_loaded;
    }
  }
  below_holes_.clear();
  return Status::Ok();
}

Status Loader::Finish() {
  // RemoveOrphans reads dn2id from the store.
  if (store_ != nullptr) DIRLOAD_RETURN_IF_ERROR(WriteHeldDn2Id());
  DIRLOAD_RETURN_IF_ERROR(RemoveOrphans());
  if (store_ == nullptr) return Status::Ok();
  if (options_.write_context_csn) DIRLOAD_RETURN_IF_ERROR(WriteContextCsn());
  DIRLOAD_RETURN_IF_ERROR(WriteDictionary(store_, dictionary_));  // the workers are gone
  DatabaseMeta meta;
  meta.state = DatabaseState::kLoading;
  meta.suffix = options_.suffix;
  meta.next_id = next_id_;
  meta.entries = entries_before_ + summary_.entries_loaded;
  DIRLOAD_RETURN_IF_ERROR(WriteMeta(store_, meta));
  if (options_.sink != nullptr) {
    // The store only served the checks; the sink's owner makes its database durable.
    DIRLOAD_RETURN_IF_ERROR(WriteState(store_, DatabaseState::kReady));
    return store_->Commit();
  }
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

// Runs the workers that read and check batches of records; the calling
// thread takes the batches in input order with Next() and gives them back
// with Release(). Destruction stops and joins every worker, whatever state
// it is in.
//
// Each worker reads the next batch itself (one at a time, under read_mu_)
// and then checks it. A reading thread of its own, handing batches to the
// checkers, woke one at every batch, and a scheduler may put the woken
// thread on the waker's core, ahead of it, while the other core idles: on
// a two-core virtual machine the other core sat idle for milliseconds at a
// time (bench/README.md, "The checking workers read their own batches").
//
// The calling thread checks too: while the next batch in order is not
// checked yet, it reads and checks one itself rather than sleep. With one
// worker on two cores that is one thread per core, fewer sleeps and fewer
// woken threads for the scheduler to stack on a busy core (bench/README.md,
// "The writing thread checks too").
class Loader::Pipeline {
 public:
  Pipeline(Loader* loader, ldif::Reader* reader, const EntryChecker& prototype, unsigned workers,
           size_t batch_records)
      : loader_(loader),
        reader_(reader),
        batch_records_(batch_records),
        own_checker_(prototype),
        own_state_(NewState(*loader)) {
    size_t depth = 2 * static_cast<size_t>(workers) + 2;
    for (size_t i = 0; i < depth; ++i) free_.push_back(std::make_unique<Batch>());
    for (unsigned i = 0; i < workers; ++i) {
      workers_.emplace_back([this, checker = prototype]() mutable {
        pthread_setname_np(pthread_self(), "dirload-check");
        WorkerState local = NewState(*loader_);
        WorkLoop(&checker, &local);
      });
    }
  }
  ~Pipeline() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    free_cv_.notify_all();
    for (std::thread& t : workers_) t.join();
  }

  // The next batch in input order, once checked. Until it is, the caller
  // reads and checks the batches it can take; it waits only when none is
  // left to read or free.
  Batch* Next() {
    for (;;) {
      std::unique_ptr<Batch> batch;
      {
        std::unique_lock<std::mutex> lock(mu_);
        if (FrontChecked()) return ordered_.front().get();
        if (free_.empty() || input_done_) {
          ready_cv_.wait(lock, [this] { return FrontChecked(); });
          return ordered_.front().get();
        }
        batch = std::move(free_.back());
        free_.pop_back();
      }
      ReadAndCheck(std::move(batch), &own_checker_, &own_state_);
    }
  }
  void Release() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      free_.push_back(std::move(ordered_.front()));
      ordered_.pop_front();
    }
    free_cv_.notify_one();
  }

 private:
  // Every checking thread normalizes values with its own copy of the sink's
  // normalizer, as the checks run without a lock.
  static WorkerState NewState(const Loader& loader) {
    WorkerState state;
    if (loader.options_.sink != nullptr) state.normalizer = loader.options_.sink->NewNormalizer();
    return state;
  }
  // REQUIRES: mu_ held.
  bool FrontChecked() const { return !ordered_.empty() && ordered_.front()->checked; }

  void WorkLoop(EntryChecker* checker, WorkerState* local) {
    for (;;) {
      std::unique_ptr<Batch> batch;
      {
        // After the input's end a worker waits for the pipeline to stop: the
        // batches it checked may point into its checker's memory until the
        // writer is done with them.
        std::unique_lock<std::mutex> lock(mu_);
        free_cv_.wait(lock, [this] { return stop_ || (!free_.empty() && !input_done_); });
        if (stop_) return;
        batch = std::move(free_.back());
        free_.pop_back();
      }
      ReadAndCheck(std::move(batch), checker, local);
    }
  }

  // Reads the next batch into `batch` and checks it with `checker`; gives
  // the batch back unread when the input has ended.
  void ReadAndCheck(std::unique_ptr<Batch> batch, EntryChecker* checker, WorkerState* local) {
    Batch* b = batch.get();
    {
      // Batches enter ordered_ in the order they are read.
      std::lock_guard<std::mutex> reading(read_mu_);
      if (!Fill(b)) {
        std::lock_guard<std::mutex> lock(mu_);
        free_.push_back(std::move(batch));
        return;
      }
      std::lock_guard<std::mutex> lock(mu_);
      ordered_.push_back(std::move(batch));
      if (b->last) input_done_ = true;
    }
    // The others stop waiting for a batch to read.
    if (b->last) free_cv_.notify_all();
    for (size_t i = 0; i < b->count; ++i) loader_->Check(checker, local, &b->items[i]);
    bool next;
    {
      std::lock_guard<std::mutex> lock(mu_);
      b->checked = true;
      // The writer takes batches in input order: a later one can wait.
      next = ordered_.front().get() == b;
    }
    if (next) ready_cv_.notify_one();
  }

  // Reads the next batch into `b`; false once the input has ended (another
  // worker read its last batch). REQUIRES: read_mu_ held.
  bool Fill(Batch* b) {
    if (input_done_) return false;
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
        item.read_line = reader_->last_error().record_line;
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
    return true;
  }

  Loader* loader_;
  ldif::Reader* reader_;
  size_t batch_records_;
  std::mutex read_mu_;  // one worker reads at a time
  std::mutex mu_;
  // One per kind of waiter, each woken alone: with one for all, every
  // hand-over woke every thread, and most went back to sleep.
  std::condition_variable free_cv_;   // the workers: a batch to read into
  std::condition_variable ready_cv_;  // the writer: the next batch checked
  bool stop_ = false;                 // guarded by mu_
  // Set holding both read_mu_ and mu_, so read under either.
  bool input_done_ = false;
  std::vector<std::unique_ptr<Batch>> free_;    // guarded by mu_
  std::deque<std::unique_ptr<Batch>> ordered_;  // guarded by mu_, input order
  // The calling thread's own checker, for the batches it checks itself.
  EntryChecker own_checker_;
  WorkerState own_state_;
  std::vector<std::thread> workers_;
};

unsigned DefaultCheckingWorkers() {
  // The writing thread's own work is about a quarter of phase 1's: past four
  // threads in all it sets the pace, and more workers only hold more batches.
  const unsigned processors = std::thread::hardware_concurrency();
  return std::clamp(processors, 2u, 4u) - 1;
}

Result<LoadSummary> Loader::Run(ldif::Reader* reader) {
  file_ = reader->name();
  DIRLOAD_RETURN_IF_ERROR(Begin());
  const uint64_t input_size = reader->input_size();
  uint64_t input_offset = 0, parsed = 0;
  {
    Pipeline pipeline(this, reader, *checker_, options_.threads,
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
