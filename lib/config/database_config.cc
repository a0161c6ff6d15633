#include "lib/config/database_config.h"

#include <algorithm>
#include <filesystem>

#include "lib/config/cn_config.h"
#include "lib/schema/builtin_schema.h"
#include "lib/schema/dn.h"
#include "lib/util/ascii.h"

namespace dirload {
namespace {

Status ConfigError(Status s) { return s.WithOrigin(ErrorOrigin::kConfiguration); }
Status UsageError(Status s) { return s.WithOrigin(ErrorOrigin::kUsage); }

// A DN in two comparable forms: normalised with the built-in schema when its
// types are known there (the usual suffix types dc, o, ou, c, cn are), and a
// plain form that only folds case, for DNs with other types.
struct DnKey {
  std::optional<std::string> normalized;
  std::string plain;
};

DnKey MakeKey(const Schema* schema, std::string_view text) {
  DnKey key;
  if (schema != nullptr) {
    Result<std::string> n = NormalizeDn(*schema, text);
    if (n.ok()) key.normalized = std::move(*n);
  }
  Result<Dn> parsed = ParseDn(text);
  if (!parsed.ok()) {
    key.plain = AsciiLowerCopy(text);
    return key;
  }
  for (Rdn& rdn : parsed->rdns) {
    for (Ava& ava : rdn) {
      ava.type = AsciiLowerCopy(ava.type);
      if (!ava.ber) ava.value = AsciiLowerCopy(ava.value);
    }
    std::sort(rdn.begin(), rdn.end(), [](const Ava& a, const Ava& b) { return a.type < b.type; });
  }
  key.plain = parsed->ToString();
  return key;
}

// True if `dn` is `suffix` or below it; *depth is the suffix's length, for
// preferring the longest.
bool Holds(const DnKey& suffix, const DnKey& dn, size_t* depth) {
  if (suffix.normalized && dn.normalized) {
    *depth = suffix.normalized->size();
    return IsUnder(*dn.normalized, *suffix.normalized);
  }
  *depth = suffix.plain.size();
  return IsUnder(dn.plain, suffix.plain);
}

std::string Describe(const SlapdDatabase& db) {
  return "database " + std::to_string(db.number) + " (" + db.type + ", " + db.where + ")";
}

Status NotLoadable(const SlapdDatabase& db, const std::string& why) {
  return ConfigError(
      Status::Unsupported(why + Describe(db) + " is not one dirload loads (mdb, bdb or hdb)"));
}

void AddOnce(std::vector<std::string>* list, const std::string& name) {
  if (std::find(list->begin(), list->end(), name) == list->end()) list->push_back(name);
}

}  // namespace

SuffixComparer::SuffixComparer() {
  Result<Schema> builtin = Schema::Builtin();
  if (builtin.ok()) schema_ = std::move(*builtin);
}

bool SuffixComparer::Holds(std::string_view suffix, std::string_view dn) const {
  const Schema* schema = schema_ ? &*schema_ : nullptr;
  size_t depth = 0;
  return dirload::Holds(MakeKey(schema, suffix), MakeKey(schema, dn), &depth);
}

Result<std::optional<SlapdConfig>> ReadConfiguration(const DatabaseOptions& o) {
  if (!o.config_file.empty() && !o.config_dir.empty()) {
    return UsageError(Status::InvalidArgument(
        "-f (slapd.conf) and -F (slapd.d) cannot be used together: give one configuration"));
  }
  if (!o.config_file.empty()) {
    DIRLOAD_ASSIGN_OR_RETURN(SlapdConfig cfg, ReadSlapdConfig(o.config_file));
    return std::optional<SlapdConfig>(std::move(cfg));
  }
  if (!o.config_dir.empty()) {
    DIRLOAD_ASSIGN_OR_RETURN(SlapdConfig cfg, ReadCnConfig(o.config_dir));
    return std::optional<SlapdConfig>(std::move(cfg));
  }
  return std::optional<SlapdConfig>();
}

Result<const SlapdDatabase*> SelectDatabase(const SlapdConfig& config, std::optional<int> number,
                                            const std::optional<std::string>& dn) {
  if (number) {
    const SlapdDatabase* db = config.FindDatabase(*number);
    if (db == nullptr || *number < 0) {
      int last = config.databases.empty() ? 0 : config.databases.back().number;
      return ConfigError(Status::NotFound(
          "-n " + std::to_string(*number) + ": no such database in " + config.path +
          " (its databases are numbered 0 to " + std::to_string(last) + ")"));
    }
    if (!db->supported()) return NotLoadable(*db, "-n " + std::to_string(*number) + ": ");
    return db;
  }
  if (dn) {
    Result<Schema> builtin = Schema::Builtin();
    const Schema* schema = builtin.ok() ? &*builtin : nullptr;
    const DnKey want = MakeKey(schema, *dn);
    const SlapdDatabase* best = nullptr;
    size_t best_depth = 0;
    std::string suffixes;
    for (const SlapdDatabase& db : config.databases) {
      for (const std::string& s : db.suffixes) {
        suffixes += (suffixes.empty() ? "" : ", ") +
                    ("'" + s + "' (database " + std::to_string(db.number) + ", " + db.type + ")");
        size_t depth = 0;
        if (Holds(MakeKey(schema, s), want, &depth) && (best == nullptr || depth > best_depth)) {
          best = &db;
          best_depth = depth;
        }
      }
    }
    if (best == nullptr) {
      return ConfigError(Status::NotFound(
          "no database in " + config.path + " holds '" + *dn +
          "'; the suffixes there are: " + (suffixes.empty() ? std::string("none") : suffixes)));
    }
    if (!best->supported()) return NotLoadable(*best, "'" + *dn + "' is held by ");
    return best;
  }
  // As slapadd: a subordinate is not taken by default; its superior, which
  // comes after it, stands for the glued tree (glue.h).
  for (const SlapdDatabase& db : config.databases) {
    if (db.number > 0 && db.supported() && !db.subordinate) return &db;
  }
  return ConfigError(Status::NotFound(config.path + ": no 'database mdb' (or bdb/hdb) section"));
}

Result<ResolvedDatabase> ResolveDatabase(const DatabaseOptions& a, bool creating) {
  ResolvedDatabase db;
  DIRLOAD_ASSIGN_OR_RETURN(std::optional<SlapdConfig> cfg, ReadConfiguration(a));
  if (cfg) {
    if (a.database_number && a.suffix) {
      return UsageError(
          Status::InvalidArgument("-n and -b both select the database: give one of them"));
    }
    const std::optional<std::string>& dn = a.suffix ? a.suffix : a.select_dn;
    DIRLOAD_ASSIGN_OR_RETURN(const SlapdDatabase* selected,
                             SelectDatabase(*cfg, a.database_number, dn));
    const SlapdDatabase& s = *selected;
    if (s.suffixes.size() > 1) {
      return ConfigError(Status::Unsupported(Describe(s) + " has " +
                                             std::to_string(s.suffixes.size()) +
                                             " suffixes; dirload loads a database with one"));
    }
    db.config_path = cfg->path;
    db.database_number = s.number;
    db.database_type = s.type;
    db.dir = s.directory;
    if (!s.suffixes.empty()) {
      db.suffix = s.suffixes[0];
      db.has_suffix = true;
    }
    db.rootdn = s.rootdn;
    db.lastmod = s.lastmod;
    db.schema_files = cfg->schema_files;
    db.schema_definitions = cfg->schema_definitions;
    db.schema_names = cfg->schema_names;
    for (const std::string& m : cfg->modules) AddOnce(&db.modules, m);
    for (const std::string& m : s.overlays) AddOnce(&db.modules, m);
    db.overlays = s.overlays;
    db.replication.server_ids = cfg->server_ids;
    db.replication.syncprov =
        std::find(s.overlays.begin(), s.overlays.end(), "syncprov") != s.overlays.end();
    db.replication.accesslog =
        std::find(s.overlays.begin(), s.overlays.end(), "accesslog") != s.overlays.end();
    db.replication.multiprovider = s.multiprovider;
    db.replication.consumers = s.consumers;
    db.envflags = s.envflags;
    db.index_tuning = cfg->index_tuning;
    db.sortvals = cfg->sortvals;
    db.multival = s.multival;
    db.attribute_options = cfg->attribute_options;
    db.index_lines = s.index_lines;
    db.notes = cfg->notes;
    db.notes.push_back(Describe(s) + ": replication: " + db.replication.Describe());
    for (const std::string& w : cfg->warnings) db.warnings.push_back(w);
    if (s.maxsize) db.store_options.lmdb_map_size = *s.maxsize;
    if (s.cache_size) db.store_options.bdb_cache_size = *s.cache_size;
    if (db.dir.empty() && a.db_dir.empty()) {
      return ConfigError(
          Status::InvalidArgument(Describe(s) + " has no directory (give --db DIR)"));
    }
  } else {
    if (a.database_number) {
      return UsageError(Status::InvalidArgument(
          "-n selects a database of a configuration: give -f slapd.conf or -F slapd.d"));
    }
    if (a.suffix) {
      db.suffix = *a.suffix;
      db.has_suffix = true;
    }
  }
  if (!a.db_dir.empty()) db.dir = a.db_dir;
  if (!a.schema_files.empty()) {
    db.schema_files = a.schema_files;
    db.schema_definitions.clear();
    db.schema_names.clear();
    for (const std::string& f : a.schema_files) {
      db.schema_names.push_back(std::filesystem::path(f).stem().string());
    }
  }
  for (size_t i = 0; i < a.index_lines.size(); ++i) {
    db.index_lines.push_back({a.index_lines[i], static_cast<int>(i + 1), ""});
  }
  if (db.dir.empty()) {
    return UsageError(Status::InvalidArgument(
        "no database directory: give --db DIR, -f slapd.conf or -F slapd.d"));
  }
  // The engine: an existing database says which; else the option, else
  // the configuration's database type, else LMDB.
  Result<Backend> found = DetectBackend(db.dir);
  if (found.ok()) {
    db.backend = *found;
    if (!a.backend.empty() && a.backend != BackendName(*found)) {
      return UsageError(Status::InvalidArgument(
          db.dir + " holds a " + std::string(BackendName(*found)) + " database, not " + a.backend));
    }
  } else if (!creating) {
    return Status::NotFound(db.dir + ": no dirload database here (load one with 'dirload add')");
  } else if (!a.backend.empty()) {
    Result<Backend> b = ParseBackend(a.backend);
    if (!b.ok()) return UsageError(b.status());
    db.backend = *b;
  } else if (db.database_type == "bdb") {
    db.backend = Backend::kBdb;
  }
  StoreOptions& o = db.store_options;
  auto usage = [](Status s) { return s.WithOrigin(ErrorOrigin::kUsage); };
  if (!a.cache_size.empty()) {
    Result<uint64_t> v = ParseByteSize(a.cache_size);
    if (!v.ok()) return usage(v.status().WithPrefix("--cache-size: "));
    o.bdb_cache_size = *v;
  }
  if (!a.mmap_size.empty()) {
    Result<uint64_t> v = ParseByteSize(a.mmap_size);
    if (!v.ok()) return usage(v.status().WithPrefix("--mmap-size: "));
    o.bdb_mmap_size = *v;
  }
  if (!a.id2entry_priority.empty()) {
    Result<CachePriority> v = ParseCachePriority(a.id2entry_priority);
    if (!v.ok()) return usage(v.status());
    o.bdb_id2entry_priority = *v;
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
    if (a.page_size != 0) {
      db.notes.push_back("--page-size has no effect on LMDB (the OS page size)");
    }
  }
  return db;
}

Result<std::unique_ptr<Schema>> BuildSchema(const ResolvedDatabase& db) {
  std::unique_ptr<Schema> schema;
  if (db.schema_files.empty() && db.schema_definitions.empty()) {
    Result<Schema> s = Schema::Builtin();
    if (!s.ok()) return s.status();
    schema = std::make_unique<Schema>(std::move(*s));
  } else {
    Result<Schema> s = Schema::SystemOnly();
    if (!s.ok()) return s.status();
    schema = std::make_unique<Schema>(std::move(*s));
    for (const std::string& f : db.schema_files) {
      DIRLOAD_RETURN_IF_ERROR(ConfigError(LoadSchemaFile(schema.get(), f)));
    }
    DIRLOAD_RETURN_IF_ERROR(
        ConfigError(LoadSchemaDefinitions(schema.get(), db.schema_definitions)));
  }
  // Modules bring schema of their own (ppolicy's pwdPolicy); those dirload
  // knows nothing about (back_mdb) add nothing.
  for (const std::string& m : db.modules) {
    DIRLOAD_RETURN_IF_ERROR(
        ConfigError(AddModuleSchema(schema.get(), m).WithPrefix("module '" + m + "': ")));
  }
  schema->SetAttributeOptions(db.attribute_options);
  return schema;
}

Result<IndexConfig> BuildIndexConfig(const Schema& schema, const ResolvedDatabase& db) {
  IndexConfig config;
  for (const ConfigIndexLine& l : db.index_lines) {
    if (l.file.empty()) {
      DIRLOAD_RETURN_IF_ERROR(
          UsageError(config.AddLine(schema, l.text, "--index " + std::to_string(l.line))));
    } else {
      DIRLOAD_RETURN_IF_ERROR(ConfigError(config.AddLine(schema, l.text, l.Where())));
    }
  }
  return config;
}

}  // namespace dirload
