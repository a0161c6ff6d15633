// The command-line side of the options every database command shares (-f,
// -F, -n, -b, --db, --backend, --schema, --index and the engine settings):
// registering them with CLI11 and handing them to lib/config/
// database_config.h, which resolves them against the configuration.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lib/config/database_config.h"
#include "lib/db/database.h"
#include "lib/index/index_builder.h"
#include "lib/util/status.h"

namespace dirload::tools {

struct DatabaseArgs {
  std::string config_file;  // -f
  std::string config_dir;   // -F
  int database_number = 0;  // -n, when database_number_option was given
  CLI::Option* database_number_option = nullptr;
  std::string db_dir;
  std::string suffix;
  CLI::Option* suffix_option = nullptr;  // set when the options are registered
  // A DN that selects the database of the configuration without being -b:
  // the search command sets it to its base DN before ResolveDatabase.
  std::optional<std::string> select_dn;
  std::string backend;  // empty: from the configuration, the existing database, or lmdb
  std::vector<std::string> schema_files;
  std::string cache_size;
  std::string mmap_size;
  bool mmap = false;
  std::string id2entry_priority;
  uint32_t page_size = 0;
  bool durable = false;
  bool verbose = false;
  std::vector<std::string> index_lines;  // --index "attr[,attr] kinds"
};

// How phase 2 builds (add, index).
struct IndexBuildArgs {
  std::string method = "sort";
  uint64_t idl_cache_size = 1u << 20;
  std::string sort_memory = "512M";
  std::string tmpdir;
};

// Registers the shared options on `cmd`; `engine_options` adds the cache and
// engine settings (commands that only read skip them).
// `with_suffix` registers -b/--suffix (search uses -b for its base instead,
// and passes it as DatabaseArgs::select_dn).
void AddDatabaseOptions(CLI::App* cmd, DatabaseArgs* args, bool engine_options,
                        bool with_suffix = true);

// The options as lib/ takes them.
DatabaseOptions ToDatabaseOptions(const DatabaseArgs& args);
// What Database::Open takes to open the database for `access`.
OpenOptions ToOpenOptions(const DatabaseArgs& args, Access access);

// Prints the warnings, and with `verbose` the notes, to stderr.
void PrintNotes(const ResolvedDatabase& db, bool verbose);
void PrintNotes(const std::vector<const ResolvedDatabase*>& dbs, bool verbose);

void AddIndexBuildOptions(CLI::App* cmd, IndexBuildArgs* args);

// dirload::ResolveDatabase on the parsed options. `creating`: the database
// may not exist yet. (BuildSchema and BuildIndexConfig are dirload's own.)
Result<ResolvedDatabase> ResolveDatabase(const DatabaseArgs& args, bool creating);

Result<IndexRunOptions> ResolveIndexBuild(const IndexBuildArgs& args);

}  // namespace dirload::tools
