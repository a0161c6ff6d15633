// Options every database command shares (-f, --db, --suffix, --backend,
// --schema and the engine settings) and how they resolve against slapd.conf:
// an option given on the command line wins over the file.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "lib/index/index_spec.h"
#include "lib/pipeline/indexer.h"
#include "lib/pipeline/slapd_config.h"
#include "lib/schema/schema.h"
#include "lib/store/store.h"
#include "lib/util/status.h"

namespace dirload::tools {

struct DatabaseArgs {
  std::string config_file;
  std::string db_dir;
  std::string suffix;
  CLI::Option* suffix_option = nullptr;  // set when the options are registered
  std::string backend;                   // empty: from slapd.conf, the existing database, or lmdb
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
// `with_suffix` registers -b/--suffix (search uses -b for its base instead).
void AddDatabaseOptions(CLI::App* cmd, DatabaseArgs* args, bool engine_options,
                        bool with_suffix = true);

struct ResolvedDatabase {
  std::string config_path;  // -f, or empty
  std::string dir;
  std::string suffix;
  bool has_suffix = false;  // the empty DN is a valid suffix
  Backend backend = Backend::kLmdb;
  StoreOptions store_options;
  std::vector<std::string> schema_files;  // empty: built-in schema
  std::vector<SlapdConfig::IndexLine> index_lines;
  std::vector<std::string> notes;     // what slapd.conf said that dirload ignores (-v)
  std::vector<std::string> warnings;  // what the user must know even without -v
};

// Prints the warnings, and with `verbose` the notes, to stderr.
void PrintNotes(const ResolvedDatabase& db, bool verbose);

void AddIndexBuildOptions(CLI::App* cmd, IndexBuildArgs* args);

// Applies slapd.conf (when -f) and the options. `creating`: the database may
// not exist yet.
Result<ResolvedDatabase> ResolveDatabase(const DatabaseArgs& args, bool creating);

// The built-in schema, or the system schema plus the given .schema files.
Result<std::unique_ptr<Schema>> BuildSchema(const ResolvedDatabase& db);

// The index configuration: slapd.conf `index` lines, then --index options.
Result<IndexConfig> BuildIndexConfig(const Schema& schema, const ResolvedDatabase& db);

Result<IndexRunOptions> ResolveIndexBuild(const IndexBuildArgs& args);

}  // namespace dirload::tools
