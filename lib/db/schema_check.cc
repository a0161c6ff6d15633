#include "lib/db/schema_check.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "lib/entry/entry_record.h"
#include "lib/schema/dn.h"
#include "lib/util/ascii.h"

namespace dirload {
namespace {

// "# (65) Object class violation: object class 'x' requires ..."
std::string ReasonLine(SchemaViolation v, std::string_view message) {
  return "# (" + std::to_string(SchemaViolationCode(v)) + ") " + SchemaViolationName(v) + ": " +
         std::string(message) + "\n";
}

// The stored structuralObjectClass against the one the entry's classes give
// now, as slapd checks it on every entry it reads for a change.
Status CheckStructural(const Schema& schema, const EntryChecker::Prepared& prepared,
                       SchemaViolation* violation) {
  std::string_view stored;
  for (const auto& [description, value] : prepared.values) {
    if (EqualsIgnoreCase(description, "structuralObjectClass")) {
      stored = value;
      break;
    }
  }
  if (stored.data() == nullptr) {
    *violation = SchemaViolation::kOther;
    return Status::InvalidArgument("no structuralObjectClass operational attribute");
  }
  const ObjectClass* was = schema.FindObjectClass(stored);
  if (was == nullptr) {
    *violation = SchemaViolation::kObjectClassViolation;
    return Status::InvalidArgument("unrecognized structuralObjectClass '" + std::string(stored) +
                                   "'");
  }
  if (was != schema.FindObjectClass(prepared.structural)) {
    *violation = SchemaViolation::kNoObjectClassMods;
    return Status::InvalidArgument("structural object class modification from '" +
                                   std::string(stored) + "' to '" +
                                   std::string(prepared.structural) + "' not allowed");
  }
  return Status::Ok();
}

}  // namespace

namespace {

// One worker's checks of one entry: the verdict, or kNone.
struct Verdict {
  SchemaViolation violation = SchemaViolation::kNone;
  std::string message;
};

class EntryVerdicts {
 public:
  explicit EntryVerdicts(const Schema* schema)
      : schema_(*schema), checker_(schema, /*check_schema=*/true, RepeatedValues::kStore) {}

  void Check(const ldif::Record& record, Verdict* out) {
    Status s = checker_.CheckName(record.dn(), &leftmost_, &ndn_, &pretty_, &pretty_rdn_);
    out->violation = SchemaViolation::kInvalidDnSyntax;
    if (s.ok()) {
      s = checker_.Prepare(record, leftmost_, &prepared_);
      out->violation = checker_.violation();
    }
    if (s.ok()) s = CheckStructural(schema_, prepared_, &out->violation);
    if (s.ok()) {
      out->violation = SchemaViolation::kNone;
      return;
    }
    out->message = s.message();
  }

 private:
  const Schema& schema_;
  EntryChecker checker_;  // its caches make it one thread's
  EntryChecker::Prepared prepared_;
  Dn leftmost_;
  std::string ndn_, pretty_, pretty_rdn_;
};

// Entries in ID order go out in batches to checking threads and come back
// in the same order: reading and decoding is a fifth of the work, the
// checks the rest, and slapschema's single thread would otherwise be the
// measure of a database's check.
struct Batch {
  uint64_t sequence = 0;
  size_t size = 0;
  std::vector<ldif::Record> records;
  std::vector<Verdict> verdicts;
  bool checked = false;
};

class CheckingThreads {
 public:
  static constexpr size_t kBatchEntries = 256;

  CheckingThreads(const Schema* schema, unsigned threads) {
    for (unsigned i = 0; i < threads * 2 + 2; ++i) {
      free_.push_back(std::make_unique<Batch>());
      free_.back()->records.resize(kBatchEntries);
      free_.back()->verdicts.resize(kBatchEntries);
    }
    for (unsigned i = 0; i < threads; ++i) {
      threads_.emplace_back([this, schema] { Work(schema); });
    }
  }
  ~CheckingThreads() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    work_ready_.notify_all();
    for (std::thread& t : threads_) t.join();
  }

  bool HasFree() {
    std::lock_guard<std::mutex> lock(mu_);
    return !free_.empty();
  }
  // A batch to fill. REQUIRES: HasFree().
  std::unique_ptr<Batch> Free() {
    std::lock_guard<std::mutex> lock(mu_);
    std::unique_ptr<Batch> b = std::move(free_.back());
    free_.pop_back();
    b->size = 0;
    b->checked = false;
    return b;
  }
  void Submit(std::unique_ptr<Batch> batch) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      batch->sequence = submitted_++;
      in_order_.push_back(batch.get());
      todo_.push_back(std::move(batch));
    }
    work_ready_.notify_one();
  }
  // The oldest submitted batch once checked (`wait`), or null.
  Batch* NextChecked(bool wait) {
    std::unique_lock<std::mutex> lock(mu_);
    if (in_order_.empty()) return nullptr;
    if (wait) batch_done_.wait(lock, [&] { return in_order_.front()->checked; });
    return in_order_.front()->checked ? in_order_.front() : nullptr;
  }
  void Release(Batch* batch) {
    std::lock_guard<std::mutex> lock(mu_);
    in_order_.pop_front();
    for (auto it = busy_.begin(); it != busy_.end(); ++it) {
      if (it->get() == batch) {
        free_.push_back(std::move(*it));
        busy_.erase(it);
        break;
      }
    }
    batch_done_.notify_all();
  }

 private:
  void Work(const Schema* schema) {
    EntryVerdicts verdicts(schema);
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      work_ready_.wait(lock, [&] { return stopping_ || !todo_.empty(); });
      if (stopping_) return;
      std::unique_ptr<Batch> b = std::move(todo_.front());
      todo_.pop_front();
      Batch* batch = b.get();
      busy_.push_back(std::move(b));
      lock.unlock();
      for (size_t i = 0; i < batch->size; ++i) {
        verdicts.Check(batch->records[i], &batch->verdicts[i]);
      }
      lock.lock();
      batch->checked = true;
      batch_done_.notify_all();
    }
  }

  std::mutex mu_;
  std::condition_variable work_ready_, batch_done_;
  std::vector<std::unique_ptr<Batch>> free_;
  std::deque<std::unique_ptr<Batch>> todo_;
  std::vector<std::unique_ptr<Batch>> busy_;  // being checked, or checked and not yet released
  std::deque<Batch*> in_order_;
  uint64_t submitted_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace

Result<SchemaCheckSummary> CheckSchema(Database* db, const SchemaCheckOptions& options) {
  DIRLOAD_ASSIGN_OR_RETURN(const Schema* schema, db->schema());
  std::unique_ptr<ldif::ByteSink> errors;
  if (!options.error_file.empty()) {
    DIRLOAD_ASSIGN_OR_RETURN(errors, ldif::OpenByteSink(options.error_file));
  }
  // As slapcat writes: what is read back is what the database holds.
  ldif::WriterOptions wo;
  wo.wrap = 78;
  wo.slapcat_base64 = db->slapcat_ldif();

  SchemaCheckSummary summary;
  std::string text;
  // The verdicts of a checked batch, in order; false once the first
  // problem ends the check (without keep_going).
  auto report = [&](const Batch& batch) -> Result<bool> {
    for (size_t i = 0; i < batch.size; ++i) {
      const Verdict& v = batch.verdicts[i];
      ++summary.entries;
      if (v.violation == SchemaViolation::kNone) continue;
      const ldif::Record& record = batch.records[i];
      ++summary.problems;
      ++summary.by_violation[v.violation];
      const std::string reason = ReasonLine(v.violation, v.message);
      if (options.listing != nullptr) {
        text = reason;
        ldif::AppendAttributeLine("dn", record.dn(), wo, &text);
        text += "\n";
        DIRLOAD_RETURN_IF_ERROR(options.listing->Write(text));
      }
      if (errors != nullptr) {
        text = reason;
        ldif::AppendRecord(record, wo, &text);
        DIRLOAD_RETURN_IF_ERROR(errors->Write(text));
      }
      if (!options.keep_going) {
        summary.stopped = true;
        return false;
      }
    }
    return true;
  };

  const unsigned threads = std::max(1u, options.threads);
  CheckingThreads checking(schema, threads);
  // Reports the checked batches in order and gives them back: with
  // kUntilFree those checked already, waiting for the oldest while no batch
  // is free for the reader; with kAll, every batch submitted.
  enum class Drain { kUntilFree, kAll };
  auto drain = [&](Drain how) -> Result<bool> {
    for (;;) {
      const bool wait = how == Drain::kAll || !checking.HasFree();
      Batch* b = checking.NextChecked(wait);
      if (b == nullptr) return true;
      DIRLOAD_ASSIGN_OR_RETURN(bool go_on, report(*b));
      checking.Release(b);
      if (!go_on) return false;
    }
  };
  // What stops the scan at the first problem without -c: not an error.
  const Status stop = Status::Internal("schema-check stopped at its first problem");
  Status drained;
  std::unique_ptr<Batch> filling = checking.Free();
  Status scanned = db->ForEachEntry(options.selection, [&](const EntryView& e) -> Status {
    DIRLOAD_RETURN_IF_ERROR(EntryToRecord(e, db->dictionary(), &filling->records[filling->size]));
    if (++filling->size < CheckingThreads::kBatchEntries) return Status::Ok();
    checking.Submit(std::move(filling));
    Result<bool> go_on = drain(Drain::kUntilFree);
    if (!go_on.ok()) {
      drained = go_on.status();
      return stop;
    }
    if (!*go_on) return stop;
    filling = checking.Free();
    return Status::Ok();
  });
  DIRLOAD_RETURN_IF_ERROR(drained);
  if (!scanned.ok() && !summary.stopped) return scanned;
  if (!summary.stopped) {
    if (filling != nullptr && filling->size > 0) checking.Submit(std::move(filling));
    DIRLOAD_ASSIGN_OR_RETURN(bool go_on, drain(Drain::kAll));
    (void)go_on;
  }
  if (errors != nullptr) DIRLOAD_RETURN_IF_ERROR(errors->Close());
  return summary;
}

}  // namespace dirload
