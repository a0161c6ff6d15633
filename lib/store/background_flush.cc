#include "lib/store/background_flush.h"

#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>
#include <utility>

namespace dirload {

BackgroundFlush::BackgroundFlush(int fd, std::string name) : fd_(fd), name_(std::move(name)) {}

BackgroundFlush::~BackgroundFlush() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void BackgroundFlush::Kick() {
  // Only a hint: an error here leaves the pages to the flush.
  (void)::sync_file_range(fd_, 0, 0, SYNC_FILE_RANGE_WRITE);
  if (!started_) {
    started_ = true;
    try {
      thread_ = std::thread([this] {
        pthread_setname_np(pthread_self(), "dirload-flush");
        Loop();
      });
    } catch (const std::system_error&) {
      // No thread to be had: the final sync does it all, as without this.
    }
  }
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    wanted_ = true;
  }
  cv_.notify_all();
}

Status BackgroundFlush::Drain() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return !wanted_ && !running_; });
  if (error_ == 0) return Status::Ok();
  return Status::IoError("fdatasync " + name_ +
                         " (in the background, after a commit): " + std::strerror(error_))
      .WithOrigin(ErrorOrigin::kStorage);
}

void BackgroundFlush::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return wanted_ || stop_; });
    if (stop_) return;
    wanted_ = false;
    running_ = true;
    lock.unlock();
    const int rc = ::fdatasync(fd_);
    const int err = rc == 0 ? 0 : errno;
    lock.lock();
    running_ = false;
    if (err != 0 && error_ == 0) error_ = err;
    cv_.notify_all();
  }
}

}  // namespace dirload
