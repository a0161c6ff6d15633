// The dirload command: CLI11 subcommands over lib/. Exceptions from CLI11 are
// caught here and nowhere else.
#include <CLI/CLI.hpp>

#include <cstdio>

int main(int argc, char** argv) {
  CLI::App app{"dirload: bulk loader, offline indexer and exporter for LDAP directory data"};
  app.set_version_flag("--version", "dirload 0.1.0");
  app.require_subcommand(1);
  CLI11_PARSE(app, argc, argv);
  return 0;
}
