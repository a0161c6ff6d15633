// Fault injection on the write path, for tests: a plan names which write,
// commit or sync fails (or kills the process), so a test can run a command
// once per point and prove that a failure at any of them costs nothing that
// was committed before (SQLite's and LevelDB's way of testing recovery).
//
// The plan comes from the environment, read once per process:
//   DIRLOAD_FAULT_INJECT=MODE:OP:N
//     MODE  fail  the N-th matching operation returns an IoError (origin
//                 kStorage) and every later write, commit and sync fails too,
//                 as on a disk that has died;
//           exit  the N-th matching operation calls _exit(137) at once: no
//                 destructor, no cleanup, as kill -9 in the middle of a write.
//     OP    write (Put, Append, Delete, DropTable and slapd's format's puts,
//                 deletes and drops), commit, sync, or any of them.
//     N     1 for the first matching operation.
//   DIRLOAD_FAULT_COUNT=FILE
//     at exit (and each time a decorated store closes) FILE is rewritten with
//     how many operations of each kind were counted, one "kind count" line
//     each (write, commit, sync, any), so a test knows how many points a
//     command has.
//
// Everything here is compiled only with the CMake option
// DIRLOAD_FAULT_INJECTION (the definition of the same name guards the
// callers); a build without it reads nothing from the environment.
//
// Thread safety: FaultInjector::Hit and FaultPoint may be called from any
// thread at once (the counters are atomic). FaultInjectingStore is used as
// the store it wraps: one thread at a time.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/store/store.h"
#include "lib/util/status.h"

namespace dirload {

// The kinds of operation counted. kAny appears only in a plan: it matches
// every kind.
enum class FaultOp { kWrite, kCommit, kSync, kAny };

std::string_view FaultOpName(FaultOp op);  // "write", "commit", "sync", "any"

enum class FaultMode { kNone, kFail, kExit };

struct FaultPlan {
  FaultMode mode = FaultMode::kNone;  // kNone: only count
  FaultOp op = FaultOp::kAny;
  uint64_t n = 0;          // 1-based; meaningful unless mode is kNone
  std::string count_file;  // empty: counts are not written out
};

// Parses "MODE:OP:N" (see above). An empty spec is a plan that only counts.
[[nodiscard]] Result<FaultPlan> ParseFaultPlan(std::string_view spec);

// The operations counted so far.
struct FaultCounts {
  uint64_t write = 0;
  uint64_t commit = 0;
  uint64_t sync = 0;
  uint64_t any = 0;
};

// Applies one plan: counts every operation and fails or exits at the one the
// plan names. The process has one (ProcessFaultInjector); tests may make
// their own.
class FaultInjector {
 public:
  explicit FaultInjector(FaultPlan plan) : plan_(std::move(plan)) {}
  FaultInjector(const FaultInjector&) = delete;
  FaultInjector& operator=(const FaultInjector&) = delete;

  // Counts one operation of kind `op` (not kAny) and returns the injected
  // error when the plan says this one fails, or when an earlier one failed.
  // Does not return when the plan says exit.
  [[nodiscard]] Status Hit(FaultOp op);

  FaultCounts counts() const;
  const FaultPlan& plan() const { return plan_; }
  // True once an operation has failed by the plan.
  bool dead() const { return dead_.load(std::memory_order_acquire); }

  // Writes counts() to plan().count_file, when it names one. Best effort: a
  // test that needs the file sees it missing.
  void WriteCounts() const;

 private:
  const FaultPlan plan_;
  std::atomic<uint64_t> write_{0};
  std::atomic<uint64_t> commit_{0};
  std::atomic<uint64_t> sync_{0};
  std::atomic<uint64_t> any_{0};
  std::atomic<bool> dead_{false};
};

// An injector for the plan the environment names now; nullptr when neither
// variable is set, a usage error when DIRLOAD_FAULT_INJECT is malformed.
[[nodiscard]] Result<std::unique_ptr<FaultInjector>> FaultInjectorFromEnvironment();

// The process's injector, made on first use from DIRLOAD_FAULT_INJECT and
// DIRLOAD_FAULT_COUNT; nullptr when neither is set. A malformed
// DIRLOAD_FAULT_INJECT makes *error a usage error (and the result nullptr).
// When DIRLOAD_FAULT_COUNT is set the counts are also written at exit.
FaultInjector* ProcessFaultInjector(Status* error = nullptr);

// Counts one operation against the process's plan: Ok when no plan is set,
// the plan's error (or exit) at its point, a usage error when the plan
// cannot be parsed.
[[nodiscard]] Status FaultPoint(FaultOp op);

// A Store that passes every call to the store it owns, after asking its
// injector about each write (Put, Append, Delete, DropTable), commit (Commit,
// ReopenReadOnly, which commits) and sync.
// REQUIRES: `injector` outlives the store.
class FaultInjectingStore : public Store {
 public:
  FaultInjectingStore(std::unique_ptr<Store> base, FaultInjector* injector)
      : base_(std::move(base)), injector_(injector) {}
  // Closes the wrapped store, then writes the counts (see WriteCounts).
  ~FaultInjectingStore() override;

  Backend backend() const override { return base_->backend(); }
  const std::string& path() const override { return base_->path(); }

  Status Put(std::string_view table, std::string_view key, std::string_view value) override;
  Status Append(std::string_view table, std::string_view key, std::string_view value) override;
  Result<bool> Get(std::string_view table, std::string_view key, std::string* value) override {
    return base_->Get(table, key, value);
  }
  Status Delete(std::string_view table, std::string_view key) override;
  Status DropTable(std::string_view table) override;
  Result<std::vector<std::string>> ListTables() override { return base_->ListTables(); }
  std::unique_ptr<Cursor> NewCursor(std::string_view table) override {
    return base_->NewCursor(table);
  }
  Status Commit() override;
  Status Sync() override;
  Status ReopenReadOnly(std::string_view table) override;
  Result<StoreStats> Statistics() override { return base_->Statistics(); }
  Result<CacheStats> CacheStatistics() override { return base_->CacheStatistics(); }
  Result<EngineSettings> Settings() override { return base_->Settings(); }

 private:
  std::unique_ptr<Store> base_;
  FaultInjector* injector_;
};

}  // namespace dirload
