#include "lib/db/online_load.h"

#include <map>

#include "lib/db/database_lock.h"
#include "lib/db/mdb_load_options.h"
#include "lib/db/pending_work.h"
#include "lib/db/run_report.h"
#include "lib/format/mdb/mdb_online_writer.h"
#include "lib/format/mdb/mdb_rebuild.h"
#include "lib/format/mdb/mdb_sink.h"
#include "lib/util/text_table.h"

namespace dirload {
namespace {

// The loader's sink, seen through: notes the input line of each entry
// handed over, so that the line to go on from is known at each commit.
class LineNotingSink final : public EntrySink {
 public:
  explicit LineNotingSink(EntrySink* inner) : inner_(inner) {}

  std::unique_ptr<Preparer> NewPreparer() override { return inner_->NewPreparer(); }
  Result<Start> Stored() override { return inner_->Stored(); }
  Status Begin(std::string_view suffix, std::string_view nsuffix) override {
    return inner_->Begin(suffix, nsuffix);
  }
  Result<std::optional<EntryId>> Find(std::string_view ndn, const Prepared* prepared) override {
    return inner_->Find(ndn, prepared);
  }
  void Reserve(EntryId id, DnName name) override { inner_->Reserve(id, name); }
  Status Add(const NewEntry& entry) override {
    uncommitted_[entry.id] = entry.line;
    return inner_->Add(entry);
  }
  Result<StoredEntry> Read(EntryId id) override { return inner_->Read(id); }
  Status Remove(EntryId id, std::string_view ndn) override {
    uncommitted_.erase(id);
    return inner_->Remove(id, ndn);
  }
  Status Replace(EntryId id, std::span<const Value> values) override {
    return inner_->Replace(id, values);
  }
  Status Finish(const Start& end) override { return inner_->Finish(end); }

  // Entries up to `last_id` are committed. Returns the line to go on from:
  // the first line of the earliest entry not committed (one waiting for its
  // parent, or in the next batch), else the line after the last committed.
  uint64_t Committed(uint64_t last_id) {
    for (auto it = uncommitted_.begin(); it != uncommitted_.end() && it->first <= last_id;) {
      last_line_ = std::max(last_line_, it->second);
      it = uncommitted_.erase(it);
    }
    uint64_t resume = last_line_ + 1;
    for (const auto& [id, line] : uncommitted_) resume = std::min(resume, line);
    return resume;
  }

 private:
  EntrySink* inner_;
  std::map<EntryId, uint64_t> uncommitted_;  // load ID -> line
  uint64_t last_line_ = 0;
};

class MdbOnlineLoad final : public LoadJob::Target {
 public:
  explicit MdbOnlineLoad(LoadJob::State* s) : s_(*s) {}

  Status Begin() {
    const ResolvedDatabase& db = s_.db->config();
    const LoadJobOptions& o = s_.options;
    if (db.backend == Backend::kBdb) {
      return Status::InvalidArgument("--online writes slapd's back-mdb format, which is LMDB only")
          .WithOrigin(ErrorOrigin::kUsage);
    }
    if (o.online_batch == 0) {
      return Status::InvalidArgument("--batch must be at least 1").WithOrigin(ErrorOrigin::kUsage);
    }
    if (!o.no_index) {
      DIRLOAD_RETURN_IF_ERROR(RequireIndexConfigurationFor(db, *s_.schema, s_.index_config, ""));
    }
    if (o.no_index && !s_.index_config.empty()) {
      return Status::InvalidArgument(
                 "--no-index with --online would leave slapd answering indexed searches "
                 "without the new entries: give the index configuration instead")
          .WithOrigin(ErrorOrigin::kUsage);
    }
    // This process holds the writer's lock: any mark is an earlier run's.
    DIRLOAD_ASSIGN_OR_RETURN(std::optional<PendingWork> pending, ReadPendingWork(db.dir));
    if (pending.has_value()) return PendingWorkError(db.dir, *pending);
    mdb::MdbOnlineOptions wo;
    wo.batch_entries = o.online_batch;
    if (s_.indexing()) wo.indexes = s_.index_config.specs();
    wo.keys = MdbKeyOptionsFrom(db.index_tuning);
    wo.values = MdbValueRulesFor(db);
    wo.committed = [this](uint64_t last_id, uint64_t entries) {
      return NoteCommitted(last_id, entries);
    };
    DIRLOAD_ASSIGN_OR_RETURN(writer_, mdb::MdbOnlineWriter::Open(*s_.schema, db.dir, wo));
    sink_ = std::make_unique<MdbSink>(writer_.get(), s_.schema);
    lines_ = std::make_unique<LineNotingSink>(sink_.get());
    work_.kind = WorkKind::kOnlineAdd;
    work_.format = DatabaseFormat::kMdb;
    work_.input = o.ldif;
    work_.command = ProcessCommandLine();
    // Before the first batch: a kill from here on is reported by recover.
    DIRLOAD_RETURN_IF_ERROR(BeginPendingWork(db.dir, work_));
    marked_ = true;
    return Status::Ok();
  }

  EntrySink* sink() override { return lines_.get(); }

  Status AfterPhase1() override { return writer_->Finish(); }

  void AddPhase1Figures(PhaseStats* p) override {
    const mdb::MdbOnlineStats& w = writer_->stats();
    p->counters.push_back({"batches", static_cast<double>(w.batches)});
    p->counters.push_back({"longest_batch_ms", w.max_batch_seconds * 1000});
    p->counters.push_back({"index_ids", static_cast<double>(w.index_ids)});
    p->counters.push_back({"ranges_made", static_cast<double>(w.ranges)});
    p->counters.push_back({"ids_taken_by_others", static_cast<double>(w.foreign_ids)});
  }

  // The index keys went in with each entry.
  Status Phase2(RunStats*) override { return Status::Ok(); }

  Status Commit(RunStats* stats) override {
    stats->backend = "mdb";
    marked_ = false;
    return EndPendingWork(s_.db->dir());
  }

  void RollBack(bool) override {
    // What was committed stays: slapd may have served it already.
    writer_.reset();  // aborts the batch under way
    if (!marked_) return;
    s_.Notice(committed_ == 0
                  ? "nothing of this input was committed to " + s_.db->dir()
                  : std::to_string(committed_) + " entries of this input were committed to " +
                        s_.db->dir() + " and stay there (slapd serves them); to go on, run " +
                        "again with -j " + std::to_string(work_.resume_line) +
                        " once the input is fixed");
    Status ended = EndPendingWork(s_.db->dir());
    if (!ended.ok()) s_.Notice(ended.message());
  }

 private:
  Status NoteCommitted(uint64_t last_id, uint64_t entries) {
    committed_ = entries;
    work_.committed = entries;
    work_.resume_line = lines_->Committed(last_id);
    return BeginPendingWork(s_.db->dir(), work_);
  }

  LoadJob::State& s_;
  std::unique_ptr<mdb::MdbOnlineWriter> writer_;
  std::unique_ptr<MdbSink> sink_;          // writes through writer_
  std::unique_ptr<LineNotingSink> lines_;  // the loader's view of sink_
  PendingWork work_;
  bool marked_ = false;
  uint64_t committed_ = 0;
};

}  // namespace

Result<std::unique_ptr<LoadJob::Target>> BeginOnlineLoad(LoadJob::State* state) {
  auto target = std::make_unique<MdbOnlineLoad>(state);
  DIRLOAD_RETURN_IF_ERROR(target->Begin());
  return std::unique_ptr<LoadJob::Target>(std::move(target));
}

}  // namespace dirload
