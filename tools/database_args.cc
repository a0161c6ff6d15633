#include "tools/database_args.h"

#include <cstdio>
#include <filesystem>

#include "lib/schema/schema_loader.h"

namespace dirload::tools {

void AddDatabaseOptions(CLI::App* cmd, DatabaseArgs* a, bool engine_options, bool with_suffix) {
  cmd->add_option("-f,--config", a->config_file,
                  "slapd.conf to take the schema includes, suffix, directory, database type and "
                  "index lines from");
  cmd->add_option("-d,--db", a->db_dir, "database directory (overrides slapd.conf 'directory')");
  if (with_suffix) {
    a->suffix_option = cmd->add_option("-b,--suffix", a->suffix,
                                       "suffix DN of the database (overrides slapd.conf)");
  }
  cmd->add_option("--backend", a->backend,
                  "storage engine: lmdb (default) or bdb (Berkeley DB 5.3); an existing "
                  "database is detected")
      ->check(CLI::IsMember({"lmdb", "bdb"}));
  cmd->add_option("--schema", a->schema_files,
                  "OpenLDAP .schema file to use instead of the built-in schema (repeatable)");
  cmd->add_flag("-v,--verbose", a->verbose, "say more: ignored slapd.conf lines, settings");
  cmd->add_option("--index", a->index_lines,
                  "an index, in slapd.conf syntax without the word 'index': "
                  "\"cn,sn pres,eq,sub\" (repeatable; added to slapd.conf's)");
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

Result<ResolvedDatabase> ResolveDatabase(const DatabaseArgs& a, bool creating) {
  ResolvedDatabase db;
  std::string db_type;
  if (!a.config_file.empty()) {
    DIRLOAD_ASSIGN_OR_RETURN(SlapdConfig cfg, ReadSlapdConfig(a.config_file));
    db.config_path = a.config_file;
    db.dir = cfg.directory;
    db.suffix = cfg.suffix;
    db.has_suffix = cfg.has_suffix;
    db.schema_files = cfg.schema_files;
    db.index_lines = cfg.index_lines;
    db.notes = cfg.notes;
    db_type = cfg.database;
    if (cfg.maxsize) db.store_options.lmdb_map_size = *cfg.maxsize;
    if (cfg.cache_size) db.store_options.bdb_cache_size = *cfg.cache_size;
  }
  if (!a.db_dir.empty()) db.dir = a.db_dir;
  if (a.suffix_option != nullptr && a.suffix_option->count() > 0) {
    db.suffix = a.suffix;
    db.has_suffix = true;
  }
  if (!a.schema_files.empty()) db.schema_files = a.schema_files;
  for (size_t i = 0; i < a.index_lines.size(); ++i) {
    db.index_lines.push_back({a.index_lines[i], -static_cast<int>(i + 1)});
  }
  if (db.dir.empty()) {
    return Status::InvalidArgument("no database directory: give --db DIR or -f slapd.conf");
  }
  // The engine: an existing database says which; else the option, else
  // slapd.conf's database type, else LMDB.
  Result<Backend> found = DetectBackend(db.dir);
  if (found.ok()) {
    db.backend = *found;
    if (!a.backend.empty() && a.backend != BackendName(*found)) {
      return Status::InvalidArgument(db.dir + " holds a " + std::string(BackendName(*found)) +
                                     " database, not " + a.backend);
    }
  } else if (!creating) {
    return Status::NotFound(db.dir + ": no dirload database here (load one with 'dirload add')");
  } else if (!a.backend.empty()) {
    DIRLOAD_ASSIGN_OR_RETURN(db.backend, ParseBackend(a.backend));
  } else if (db_type == "bdb") {
    db.backend = Backend::kBdb;
  }
  StoreOptions& o = db.store_options;
  if (!a.cache_size.empty()) {
    DIRLOAD_ASSIGN_OR_RETURN(o.bdb_cache_size, ParseByteSize(a.cache_size));
  }
  if (!a.mmap_size.empty()) {
    DIRLOAD_ASSIGN_OR_RETURN(o.bdb_mmap_size, ParseByteSize(a.mmap_size));
  }
  if (!a.id2entry_priority.empty()) {
    DIRLOAD_ASSIGN_OR_RETURN(o.bdb_id2entry_priority, ParseCachePriority(a.id2entry_priority));
  }
  if (a.mmap && a.mmap_size.empty()) {
    // Large enough for any id2entry: Berkeley DB maps a read-only file up to this size.
    o.bdb_mmap_size = uint64_t{1} << 40;
  }
  o.bdb_page_size = a.page_size;
  o.durable = a.durable;
  if (db.backend == Backend::kBdb && std::filesystem::exists(db.dir + "/DB_CONFIG")) {
    // Berkeley DB reads DB_CONFIG when the environment opens, and its lines
    // win over the settings made before: --cache-size would be overridden
    // silently. `--stats` and `dirload stat` show what the engine runs with.
    db.warnings.push_back(db.dir +
                          "/DB_CONFIG is read by Berkeley DB and its settings (set_cachesize, "
                          "set_mp_mmapsize, ...) take precedence over --cache-size, --mmap-size "
                          "and slapd.conf dbconfig lines");
  }
  if (db.backend == Backend::kLmdb) {
    if (!a.cache_size.empty()) {
      db.notes.push_back(
          "--cache-size has no effect on LMDB: it has no cache of its own and "
          "reads through the kernel's page cache");
    }
    if (!a.mmap_size.empty() || a.mmap) {
      db.notes.push_back("--mmap/--mmap-size have no effect on LMDB: it always maps the database");
    }
    if (!a.id2entry_priority.empty()) {
      db.notes.push_back("--id2entry-priority has no effect on LMDB: it has no buffer pool");
    }
    if (a.page_size != 0)
      db.notes.push_back("--page-size has no effect on LMDB (the OS page size)");
  }
  return db;
}

void PrintNotes(const ResolvedDatabase& db, bool verbose) {
  for (const std::string& w : db.warnings)
    std::fprintf(stderr, "dirload: warning: %s\n", w.c_str());
  if (!verbose) return;
  for (const std::string& n : db.notes) std::fprintf(stderr, "dirload: note: %s\n", n.c_str());
}

void AddIndexBuildOptions(CLI::App* cmd, IndexBuildArgs* a) {
  cmd->add_option("--index-method", a->method,
                  "how phase 2 builds: sort (key/ID tuples sorted in bounded runs, appended in "
                  "key order; default) or cache (ID lists through the IDL cache)")
      ->check(CLI::IsMember({"sort", "cache"}));
  cmd->add_option("--idl-cache-size", a->idl_cache_size,
                  "cache method: ID lists kept in memory (0: every ID straight to its table)");
  cmd->add_option("--sort-memory", a->sort_memory,
                  "sort method: memory for one run before it is spilled (default 512M)");
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

Result<IndexConfig> BuildIndexConfig(const Schema& schema, const ResolvedDatabase& db) {
  std::vector<IndexConfig::Line> lines;
  for (const SlapdConfig::IndexLine& l : db.index_lines) {
    std::string where = l.line > 0 ? db.config_path + ":" + std::to_string(l.line)
                                   : "--index " + std::to_string(-l.line);
    lines.push_back({l.text, where});
  }
  return IndexConfig::Parse(schema, lines);
}

Result<std::unique_ptr<Schema>> BuildSchema(const ResolvedDatabase& db) {
  if (db.schema_files.empty()) {
    DIRLOAD_ASSIGN_OR_RETURN(Schema s, Schema::Builtin());
    return std::make_unique<Schema>(std::move(s));
  }
  DIRLOAD_ASSIGN_OR_RETURN(Schema s, Schema::SystemOnly());
  auto schema = std::make_unique<Schema>(std::move(s));
  for (const std::string& f : db.schema_files) {
    DIRLOAD_RETURN_IF_ERROR(LoadSchemaFile(schema.get(), f));
  }
  return schema;
}

}  // namespace dirload::tools
