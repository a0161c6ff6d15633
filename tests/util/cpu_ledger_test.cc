#include "lib/util/cpu_ledger.h"

#include <doctest/doctest.h>

#include <thread>

namespace dirload {
namespace {

// Burns CPU for about `seconds` of this thread's clock.
void Spin(double seconds) {
  const double until = ThreadCpuSeconds() + seconds;
  volatile uint64_t sink = 0;
  while (ThreadCpuSeconds() < until) {
    for (int i = 0; i < 10000; ++i) sink = sink + static_cast<uint64_t>(i);
  }
}

TEST_CASE("stages take the CPU time spent since the last lap, threads their whole time") {
  CpuLedger ledger;
  std::thread worker([&] {
    ThreadTimer timer(&ledger, "worker");
    StageLap lap(&ledger);
    Spin(0.05);
    lap.Lap("first");
    Spin(0.10);
    lap.Split("second", "third", 0.25);
  });
  worker.join();
  const std::vector<CpuLedger::Stage> stages = ledger.stages();
  REQUIRE(stages.size() == 3);
  CHECK(stages[0].name == "first");
  CHECK(stages[0].cpu_seconds >= 0.05);
  CHECK(stages[0].cpu_seconds < 0.09);
  // The split shares one reading: a quarter and three quarters.
  CHECK(stages[1].name == "second");
  CHECK(stages[2].name == "third");
  CHECK(stages[2].cpu_seconds == doctest::Approx(3 * stages[1].cpu_seconds).epsilon(0.001));
  CHECK(stages[1].cpu_seconds + stages[2].cpu_seconds >= 0.10);
  const std::vector<CpuLedger::Role> roles = ledger.roles();
  REQUIRE(roles.size() == 1);
  CHECK(roles[0].name == "worker");
  CHECK(roles[0].threads == 1);
  CHECK(roles[0].cpu_seconds >= 0.15);
  CHECK(roles[0].wall_seconds >= roles[0].cpu_seconds * 0.99);
}

TEST_CASE("a stage and a role named twice add up") {
  CpuLedger ledger;
  ledger.AddStage("read", 1.5);
  ledger.AddStage("check", 2);
  ledger.AddStage("read", 0.5);
  ledger.AddThread("check", 1, 4);
  ledger.AddThread("check", 2, 4);
  REQUIRE(ledger.stages().size() == 2);
  CHECK(ledger.stages()[0].cpu_seconds == 2.0);
  REQUIRE(ledger.roles().size() == 1);
  CHECK(ledger.roles()[0].threads == 2);
  CHECK(ledger.roles()[0].cpu_seconds == 3.0);
  CHECK(ledger.roles()[0].wall_seconds == 8.0);
}

TEST_CASE("without a ledger nothing is measured") {
  StageLap lap(nullptr);
  CHECK_FALSE(lap.active());
  lap.Lap("x");  // no clock read, nothing to add to
  ThreadTimer timer(nullptr, "none");
}

}  // namespace
}  // namespace dirload
