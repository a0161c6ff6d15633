// BackgroundFlush: makes a file durable on a thread of its own while the
// file is still being written, so that the final sync has little left to do.
//
// Why: a sync waits for more than the pages the kernel still holds. The disk
// keeps what it was sent in its own cache until a flush, and a flush writes
// everything sent since the last one. On the machine dirload is measured on
// (a virtual disk whose host caches writes), fdatasync of a freshly written
// 400 MB file took 0.14 s even a second after every page had been sent, and
// a load that synced once at its end waited that long with both cores idle.
// Flushed after each commit, beside the work, the final sync finds almost
// nothing left.
//
// The first error a background flush meets is kept and returned by Drain:
// after a failed fdatasync the kernel may report the next one as clean even
// though the pages were lost.
//
// Thread safety: Kick and Drain from one thread (the store's writer).
#pragma once

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "lib/util/status.h"

namespace dirload {

class BackgroundFlush {
 public:
  // `fd` stays the caller's, open until this object is destroyed; `name`
  // (the file's path) is for messages.
  BackgroundFlush(int fd, std::string name);
  ~BackgroundFlush();  // waits for a flush in progress
  BackgroundFlush(const BackgroundFlush&) = delete;
  BackgroundFlush& operator=(const BackgroundFlush&) = delete;

  // After a commit: starts the pages written so far towards the disk
  // (sync_file_range, without waiting) and asks the thread for a flush,
  // unless one is asked for already. Without a thread (none could be
  // started) only the first.
  void Kick();
  // Waits until no flush runs or is asked for; the first error a background
  // flush met, if any.
  Status Drain();

 private:
  void Loop();

  const int fd_;
  const std::string name_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool wanted_ = false;   // guarded by mu_
  bool running_ = false;  // guarded by mu_
  bool stop_ = false;     // guarded by mu_
  int error_ = 0;         // guarded by mu_: the first failure's errno
  bool started_ = false;  // the writer's: the thread was tried
  std::thread thread_;
};

}  // namespace dirload
