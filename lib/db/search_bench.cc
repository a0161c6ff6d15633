#include "lib/db/search_bench.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "lib/db/database.h"
#include "lib/search/filter.h"
#include "lib/util/latency.h"
#include "lib/util/request_values.h"

namespace dirload {
namespace {

using Clock = std::chrono::steady_clock;

// What a worker sends back through its pipe: first one byte when its
// session is open (or a failure), then, after the run, this header, the
// first error's text and one latency (microseconds) per request.
struct WorkerHeader {
  uint64_t requests = 0;
  uint64_t entries = 0;
  uint64_t errors = 0;
  uint64_t elapsed_ns = 0;
  uint64_t error_length = 0;
};

constexpr char kReady = 'r';
constexpr char kFailed = 'f';

bool WriteAll(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

bool ReadAll(int fd, void* data, size_t size) {
  char* p = static_cast<char*>(data);
  while (size > 0) {
    ssize_t n = ::read(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

// A database opened for searching, with the indexes it may use sorted out
// already, so that no request pays for that.
Result<std::unique_ptr<Database>> OpenForSearch(OpenOptions open) {
  open.access = Access::kRead;
  DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<Database> db, Database::Open(open));
  DIRLOAD_RETURN_IF_ERROR(db->UnusableIndexes().status());
  return db;
}

// The body of worker `index` of `count`; never returns.
[[noreturn]] void Worker(const OpenOptions& open, const SearchBenchOptions& o, int index, int count,
                         int go_fd, int out_fd) {
  Result<std::unique_ptr<Database>> opened = OpenForSearch(open);
  if (!opened.ok()) {
    std::string m(opened.status().message());
    WriteAll(out_fd, &kFailed, 1);
    WriteAll(out_fd, m.data(), m.size());
    ::_exit(1);
  }
  Database& db = **opened;
  const std::string base = o.base.empty() ? db.suffix() : o.base;
  WriteAll(out_fd, &kReady, 1);
  char go = 0;
  if (!ReadAll(go_fd, &go, 1)) ::_exit(1);

  WorkerHeader h;
  std::string first_error;
  std::vector<uint32_t> latency_us;
  const size_t n = o.values.size();
  size_t next = n == 0 ? 0 : static_cast<size_t>(index) * n / static_cast<size_t>(count);
  const Clock::time_point start = Clock::now();
  const Clock::time_point deadline =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.seconds));
  uint64_t entries = 0;
  auto count_entry = [&entries](EntryId, const EntryView&) -> Status {
    ++entries;
    return Status::Ok();
  };
  for (;;) {
    const Clock::time_point t0 = Clock::now();
    if (o.requests == 0 ? t0 >= deadline : h.requests >= o.requests) break;
    // Without values the template has no %s (search_command checks): it is
    // the filter as it stands.
    std::string text = FillFilterTemplate(o.filter_template, n > 0 ? o.values[next] : "");
    if (n > 0) next = next + 1 == n ? 0 : next + 1;
    SearchRequest req;
    req.base = base;
    req.scope = o.scope;
    req.use_indexes = o.use_indexes;
    Status st;
    Result<Filter> filter = ParseFilter(text);
    if (filter.ok()) {
      req.filter = std::move(*filter);
      entries = 0;
      Result<SearchResult> r = db.Search(std::move(req), count_entry);
      if (r.ok()) h.entries += entries;
      st = r.status();
    } else {
      st = filter.status();
    }
    if (!st.ok()) {
      if (h.errors++ == 0) first_error = text + ": " + std::string(st.message());
    }
    ++h.requests;
    const auto us = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t0);
    latency_us.push_back(static_cast<uint32_t>(std::min<int64_t>(us.count(), UINT32_MAX)));
  }
  h.elapsed_ns = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count());
  h.error_length = first_error.size();
  bool ok = WriteAll(out_fd, &h, sizeof h) &&
            WriteAll(out_fd, first_error.data(), first_error.size()) &&
            WriteAll(out_fd, latency_us.data(), latency_us.size() * sizeof(uint32_t));
  ::_exit(ok ? 0 : 1);
}

struct WorkerProcess {
  pid_t pid = -1;
  int out_fd = -1;
};

// Reaps every started worker, killing those still running: no worker
// outlives a run, whatever went wrong.
class WorkerGroup {
 public:
  ~WorkerGroup() {
    for (WorkerProcess& w : workers_) {
      if (w.out_fd >= 0) ::close(w.out_fd);
      if (w.pid > 0) {
        ::kill(w.pid, SIGKILL);
        ::waitpid(w.pid, nullptr, 0);
      }
    }
    if (go_fd_ >= 0) ::close(go_fd_);
  }
  std::vector<WorkerProcess>& workers() { return workers_; }
  int& go_fd() { return go_fd_; }

  // Waits for `w` to exit; true when it exited with status 0.
  bool Reap(WorkerProcess& w) {
    int status = 0;
    pid_t pid = w.pid;
    w.pid = -1;
    return ::waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }

 private:
  std::vector<WorkerProcess> workers_;
  int go_fd_ = -1;
};

Status BenchError(std::string message) {
  return Status::IoError("search --bench: " + std::move(message)).WithOrigin(ErrorOrigin::kStorage);
}

Result<SearchBenchRun> RunOnce(const OpenOptions& open, const SearchBenchOptions& o, int count) {
  WorkerGroup group;
  int go[2];
  if (::pipe(go) != 0) return BenchError(std::string("pipe: ") + std::strerror(errno));
  group.go_fd() = go[1];
  for (int i = 0; i < count; ++i) {
    int out[2];
    if (::pipe(out) != 0) {
      ::close(go[0]);
      return BenchError(std::string("pipe: ") + std::strerror(errno));
    }
    pid_t pid = ::fork();
    if (pid < 0) {
      ::close(go[0]);
      ::close(out[0]);
      ::close(out[1]);
      return BenchError(std::string("fork: ") + std::strerror(errno));
    }
    if (pid == 0) {
      ::close(out[0]);
      ::close(go[1]);
      for (const WorkerProcess& w : group.workers()) ::close(w.out_fd);
      Worker(open, o, i, count, go[0], out[1]);
    }
    ::close(out[1]);
    group.workers().push_back({pid, out[0]});
  }
  ::close(go[0]);
  for (WorkerProcess& w : group.workers()) {
    char c = 0;
    if (!ReadAll(w.out_fd, &c, 1)) return BenchError("a worker died while opening the database");
    if (c != kReady) {
      std::string message;
      char buf[512];
      ssize_t got;
      while ((got = ::read(w.out_fd, buf, sizeof buf)) > 0) message.append(buf, got);
      return BenchError("a worker could not open the database: " + message);
    }
  }
  // Every session is open: start them all at once.
  const std::string go_bytes(static_cast<size_t>(count), 'g');
  if (!WriteAll(group.go_fd(), go_bytes.data(), go_bytes.size())) {
    return BenchError("could not start the workers");
  }
  SearchBenchRun run;
  run.workers = count;
  std::vector<uint32_t> latency_us;
  for (WorkerProcess& w : group.workers()) {
    WorkerHeader h;
    if (!ReadAll(w.out_fd, &h, sizeof h)) return BenchError("a worker died during the run");
    std::string error(h.error_length, '\0');
    size_t before = latency_us.size();
    latency_us.resize(before + h.requests);
    if (!ReadAll(w.out_fd, error.data(), error.size()) ||
        !ReadAll(w.out_fd, latency_us.data() + before, h.requests * sizeof(uint32_t))) {
      return BenchError("a worker's results were cut short");
    }
    if (!group.Reap(w)) return BenchError("a worker failed after its run");
    run.requests += h.requests;
    run.entries += h.entries;
    run.errors += h.errors;
    if (run.first_error.empty()) run.first_error = error;
    run.seconds = std::max(run.seconds, static_cast<double>(h.elapsed_ns) / 1e9);
  }
  if (run.seconds > 0) run.requests_per_second = static_cast<double>(run.requests) / run.seconds;
  LatencySummary l = SummarizeLatencies(latency_us);
  run.mean_ms = l.mean_ms;
  run.p50_ms = l.p50_ms;
  run.p99_ms = l.p99_ms;
  run.max_ms = l.max_ms;
  return run;
}

}  // namespace

Result<std::vector<SearchBenchRun>> RunSearchBench(const OpenOptions& open,
                                                   const SearchBenchOptions& options) {
  // Opened once here first, so that a database that cannot be searched
  // fails with the error a plain search gives, before any worker starts.
  {
    DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<Database> check, OpenForSearch(open));
    DIRLOAD_RETURN_IF_ERROR(
        ParseFilter(FillFilterTemplate(options.filter_template,
                                       options.values.empty() ? "" : options.values[0]))
            .status());
  }
  std::vector<SearchBenchRun> runs;
  for (int count : options.workers) {
    DIRLOAD_ASSIGN_OR_RETURN(SearchBenchRun run, RunOnce(open, options, count));
    runs.push_back(std::move(run));
  }
  return runs;
}

}  // namespace dirload
