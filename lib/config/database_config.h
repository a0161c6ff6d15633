// Which database a command works on and with what settings: the options
// every database command shares (the configuration, -b, -n, --db, --suffix,
// --backend, --schema, --index and the engine settings) resolved against
// slapd.conf (-f) or slapd.d (-F). An option given on the command line wins
// over the configuration.
//
// Database selection follows slapadd:
//   -n N      the database numbered N (slapd_config.h: 0 is the config
//             database, then 1, 2, ... in order);
//   -b DN     the database whose suffix holds DN (the longest such suffix);
//   neither   the first database dirload can load (mdb, bdb/hdb) that is
//             not a glued subordinate (glue.h).
// Without a configuration, --db names the directory and -b is the suffix.
//
// Every error from the configuration (unreadable or malformed files, bad
// .schema files or index lines, a database that does not exist or cannot be
// loaded) is marked ErrorOrigin::kConfiguration; option misuse (-f with -F)
// ErrorOrigin::kUsage.
//
// Thread safety: pure functions.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lib/config/replication.h"
#include "lib/config/slapd_config.h"
#include "lib/index/index_spec.h"
#include "lib/schema/schema.h"
#include "lib/schema/schema_loader.h"
#include "lib/store/store.h"
#include "lib/util/status.h"

namespace dirload {

struct DatabaseOptions {
  std::string config_file;             // -f slapd.conf
  std::string config_dir;              // -F slapd.d
  std::optional<int> database_number;  // -n
  // -b: with a configuration, selects the database holding the DN; without
  // one, the suffix of the database.
  std::optional<std::string> suffix;
  // A DN that selects the database (with a configuration) without becoming
  // its suffix: a search's base. Used when `suffix` is not given.
  std::optional<std::string> select_dn;
  std::string db_dir;   // --db: overrides the configuration's directory
  std::string backend;  // empty: from the configuration, the existing database, or lmdb
  std::vector<std::string> schema_files;  // --schema: replaces the configuration's schema
  std::vector<std::string> index_lines;   // --index "attr[,attr] kinds", after the configuration's
  std::string cache_size;
  std::string mmap_size;
  bool mmap = false;
  std::string id2entry_priority;
  uint32_t page_size = 0;
  bool durable = false;
};

struct ResolvedDatabase {
  std::string config_path;    // -f or -F, or empty
  int database_number = 0;    // in the configuration; 0 without one
  std::string database_type;  // "mdb", "bdb"; empty without a configuration
  std::string dir;
  std::string suffix;
  bool has_suffix = false;  // the empty DN is a valid suffix
  std::string rootdn;
  bool lastmod = true;
  Backend backend = Backend::kLmdb;
  StoreOptions store_options;
  std::vector<std::string> schema_files;             // empty (and no definitions): built-in schema
  std::vector<SchemaDefinition> schema_definitions;  // from slapd.d
  std::vector<std::string> schema_names;             // "core", ... (what the schema came from)
  // Modules whose schema the database needs: the configuration's moduleload
  // names and this database's overlays, each once ("back_mdb", "ppolicy").
  std::vector<std::string> modules;
  std::vector<std::string> overlays;  // this database's, in order
  // The configuration's serverIDs and this database's replication overlays
  // and consumers (replication.h); empty without a configuration.
  ReplicationSetup replication;
  std::vector<std::string> envflags;
  IndexTuning index_tuning;
  std::vector<std::string> sortvals;         // the configuration's sortvals types
  std::vector<MultivalLine> multival;        // this database's multival lines
  AttributeOptions attribute_options;        // the configuration's; lang- tags without one
  std::vector<ConfigIndexLine> index_lines;  // the configuration's, then --index
  std::vector<std::string> notes;            // what the configuration said that dirload ignores
  std::vector<std::string> warnings;         // what the user must know even without -v
};

// Reads -f or -F; nullopt when neither is given.
Result<std::optional<SlapdConfig>> ReadConfiguration(const DatabaseOptions& options);

// Picks the database as slapadd does (see above). `dn` is -b (or a search
// base). Errors list what the configuration holds.
Result<const SlapdDatabase*> SelectDatabase(const SlapdConfig& config, std::optional<int> number,
                                            const std::optional<std::string>& dn);

// Compares DNs as configuration suffixes are compared: normalised with the
// built-in schema where it knows the types, else with case folded.
class SuffixComparer {
 public:
  SuffixComparer();
  // Whether `dn` is `suffix` or below it.
  bool Holds(std::string_view suffix, std::string_view dn) const;

 private:
  std::optional<Schema> schema_;
};

// Applies the configuration and the options. `creating`: the database may
// not exist yet.
Result<ResolvedDatabase> ResolveDatabase(const DatabaseOptions& options, bool creating);

// The built-in schema; or, when the configuration or --schema gives one, the
// system schema plus its files or definitions; then the schema of the
// modules the database uses. The configuration's attribute options apply
// either way.
Result<std::unique_ptr<Schema>> BuildSchema(const ResolvedDatabase& db);

// The index configuration: the configuration's index lines, then --index.
Result<IndexConfig> BuildIndexConfig(const Schema& schema, const ResolvedDatabase& db);

}  // namespace dirload
