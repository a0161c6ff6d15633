#include "lib/db/modify_job.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <vector>

#include "ldif/reader.h"
#include "ldif/writer.h"
#include "lib/db/pending_work.h"
#include "lib/load/entry_checker.h"
#include "lib/load/operational_attributes.h"
#include "lib/modify/apply_modifications.h"
#include "lib/schema/dn.h"
#include "lib/schema/normalize.h"
#include "lib/util/ascii.h"

namespace dirload {
namespace {

LdapResult ResultOf(SchemaViolation v) {
  switch (v) {
    case SchemaViolation::kNone:
      return LdapResult::kOther;
    case SchemaViolation::kUndefinedAttributeType:
      return LdapResult::kUndefinedAttributeType;
    case SchemaViolation::kConstraintViolation:
      return LdapResult::kConstraintViolation;
    case SchemaViolation::kAttributeOrValueExists:
      return LdapResult::kAttributeOrValueExists;
    case SchemaViolation::kInvalidAttributeSyntax:
      return LdapResult::kInvalidAttributeSyntax;
    case SchemaViolation::kNamingViolation:
      return LdapResult::kNamingViolation;
    case SchemaViolation::kObjectClassViolation:
      return LdapResult::kObjectClassViolation;
    case SchemaViolation::kNoObjectClassMods:
      return LdapResult::kObjectClassModsProhibited;
    case SchemaViolation::kOther:
      return LdapResult::kOther;
    case SchemaViolation::kInvalidDnSyntax:
      return LdapResult::kInvalidDnSyntax;
  }
  return LdapResult::kOther;
}

// Values slapd makes itself and stores without a normalized copy.
bool Generated(OperationalAttribute a) {
  return a == OperationalAttribute::kCreateTimestamp ||
         a == OperationalAttribute::kModifyTimestamp || a == OperationalAttribute::kEntryCsn;
}

class Job {
 public:
  Job(Database* db, const ModifyOptions& options, const Schema* schema,
      std::unique_ptr<EntryEditor> editor, std::string nsuffix)
      : db_(*db),
        options_(options),
        schema_(*schema),
        editor_(std::move(editor)),
        nsuffix_(std::move(nsuffix)),
        checker_(schema, /*check_schema=*/true, RepeatedValues::kReject),
        ops_(OperationalAttributes::Options{db->config().rootdn, options.sid, nullptr, 0}) {}

  Result<ModifySummary> Run();

 private:
  // One record, or the refusal slapd would send for it.
  Status Apply(const ldif::Record& record);
  Status ApplyAdd(const Change& c);
  Status ApplyDelete(const Change& c);
  Status ApplyModify(const Change& c);
  Status ApplyModRdn(const Change& c);
  // The DN's parts, or invalidDNSyntax; noSuchObject outside the suffix.
  Status Name(std::string_view dn);
  Result<EntryId> Existing(std::string_view ndn, std::string_view dn);
  // The entry after a modify or modrdn, checked as slapd checks it.
  Status CheckResult(std::string_view dn, const std::vector<EntryEditor::Value>& values);
  // modifiersName, modifyTimestamp, entryCSN as slapd replaces them, but
  // those `given` sets (--relax).
  void Touch(std::vector<EntryEditor::Value>* values, std::span<const Modification> given = {});
  Status Reject(const ldif::Record& record, const Status& why);
  Status WriteContextCsn();

  Database& db_;
  const ModifyOptions& options_;
  const Schema& schema_;
  std::unique_ptr<EntryEditor> editor_;
  std::string nsuffix_;
  EntryChecker checker_;
  OperationalAttributes ops_;
  std::unique_ptr<ldif::ByteSink> rejects_;
  AttributeDictionary dictionary_;  // the descriptions CheckResult has seen
  EntryView view_;
  std::string last_csn_;
  ModifySummary summary_;
  // Name()'s results.
  Dn leftmost_;
  std::string ndn_, pretty_, pretty_rdn_;
};

Status Job::Name(std::string_view dn) {
  Status s = checker_.CheckName(dn, &leftmost_, &ndn_, &pretty_, &pretty_rdn_);
  if (!s.ok()) return LdapError(LdapResult::kInvalidDnSyntax, s.message());
  if (!IsUnder(ndn_, nsuffix_)) {
    return LdapError(LdapResult::kNoSuchObject,
                     "'" + std::string(dn) + "' is not under the suffix of the database");
  }
  return Status::Ok();
}

Result<EntryId> Job::Existing(std::string_view ndn, std::string_view dn) {
  DIRLOAD_ASSIGN_OR_RETURN(std::optional<EntryId> id, editor_->Find(ndn));
  if (!id.has_value()) {
    return LdapError(LdapResult::kNoSuchObject, "no entry '" + std::string(dn) + "'");
  }
  return *id;
}

void Job::Touch(std::vector<EntryEditor::Value>* values, std::span<const Modification> given) {
  if (!db_.config().lastmod) return;
  auto set = [&](std::string_view description) {
    for (const Modification& m : given) {
      if ((m.op == ModOp::kAdd || m.op == ModOp::kReplace) && !m.values.empty() &&
          EqualsIgnoreCase(m.description, description)) {
        return true;
      }
    }
    return false;
  };
  ops_.Next();
  if (set("entryCSN")) {
    for (const EntryEditor::Value& v : *values) {
      if (EqualsIgnoreCase(v.description, "entryCSN")) last_csn_ = v.value;
    }
  } else {
    last_csn_ = std::string(ops_.entry_csn());
    ReplaceOperational(values, "entryCSN", ops_.entry_csn(), true);
  }
  if (!set("modifiersName")) ReplaceOperational(values, "modifiersName", ops_.rootdn(), false);
  if (!set("modifyTimestamp")) {
    ReplaceOperational(values, "modifyTimestamp", ops_.timestamp(), true);
  }
}

Status Job::CheckResult(std::string_view dn, const std::vector<EntryEditor::Value>& values) {
  view_.dn = dn;
  view_.values.clear();
  view_.normalized.clear();
  for (const EntryEditor::Value& v : values) {
    view_.values.push_back({dictionary_.Intern(v.description), v.value});
    view_.normalized.push_back(v.beside.has_value() ? std::string_view(*v.beside)
                                                    : std::string_view());
  }
  Status s = checker_.CheckStored(view_, dictionary_, /*check_values=*/false);
  if (s.ok()) return s;
  return LdapError(ResultOf(checker_.violation()), s.message());
}

Status Job::ApplyAdd(const Change& c) {
  DIRLOAD_RETURN_IF_ERROR(Name(c.dn));
  DIRLOAD_ASSIGN_OR_RETURN(std::optional<EntryId> there, editor_->Find(ndn_));
  if (there.has_value()) {
    return LdapError(LdapResult::kEntryAlreadyExists, "'" + c.dn + "' exists already");
  }
  EntryId parent = 0;
  std::string nrdn = ndn_;
  if (ndn_ != nsuffix_) {
    const std::string_view nparent = ParentDn(ndn_);
    DIRLOAD_ASSIGN_OR_RETURN(std::optional<EntryId> p, editor_->Find(nparent));
    if (!p.has_value()) {
      return LdapError(LdapResult::kNoSuchObject, "the parent of '" + c.dn + "' does not exist");
    }
    parent = *p;
    nrdn = ndn_.substr(0, ndn_.size() - nparent.size() - 1);
  } else {
    pretty_rdn_ = pretty_;
  }
  ldif::Record record;
  record.SetDn(c.dn);
  for (const auto& [d, v] : c.attributes) record.Add(d, v);
  EntryChecker::Prepared prepared;
  Status checked = checker_.Prepare(record, leftmost_, &prepared);
  if (!checked.ok()) return LdapError(ResultOf(checker_.violation()), checked.message());
  std::vector<EntryEditor::Value> values;
  for (const auto& [d, v] : prepared.values) {
    EntryEditor::Value ev;
    ev.description = std::string(d);
    ev.value = std::string(v);
    values.push_back(std::move(ev));
  }
  if (db_.config().lastmod) {
    ops_.Next();
    last_csn_ = std::string(ops_.entry_csn());
    for (size_t i = 0; i < kOperationalAttributeCount; ++i) {
      if ((prepared.operational & (1u << i)) != 0) continue;
      const auto a = static_cast<OperationalAttribute>(i);
      EntryEditor::Value ev;
      ev.description = std::string(kOperationalAttributeNames[i]);
      ev.value = std::string(a == OperationalAttribute::kStructuralObjectClass ? prepared.structural
                                                                               : ops_.value(a));
      ev.generated = Generated(a);
      values.push_back(std::move(ev));
    }
  }
  const std::string rdn = pretty_rdn_;
  return editor_->Add(parent, nrdn, rdn, values).status();
}

Status Job::ApplyDelete(const Change& c) {
  DIRLOAD_RETURN_IF_ERROR(Name(c.dn));
  DIRLOAD_ASSIGN_OR_RETURN(EntryId id, Existing(ndn_, c.dn));
  DIRLOAD_ASSIGN_OR_RETURN(std::vector<EntryId> children, editor_->Children(id));
  if (children.empty()) {
    DIRLOAD_RETURN_IF_ERROR(editor_->Delete(id));
    ++summary_.entries_deleted;
    return Status::Ok();
  }
  if (!options_.subtree) {
    return LdapError(LdapResult::kNotAllowedOnNonLeaf,
                     "'" + c.dn + "' has entries below it (--subtree deletes them too)");
  }
  // Every entry below, then the entry: the leaves go first.
  std::vector<EntryId> order = {id};
  for (size_t i = 0; i < order.size(); ++i) {
    DIRLOAD_ASSIGN_OR_RETURN(std::vector<EntryId> below, editor_->Children(order[i]));
    order.insert(order.end(), below.begin(), below.end());
  }
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    DIRLOAD_RETURN_IF_ERROR(editor_->Delete(*it));
    ++summary_.entries_deleted;
  }
  return Status::Ok();
}

Status Job::ApplyModify(const Change& c) {
  DIRLOAD_RETURN_IF_ERROR(Name(c.dn));
  DIRLOAD_ASSIGN_OR_RETURN(EntryId id, Existing(ndn_, c.dn));
  DIRLOAD_ASSIGN_OR_RETURN(EntryEditor::Entry entry, editor_->Read(id));
  DIRLOAD_RETURN_IF_ERROR(
      ApplyModifications(schema_, c.modifications, &entry.values, options_.relax));
  if (options_.relax) {
    Touch(&entry.values, c.modifications);
  } else {
    Touch(&entry.values);
  }
  DIRLOAD_RETURN_IF_ERROR(CheckResult(pretty_, entry.values));
  return editor_->Replace(id, entry.values);
}

Status Job::ApplyModRdn(const Change& c) {
  DIRLOAD_RETURN_IF_ERROR(Name(c.dn));
  const std::string old_ndn = ndn_, old_pretty = pretty_, old_pretty_rdn = pretty_rdn_;
  const Dn old_rdn = leftmost_;
  DIRLOAD_ASSIGN_OR_RETURN(EntryId id, Existing(old_ndn, c.dn));
  if (old_ndn == nsuffix_) {
    return LdapError(LdapResult::kUnwillingToPerform, "the suffix entry cannot be renamed");
  }
  Result<Dn> new_rdn = ParseDn(c.new_rdn);
  if (!new_rdn.ok() || new_rdn->size() != 1) {
    return LdapError(LdapResult::kInvalidDnSyntax, "newrdn '" + c.new_rdn + "' is not one RDN");
  }
  // The new superior's name as written, for the new DN's pretty form.
  std::string superior;
  if (c.new_superior.has_value()) {
    superior = *c.new_superior;
  } else {
    superior = old_pretty.substr(std::min(old_pretty.size(), old_pretty_rdn.size() + 1));
  }
  DIRLOAD_RETURN_IF_ERROR(Name(superior));
  const std::string parent_ndn = ndn_;
  DIRLOAD_ASSIGN_OR_RETURN(std::optional<EntryId> parent, editor_->Find(parent_ndn));
  if (!parent.has_value()) {
    return LdapError(LdapResult::kNoSuchObject, "new superior '" + superior + "' does not exist");
  }
  if (parent_ndn == old_ndn || IsUnder(parent_ndn, old_ndn)) {
    return LdapError(LdapResult::kUnwillingToPerform,
                     "new superior '" + superior + "' is the entry or below it");
  }
  DIRLOAD_RETURN_IF_ERROR(Name(c.new_rdn + "," + superior));
  const std::string new_ndn = ndn_, new_pretty = pretty_, new_rdn_text = pretty_rdn_;
  if (new_ndn != old_ndn) {
    DIRLOAD_ASSIGN_OR_RETURN(std::optional<EntryId> taken, editor_->Find(new_ndn));
    if (taken.has_value()) {
      return LdapError(LdapResult::kEntryAlreadyExists, "'" + new_pretty + "' exists already");
    }
  }
  DIRLOAD_ASSIGN_OR_RETURN(EntryEditor::Entry entry, editor_->Read(id));
  // As slapd's modrdn (modrdn.c slap_modrdn2mods): an add of each new RDN
  // value where the entry lacks it, then (deleteoldrdn) a delete of each old
  // RDN value; slapd puts each at the head of its list, so they apply in the
  // reverse order: an old value that is also a new one leaves and comes
  // back, last in the entry.
  struct RdnChange {
    ModOp op;
    const Ava* ava;
  };
  std::vector<RdnChange> rdn_changes;
  for (const Ava& ava : new_rdn->rdns[0]) rdn_changes.push_back({ModOp::kAdd, &ava});
  if (c.delete_old_rdn) {
    for (const Ava& ava : old_rdn.rdns[0]) rdn_changes.push_back({ModOp::kDelete, &ava});
  }
  for (auto it = rdn_changes.rbegin(); it != rdn_changes.rend(); ++it) {
    const AttributeType* type = schema_.FindAttribute(it->ava->type);
    if (type == nullptr) {
      return LdapError(LdapResult::kUndefinedAttributeType,
                       it->ava->type + ": attribute type undefined (in an RDN)");
    }
    if (type->equality == nullptr) {
      return LdapError(LdapResult::kNamingViolation,
                       it->ava->type + ": naming attribute has no equality matching rule");
    }
    Modification m{it->op, std::string(type->name()), {it->ava->value}};
    std::vector<EntryEditor::Value> trial = entry.values;
    Status done = ApplyModifications(schema_, std::span(&m, 1), &trial);
    if (done.ok()) {
      entry.values = std::move(trial);
      continue;
    }
    // An add of a value the entry holds, a delete of one it lacks: nothing.
    const LdapResult r = LdapResultOf(done);
    if (r != LdapResult::kAttributeOrValueExists && r != LdapResult::kNoSuchAttribute) return done;
  }
  Touch(&entry.values);
  DIRLOAD_RETURN_IF_ERROR(CheckResult(new_pretty, entry.values));
  const std::string nrdn = new_ndn.substr(0, new_ndn.size() - parent_ndn.size() - 1);
  DIRLOAD_RETURN_IF_ERROR(editor_->Move(id, *parent, nrdn, new_rdn_text));
  return editor_->Replace(id, entry.values);
}

Status Job::Apply(const ldif::Record& record) {
  Change c;
  if (record.kind() == ldif::RecordKind::kChange) {
    DIRLOAD_ASSIGN_OR_RETURN(c, ParseChange(record));
  } else {
    // A record without changetype adds its entry, as ldapmodify -a does.
    c.kind = ChangeKind::kAdd;
    c.dn = std::string(record.dn());
    c.line = record.line();
    for (size_t i = 0; i < record.size(); ++i) {
      c.attributes.emplace_back(record.attribute(i).description, record.attribute(i).value);
    }
  }
  switch (c.kind) {
    case ChangeKind::kAdd:
      DIRLOAD_RETURN_IF_ERROR(ApplyAdd(c));
      break;
    case ChangeKind::kDelete:
      DIRLOAD_RETURN_IF_ERROR(ApplyDelete(c));
      break;
    case ChangeKind::kModify:
      DIRLOAD_RETURN_IF_ERROR(ApplyModify(c));
      break;
    case ChangeKind::kModRdn:
      DIRLOAD_RETURN_IF_ERROR(ApplyModRdn(c));
      break;
  }
  ++summary_.by_kind[c.kind];
  return Status::Ok();
}

Status Job::Reject(const ldif::Record& record, const Status& why) {
  ++summary_.rejected;
  if (rejects_ == nullptr) return Status::Ok();
  std::string text = "# line " + std::to_string(record.line()) + ": " + why.message() + "\n";
  ldif::WriterOptions wo;
  ldif::AppendRecord(record, wo, &text);
  return rejects_->Write(text);
}

Status Job::WriteContextCsn() {
  if (!options_.context_csn || last_csn_.empty()) return Status::Ok();
  DIRLOAD_ASSIGN_OR_RETURN(std::optional<EntryId> id, editor_->Find(nsuffix_));
  if (!id.has_value()) return Status::Ok();
  DIRLOAD_ASSIGN_OR_RETURN(EntryEditor::Entry suffix, editor_->Read(*id));
  CsnTracker csns;
  for (const EntryEditor::Value& v : suffix.values) {
    if (EqualsIgnoreCase(v.description, kContextCsnName)) csns.Add(v.value);
  }
  csns.Add(last_csn_);
  suffix.values.erase(std::remove_if(suffix.values.begin(), suffix.values.end(),
                                     [](const EntryEditor::Value& v) {
                                       return EqualsIgnoreCase(v.description, kContextCsnName);
                                     }),
                      suffix.values.end());
  for (const auto& [sid, csn] : csns.values()) {
    EntryEditor::Value v;
    v.description = std::string(kContextCsnName);
    v.value = csn;
    v.generated = true;
    suffix.values.push_back(std::move(v));
  }
  return editor_->Replace(*id, suffix.values);
}

Result<ModifySummary> Job::Run() {
  const auto started = std::chrono::steady_clock::now();
  if (!options_.reject_file.empty()) {
    DIRLOAD_ASSIGN_OR_RETURN(rejects_, ldif::OpenByteSink(options_.reject_file));
  }
  DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<ldif::ByteSource> source,
                           ldif::OpenByteSource(options_.input));
  ldif::Reader reader(std::move(source));
  ldif::Record record;
  ProgressSnapshot progress;
  progress.phase = "modify";
  for (;;) {
    Result<bool> more = reader.Next(&record);
    if (!more.ok()) {
      ++summary_.records;
      if (reader.last_error().fatal || !options_.keep_going) return more.status();
      ++summary_.rejected;
      if (rejects_ != nullptr) {
        DIRLOAD_RETURN_IF_ERROR(
            rejects_->Write("# " + more.status().message() + "\n" + reader.last_error().text));
      }
      continue;
    }
    if (!*more) break;
    ++summary_.records;
    Status applied = Apply(record);
    if (applied.ok()) {
      ++summary_.applied;
    } else if (applied.origin() != ErrorOrigin::kInput) {
      return applied;
    } else {
      const Status named =
          Status::InvalidArgument(reader.name() + ":" + std::to_string(record.line()) + ": " +
                                  applied.message())
              .WithOrigin(ErrorOrigin::kInput);
      if (!options_.keep_going) return named;
      DIRLOAD_RETURN_IF_ERROR(Reject(record, applied));
    }
    if (options_.progress != nullptr && (summary_.records & 1023) == 0) {
      progress.done_bytes = reader.input_offset();
      progress.total_bytes = reader.input_size();
      progress.entries = summary_.records;
      progress.elapsed_seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      options_.progress->Update(progress);
    }
  }
  DIRLOAD_RETURN_IF_ERROR(WriteContextCsn());
  if (rejects_ != nullptr) DIRLOAD_RETURN_IF_ERROR(rejects_->Close());
  // A dry run ends here: the editor, destroyed, writes nothing.
  if (!options_.dry_run) DIRLOAD_RETURN_IF_ERROR(editor_->Commit());
  summary_.index = editor_->stats();
  summary_.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (options_.progress != nullptr) {
    progress.entries = summary_.records;
    progress.elapsed_seconds = summary_.seconds;
    options_.progress->Finish(progress, std::to_string(summary_.applied) + " records applied");
  }
  return summary_;
}

}  // namespace

Result<ModifySummary> ModifyDatabase(Database* db, const ModifyOptions& options) {
  DIRLOAD_ASSIGN_OR_RETURN(const Schema* schema, db->schema());
  DIRLOAD_ASSIGN_OR_RETURN(std::optional<PendingWork> pending, ReadPendingWork(db->dir()));
  if (pending.has_value()) return PendingWorkError(db->dir(), *pending);
  DIRLOAD_ASSIGN_OR_RETURN(std::string nsuffix, NormalizeDn(*schema, db->config().suffix));
  DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<EntryEditor> editor, db->BeginEdit());
  if (options.index_batch > 0) editor->SetIndexBatch(options.index_batch);
  Job job(db, options, schema, std::move(editor), std::move(nsuffix));
  return job.Run();
}

}  // namespace dirload
