// dirload-gen: writes the synthetic benchmark directory as LDIF.
//
//   dirload-gen --entries 285000 --seed 1 -o dir.ldif [--gzip]
//   dirload-gen --entries 285000 --seed 1 --changes modify=100000,modrdn=10000,delete=10000
//               -o changes.ldif
//
// The bytes depend only on --entries, --seed and --suffix (see
// bench/ldif_generator.h), so a size and seed name one workload everywhere.
// With --changes the output is change records against that directory
// instead (bench/change_generator.h), which depend on the counts as well.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <string>

#include "bench/change_generator.h"
#include "bench/ldif_generator.h"
#include "lib/util/build_info.h"

int main(int argc, char** argv) {
  dirload::bench::GeneratorOptions options;
  std::string path = "-";
  bool gzip = false;
  std::string changes;

  CLI::App app{"Writes a deterministic synthetic directory as LDIF."};
  app.set_version_flag("--version", [] { return dirload::VersionText("dirload-gen", {}); });
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
  app.add_option("--changes", changes,
                 "Write change records against the directory instead: "
                 "modify=N,modrdn=N,delete=N (any of the three)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Usage errors exit 2, as dirload's and dirload-searchrate's do.
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }

  dirload::Status status;
  if (changes.empty()) {
    status = dirload::bench::GenerateLdifFile(options, path, gzip);
  } else {
    dirload::Result<dirload::bench::ChangeCounts> counts =
        dirload::bench::ParseChangeCounts(changes);
    status = counts.ok() ? dirload::bench::GenerateChangeFile(options, *counts, path, gzip)
                         : counts.status();
  }
  if (!status.ok()) {
    std::fprintf(stderr, "dirload-gen: %s\n", status.ToString().c_str());
    return 1;
  }
  return 0;
}
