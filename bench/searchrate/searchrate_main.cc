// dirload-searchrate: a search-rate load generator for an LDAP server, for
// measuring what slapd serves from a database dirload loaded.
//
//   dirload-searchrate -H ldap://127.0.0.1:3890 -b dc=example,dc=com
//       --filter '(uid=%s)' --values uids.txt --clients 4 --duration 10 --json
//
// One connection per client, each on its own thread, with --async searches
// outstanding on each. Exit status: 0 after a run, 1 when a client lost its
// connection mid-run (its outstanding searches are counted as failed), 2 when
// the run could not start (options, value file, connect or bind).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "bench/searchrate/client_loop.h"
#include "bench/searchrate/ldap_connection.h"
#include "bench/searchrate/options.h"
#include "bench/searchrate/report.h"
#include "bench/searchrate/statistics.h"
#include "bench/searchrate/value_source.h"

namespace dirload::searchrate {
namespace {

int Fail(const Status& status) {
  std::fprintf(stderr, "dirload-searchrate: %s\n", status.ToString().c_str());
  return 2;
}

// Prints a progress line every --interval seconds until every client is done.
void ReportIntervals(const Options& o, const RunClock& clock, std::vector<IntervalBuffer>& buffers,
                     const std::atomic<int>& running) {
  std::FILE* out = o.json ? stderr : stdout;  // keep stdout one JSON object
  Clock::time_point last = clock.measure_from;
  while (running.load() > 0) {
    Clock::time_point next = last + std::chrono::duration_cast<Clock::duration>(
                                        std::chrono::duration<double>(o.interval));
    while (running.load() > 0 && Clock::now() < next) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    Clock::time_point now = Clock::now();
    std::vector<uint32_t> samples;
    uint64_t errors = 0;
    for (IntervalBuffer& b : buffers) b.Take(&samples, &errors);
    if (now > clock.measure_from) {
      PrintInterval(out, std::chrono::duration<double>(now - clock.measure_from).count(),
                    std::chrono::duration<double>(now - std::max(last, clock.measure_from)).count(),
                    samples, errors);
    }
    last = now;
  }
}

int Run(const Options& o) {
  if (Status s = Validate(o); !s.ok()) return Fail(s);
  Result<ValueFile> values = ValueFile::Load(o.values_path);
  if (!values.ok()) return Fail(values.status());

  // Every connection is open and bound before the clock starts, so the
  // measurement holds searches only, and a dead server fails the run at once.
  std::vector<LdapPtr> connections;
  for (int c = 0; c < o.clients; ++c) {
    Result<LdapPtr> ld = Connect(o.uri, o.bind_dn, o.password, o.timeout);
    if (!ld.ok()) return Fail(ld.status());
    connections.push_back(std::move(ld).value());
  }

  RunClock clock;
  auto seconds = [](double s) {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
  };
  clock.start = Clock::now();
  clock.measure_from = clock.start + seconds(o.warmup);
  clock.stop = clock.measure_from + seconds(o.duration);

  std::vector<ClientStats> stats(o.clients);
  std::vector<IntervalBuffer> buffers(o.clients);
  std::atomic<int> running{o.clients};
  std::vector<std::thread> threads;
  for (int c = 0; c < o.clients; ++c) {
    threads.emplace_back([&, c] {
      stats[c] = RunClient(connections[c].get(), o, values->values(), c + 1, clock, &buffers[c]);
      running.fetch_sub(1);
    });
  }
  if (o.interval > 0) ReportIntervals(o, clock, buffers, running);
  for (std::thread& t : threads) t.join();

  ClientStats total;
  for (const ClientStats& s : stats) Merge(s, &total);
  if (!o.csv_path.empty()) {
    if (Status s = WriteCsv(o.csv_path, stats, total); !s.ok()) return Fail(s);
  }
  if (o.json) {
    PrintJson(stdout, stats, total);
  } else {
    PrintSummary(stdout, stats, total);
  }
  for (const ClientStats& s : stats) {
    if (!s.stopped.empty()) {
      std::fprintf(stderr, "dirload-searchrate: a client stopped early: %s\n", s.stopped.c_str());
      return 1;
    }
  }
  return 0;
}

}  // namespace
}  // namespace dirload::searchrate

int main(int argc, char** argv) {
  using dirload::searchrate::Options;
  Options o;
  std::string scope = "sub", order = "sequential", attrs;
  CLI::App app{
      "Search-rate load generator: --clients connections, each on its own thread, "
      "with --async searches outstanding on each; the filter takes the next value of "
      "--values for each search."};
  app.set_version_flag("--version", [] {
    return dirload::VersionText("dirload-searchrate", {dirload::searchrate::LdapLibraryVersion()});
  });
  app.add_option("-H,--uri", o.uri, "LDAP URI of the server")->capture_default_str();
  app.add_option("-b,--base", o.base, "search base DN");
  app.add_option("-s,--scope", scope, "base, one or sub")->capture_default_str();
  app.add_option("--filter", o.filter_template, "filter template; each %s takes the next value")
      ->required();
  app.add_option("--values", o.values_path, "file of values, one per line")->required();
  app.add_option("--order", order,
                 "sequential, reverse, random (a shuffle per pass) or "
                 "alternate (odd-numbered clients sequential, even-numbered reverse)")
      ->capture_default_str();
  app.add_option("--offset", o.offset, "position in its order at which the first client starts")
      ->capture_default_str();
  app.add_option("--client-offset", o.client_offset,
                 "each next client starts this many values further on")
      ->capture_default_str();
  app.add_option("--seed", o.seed, "seed of --order random (client c uses seed + c)")
      ->capture_default_str();
  app.add_flag("--raw-values", o.raw_values,
               "put values into the filter as they are (wildcards stay wildcards) instead of "
               "escaping them as RFC 4515 asks");
  app.add_option("--attrs", attrs,
                 "attributes to return, comma-separated (default all; 1.1: none)");
  app.add_option("--clients", o.clients, "connections, each on its own thread")
      ->capture_default_str();
  app.add_option("--async", o.async, "searches outstanding per connection")->capture_default_str();
  auto* requests =
      app.add_option("--requests", o.requests, "searches per client after the warm-up");
  app.add_option("--duration", o.duration, "seconds to run after the warm-up")
      ->capture_default_str()
      ->excludes(requests);
  app.add_option("--warmup", o.warmup, "seconds whose results are left out")->capture_default_str();
  app.add_option("--interval", o.interval, "seconds between progress lines (0: none)")
      ->capture_default_str();
  app.add_option("--timeout", o.timeout, "seconds to wait for the connect and for any answer")
      ->capture_default_str();
  app.add_option("--bind", o.bind_dn, "DN to bind as (default anonymous)");
  app.add_option("--password", o.password, "password of --bind");
  app.add_flag("--json", o.json, "print the result as one JSON object");
  app.add_option("--csv", o.csv_path, "also write a CSV row per client and one for the total");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Usage errors exit 2 like every other failure to start.
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  auto parsed_scope = dirload::searchrate::ParseScope(scope);
  if (!parsed_scope.ok()) return dirload::searchrate::Fail(parsed_scope.status());
  o.scope = *parsed_scope;
  auto parsed_order = dirload::searchrate::ParseOrder(order);
  if (!parsed_order.ok()) return dirload::searchrate::Fail(parsed_order.status());
  o.order = *parsed_order;
  for (size_t p = 0; p < attrs.size();) {
    size_t e = attrs.find(',', p);
    if (e == std::string::npos) e = attrs.size();
    if (e > p) o.attrs.push_back(attrs.substr(p, e - p));
    p = e + 1;
  }
  return dirload::searchrate::Run(o);
}
