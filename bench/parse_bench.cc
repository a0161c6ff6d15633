// dirload-parse-bench: how fast ldif::Reader turns a file into records.
//
//   dirload-parse-bench FILE [--repeat N] [--json]
//
// Each repeat parses the whole file; the medians of wall and CPU time are
// reported with MB/s (10^6 uncompressed bytes) and records/s. A second pass
// reads the same file through ldif::OpenByteSource alone, discarding the
// blocks: for gzip input that is the cost of inflate, for plain input the
// cost of read(2), so one can see whether parsing is bound by its input.
// Both passes are checked to have consumed the same number of uncompressed
// bytes, and the parse pass counts attributes and value bytes, so neither
// can quietly skip work.
#include <sys/resource.h>
#include <time.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "ldif/byte_source.h"
#include "ldif/reader.h"
#include "ldif/record.h"
#include "lib/util/json.h"

namespace dirload::bench {
namespace {

double Seconds(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

struct Pass {
  double wall = 0;
  double cpu = 0;
  uint64_t records = 0;
  uint64_t attributes = 0;
  uint64_t value_bytes = 0;
  uint64_t bytes = 0;             // uncompressed bytes consumed
  uint64_t compressed_bytes = 0;  // input file size
  bool gzip = false;
};

Result<Pass> ParseOnce(const std::string& path) {
  Pass pass;
  double wall0 = Seconds(CLOCK_MONOTONIC);
  double cpu0 = Seconds(CLOCK_PROCESS_CPUTIME_ID);
  DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<ldif::ByteSource> source, ldif::OpenByteSource(path));
  pass.gzip = source->compressed();
  ldif::Reader reader(std::move(source));
  ldif::Record record;
  while (true) {
    DIRLOAD_ASSIGN_OR_RETURN(bool more, reader.Next(&record));
    if (!more) break;
    ++pass.records;
    pass.attributes += record.size();
    pass.value_bytes += record.dn().size();
    for (size_t i = 0; i < record.size(); ++i) {
      const ldif::AttributeView a = record.attribute(i);
      pass.value_bytes += a.description.size() + a.value.size();
    }
  }
  pass.wall = Seconds(CLOCK_MONOTONIC) - wall0;
  pass.cpu = Seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
  pass.bytes = reader.bytes_parsed();
  pass.compressed_bytes = reader.input_size();
  return pass;
}

Result<Pass> ReadOnce(const std::string& path) {
  Pass pass;
  double wall0 = Seconds(CLOCK_MONOTONIC);
  double cpu0 = Seconds(CLOCK_PROCESS_CPUTIME_ID);
  DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<ldif::ByteSource> source, ldif::OpenByteSource(path));
  pass.gzip = source->compressed();
  std::vector<char> block(size_t{1} << 20);
  while (true) {
    DIRLOAD_ASSIGN_OR_RETURN(size_t n, source->Read(block.data(), block.size()));
    if (n == 0) break;
    pass.bytes += n;
  }
  pass.wall = Seconds(CLOCK_MONOTONIC) - wall0;
  pass.cpu = Seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
  pass.compressed_bytes = source->input_size();
  return pass;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct Summary {
  double wall = 0;
  double cpu = 0;
};

// Runs `once` `repeat` times; every run must agree on what it consumed.
template <typename Fn>
Result<Pass> Measure(Fn once, const std::string& path, int repeat, Summary* summary) {
  std::vector<double> walls, cpus;
  Pass first;
  for (int i = 0; i < repeat; ++i) {
    DIRLOAD_ASSIGN_OR_RETURN(Pass pass, once(path));
    if (i == 0) {
      first = pass;
    } else if (pass.bytes != first.bytes || pass.records != first.records) {
      return Status::Internal(path + ": repeat " + std::to_string(i + 1) +
                              " consumed a different amount of input than the first");
    }
    walls.push_back(pass.wall);
    cpus.push_back(pass.cpu);
  }
  summary->wall = Median(walls);
  summary->cpu = Median(cpus);
  return first;
}

double Rate(double amount, double seconds) { return seconds > 0 ? amount / seconds : 0; }

double PeakRssMb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is KiB on Linux
}

int Run(const std::string& path, int repeat, bool json) {
  Summary parse_time, raw_time;
  Result<Pass> parse = Measure(ParseOnce, path, repeat, &parse_time);
  if (!parse.ok()) {
    std::fprintf(stderr, "dirload-parse-bench: %s\n", parse.status().ToString().c_str());
    return 1;
  }
  Result<Pass> raw = Measure(ReadOnce, path, repeat, &raw_time);
  if (!raw.ok()) {
    std::fprintf(stderr, "dirload-parse-bench: %s\n", raw.status().ToString().c_str());
    return 1;
  }
  if (raw->bytes != parse->bytes) {
    std::fprintf(stderr,
                 "dirload-parse-bench: %s: the reader consumed %llu bytes but the source holds "
                 "%llu\n",
                 path.c_str(), static_cast<unsigned long long>(parse->bytes),
                 static_cast<unsigned long long>(raw->bytes));
    return 1;
  }

  const double mb = static_cast<double>(parse->bytes) / 1e6;
  const double records = static_cast<double>(parse->records);
  const char* raw_name = parse->gzip ? "inflate only" : "read only";

  std::printf("file              %s\n", path.c_str());
  std::printf("input             %s, %.2f MB on disk\n", parse->gzip ? "gzip" : "plain",
              static_cast<double>(parse->compressed_bytes) / 1e6);
  std::printf("records           %llu (%llu attribute values, %.2f MB of DNs, types and values)\n",
              static_cast<unsigned long long>(parse->records),
              static_cast<unsigned long long>(parse->attributes),
              static_cast<double>(parse->value_bytes) / 1e6);
  std::printf("uncompressed      %.2f MB\n", mb);
  std::printf("repeats           %d (medians below)\n", repeat);
  std::printf("%-14s %9s %9s %9s %11s\n", "pass", "wall s", "cpu s", "MB/s", "records/s");
  std::printf("%-14s %9.3f %9.3f %9.1f %11.0f\n", "parse", parse_time.wall, parse_time.cpu,
              Rate(mb, parse_time.wall), Rate(records, parse_time.wall));
  std::printf("%-14s %9.3f %9.3f %9.1f %11s\n", raw_name, raw_time.wall, raw_time.cpu,
              Rate(mb, raw_time.wall), "-");
  std::printf("%s share of parse wall time: %.0f%%\n", raw_name,
              parse_time.wall > 0 ? 100.0 * raw_time.wall / parse_time.wall : 0.0);
  std::printf("peak RSS          %.1f MB\n", PeakRssMb());

  if (json) {
    std::printf(
        "{\"file\":%s,\"gzip\":%s,\"repeat\":%d,\"records\":%llu,\"attributes\":%llu,"
        "\"uncompressed_bytes\":%llu,\"input_bytes\":%llu,"
        "\"parse\":{\"wall_s\":%.6f,\"cpu_s\":%.6f,\"mb_per_s\":%.3f,\"records_per_s\":%.1f},"
        "\"%s\":{\"wall_s\":%.6f,\"cpu_s\":%.6f,\"mb_per_s\":%.3f},\"peak_rss_mb\":%.1f}\n",
        JsonString(path).c_str(), parse->gzip ? "true" : "false", repeat,
        static_cast<unsigned long long>(parse->records),
        static_cast<unsigned long long>(parse->attributes),
        static_cast<unsigned long long>(parse->bytes),
        static_cast<unsigned long long>(parse->compressed_bytes), parse_time.wall, parse_time.cpu,
        Rate(mb, parse_time.wall), Rate(records, parse_time.wall), parse->gzip ? "inflate" : "read",
        raw_time.wall, raw_time.cpu, Rate(mb, raw_time.wall), PeakRssMb());
  }
  return 0;
}

}  // namespace
}  // namespace dirload::bench

int main(int argc, char** argv) {
  std::string path;
  int repeat = 3;
  bool json = false;

  CLI::App app{"Measures ldif::Reader parse speed on an LDIF file (plain or gzip)."};
  app.add_option("file", path, "LDIF file, plain or gzip")->required();
  app.add_option("--repeat", repeat, "Runs per pass; medians are reported")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_flag("--json", json, "Also print the results as one JSON line");
  CLI11_PARSE(app, argc, argv);

  return dirload::bench::Run(path, repeat, json);
}
