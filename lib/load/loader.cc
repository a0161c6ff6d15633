#include "lib/load/loader.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <thread>

#include "ldif/writer.h"
#include "lib/util/ascii.h"

namespace dirload {
namespace {

// slapd stores the timestamps and CSNs it makes without a normalized copy.
bool Generated(OperationalAttribute a) {
  return a == OperationalAttribute::kCreateTimestamp ||
         a == OperationalAttribute::kModifyTimestamp || a == OperationalAttribute::kEntryCsn;
}

}  // namespace

Loader::Loader(LoadOptions options, EntrySink* sink, const EntryChecker* checker,
               RejectSink* rejects, ProgressSink* progress)
    : options_(std::move(options)),
      sink_(sink),
      checker_(checker),
      rejects_(rejects),
      progress_(progress) {}

Status Loader::CheckOptions(const LoadOptions& options) {
  if (options.sid < 0 || options.sid > 0xfff) {
    return Status::InvalidArgument("server ID " + std::to_string(options.sid) +
                                   " is out of range (0 to 4095)")
        .WithOrigin(ErrorOrigin::kUsage);
  }
  for (int removed : options.remove_sids) {
    if (removed < 0 || removed > 0xfff) {
      return Status::InvalidArgument("-o remove-sids: server ID " + std::to_string(removed) +
                                     " is out of range (0 to 4095)")
          .WithOrigin(ErrorOrigin::kUsage);
    }
    // As OpenLDAP 2.7's slapadd: the CSNs made would carry a removed ID.
    if (removed == options.sid) {
      return Status::InvalidArgument("-o remove-sids holds " + std::to_string(removed) +
                                     ", the server ID (-S) of the CSNs this load makes")
          .WithOrigin(ErrorOrigin::kUsage);
    }
  }
  return Status::Ok();
}

Status Loader::Begin() {
  Result<std::string> ns = checker_->NormalizeDn(options_.suffix);
  if (!ns.ok()) {
    return Status::InvalidArgument("suffix '" + options_.suffix + "': " + ns.status().message());
  }
  nsuffix_ = *ns;
  if (options_.router) DIRLOAD_RETURN_IF_ERROR(options_.router->Prepare(*checker_));
  DIRLOAD_RETURN_IF_ERROR(CheckOptions(options_));
  for (int removed : options_.remove_sids) {
    remove_sids_.resize(0x1000, false);
    remove_sids_[removed] = true;
  }
  if (!remove_sids_.empty()) options_.write_context_csn = true;
  DIRLOAD_ASSIGN_OR_RETURN(EntrySink::Start stored, sink_->Stored());
  if (!stored.suffix.empty()) {
    // Appending, as slapadd does to an existing database: same suffix, new IDs after the last.
    Result<std::string> old = checker_->NormalizeDn(stored.suffix);
    if (!old.ok() || *old != nsuffix_) {
      return Status::InvalidArgument(stored.where + ": the database holds suffix '" +
                                     stored.suffix + "', not '" + options_.suffix + "'");
    }
  }
  next_id_ = stored.next_id;
  entries_before_ = stored.entries;
  summary_.first_id = next_id_;
  if (options_.lastmod) {
    OperationalAttributes::Options oo;
    oo.rootdn = options_.rootdn;
    oo.sid = options_.sid;
    oo.clock = options_.clock;
    if (options_.csn_time.has_value()) {
      oo.clock = [t = *options_.csn_time] { return t; };
    }
    oo.seed = options_.uuid_seed;
    operational_ = std::make_unique<OperationalAttributes>(std::move(oo));
    if (options_.uuid_name_space.has_value()) {
      operational_->SetUuidNameSpace(*options_.uuid_name_space);
    }
    // Before the workers start, as the sink expects of its preparers.
    if (!remove_sids_.empty()) writer_preparer_ = sink_->NewPreparer();
  }
  if (entries_before_ == 0) {
    filter_added_ = true;
    added_dns_ = BloomFilter(kAddedFilterBytes);
  }
  return sink_->Begin(options_.suffix, nsuffix_);
}

Result<Loader::Found> Loader::Find(DnName name, uint64_t* line,
                                   const EntrySink::Prepared* prepared) {
  *line = 0;
  if (!holes_.empty() && holes_.contains(name)) return Found::kHole;
  DIRLOAD_ASSIGN_OR_RETURN(std::optional<EntryId> id, LookupId(name, prepared));
  if (!id.has_value()) return Found::kNone;
  if (*id >= summary_.first_id && *id - summary_.first_id < line_of_.size()) {
    *line = line_of_[*id - summary_.first_id];
  }
  return Found::kStored;
}

Result<std::optional<EntryId>> Loader::LookupId(DnName name, const EntrySink::Prepared* prepared) {
  if (filter_added_ && !added_dns_.MayContain(name.hash)) return std::optional<EntryId>();
  return sink_->Find(name.ndn, prepared);
}

bool Loader::BelowAHole(std::string_view ndn) {
  if (holes_.empty()) return false;
  ListAncestors(ndn, &ancestors_);
  for (const DnName& a : ancestors_) {
    if (holes_.contains(a)) return true;
    if (a.ndn == nsuffix_) break;
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

bool Loader::Skipped(const CheckedRecord& item) const {
  if (options_.skip_to_line <= 1) return false;
  // slapadd -j compares the record's first line, comment lines in front of
  // the DN included.
  uint64_t line = item.read_error ? item.read_line : item.record.line();
  return line < options_.skip_to_line;
}

void Loader::Check(EntryChecker* checker, WorkerState* local, CheckedRecord* item) {
  item->route = CheckedRecord::Route::kUnknown;
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
  if (options_.router) {
    std::string why;
    switch (options_.router->Route(item->ndn, &why)) {
      case RecordRouter::Verdict::kElsewhere:
        item->route = CheckedRecord::Route::kElsewhere;
        return;
      case RecordRouter::Verdict::kRefused:
        item->route = CheckedRecord::Route::kHere;
        item->error = Status::InvalidArgument(why);
        return;
      case RecordRouter::Verdict::kHere:
        item->route = CheckedRecord::Route::kHere;
        break;
    }
  } else if (!EntryChecker::IsUnder(item->ndn, nsuffix_)) {
    item->error = Status::InvalidArgument("not under the suffix '" + options_.suffix + "'");
    return;
  }
  if (item->ndn.empty()) {
    item->error = Status::InvalidArgument("the empty DN (the root DSE) cannot be loaded");
    return;
  }
  item->error = checker->Prepare(r, dn, &item->prepared);
  if (!item->error.ok()) return;
  // The checks' normalizations live in this worker's checker until its next
  // entry: used here, never carried to the writing thread.
  // Swapped, not moved: both vectors keep their memory for the next entry.
  std::vector<const std::string*>& equalities = local->equalities;
  equalities.clear();
  equalities.swap(item->prepared.normalized);
  if (local->preparer == nullptr) return;
  item->error = local->preparer->Prepare(item->ndn, item->prepared.values, equalities, &item->made);
}

Status Loader::Process(CheckedRecord* item) {
  ldif::Record* record = &item->record;
  if (Skipped(*item)) {
    ++summary_.skipped;
    return Status::Ok();
  }
  if (options_.router) {
    if (operational_ != nullptr) {
      const bool named = item->route != CheckedRecord::Route::kUnknown;
      operational_->Next(named ? std::string_view(item->ndn) : std::string_view());
    }
    // What fails before its DN is known is the selected database's to report.
    if (item->route == CheckedRecord::Route::kElsewhere ||
        (item->route == CheckedRecord::Route::kUnknown && !options_.router->selected_pass())) {
      ++summary_.routed_elsewhere;
      return Status::Ok();
    }
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
  const DnName name = MakeDnName(ndn);
  uint64_t other = 0;
  Result<Found> found = Find(name, &other, &item->made);
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
    auto it = holes_.find(name);
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
  return Insert(id, *record, *item);
}

Status Loader::ReserveAncestors(const std::string& ndn, uint64_t line, std::string_view dn) {
  if (ndn == nsuffix_) return Status::Ok();
  // Entries stay until the end of the run: a parent found once is there.
  const std::string_view first = EntryChecker::ParentView(ndn);
  if (!first.empty() && present_parents_.contains(first)) return Status::Ok();
  // Up from the parent to the first ancestor stored (or reserved): each
  // name and hash comes from one pass over `ndn`, so a chain of missing
  // ancestors costs its depth, not its depth squared.
  ListAncestors(ndn, &ancestors_);
  size_t missing = 0;
  while (missing < ancestors_.size()) {
    const DnName& a = ancestors_[missing];
    uint64_t ignored = 0;
    DIRLOAD_ASSIGN_OR_RETURN(Found f, Find(a, &ignored));
    if (f != Found::kNone) {
      if (missing == 0) {
        if (present_parents_.size() >= kParentDns) present_parents_.clear();
        present_parents_.emplace(a.ndn);
      }
      break;
    }
    ++missing;
    if (a.ndn == nsuffix_) break;
  }
  if (missing == 0) return Status::Ok();
  reservers_.push_back(Reserver{ndn, std::string(dn), line});
  const std::string_view kept = reservers_.back().ndn;
  const size_t reserver = reservers_.size() - 1;
  // Ancestors get their IDs top down, before the entry that needs them.
  for (size_t i = missing; i-- > 0;) {
    const DnName a{kept.substr(kept.size() - ancestors_[i].ndn.size()), ancestors_[i].hash};
    const EntryId id = next_id_++;
    holes_.emplace(a, Hole{id, reserver});
    sink_->Reserve(id, a);
  }
  return Status::Ok();
}

Status Loader::Insert(EntryId id, const ldif::Record& record, const CheckedRecord& item) {
  const std::string& ndn = item.ndn;
  summary_.last_id = std::max(summary_.last_id, id);
  if (line_of_.size() <= id - summary_.first_id) line_of_.resize(id - summary_.first_id + 1, 0);
  line_of_[id - summary_.first_id] = record.line();
  ++summary_.entries_loaded;
  if (!item.prepared.repeated.empty()) {
    if (summary_.repeated_values.size() < LoadSummary::kNamedRepeats) {
      summary_.repeated_values.push_back(file_ + ":" + std::to_string(record.line()) + ": " +
                                         item.pretty_dn + ": " + item.prepared.repeated);
    }
    ++summary_.repeated_value_entries;
  }
  if (BelowAHole(ndn)) {
    below_holes_.push_back({id, ndn, item.pretty_dn});
  } else if (holes_.empty()) {
    below_holes_.clear();  // every hole was filled
  }
  if (filter_added_) added_dns_.Add(HashDnName(ndn));
  const bool replace_csn = ReplacesCsn(item.prepared);
  AddOperationalValues(item, replace_csn);
  EntrySink::NewEntry e;
  e.id = id;
  e.ndn = ndn;
  e.dn = item.pretty_dn;
  e.rdn = item.pretty_rdn;
  e.is_suffix = ndn == nsuffix_;
  e.values = item.prepared.values;
  e.prepared = &item.made;
  e.added = added_;
  e.line = record.line();
  if (replace_csn) DIRLOAD_RETURN_IF_ERROR(ReplaceCsn(item, &e));
  if (options_.ledger != nullptr) {
    const auto start = std::chrono::steady_clock::now();
    Status added = sink_->Add(e);
    sink_seconds_ +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    DIRLOAD_RETURN_IF_ERROR(added);
  } else {
    DIRLOAD_RETURN_IF_ERROR(sink_->Add(e));
  }
  // Every hole filled, the sink's reserved names among them: their bytes go.
  if (holes_.empty() && !reservers_.empty()) reservers_.clear();
  return Status::Ok();
}

bool Loader::ReplacesCsn(const EntryChecker::Prepared& p) const {
  return operational_ != nullptr && !p.entry_csn.empty() && Removed(CsnTracker::Sid(p.entry_csn));
}

Status Loader::ReplaceCsn(const CheckedRecord& item, EntrySink::NewEntry* entry) {
  // In place, as slapadd 2.7 replaces it: the value keeps its position.
  const EntryChecker::Prepared& p = item.prepared;
  replaced_values_.assign(p.values.begin(), p.values.end());
  for (EntrySink::ValuePair& v : replaced_values_) {
    if (v.second.data() == p.entry_csn.data()) {
      v.second = operational_->entry_csn();
      break;
    }
  }
  entry->values = replaced_values_;
  ++summary_.replaced_csns;
  // The worker prepared the entry with the old value; what the sink stores
  // beside each value (slapd's normalized copies) is made again.
  if (writer_preparer_ == nullptr) return Status::Ok();
  replaced_made_ = EntrySink::Prepared{};
  DIRLOAD_RETURN_IF_ERROR(
      writer_preparer_->Prepare(item.ndn, replaced_values_, {}, &replaced_made_));
  entry->prepared = &replaced_made_;
  return Status::Ok();
}

void Loader::AddOperationalValues(const CheckedRecord& item, bool replace_csn) {
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
  if (missing == 0 && !replace_csn) {
    if (options_.write_context_csn && !p.entry_csn.empty()) csns_.Add(p.entry_csn);
    return;
  }
  // With a router, Process made this record's values already.
  if (!options_.router) operational_->Next(item.ndn);
  for (size_t i = 0; i < kOperationalAttributeCount; ++i) {
    if ((missing & (1u << i)) == 0) continue;
    auto a = static_cast<OperationalAttribute>(i);
    added_.push_back(
        {kOperationalAttributeNames[i],
         a == OperationalAttribute::kStructuralObjectClass ? p.structural : operational_->value(a),
         Generated(a)});
  }
  if (options_.write_context_csn) {
    csns_.Add((missing & OperationalBit(OperationalAttribute::kEntryCsn)) != 0 || replace_csn
                  ? operational_->entry_csn()
                  : p.entry_csn);
  }
}

Status Loader::WriteContextCsn() {
  // The empty suffix is the root DSE, which is never loaded.
  if ((csns_.empty() && options_.other_csns.empty() && remove_sids_.empty()) || nsuffix_.empty()) {
    return Status::Ok();
  }
  DIRLOAD_ASSIGN_OR_RETURN(std::optional<EntryId> suffix_id,
                           LookupId(MakeDnName(nsuffix_), nullptr));
  if (!suffix_id.has_value()) return Status::Ok();  // no suffix entry to hold it
  DIRLOAD_ASSIGN_OR_RETURN(EntrySink::StoredEntry stored, sink_->Read(*suffix_id));
  // As slapadd -w: one value per server ID, the greater of the stored one
  // and the load's, where the attribute was or at the end; but when the
  // entry holds contextCSN values and the load supersedes none of them, it
  // is left as it is, even if the load brought CSNs of other server IDs
  // (slapd 2.5's slap_tool_update_ctxcsn writes only on a change). A value
  // of a removed server ID goes, and that is a change (slapd 2.7).
  std::map<int, std::string> merged;
  for (const std::string& csn : options_.other_csns) csns_.Add(csn);
  for (const auto& [sid, csn] : csns_.values()) {
    if (!Removed(sid)) merged.emplace(sid, csn);
  }
  std::vector<EntrySink::Value> values;
  std::vector<std::string_view> before;  // the stored contextCSN values
  size_t at = SIZE_MAX;
  bool superseded = false;
  for (const EntrySink::Value& v : stored.values) {
    if (!EqualsIgnoreCase(v.description, kContextCsnName)) {
      values.push_back(v);
      continue;
    }
    if (at == SIZE_MAX) at = values.size();
    before.push_back(v.value);
    if (Removed(CsnTracker::Sid(v.value))) {
      superseded = true;
      continue;
    }
    auto [it, inserted] = merged.try_emplace(CsnTracker::Sid(v.value), v.value);
    if (inserted) continue;
    if (std::string_view(it->second) > v.value) {
      superseded = true;
    } else {
      it->second.assign(v.value);
    }
  }
  if (at != SIZE_MAX && !superseded) return Status::Ok();
  if (at == SIZE_MAX && merged.empty()) return Status::Ok();
  if (at == SIZE_MAX) at = values.size();
  // Without normalized copies, whatever the stored values had: slapadd
  // drops the attribute's values and adds the new ones without any
  // (slap_tool_update_ctxcsn, attr_merge_one with no normalized value).
  const bool generated = true;
  std::vector<EntrySink::Value> csn_values;
  for (const auto& [sid, csn] : merged) csn_values.push_back({kContextCsnName, csn, generated});
  if (!before.empty() && *suffix_id >= summary_.first_id) {
    // The input gave the suffix entry a contextCSN, which -w overwrites: the
    // state it told replicas of is gone.
    std::string was, now;
    for (std::string_view v : before) was += (was.empty() ? "" : ", ") + std::string(v);
    for (const EntrySink::Value& v : csn_values) {
      now += (now.empty() ? "" : ", ") + std::string(v.value);
    }
    const uint64_t index = *suffix_id - summary_.first_id;
    const uint64_t line = index < line_of_.size() ? line_of_[index] : 0;
    summary_.warnings.push_back(file_ + ":" + std::to_string(line) + ": " + options_.suffix +
                                ": -w overwrites the contextCSN the input gives (" + was +
                                "; now " + (now.empty() ? "none" : now) + ")");
  }
  values.insert(values.begin() + static_cast<std::ptrdiff_t>(at), csn_values.begin(),
                csn_values.end());
  return sink_->Replace(*suffix_id, values);
}

std::string Loader::HoleName(const DnName& hole, const Reserver& by) const {
  // The reserver's own RDNs above it, as it spelt them; normalised, they
  // must give the hole's name.
  Result<Dn> child = ParseDn(by.dn);
  const size_t depth = static_cast<size_t>(std::count(hole.ndn.begin(), hole.ndn.end(), ',')) + 1;
  if (child.ok() && child->size() > depth) {
    Dn d;
    d.rdns.assign(child->rdns.end() - static_cast<std::ptrdiff_t>(depth), child->rdns.end());
    std::string n;
    if (NormalizeDn(checker_->schema(), d, &n).ok() && n == hole.ndn) return d.ToString();
  }
  return std::string(hole.ndn);
}

Status Loader::RemoveOrphans() {
  // Holes that were never filled: the entries below them have no parent.
  // Each such entry goes with its topmost missing ancestor (the first one
  // reserved of its chain), found in one walk up its name; holes in ID order.
  struct Doomed {
    DnName hole;
    size_t reserver = 0;
    std::vector<const BelowHole*> entries;
  };
  std::map<EntryId, Doomed> by_hole;
  for (const BelowHole& b : below_holes_) {
    ListAncestors(b.ndn, &ancestors_);
    for (auto a = ancestors_.rbegin(); a != ancestors_.rend(); ++a) {
      auto h = holes_.find(*a);
      if (h == holes_.end()) continue;
      Doomed& d = by_hole[h->second.id];
      d.hole = h->first;
      d.reserver = h->second.reserver;
      d.entries.push_back(&b);
      break;
    }
  }
  for (auto& [hole_id, doomed] : by_hole) {
    const Reserver& by = reservers_[doomed.reserver];
    const std::string why = "parent entry '" + HoleName(doomed.hole, by) + "' does not exist";
    const uint64_t hole_line = by.line;
    auto line_of = [&](EntryId id) {
      return id >= summary_.first_id && id - summary_.first_id < line_of_.size()
                 ? line_of_[id - summary_.first_id]
                 : hole_line;
    };
    // Every entry stored below the missing one goes to the reject file, in
    // input order.
    std::stable_sort(
        doomed.entries.begin(), doomed.entries.end(),
        [&](const BelowHole* a, const BelowHole* b) { return line_of(a->id) < line_of(b->id); });
    for (const BelowHole* d : doomed.entries) {
      DIRLOAD_ASSIGN_OR_RETURN(EntrySink::StoredEntry kept, sink_->Read(d->id));
      // The DN as stored, where the format keeps it whole.
      const std::string dn = kept.dn.empty() ? d->dn : std::string(kept.dn);
      std::string text;
      if (!kept.values.empty()) {
        ldif::Record r;
        r.SetDn(dn);
        for (const EntrySink::Value& v : kept.values) r.Add(v.description, v.value);
        ldif::AppendRecord(r, ldif::WriterOptions{}, &text);
      }
      DIRLOAD_RETURN_IF_ERROR(RejectText(line_of(d->id), dn, why, text));
      DIRLOAD_RETURN_IF_ERROR(sink_->Remove(d->id, d->ndn));
      --summary_.entries_loaded;
    }
  }
  // reservers_ stays: the sink may still hold views into it until Finish.
  holes_.clear();
  below_holes_.clear();
  return Status::Ok();
}

Status Loader::Finish() {
  DIRLOAD_RETURN_IF_ERROR(RemoveOrphans());
  for (const auto& [sid, csn] : csns_.values()) summary_.greatest_csns.push_back(csn);
  if (options_.write_context_csn && (!options_.router || options_.router->selected_pass())) {
    DIRLOAD_RETURN_IF_ERROR(WriteContextCsn());
  }
  EntrySink::Start end;
  end.next_id = next_id_;
  end.entries = entries_before_ + summary_.entries_loaded;
  end.suffix = options_.suffix;
  return sink_->Finish(end);
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

// One checking thread's: its own copy of the checks (they keep memos) and
// of the sink's preparer, as the checks run without a lock.
class Loader::RecordChecker final : public CheckPipeline::Checker {
 public:
  explicit RecordChecker(Loader* loader) : loader_(loader), checker_(*loader->checker_) {
    state_.preparer = loader->sink_->NewPreparer();
  }
  void Check(CheckedRecord* record) override { loader_->Check(&checker_, &state_, record); }

 private:
  Loader* loader_;
  EntryChecker checker_;
  WorkerState state_;
};

unsigned DefaultCheckingWorkers() {
  // The writing thread's own work is about a quarter of phase 1's: past four
  // threads in all it sets the pace, and more workers only hold more batches.
  const unsigned processors = std::thread::hardware_concurrency();
  return std::clamp(processors, 2u, 4u) - 1;
}

Result<LoadSummary> Loader::Run(ldif::Reader* reader) {
  file_ = reader->name();
  ThreadTimer timer(options_.ledger, "writer");
  StageLap lap(options_.ledger);
  DIRLOAD_RETURN_IF_ERROR(Begin());
  const uint64_t input_size = reader->input_size();
  uint64_t input_offset = 0, parsed = 0;
  {
    CheckPipeline pipeline(
        reader, [this] { return std::make_unique<RecordChecker>(this); }, options_.threads,
        std::max<size_t>(1, options_.batch_records), options_.ledger, &lap);
    for (bool last = false; !last;) {
      RecordBatch* batch = pipeline.Next();
      const auto start = std::chrono::steady_clock::now();
      sink_seconds_ = 0;
      for (size_t i = 0; i < batch->count; ++i) {
        DIRLOAD_RETURN_IF_ERROR(Process(&batch->items[i]));
      }
      if (lap.active()) {
        // Records alternate between the two too often to read the CPU
        // clock around each: the batch's CPU time is shared out by the
        // wall time in the sink.
        const double wall =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        lap.Split("store", "names", wall > 0 ? sink_seconds_ / wall : 0);
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
  lap.Lap("finish");
  summary_.input_bytes = parsed;
  ReportProgress(input_offset, input_size, parsed, true);
  return summary_;
}

}  // namespace dirload
