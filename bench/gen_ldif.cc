// dirload-gen: writes the synthetic benchmark directory as LDIF.
//
//   dirload-gen --entries 285000 --seed 1 -o dir.ldif [--gzip]
//
// The bytes depend only on --entries, --seed and --suffix (see
// bench/ldif_generator.h), so a size and seed name one workload everywhere.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <string>

#include "bench/ldif_generator.h"

int main(int argc, char** argv) {
  dirload::bench::GeneratorOptions options;
  std::string path = "-";
  bool gzip = false;

  CLI::App app{"Writes a deterministic synthetic directory as LDIF."};
  app.add_option("--entries", options.entries,
                 "Total entries, including the suffix, ous and groups")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--seed", options.seed, "Random seed")->capture_default_str();
  app.add_option("--suffix", options.suffix, "Suffix DN (first RDN dc=, o= or ou=)")
      ->capture_default_str();
  app.add_option("-o,--output", path, "Output file ('-' is standard output)")
      ->capture_default_str();
  app.add_flag("--gzip", gzip, "Compress the output with gzip");
  CLI11_PARSE(app, argc, argv);

  dirload::Status status = dirload::bench::GenerateLdifFile(options, path, gzip);
  if (!status.ok()) {
    std::fprintf(stderr, "dirload-gen: %s\n", status.ToString().c_str());
    return 1;
  }
  return 0;
}
