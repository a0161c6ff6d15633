#include "lib/store/fault_injection.h"

#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>

namespace dirload {
namespace {

constexpr char kInjectVariable[] = "DIRLOAD_FAULT_INJECT";
constexpr char kCountVariable[] = "DIRLOAD_FAULT_COUNT";

// What kill -9 leaves as the exit status a shell reports (128 + SIGKILL).
constexpr int kExitStatus = 137;

Status BadPlan(std::string_view spec, std::string_view why) {
  return Status::InvalidArgument(std::string(kInjectVariable) + "='" + std::string(spec) +
                                 "': " + std::string(why) +
                                 " (expected MODE:OP:N, MODE fail or exit, OP write, commit, "
                                 "sync or any, N from 1)")
      .WithOrigin(ErrorOrigin::kUsage);
}

// Holds the process's plan. Made once, never destroyed: the atexit handler
// and stores closed during exit may still use it.
struct ProcessPlan {
  FaultInjector* injector = nullptr;
  Status error;
};

ProcessPlan* MakeProcessPlan() {
  auto* p = new ProcessPlan;
  Result<std::unique_ptr<FaultInjector>> injector = FaultInjectorFromEnvironment();
  if (!injector.ok()) {
    p->error = injector.status();
    return p;
  }
  p->injector = injector->release();
  if (p->injector != nullptr && !p->injector->plan().count_file.empty()) {
    std::atexit([] { ProcessFaultInjector()->WriteCounts(); });
  }
  return p;
}

}  // namespace

std::string_view FaultOpName(FaultOp op) {
  switch (op) {
    case FaultOp::kWrite:
      return "write";
    case FaultOp::kCommit:
      return "commit";
    case FaultOp::kSync:
      return "sync";
    case FaultOp::kAny:
      return "any";
  }
  return "unknown";
}

Result<FaultPlan> ParseFaultPlan(std::string_view spec) {
  FaultPlan plan;
  if (spec.empty()) return plan;
  size_t first = spec.find(':');
  size_t second = first == std::string_view::npos ? first : spec.find(':', first + 1);
  if (second == std::string_view::npos) return BadPlan(spec, "three fields needed");
  std::string_view mode = spec.substr(0, first);
  std::string_view op = spec.substr(first + 1, second - first - 1);
  std::string_view n = spec.substr(second + 1);
  if (mode == "fail") {
    plan.mode = FaultMode::kFail;
  } else if (mode == "exit") {
    plan.mode = FaultMode::kExit;
  } else {
    return BadPlan(spec, "unknown mode '" + std::string(mode) + "'");
  }
  bool known = false;
  for (FaultOp o : {FaultOp::kWrite, FaultOp::kCommit, FaultOp::kSync, FaultOp::kAny}) {
    if (op == FaultOpName(o)) {
      plan.op = o;
      known = true;
    }
  }
  if (!known) return BadPlan(spec, "unknown operation '" + std::string(op) + "'");
  auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), plan.n);
  if (n.empty() || ec != std::errc() || end != n.data() + n.size() || plan.n == 0) {
    return BadPlan(spec, "N is not a number from 1");
  }
  return plan;
}

Status FaultInjector::Hit(FaultOp op) {
  uint64_t any = any_.fetch_add(1, std::memory_order_relaxed) + 1;
  uint64_t of_kind = 0;
  switch (op) {
    case FaultOp::kWrite:
      of_kind = write_.fetch_add(1, std::memory_order_relaxed) + 1;
      break;
    case FaultOp::kCommit:
      of_kind = commit_.fetch_add(1, std::memory_order_relaxed) + 1;
      break;
    case FaultOp::kSync:
      of_kind = sync_.fetch_add(1, std::memory_order_relaxed) + 1;
      break;
    case FaultOp::kAny:
      return Status::InvalidArgument("fault injection: 'any' is no kind of operation");
  }
  if (plan_.mode == FaultMode::kNone) return Status::Ok();
  uint64_t number = plan_.op == FaultOp::kAny ? any : of_kind;
  bool matches = plan_.op == FaultOp::kAny || plan_.op == op;
  if (matches && number == plan_.n) {
    if (plan_.mode == FaultMode::kExit) ::_exit(kExitStatus);
    dead_.store(true, std::memory_order_release);
    return Status::IoError("injected fault: " + std::string(FaultOpName(plan_.op)) + " number " +
                           std::to_string(plan_.n))
        .WithOrigin(ErrorOrigin::kStorage);
  }
  if (dead()) {
    return Status::IoError("injected fault: " + std::string(FaultOpName(op)) + " after " +
                           std::string(FaultOpName(plan_.op)) + " number " +
                           std::to_string(plan_.n) + " failed")
        .WithOrigin(ErrorOrigin::kStorage);
  }
  return Status::Ok();
}

FaultCounts FaultInjector::counts() const {
  FaultCounts c;
  c.write = write_.load(std::memory_order_relaxed);
  c.commit = commit_.load(std::memory_order_relaxed);
  c.sync = sync_.load(std::memory_order_relaxed);
  c.any = any_.load(std::memory_order_relaxed);
  return c;
}

void FaultInjector::WriteCounts() const {
  if (plan_.count_file.empty()) return;
  FaultCounts c = counts();
  // Written in place of the whole file, so the last writer's counts are
  // what a reader sees.
  std::string tmp = plan_.count_file + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "w");
  if (f == nullptr) return;
  std::fprintf(f, "write %llu\ncommit %llu\nsync %llu\nany %llu\n",
               static_cast<unsigned long long>(c.write), static_cast<unsigned long long>(c.commit),
               static_cast<unsigned long long>(c.sync), static_cast<unsigned long long>(c.any));
  bool ok = std::fclose(f) == 0;
  if (ok) std::rename(tmp.c_str(), plan_.count_file.c_str());
}

Result<std::unique_ptr<FaultInjector>> FaultInjectorFromEnvironment() {
  const char* spec = std::getenv(kInjectVariable);
  const char* count = std::getenv(kCountVariable);
  if (spec == nullptr && count == nullptr) return std::unique_ptr<FaultInjector>();
  Result<FaultPlan> plan = ParseFaultPlan(spec != nullptr ? spec : "");
  if (!plan.ok()) return plan.status();
  if (count != nullptr) plan->count_file = count;
  return std::make_unique<FaultInjector>(std::move(*plan));
}

FaultInjector* ProcessFaultInjector(Status* error) {
  static ProcessPlan* plan = MakeProcessPlan();
  if (error != nullptr) *error = plan->error;
  return plan->injector;
}

Status FaultPoint(FaultOp op) {
  Status error;
  FaultInjector* injector = ProcessFaultInjector(&error);
  if (!error.ok()) return error;
  if (injector == nullptr) return Status::Ok();
  return injector->Hit(op);
}

FaultInjectingStore::~FaultInjectingStore() {
  base_.reset();
  injector_->WriteCounts();
}

Status FaultInjectingStore::Put(std::string_view table, std::string_view key,
                                std::string_view value) {
  if (Status st = injector_->Hit(FaultOp::kWrite); !st.ok()) return st;
  return base_->Put(table, key, value);
}

Status FaultInjectingStore::Append(std::string_view table, std::string_view key,
                                   std::string_view value) {
  if (Status st = injector_->Hit(FaultOp::kWrite); !st.ok()) return st;
  return base_->Append(table, key, value);
}

Status FaultInjectingStore::Delete(std::string_view table, std::string_view key) {
  if (Status st = injector_->Hit(FaultOp::kWrite); !st.ok()) return st;
  return base_->Delete(table, key);
}

Status FaultInjectingStore::DropTable(std::string_view table) {
  if (Status st = injector_->Hit(FaultOp::kWrite); !st.ok()) return st;
  return base_->DropTable(table);
}

Status FaultInjectingStore::Commit() {
  if (Status st = injector_->Hit(FaultOp::kCommit); !st.ok()) return st;
  return base_->Commit();
}

Status FaultInjectingStore::Sync() {
  if (Status st = injector_->Hit(FaultOp::kSync); !st.ok()) return st;
  return base_->Sync();
}

Status FaultInjectingStore::ReopenReadOnly(std::string_view table) {
  if (Status st = injector_->Hit(FaultOp::kCommit); !st.ok()) return st;
  return base_->ReopenReadOnly(table);
}

}  // namespace dirload
