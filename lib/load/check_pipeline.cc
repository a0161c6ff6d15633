#include "lib/load/check_pipeline.h"

#include <pthread.h>

namespace dirload {

CheckPipeline::CheckPipeline(ldif::Reader* reader, const NewChecker& new_checker, unsigned workers,
                             size_t batch_records, CpuLedger* ledger, StageLap* caller_lap)
    : reader_(reader),
      batch_records_(batch_records),
      ledger_(ledger),
      caller_lap_(caller_lap),
      own_checker_(new_checker()) {
  const size_t depth = 2 * static_cast<size_t>(workers) + 2;
  for (size_t i = 0; i < depth; ++i) free_.push_back(std::make_unique<RecordBatch>());
  for (unsigned i = 0; i < workers; ++i) worker_checkers_.push_back(new_checker());
  for (unsigned i = 0; i < workers; ++i) {
    workers_.emplace_back([this, checker = worker_checkers_[i].get()] {
      pthread_setname_np(pthread_self(), "dirload-check");
      ThreadTimer timer(ledger_, "check");
      StageLap lap(ledger_);
      WorkLoop(checker, &lap);
    });
  }
}

CheckPipeline::~CheckPipeline() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  free_cv_.notify_all();
  for (std::thread& t : workers_) t.join();
}

RecordBatch* CheckPipeline::Next() {
  for (;;) {
    std::unique_ptr<RecordBatch> batch;
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (FrontChecked()) return ordered_.front().get();
      if (free_.empty() || input_done_) {
        ready_cv_.wait(lock, [this] { return FrontChecked(); });
        return ordered_.front().get();
      }
      batch = std::move(free_.back());
      free_.pop_back();
    }
    ReadAndCheck(std::move(batch), own_checker_.get(), caller_lap_);
  }
}

void CheckPipeline::Release() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    free_.push_back(std::move(ordered_.front()));
    ordered_.pop_front();
  }
  free_cv_.notify_one();
}

void CheckPipeline::WorkLoop(Checker* checker, StageLap* lap) {
  for (;;) {
    std::unique_ptr<RecordBatch> batch;
    {
      // After the input's end a worker waits for the pipeline to stop: the
      // batches it checked may point into its checker's memory until the
      // caller is done with them.
      std::unique_lock<std::mutex> lock(mu_);
      free_cv_.wait(lock, [this] { return stop_ || (!free_.empty() && !input_done_); });
      if (stop_) return;
      batch = std::move(free_.back());
      free_.pop_back();
    }
    ReadAndCheck(std::move(batch), checker, lap);
  }
}

void CheckPipeline::ReadAndCheck(std::unique_ptr<RecordBatch> batch, Checker* checker,
                                 StageLap* lap) {
  RecordBatch* b = batch.get();
  // Reading one batch at a time includes the wait for the reader's lock,
  // which takes no CPU time.
  const bool measured = lap != nullptr && lap->active();
  {
    // Batches enter ordered_ in the order they are read.
    std::lock_guard<std::mutex> reading(read_mu_);
    if (!Fill(b)) {
      std::lock_guard<std::mutex> lock(mu_);
      free_.push_back(std::move(batch));
      return;
    }
    std::lock_guard<std::mutex> lock(mu_);
    ordered_.push_back(std::move(batch));
    if (b->last) input_done_ = true;
  }
  // The others stop waiting for a batch to read.
  if (b->last) free_cv_.notify_all();
  if (measured) lap->Lap("read");
  for (size_t i = 0; i < b->count; ++i) checker->Check(&b->items[i]);
  if (measured) lap->Lap("check");
  bool next;
  {
    std::lock_guard<std::mutex> lock(mu_);
    b->checked = true;
    // The caller takes batches in input order: a later one can wait.
    next = ordered_.front().get() == b;
  }
  if (next) ready_cv_.notify_one();
}

bool CheckPipeline::Fill(RecordBatch* b) {
  if (input_done_) return false;
  b->count = 0;
  b->checked = false;
  b->last = false;
  b->fatal = Status::Ok();
  if (b->items.size() < batch_records_) b->items.resize(batch_records_);
  while (b->count < batch_records_) {
    CheckedRecord& item = b->items[b->count];
    Result<bool> got = reader_->Next(&item.record);
    if (!got.ok()) {
      if (reader_->last_error().fatal) {
        b->fatal = got.status();
        b->last = true;
        break;
      }
      item.read_error = true;
      item.error = got.status();
      item.text = reader_->last_error().text;
      item.read_line = reader_->last_error().record_line;
      ++b->count;
      continue;
    }
    if (!*got) {
      b->last = true;
      break;
    }
    item.read_error = false;
    item.error = Status::Ok();
    item.ndn.clear();
    ++b->count;
  }
  b->input_offset = reader_->input_offset();
  b->parsed_bytes = reader_->bytes_parsed();
  return true;
}

}  // namespace dirload
