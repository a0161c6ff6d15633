// The fault-injection plan (DIRLOAD_FAULT_INJECT's syntax), the injector's
// counting, failing and exiting, and FaultInjectingStore over both engines:
// a fault stops the write it hits and every later one, and what was
// committed before it survives.
#include "lib/store/fault_injection.h"

#include <doctest/doctest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "lib/store/store.h"
#include "tests/store/engines.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

using testing::TempDir;

// Sets an environment variable (or unsets it, for nullptr) for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    const char* old = std::getenv(name);
    had_ = old != nullptr;
    if (had_) old_ = old;
    if (value != nullptr) {
      ::setenv(name, value, 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (had_) {
      ::setenv(name_, old_.c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  bool had_ = false;
  std::string old_;
};

FaultPlan Plan(FaultMode mode, FaultOp op, uint64_t n, std::string count_file = "") {
  FaultPlan plan;
  plan.mode = mode;
  plan.op = op;
  plan.n = n;
  plan.count_file = std::move(count_file);
  return plan;
}

std::unique_ptr<Store> OpenEngine(Backend backend, const std::string& dir, bool create) {
  StoreOptions options;
  options.create = create;
  // Unset, so Store::Open itself adds no decorator.
  ScopedEnv inject("DIRLOAD_FAULT_INJECT", nullptr);
  ScopedEnv count("DIRLOAD_FAULT_COUNT", nullptr);
  Result<std::unique_ptr<Store>> store = Store::Open(backend, dir, options);
  INFO(store.status().ToString());
  REQUIRE(store.ok());
  return std::move(store).value();
}

std::string GetOrAbsent(Store* store, std::string_view table, std::string_view key) {
  std::string value;
  Result<bool> found = store->Get(table, key, &value);
  REQUIRE(found.ok());
  return *found ? value : std::string("<absent>");
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST_CASE("a plan is MODE:OP:N") {
  Result<FaultPlan> plan = ParseFaultPlan("fail:write:3");
  REQUIRE(plan.ok());
  CHECK(plan->mode == FaultMode::kFail);
  CHECK(plan->op == FaultOp::kWrite);
  CHECK(plan->n == 3);

  plan = ParseFaultPlan("exit:any:120");
  REQUIRE(plan.ok());
  CHECK(plan->mode == FaultMode::kExit);
  CHECK(plan->op == FaultOp::kAny);
  CHECK(plan->n == 120);

  plan = ParseFaultPlan("fail:commit:1");
  REQUIRE(plan.ok());
  CHECK(plan->op == FaultOp::kCommit);
  plan = ParseFaultPlan("fail:sync:1");
  REQUIRE(plan.ok());
  CHECK(plan->op == FaultOp::kSync);

  // Empty: nothing fails, operations are only counted.
  plan = ParseFaultPlan("");
  REQUIRE(plan.ok());
  CHECK(plan->mode == FaultMode::kNone);
}

TEST_CASE("a malformed plan is a usage error that names the variable") {
  for (const char* spec : {"fail", "fail:write", "crash:write:1", "fail:read:1", "fail:write:0",
                           "fail:write:", "fail:write:x", "fail:write:2x", "fail:write:-1",
                           "fail:write:1:2", "FAIL:write:1"}) {
    INFO(spec);
    Result<FaultPlan> plan = ParseFaultPlan(spec);
    REQUIRE_FALSE(plan.ok());
    CHECK(plan.status().origin() == ErrorOrigin::kUsage);
    CHECK(plan.status().ToString().find("DIRLOAD_FAULT_INJECT") != std::string::npos);
  }
}

TEST_CASE("the injector counts each kind and fails the N-th of the plan's kind") {
  FaultInjector injector(Plan(FaultMode::kFail, FaultOp::kCommit, 2));
  CHECK(injector.Hit(FaultOp::kWrite).ok());
  CHECK(injector.Hit(FaultOp::kCommit).ok());
  CHECK(injector.Hit(FaultOp::kWrite).ok());
  CHECK(injector.Hit(FaultOp::kSync).ok());
  CHECK_FALSE(injector.dead());
  Status st = injector.Hit(FaultOp::kCommit);
  REQUIRE_FALSE(st.ok());
  CHECK(st.code() == StatusCode::kIoError);
  CHECK(st.origin() == ErrorOrigin::kStorage);
  CHECK(st.ToString() == "injected fault: commit number 2");
  CHECK(injector.dead());
  // A dead disk: every later operation of any kind fails too.
  for (FaultOp op : {FaultOp::kWrite, FaultOp::kCommit, FaultOp::kSync}) {
    Status later = injector.Hit(op);
    CHECK_FALSE(later.ok());
    CHECK(later.origin() == ErrorOrigin::kStorage);
  }
  FaultCounts c = injector.counts();
  CHECK(c.write == 3);
  CHECK(c.commit == 3);
  CHECK(c.sync == 2);
  CHECK(c.any == 8);
}

TEST_CASE("OP any fails the N-th operation whatever its kind") {
  FaultInjector injector(Plan(FaultMode::kFail, FaultOp::kAny, 3));
  CHECK(injector.Hit(FaultOp::kWrite).ok());
  CHECK(injector.Hit(FaultOp::kCommit).ok());
  Status st = injector.Hit(FaultOp::kSync);
  REQUIRE_FALSE(st.ok());
  CHECK(st.ToString() == "injected fault: any number 3");
}

TEST_CASE("a plan that only counts fails nothing") {
  FaultInjector injector(Plan(FaultMode::kNone, FaultOp::kAny, 0));
  for (int i = 0; i < 100; ++i) REQUIRE(injector.Hit(FaultOp::kWrite).ok());
  CHECK(injector.counts().any == 100);
  CHECK_FALSE(injector.dead());
}

TEST_CASE("exit mode ends the process at once with status 137") {
  TempDir tmp;
  std::string marker = tmp.File("before");
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    FaultInjector injector(Plan(FaultMode::kExit, FaultOp::kWrite, 2));
    if (!injector.Hit(FaultOp::kWrite).ok()) ::_exit(1);
    if (!injector.Hit(FaultOp::kCommit).ok()) ::_exit(1);
    std::ofstream(marker) << "reached";
    (void)injector.Hit(FaultOp::kWrite);
    // Not reached: the second write exits.
    ::_exit(0);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 137);
  CHECK(ReadAll(marker) == "reached");
}

TEST_CASE("the counts are written to the plan's file") {
  TempDir tmp;
  std::string file = tmp.File("counts");
  FaultInjector injector(Plan(FaultMode::kNone, FaultOp::kAny, 0, file));
  (void)injector.Hit(FaultOp::kWrite);
  (void)injector.Hit(FaultOp::kWrite);
  (void)injector.Hit(FaultOp::kSync);
  injector.WriteCounts();
  CHECK(ReadAll(file) == "write 2\ncommit 0\nsync 1\nany 3\n");
  (void)injector.Hit(FaultOp::kCommit);
  injector.WriteCounts();
  CHECK(ReadAll(file) == "write 2\ncommit 1\nsync 1\nany 4\n");
}

TEST_CASE("the plan comes from the environment") {
  {
    ScopedEnv inject("DIRLOAD_FAULT_INJECT", nullptr);
    ScopedEnv count("DIRLOAD_FAULT_COUNT", nullptr);
    Result<std::unique_ptr<FaultInjector>> injector = FaultInjectorFromEnvironment();
    REQUIRE(injector.ok());
    CHECK(*injector == nullptr);
  }
  {
    ScopedEnv inject("DIRLOAD_FAULT_INJECT", "exit:sync:4");
    ScopedEnv count("DIRLOAD_FAULT_COUNT", "/some/file");
    Result<std::unique_ptr<FaultInjector>> injector = FaultInjectorFromEnvironment();
    REQUIRE(injector.ok());
    REQUIRE(*injector != nullptr);
    CHECK((*injector)->plan().mode == FaultMode::kExit);
    CHECK((*injector)->plan().op == FaultOp::kSync);
    CHECK((*injector)->plan().n == 4);
    CHECK((*injector)->plan().count_file == "/some/file");
  }
  {
    ScopedEnv inject("DIRLOAD_FAULT_INJECT", nullptr);
    ScopedEnv count("DIRLOAD_FAULT_COUNT", "/some/file");
    Result<std::unique_ptr<FaultInjector>> injector = FaultInjectorFromEnvironment();
    REQUIRE(injector.ok());
    REQUIRE(*injector != nullptr);
    CHECK((*injector)->plan().mode == FaultMode::kNone);
  }
  {
    ScopedEnv inject("DIRLOAD_FAULT_INJECT", "fail:everything:1");
    ScopedEnv count("DIRLOAD_FAULT_COUNT", nullptr);
    Result<std::unique_ptr<FaultInjector>> injector = FaultInjectorFromEnvironment();
    REQUIRE_FALSE(injector.ok());
    CHECK(injector.status().origin() == ErrorOrigin::kUsage);
  }
}

TEST_CASE_TEMPLATE("the decorator passes everything through when nothing fails", E, ENGINES) {
  TempDir tmp;
  FaultInjector injector(Plan(FaultMode::kNone, FaultOp::kAny, 0));
  {
    FaultInjectingStore store(OpenEngine(E::kBackend, tmp.File("db"), true), &injector);
    CHECK(store.backend() == E::kBackend);
    CHECK(store.path() == tmp.File("db"));
    REQUIRE(store.Put("t", "b", "2").ok());
    REQUIRE(store.Append("t", "c", "3").ok());
    REQUIRE(store.Put("t", "a", "1").ok());
    REQUIRE(store.Delete("t", "b").ok());
    REQUIRE(store.Put("gone", "x", "y").ok());
    REQUIRE(store.Commit().ok());
    REQUIRE(store.DropTable("gone").ok());
    REQUIRE(store.Sync().ok());
    CHECK(GetOrAbsent(&store, "t", "a") == "1");
    CHECK(GetOrAbsent(&store, "t", "b") == "<absent>");
    std::unique_ptr<Cursor> c = store.NewCursor("t");
    std::vector<std::string> keys;
    for (c->SeekToFirst(); c->valid(); c->Next()) keys.emplace_back(c->key());
    CHECK(keys == std::vector<std::string>{"a", "c"});
    c.reset();
    Result<std::vector<std::string>> tables = store.ListTables();
    REQUIRE(tables.ok());
    CHECK(*tables == std::vector<std::string>{"t"});
    CHECK(store.Statistics().ok());
    REQUIRE(store.ReopenReadOnly("t").ok());
  }
  FaultCounts counts = injector.counts();
  CHECK(counts.write == 6);   // Put, Append, Put, Delete, Put, DropTable
  CHECK(counts.commit == 2);  // Commit, ReopenReadOnly
  CHECK(counts.sync == 1);
  CHECK(counts.any == 9);
}

TEST_CASE_TEMPLATE("a fault at a write keeps what was committed before it", E, ENGINES) {
  TempDir tmp;
  // The points: Put a (1), Commit (2), Put b (3), Put c (4: fails).
  FaultInjector injector(Plan(FaultMode::kFail, FaultOp::kAny, 4, tmp.File("counts")));
  {
    FaultInjectingStore store(OpenEngine(E::kBackend, tmp.File("db"), true), &injector);
    REQUIRE(store.Put("t", "a", "1").ok());
    REQUIRE(store.Commit().ok());
    REQUIRE(store.Put("t", "b", "2").ok());
    Status st = store.Put("t", "c", "3");
    REQUIRE_FALSE(st.ok());
    CHECK(st.ToString() == "injected fault: any number 4");
    CHECK(st.origin() == ErrorOrigin::kStorage);
    // The disk is dead: nothing after the fault gets through.
    CHECK_FALSE(store.Append("t", "d", "4").ok());
    CHECK_FALSE(store.Commit().ok());
    CHECK_FALSE(store.Sync().ok());
    CHECK_FALSE(store.DropTable("t").ok());
    // Reads still go through.
    CHECK(GetOrAbsent(&store, "t", "a") == "1");
  }
  // Closing wrote the counts of the points passed.
  CHECK(ReadAll(tmp.File("counts")) == "write 5\ncommit 2\nsync 1\nany 8\n");
  std::unique_ptr<Store> store = OpenEngine(E::kBackend, tmp.File("db"), false);
  CHECK(GetOrAbsent(store.get(), "t", "a") == "1");
  CHECK(GetOrAbsent(store.get(), "t", "c") == "<absent>");
  CHECK(GetOrAbsent(store.get(), "t", "d") == "<absent>");
  // LMDB rolls back the batch never committed; Berkeley DB without
  // transactions keeps what was written (store.h), so only LMDB loses b.
  if (E::kBackend == Backend::kLmdb) CHECK(GetOrAbsent(store.get(), "t", "b") == "<absent>");
}

TEST_CASE_TEMPLATE("a fault at a commit rolls the batch back on LMDB", E, ENGINES) {
  TempDir tmp;
  FaultInjector injector(Plan(FaultMode::kFail, FaultOp::kCommit, 2));
  {
    FaultInjectingStore store(OpenEngine(E::kBackend, tmp.File("db"), true), &injector);
    REQUIRE(store.Put("t", "a", "1").ok());
    REQUIRE(store.Commit().ok());
    REQUIRE(store.Put("t", "b", "2").ok());
    CHECK_FALSE(store.Commit().ok());
    CHECK(injector.dead());
  }
  std::unique_ptr<Store> store = OpenEngine(E::kBackend, tmp.File("db"), false);
  CHECK(GetOrAbsent(store.get(), "t", "a") == "1");
  if (E::kBackend == Backend::kLmdb) CHECK(GetOrAbsent(store.get(), "t", "b") == "<absent>");
}

}  // namespace
}  // namespace dirload
