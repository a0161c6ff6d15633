// CheckPipeline: the parallel half of phase 1. Worker threads read the LDIF
// in batches of records and check each record (the costly part: DN and
// schema checks, normalization, the format's own preparation); the calling
// thread takes the batches back in input order with Next(), does what must
// happen in order, and gives each back with Release(). At most a few batches
// are in flight, so memory does not grow with the input.
//
// Each worker reads the next batch itself (one at a time) and then checks
// it. A reading thread of its own, handing batches to the checkers, woke
// one at every batch, and a scheduler may put the woken thread on the
// waker's core, ahead of it, while the other core idles: on a two-core
// virtual machine the other core sat idle for milliseconds at a time
// (bench/README.md, "The checking workers read their own batches").
//
// The calling thread checks too: while the next batch in order is not
// checked yet, it reads and checks one itself rather than sleep. With one
// worker on two cores that is one thread per core, fewer sleeps and fewer
// woken threads for the scheduler to stack on a busy core (bench/README.md,
// "The writing thread checks too").
//
// Thread safety: Next() and Release() from the thread that made the
// pipeline; destruction stops and joins every worker, whatever its state.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ldif/reader.h"
#include "ldif/record.h"
#include "lib/format/entry_sink.h"
#include "lib/load/entry_checker.h"
#include "lib/util/cpu_ledger.h"
#include "lib/util/status.h"

namespace dirload {

// One record as read and checked.
struct CheckedRecord {
  ldif::Record record;
  bool read_error = false;  // the reader rejected the record; `error` says why
  Status error;             // why the record is rejected, else OK
  std::string text;         // read_error: the record's bytes as read
  uint64_t read_line = 0;   // read_error: the record's first line
  std::string ndn;
  std::string pretty_rdn;  // the entry's own RDN, insignificant spaces removed
  std::string pretty_dn;
  EntryChecker::Prepared prepared;
  EntrySink::Prepared made;  // by the sink's preparer
  // With a RecordRouter: whether the record is this pass's (kHere, or
  // refused by it), another pass's, or failed before its DN was known.
  enum class Route : uint8_t { kUnknown, kHere, kElsewhere };
  Route route = Route::kUnknown;
};

struct RecordBatch {
  std::vector<CheckedRecord> items;
  size_t count = 0;      // items in use
  bool checked = false;  // guarded by the pipeline's mutex
  bool last = false;     // no batch follows
  Status fatal;          // reading stopped here (I/O, gzip)
  uint64_t input_offset = 0;
  uint64_t parsed_bytes = 0;
};

class CheckPipeline {
 public:
  // Checks records on one thread, with what that thread keeps between them.
  class Checker {
   public:
    virtual ~Checker() = default;
    virtual void Check(CheckedRecord* record) = 0;
  };
  using NewChecker = std::function<std::unique_ptr<Checker>()>;

  // `workers` threads beside the calling one, each with a Checker from
  // `new_checker` (called here, on the calling thread, once per thread).
  // With a ledger, every thread's reading and checking is measured
  // (stages "read" and "check"; the workers' role "check"), the calling
  // thread's through `caller_lap`, which it shares with its own work.
  CheckPipeline(ldif::Reader* reader, const NewChecker& new_checker, unsigned workers,
                size_t batch_records, CpuLedger* ledger = nullptr, StageLap* caller_lap = nullptr);
  ~CheckPipeline();
  CheckPipeline(const CheckPipeline&) = delete;
  CheckPipeline& operator=(const CheckPipeline&) = delete;

  // The next batch in input order, once checked. Until it is, the caller
  // reads and checks the batches it can take; it waits only when none is
  // left to read or free.
  RecordBatch* Next();
  // Gives back the batch Next() returned.
  void Release();

 private:
  // REQUIRES: mu_ held.
  bool FrontChecked() const { return !ordered_.empty() && ordered_.front()->checked; }
  void WorkLoop(Checker* checker, StageLap* lap);
  // Reads the next batch into `batch` and checks it with `checker`; gives
  // the batch back unread when the input has ended.
  void ReadAndCheck(std::unique_ptr<RecordBatch> batch, Checker* checker, StageLap* lap);
  // Reads the next batch into `b`; false once the input has ended (another
  // worker read its last batch). REQUIRES: read_mu_ held.
  bool Fill(RecordBatch* b);

  ldif::Reader* reader_;
  size_t batch_records_;
  CpuLedger* ledger_;
  StageLap* caller_lap_;
  std::mutex read_mu_;  // one worker reads at a time
  std::mutex mu_;
  // One per kind of waiter, each woken alone: with one for all, every
  // hand-over woke every thread, and most went back to sleep.
  std::condition_variable free_cv_;   // the workers: a batch to read into
  std::condition_variable ready_cv_;  // the caller: the next batch checked
  bool stop_ = false;                 // guarded by mu_
  // Set holding both read_mu_ and mu_, so read under either.
  bool input_done_ = false;
  std::vector<std::unique_ptr<RecordBatch>> free_;    // guarded by mu_
  std::deque<std::unique_ptr<RecordBatch>> ordered_;  // guarded by mu_, input order
  std::unique_ptr<Checker> own_checker_;  // the calling thread's, for the batches it checks
  std::vector<std::unique_ptr<Checker>> worker_checkers_;
  std::vector<std::thread> workers_;
};

}  // namespace dirload
