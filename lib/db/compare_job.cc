#include "lib/db/compare_job.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <unordered_map>

#include "ldif/byte_source.h"
#include "ldif/reader.h"
#include "ldif/writer.h"

namespace dirload {
namespace {

using CanonicalCallback = std::function<Status(const CanonicalEntry&)>;

// Reads one side in its own order, each entry made canonical.
class SideReader {
 public:
  SideReader(const CompareSide& side, const Schema& schema, const CanonicalOptions& options)
      : side_(side), canon_(schema, options) {}
  Status status() const { return canon_.status(); }

  Status Scan(const CanonicalCallback& fn) {
    if (side_.database != nullptr) {
      Database* db = side_.database;
      return db->ForEachEntry(nullptr, [&](const EntryView& e) -> Status {
        DIRLOAD_RETURN_IF_ERROR(canon_.FromView(e, db->dictionary(), &entry_));
        return fn(entry_);
      });
    }
    DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<ldif::ByteSource> source,
                             ldif::OpenByteSource(side_.ldif));
    ldif::Reader reader(std::move(source));
    ldif::Record record;
    for (;;) {
      Result<bool> more = reader.Next(&record);
      if (!more.ok()) return more.status().WithOrigin(ErrorOrigin::kInput);
      if (!*more) return Status::Ok();
      Status s = canon_.FromRecord(record, &entry_);
      if (!s.ok()) {
        return Status(s.code(),
                      side_.ldif + ":" + std::to_string(record.line()) + ": " + s.message())
            .WithOrigin(ErrorOrigin::kInput);
      }
      DIRLOAD_RETURN_IF_ERROR(fn(entry_));
    }
  }

 private:
  const CompareSide& side_;
  EntryCanonicalizer canon_;
  CanonicalEntry entry_;
};

struct BSlot {
  Sha1::Digest hash{};
  bool matched = false;  // an entry of A had this name's 64-bit key
  bool differs = false;  // and its hash was not this entry's
};

LoneEntry Lone(const CanonicalEntry& e) {
  return LoneEntry{e.dn, std::string(e.First("entryUUID")), std::string(e.First("entryCSN"))};
}

// The change records, when asked for.
class ChangeOutput {
 public:
  Status Open(const std::string& path) {
    if (path.empty()) return Status::Ok();
    DIRLOAD_ASSIGN_OR_RETURN(sink_, ldif::OpenByteSink(path, false));
    writer_ = std::make_unique<ldif::Writer>(sink_.get());
    return Status::Ok();
  }
  Status Write(const ldif::Record& record) {
    ++records_;
    return writer_ == nullptr ? Status::Ok() : writer_->Write(record);
  }
  Status Close() {
    if (writer_ == nullptr) return Status::Ok();
    DIRLOAD_RETURN_IF_ERROR(writer_->Flush());
    return sink_->Close();
  }
  uint64_t records() const { return records_; }

 private:
  std::unique_ptr<ldif::ByteSink> sink_;
  std::unique_ptr<ldif::Writer> writer_;
  uint64_t records_ = 0;
};

}  // namespace

Result<CompareReport> CompareEntries(const CompareSide& a, const CompareSide& b,
                                     const CompareOptions& options) {
  if (a.database == nullptr) return Status::InvalidArgument("compare: side A must be a database");
  DIRLOAD_ASSIGN_OR_RETURN(const Schema* schema_a, a.database->schema());
  const Schema* schema_b = schema_a;
  if (b.database != nullptr) {
    DIRLOAD_ASSIGN_OR_RETURN(schema_b, b.database->schema());
  }
  SideReader read_a(a, *schema_a, options.canonical);
  SideReader read_b(b, *schema_b, options.canonical);
  DIRLOAD_RETURN_IF_ERROR(read_a.status().WithOrigin(ErrorOrigin::kUsage));
  DIRLOAD_RETURN_IF_ERROR(read_b.status().WithOrigin(ErrorOrigin::kUsage));
  CompareReport report;

  // B: a name and a hash per entry.
  std::unordered_map<uint64_t, BSlot> slots;
  DIRLOAD_RETURN_IF_ERROR(read_b.Scan([&](const CanonicalEntry& e) -> Status {
    auto [it, added] = slots.try_emplace(NameKey(e.ndn));
    if (!added) {
      return Status::InvalidArgument("B: '" + e.dn +
                                     "': the name is there twice (or two names share a 64-bit "
                                     "hash, which compare cannot tell apart)")
          .WithOrigin(ErrorOrigin::kInput);
    }
    it->second.hash = EntryHash(e);
    ++report.entries_b;
    return Status::Ok();
  }));

  // A: equal, differing (kept until B's second pass), or only in A.
  std::unordered_map<std::string, CanonicalEntry> differ;
  std::vector<std::string> lone_a_ndn;
  DIRLOAD_RETURN_IF_ERROR(read_a.Scan([&](const CanonicalEntry& e) -> Status {
    ++report.entries_a;
    auto it = slots.find(NameKey(e.ndn));
    if (it == slots.end() || it->second.matched) {
      report.only_a.push_back(Lone(e));
      return Status::Ok();
    }
    it->second.matched = true;
    if (EntryHash(e) == it->second.hash) {
      ++report.equal;
    } else {
      it->second.differs = true;
      differ.emplace(e.ndn, e);
    }
    return Status::Ok();
  }));

  ChangeOutput out;
  DIRLOAD_RETURN_IF_ERROR(out.Open(options.changes));
  ldif::Record record;
  // Children before parents: A's ID order puts parents first.
  for (auto it = report.only_a.rbegin(); it != report.only_a.rend(); ++it) {
    CanonicalEntry gone;
    gone.dn = it->dn;
    DeleteRecord(gone, &record);
    DIRLOAD_RETURN_IF_ERROR(out.Write(record));
  }

  // B again: modifies and adds, in B's order.
  DIRLOAD_RETURN_IF_ERROR(read_b.Scan([&](const CanonicalEntry& e) -> Status {
    const BSlot& slot = slots.at(NameKey(e.ndn));
    // Equal hashes include equal names: A had this entry as it is.
    if (slot.matched && !slot.differs) return Status::Ok();
    if (slot.matched) {
      // Not found: A's entry of the same 64-bit key had another name.
      auto d = differ.find(e.ndn);
      if (d != differ.end()) {
        DifferingEntry diff;
        diff.dn = e.dn;
        diff.csn_a = std::string(d->second.First("entryCSN"));
        diff.csn_b = std::string(e.First("entryCSN"));
        diff.attributes = DiffEntries(d->second, e);
        ModifyRecord(d->second, e, diff.attributes, &record);
        report.differing.push_back(std::move(diff));
        differ.erase(d);
        return out.Write(record);
      }
    }
    report.only_b.push_back(Lone(e));
    AddRecord(e, &record);
    return out.Write(record);
  }));
  // A's entries whose name shared a hash with another name of B.
  for (auto& [ndn, e] : differ) {
    report.only_a.push_back(Lone(e));
    DeleteRecord(e, &record);
    DIRLOAD_RETURN_IF_ERROR(out.Write(record));
  }
  DIRLOAD_RETURN_IF_ERROR(out.Close());
  report.change_records = out.records();

  // Entries that moved: one entryUUID under a name on each side.
  std::unordered_map<std::string, const LoneEntry*> by_uuid;
  for (const LoneEntry& l : report.only_a) {
    if (!l.entry_uuid.empty()) by_uuid.emplace(l.entry_uuid, &l);
  }
  for (const LoneEntry& l : report.only_b) {
    auto it = l.entry_uuid.empty() ? by_uuid.end() : by_uuid.find(l.entry_uuid);
    if (it != by_uuid.end()) report.moved.push_back({l.entry_uuid, it->second->dn, l.dn});
  }
  return report;
}

}  // namespace dirload
