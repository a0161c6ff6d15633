#include "tools/database_args.h"

#include <cstdio>
#include <set>

#include "tools/commands.h"

namespace dirload::tools {

void AddDatabaseOptions(CLI::App* cmd, DatabaseArgs* a, bool engine_options, bool with_suffix) {
  cmd->add_option("-f,--config", a->config_file,
                  "slapd.conf to take the schema, suffix, directory, database type and index "
                  "lines from");
  cmd->add_option("-F,--config-dir", a->config_dir,
                  "slapd configuration directory (slapd.d, cn=config) to take them from");
  a->database_number_option =
      cmd->add_option("-n", a->database_number,
                      "database number in the configuration, as slapadd counts (0 is the config "
                      "database, 1 the first database after it)");
  cmd->add_option("--db", a->db_dir, "database directory (overrides the configuration's)");
  if (with_suffix) {
    a->suffix_option = cmd->add_option(
        "-b,--suffix", a->suffix,
        "with -f/-F: use the database whose suffix holds this DN; without: the suffix DN of "
        "the database");
  }
  cmd->add_option("--backend", a->backend,
                  "storage engine: lmdb (default) or bdb (Berkeley DB 5.3); an existing "
                  "database is detected")
      ->check(CLI::IsMember({"lmdb", "bdb"}));
  cmd->add_option("--schema", a->schema_files,
                  "OpenLDAP .schema file to use instead of the built-in schema (repeatable)");
  cmd->add_flag("-v,--verbose", a->verbose, "say more: ignored configuration lines, settings");
  cmd->add_option("--index", a->index_lines,
                  "an index, in slapd.conf syntax without the word 'index': "
                  "\"cn,sn pres,eq,sub\" (repeatable; added to the configuration's)");
  if (!engine_options) return;
  cmd->add_option("--cache-size", a->cache_size,
                  "Berkeley DB cache size (e.g. 512M; DB_ENV->set_cachesize); LMDB has no cache "
                  "of its own");
  cmd->add_option("--mmap-size", a->mmap_size,
                  "Berkeley DB: largest read-only file mapped instead of cached "
                  "(set_mp_mmapsize)");
  cmd->add_flag("--mmap", a->mmap,
                "Berkeley DB: map id2entry when phase 2 reads it (mmap size = its size)");
  cmd->add_option("--id2entry-priority", a->id2entry_priority,
                  "Berkeley DB cache priority of id2entry pages")
      ->check(CLI::IsMember({"default", "very_low", "low", "high", "very_high"}));
  cmd->add_option("--page-size", a->page_size, "Berkeley DB page size of new tables (bytes)");
  cmd->add_flag("--durable", a->durable,
                "transactions and a write-ahead log (BDB), sync on every commit (LMDB)");
}

DatabaseOptions ToDatabaseOptions(const DatabaseArgs& a) {
  DatabaseOptions o;
  o.config_file = a.config_file;
  o.config_dir = a.config_dir;
  if (a.database_number_option != nullptr && a.database_number_option->count() > 0) {
    o.database_number = a.database_number;
  }
  if (a.suffix_option != nullptr && a.suffix_option->count() > 0) o.suffix = a.suffix;
  o.select_dn = a.select_dn;
  o.db_dir = a.db_dir;
  o.backend = a.backend;
  o.schema_files = a.schema_files;
  o.index_lines = a.index_lines;
  o.cache_size = a.cache_size;
  o.mmap_size = a.mmap_size;
  o.mmap = a.mmap;
  o.id2entry_priority = a.id2entry_priority;
  o.page_size = a.page_size;
  o.durable = a.durable;
  return o;
}

OpenOptions ToOpenOptions(const DatabaseArgs& a, Access access) {
  OpenOptions o;
  o.database = ToDatabaseOptions(a);
  o.access = access;
  o.notice = PrintNotice;
  return o;
}

Result<ResolvedDatabase> ResolveDatabase(const DatabaseArgs& a, bool creating) {
  return dirload::ResolveDatabase(ToDatabaseOptions(a), creating);
}

void PrintNotes(const ResolvedDatabase& db, bool verbose) { PrintNotes({&db}, verbose); }

void PrintNotes(const std::vector<const ResolvedDatabase*>& dbs, bool verbose) {
  // Databases of one configuration share its global warnings and notes:
  // each is said once.
  std::set<std::string> said;
  for (const ResolvedDatabase* db : dbs) {
    for (const std::string& w : db->warnings) {
      if (said.insert("w" + w).second) std::fprintf(stderr, "dirload: warning: %s\n", w.c_str());
    }
  }
  if (!verbose) return;
  for (const ResolvedDatabase* db : dbs) {
    for (const std::string& n : db->notes) {
      if (said.insert("n" + n).second) std::fprintf(stderr, "dirload: note: %s\n", n.c_str());
    }
  }
}

void AddIndexBuildOptions(CLI::App* cmd, IndexBuildArgs* a) {
  cmd->add_option("--index-method", a->method,
                  "how phase 2 builds: sort (key/ID tuples sorted in bounded runs, appended in "
                  "key order; default) or cache (ID lists through the IDL cache)")
      ->check(CLI::IsMember({"sort", "cache"}));
  cmd->add_option("--idl-cache-size", a->idl_cache_size,
                  "cache method: ID lists kept in memory (0: every ID straight to its table)");
  cmd->add_option("--sort-memory", a->sort_memory,
                  "sort method: memory for one run before it is spilled (default 512M); a "
                  "native load's phase 1 holds dn2id records in a quarter of it");
  cmd->add_option("--tmpdir", a->tmpdir, "sort method: where runs are spilled (default $TMPDIR)");
}

Result<IndexRunOptions> ResolveIndexBuild(const IndexBuildArgs& a) {
  IndexRunOptions o;
  DIRLOAD_ASSIGN_OR_RETURN(o.method, ParseIndexMethod(a.method));
  o.builder.idl_cache_size = a.idl_cache_size;
  DIRLOAD_ASSIGN_OR_RETURN(o.builder.sort_memory, ParseByteSize(a.sort_memory));
  o.builder.tmpdir = a.tmpdir;
  return o;
}

}  // namespace dirload::tools
