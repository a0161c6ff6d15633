#include "bench/searchrate/report.h"

#include <cinttypes>
#include <memory>

#include "lib/util/json.h"

namespace dirload::searchrate {
namespace {

double Rate(uint64_t n, double seconds) { return seconds > 0 ? n / seconds : 0; }

void PrintLatency(std::FILE* out, const LatencySummary& l) {
  std::fprintf(out, "{\"mean\": %.3f, \"p50\": %.3f, \"p90\": %.3f, \"p99\": %.3f, \"max\": %.3f}",
               l.mean_ms, l.p50_ms, l.p90_ms, l.p99_ms, l.max_ms);
}

// {"32": 5, ...}: the non-success result codes and their counts.
void PrintErrors(std::FILE* out, const ClientStats& s) {
  std::fprintf(out, "{");
  const char* sep = "";
  for (const auto& [code, count] : s.codes) {
    if (code == 0) continue;
    std::fprintf(out, "%s\"%d\": %" PRIu64, sep, code, count);
    sep = ", ";
  }
  std::fprintf(out, "}");
}

// The fields a client and the total share.
void PrintCounts(std::FILE* out, ClientStats& s) {
  std::fprintf(out,
               "\"requests\": %" PRIu64 ", \"warmup_requests\": %" PRIu64 ", \"entries\": %" PRIu64
               ", \"references\": %" PRIu64 ", \"errors_total\": %" PRIu64 ", \"errors\": ",
               s.requests, s.warmup_requests, s.entries, s.references, s.Errors());
  PrintErrors(out, s);
  std::fprintf(out, ", \"seconds\": %.3f, \"requests_per_second\": %.1f, \"max_outstanding\": %d",
               s.seconds, Rate(s.requests, s.seconds), s.max_outstanding);
  std::fprintf(out, ", \"latency_ms\": ");
  PrintLatency(out, Summarize(s.latency_us));
}

}  // namespace

void PrintInterval(std::FILE* out, double at, double span, std::vector<uint32_t>& samples,
                   uint64_t errors) {
  const size_t n = samples.size();
  LatencySummary l = Summarize(samples);
  std::fprintf(out, "%7.1f s %10.1f req/s   mean %.3f ms   p99 %.3f ms   errors %" PRIu64 "\n", at,
               Rate(n, span), l.mean_ms, l.p99_ms, errors);
  std::fflush(out);
}

void PrintSummary(std::FILE* out, const std::vector<ClientStats>& clients, ClientStats& total) {
  LatencySummary l = Summarize(total.latency_us);
  std::fprintf(out, "clients %zu   requests %" PRIu64 "   entries %" PRIu64 "   seconds %.3f\n",
               clients.size(), total.requests, total.entries, total.seconds);
  std::fprintf(out, "requests/s %.1f   per client %.1f\n", Rate(total.requests, total.seconds),
               Rate(total.requests, total.seconds) / static_cast<double>(clients.size()));
  std::fprintf(out, "latency ms: mean %.3f  p50 %.3f  p90 %.3f  p99 %.3f  max %.3f\n", l.mean_ms,
               l.p50_ms, l.p90_ms, l.p99_ms, l.max_ms);
  for (const auto& [code, count] : total.codes) {
    std::fprintf(out, "result %d: %" PRIu64 "\n", code, count);
  }
  for (size_t i = 0; i < clients.size(); ++i) {
    if (!clients[i].stopped.empty()) {
      std::fprintf(out, "client %zu stopped early: %s\n", i + 1, clients[i].stopped.c_str());
    }
  }
}

void PrintJson(std::FILE* out, const std::vector<ClientStats>& clients, ClientStats& total) {
  std::fprintf(out, "{\"clients\": %zu, ", clients.size());
  PrintCounts(out, total);
  std::fprintf(out, ", \"per_client\": [");
  for (size_t i = 0; i < clients.size(); ++i) {
    ClientStats copy = clients[i];
    std::fprintf(out, "%s{\"client\": %zu, ", i ? ", " : "", i + 1);
    PrintCounts(out, copy);
    std::fprintf(out, ", \"stopped\": %s}", JsonString(copy.stopped).c_str());
  }
  std::fprintf(out, "]}\n");
}

Status WriteCsv(const std::string& path, const std::vector<ClientStats>& clients,
                ClientStats& total) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "w"), &std::fclose);
  if (!f) return Status::IoError("--csv " + path + ": cannot create the file");
  std::fprintf(f.get(),
               "client,requests,entries,errors,seconds,requests_per_second,mean_ms,p50_ms,"
               "p90_ms,p99_ms,max_ms\n");
  auto row = [&](const std::string& name, ClientStats& s) {
    LatencySummary l = Summarize(s.latency_us);
    std::fprintf(f.get(),
                 "%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.3f,%.1f,%.3f,%.3f,%.3f,%.3f,%.3f\n",
                 name.c_str(), s.requests, s.entries, s.Errors(), s.seconds,
                 Rate(s.requests, s.seconds), l.mean_ms, l.p50_ms, l.p90_ms, l.p99_ms, l.max_ms);
  };
  for (size_t i = 0; i < clients.size(); ++i) {
    ClientStats copy = clients[i];
    row(std::to_string(i + 1), copy);
  }
  row("total", total);
  if (std::ferror(f.get())) return Status::IoError("--csv " + path + ": write error");
  return Status::Ok();
}

}  // namespace dirload::searchrate
