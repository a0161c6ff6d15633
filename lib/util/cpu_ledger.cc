#include "lib/util/cpu_ledger.h"

#include <time.h>

#include <algorithm>

namespace dirload {

double ThreadCpuSeconds() {
  timespec ts{};
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

void CpuLedger::AddStage(std::string_view stage, double cpu_seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it =
      std::find_if(stages_.begin(), stages_.end(), [&](const Stage& s) { return s.name == stage; });
  if (it == stages_.end()) it = stages_.insert(stages_.end(), Stage{std::string(stage), 0});
  it->cpu_seconds += cpu_seconds;
}

void CpuLedger::AddThread(std::string_view role, double cpu_seconds, double wall_seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it =
      std::find_if(roles_.begin(), roles_.end(), [&](const Role& r) { return r.name == role; });
  if (it == roles_.end()) it = roles_.insert(roles_.end(), Role{std::string(role)});
  ++it->threads;
  it->cpu_seconds += cpu_seconds;
  it->wall_seconds += wall_seconds;
}

std::vector<CpuLedger::Stage> CpuLedger::stages() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stages_;
}

std::vector<CpuLedger::Role> CpuLedger::roles() const {
  std::lock_guard<std::mutex> lock(mu_);
  return roles_;
}

StageLap::StageLap(CpuLedger* ledger) : ledger_(ledger) {
  if (ledger_ != nullptr) last_ = ThreadCpuSeconds();
}

void StageLap::Lap(std::string_view stage) {
  if (ledger_ == nullptr) return;
  const double now = ThreadCpuSeconds();
  ledger_->AddStage(stage, now - last_);
  last_ = now;
}

void StageLap::Split(std::string_view first, std::string_view second, double share) {
  if (ledger_ == nullptr) return;
  const double now = ThreadCpuSeconds();
  const double spent = now - last_;
  share = std::clamp(share, 0.0, 1.0);
  ledger_->AddStage(first, spent * share);
  ledger_->AddStage(second, spent * (1 - share));
  last_ = now;
}

ThreadTimer::ThreadTimer(CpuLedger* ledger, std::string role)
    : ledger_(ledger), role_(std::move(role)) {
  if (ledger_ == nullptr) return;
  cpu_start_ = ThreadCpuSeconds();
  wall_start_ = std::chrono::steady_clock::now();
}

ThreadTimer::~ThreadTimer() {
  if (ledger_ == nullptr) return;
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start_).count();
  ledger_->AddThread(role_, ThreadCpuSeconds() - cpu_start_, wall);
}

}  // namespace dirload
