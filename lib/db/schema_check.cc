#include "lib/db/schema_check.h"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "lib/entry/entry_record.h"
#include "lib/schema/dn.h"
#include "lib/schema/schema.h"
#include "lib/util/ascii.h"

namespace dirload {
namespace {

// "# (65) Object class violation: object class 'x' requires ..."
std::string ReasonLine(SchemaViolation v, std::string_view message) {
  return "# (" + std::to_string(SchemaViolationCode(v)) + ") " + SchemaViolationName(v) + ": " +
         std::string(message) + "\n";
}

// One worker's checks of one entry: the verdict, or kNone.
struct Verdict {
  SchemaViolation violation = SchemaViolation::kNone;
  std::string message;
  Status error;  // not a verdict: the entry could not be checked
};

// Entries in ID order go out in batches to checking threads and come back
// in the same order: reading and decoding is a third of the work on
// slapd's format, the checks the rest, and slapschema's single thread would
// otherwise be the measure of a database's check.
//
// A batch holds each entry's DN and its values' views. The views
// ForEachEntry gives die with the callback unless the format keeps them for
// the whole scan (slapd's format: they point into the map); otherwise their
// bytes are copied into the batch's chunks, which never move.
struct Batch {
  struct Entry {
    std::string_view dn;
    uint32_t first_value = 0;
    uint32_t values = 0;
    uint32_t first_normalized = 0;  // in `normalized`, or kNone
  };
  static constexpr uint32_t kNone = UINT32_MAX;  // the format keeps no normalized copies
  uint64_t sequence = 0;
  size_t size = 0;
  std::vector<Entry> entries;
  std::vector<ValueRef> values;
  // The entries' normalized copies (EntryView::normalized) of the values
  // that could name the entry, null views for the others.
  std::vector<std::string_view> normalized;
  std::vector<Verdict> verdicts;
  bool checked = false;

  void Clear() {
    size = 0;
    chunk_ = 0;
    used_ = 0;
    entries.clear();
    values.clear();
    normalized.clear();
    checked = false;
  }
  std::string_view Copy(std::string_view s) {
    if (s.empty()) return std::string_view("", 0);
    if (chunk_ == chunks_.size() || used_ + s.size() > chunks_[chunk_].size) {
      if (chunk_ < chunks_.size() && used_ > 0) ++chunk_;
      while (chunk_ < chunks_.size() && chunks_[chunk_].size < s.size()) ++chunk_;
      if (chunk_ == chunks_.size()) {
        const size_t size = std::max(kChunkBytes, s.size());
        chunks_.push_back({std::make_unique<char[]>(size), size});
      }
      used_ = 0;
    }
    char* at = chunks_[chunk_].bytes.get() + used_;
    std::memcpy(at, s.data(), s.size());
    used_ += s.size();
    return std::string_view(at, s.size());
  }
  // `naming(k)`: whether value k could name the entry, the one kind of
  // value whose normalized copy the check reads. `stable`: the views
  // outlive the scan's callback.
  template <typename Naming>
  void Add(const EntryView& e, bool stable, const Naming& naming) {
    entries.push_back({Copy(e.dn), static_cast<uint32_t>(values.size()),
                       static_cast<uint32_t>(e.values.size()),
                       e.normalized.empty() ? kNone : static_cast<uint32_t>(normalized.size())});
    if (stable) {
      values.insert(values.end(), e.values.begin(), e.values.end());
    } else {
      for (const ValueRef& v : e.values) values.push_back({v.description, Copy(v.value)});
    }
    for (size_t k = 0; k < e.normalized.size(); ++k) {
      const std::string_view n = e.normalized[k];
      if (n.data() == nullptr || !naming(k)) {
        normalized.emplace_back();
      } else {
        normalized.push_back(stable ? n : Copy(n));
      }
    }
    ++size;
  }
  // Entry i as a view into the batch.
  void Get(size_t i, EntryView* out) const {
    const Entry& e = entries[i];
    out->dn = e.dn;
    out->values.assign(values.begin() + e.first_value, values.begin() + e.first_value + e.values);
    if (e.first_normalized != kNone) {
      out->normalized.assign(normalized.begin() + e.first_normalized,
                             normalized.begin() + e.first_normalized + e.values);
    } else {
      out->normalized.clear();
    }
  }

 private:
  static constexpr size_t kChunkBytes = size_t{1} << 20;
  struct Chunk {
    std::unique_ptr<char[]> bytes;
    size_t size = 0;
  };
  std::vector<Chunk> chunks_;
  size_t chunk_ = 0;  // the chunk being filled
  size_t used_ = 0;   // its bytes in use
};

// Which values of an entry could name it: those of its leftmost RDN's
// attribute types, under descriptions without options. Found on the reading
// thread, so that only their normalized copies are copied for the checking
// threads (the copies are as large as the values).
class NamingValues {
 public:
  NamingValues(const Schema* schema, const AttributeDictionary* dictionary)
      : schema_(*schema), dictionary_(*dictionary) {}

  // For `entry`, before Names.
  void Find(const EntryView& entry) {
    entry_ = &entry;
    types_.clear();
    if (entry.normalized.empty()) return;
    // The common name, one plain AVA, without a parse.
    std::string_view type, value;
    if (IsPlainAva(entry.dn.substr(0, std::min(entry.dn.find(','), entry.dn.size())), &type,
                   &value)) {
      if (const AttributeType* t = schema_.FindAttribute(type)) types_.push_back(t);
      return;
    }
    if (!ParseLeftmostRdn(entry.dn, &rdn_).ok() || rdn_.empty()) return;
    for (const Ava& ava : rdn_.rdns[0]) {
      if (const AttributeType* t = schema_.FindAttribute(ava.type)) types_.push_back(t);
    }
  }
  bool Names(size_t k) {
    const uint32_t id = entry_->values[k].description;
    if (id >= known_.size()) {
      known_.resize(dictionary_.size(), false);
      types_by_id_.resize(dictionary_.size(), nullptr);
    }
    if (id >= known_.size()) return false;
    if (!known_[id]) {
      const std::string_view name = dictionary_.Name(id);
      types_by_id_[id] =
          name.find(';') == std::string_view::npos ? schema_.FindAttribute(name) : nullptr;
      known_[id] = true;
    }
    const AttributeType* t = types_by_id_[id];
    return t != nullptr && std::find(types_.begin(), types_.end(), t) != types_.end();
  }

 private:
  const Schema& schema_;
  const AttributeDictionary& dictionary_;
  const EntryView* entry_ = nullptr;
  Dn rdn_;
  std::vector<const AttributeType*> types_;
  std::vector<bool> known_;
  std::vector<const AttributeType*> types_by_id_;
};

// The checks of one thread: its checker's caches make it the thread's own.
void CheckBatch(EntryChecker* checker, const AttributeDictionary& dictionary, Batch* batch,
                EntryView* scratch) {
  for (size_t i = 0; i < batch->size; ++i) {
    batch->Get(i, scratch);
    Verdict& out = batch->verdicts[i];
    Status s = checker->CheckStored(*scratch, dictionary);
    out.violation = s.ok() ? SchemaViolation::kNone : checker->violation();
    out.error = Status::Ok();
    if (s.ok()) continue;
    // A record naming a description ad2i lacks is the database's fault, not
    // the schema's: the check ends with that error.
    if (out.violation == SchemaViolation::kNone) {
      out.error = std::move(s);
    } else {
      out.message = s.message();
    }
  }
}

class CheckingThreads {
 public:
  static constexpr size_t kBatchEntries = 256;

  CheckingThreads(const Schema* schema, const AttributeDictionary* dictionary, unsigned threads) {
    for (unsigned i = 0; i < threads * 4 + 2; ++i) {
      free_.push_back(std::make_unique<Batch>());
      free_.back()->verdicts.resize(kBatchEntries);
    }
    for (unsigned i = 0; i < threads; ++i) {
      threads_.emplace_back([this, schema, dictionary] { Work(schema, *dictionary); });
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
    b->Clear();
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
  // Waits until every submitted batch is checked (reported or not).
  void WaitChecked() {
    std::unique_lock<std::mutex> lock(mu_);
    batch_done_.wait(lock, [&] {
      return std::all_of(in_order_.begin(), in_order_.end(), [](Batch* b) { return b->checked; });
    });
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
  void Work(const Schema* schema, const AttributeDictionary& dictionary) {
    EntryChecker checker(schema, /*check_schema=*/true);
    EntryView scratch;
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      work_ready_.wait(lock, [&] { return stopping_ || !todo_.empty(); });
      if (stopping_) return;
      std::unique_ptr<Batch> b = std::move(todo_.front());
      todo_.pop_front();
      Batch* batch = b.get();
      busy_.push_back(std::move(b));
      lock.unlock();
      CheckBatch(&checker, dictionary, batch, &scratch);
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
  ldif::Record record;
  // The verdicts of a checked batch, in order; false once the first
  // problem ends the check (without keep_going).
  auto report = [&](const Batch& batch) -> Result<bool> {
    for (size_t i = 0; i < batch.size; ++i) {
      const Verdict& v = batch.verdicts[i];
      DIRLOAD_RETURN_IF_ERROR(v.error);
      ++summary.entries;
      if (v.violation == SchemaViolation::kNone) continue;
      EntryView entry;
      batch.Get(i, &entry);
      ++summary.problems;
      ++summary.by_violation[v.violation];
      const std::string reason = ReasonLine(v.violation, v.message);
      if (options.listing != nullptr) {
        text = reason;
        ldif::AppendAttributeLine("dn", entry.dn, wo, &text);
        text += "\n";
        DIRLOAD_RETURN_IF_ERROR(options.listing->Write(text));
      }
      if (errors != nullptr) {
        DIRLOAD_RETURN_IF_ERROR(EntryToRecord(entry, db->dictionary(), &record));
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
  CheckingThreads checking(schema, &db->dictionary(), threads);
  NamingValues naming(schema, &db->dictionary());
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
  const bool stable = db->ValuesOutliveCallback(options.selection);
  std::unique_ptr<Batch> filling = checking.Free();
  // Every batch is checked and reported before the scan ends (the views of
  // a stable scan die with it), also when the scan stops early.
  auto stop_scan = [&](Status why) {
    drained = std::move(why);
    checking.WaitChecked();
    return stop;
  };
  Status scanned = db->ForEachEntryThen(
      options.selection,
      [&](const EntryView& e) -> Status {
        naming.Find(e);
        filling->Add(e, stable, [&](size_t k) { return naming.Names(k); });
        if (filling->size < CheckingThreads::kBatchEntries) return Status::Ok();
        checking.Submit(std::move(filling));
        Result<bool> go_on = drain(Drain::kUntilFree);
        if (!go_on.ok()) return stop_scan(go_on.status());
        if (!*go_on) return stop_scan(Status::Ok());
        filling = checking.Free();
        return Status::Ok();
      },
      [&]() -> Status {
        if (filling != nullptr && filling->size > 0) checking.Submit(std::move(filling));
        Result<bool> go_on = drain(Drain::kAll);
        if (!go_on.ok()) return stop_scan(go_on.status());
        return Status::Ok();
      });
  DIRLOAD_RETURN_IF_ERROR(drained);
  if (!scanned.ok() && !summary.stopped) {
    checking.WaitChecked();
    return scanned;
  }
  if (errors != nullptr) DIRLOAD_RETURN_IF_ERROR(errors->Close());
  return summary;
}

}  // namespace dirload
