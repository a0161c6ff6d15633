#include "lib/db/mdb_load_options.h"

#include "lib/format/mdb/mdb_rebuild.h"
#include "lib/util/text_table.h"

namespace dirload {

Result<DatabaseFormat> ChooseLoadFormat(const std::string& dir, std::string_view requested,
                                        std::string_view config_database_type) {
  Result<DatabaseFormat> found = DetectDatabaseFormat(dir);
  if (found.ok()) {
    if (!requested.empty() && requested != DatabaseFormatName(*found)) {
      return Status::InvalidArgument(dir + " holds a " + std::string(DatabaseFormatName(*found)) +
                                     " database; --format " + std::string(requested) +
                                     " cannot be added to it")
          .WithOrigin(ErrorOrigin::kDatabase);
    }
    return *found;
  }
  if (found.status().code() != StatusCode::kNotFound) return found.status();
  if (requested == "mdb") return DatabaseFormat::kMdb;
  if (requested == "native") return DatabaseFormat::kNative;
  // A new database: slapd's own format when the configuration is slapd's
  // and names back-mdb, so that slapd serves what was loaded.
  return config_database_type == "mdb" ? DatabaseFormat::kMdb : DatabaseFormat::kNative;
}

mdb::MdbValueRules MdbValueRulesFor(const ResolvedDatabase& db) {
  mdb::MdbValueRules rules;
  rules.sorted_types = db.sortvals;
  for (const MultivalLine& line : db.multival) {
    for (const std::string& a : line.attributes) rules.multival.push_back({a, line.hi, line.lo});
  }
  return rules;
}

mdb::MdbIndexOptions MdbIndexOptionsFor(const ResolvedDatabase& db, const IndexRunOptions& run) {
  mdb::MdbIndexOptions o;
  o.keys = MdbKeyOptionsFrom(db.index_tuning);
  o.method = run.method;
  o.idl_cache_size = run.builder.idl_cache_size;
  o.memory_budget = run.builder.sort_memory;
  o.temp_dir = run.builder.tmpdir;
  o.ledger = run.builder.ledger;
  return o;
}

MdbStagedLoadOptions MdbStagedLoadOptionsFor(const ResolvedDatabase& db,
                                             const std::vector<IndexSpec>& specs,
                                             const IndexRunOptions& run) {
  MdbStagedLoadOptions mo;
  mo.suffix = db.suffix;
  mo.writer.map_size =
      db.store_options.lmdb_map_size != 0 ? db.store_options.lmdb_map_size : uint64_t{64} << 30;
  mo.writer.quick = true;  // one sync at the end, as slapadd -q
  // As the native loader's dn2id records: phase 2's sort memory is not in use yet.
  mo.writer.held_child_bytes = run.builder.sort_memory / 4;
  for (const IndexSpec& spec : specs) {
    mo.writer.index_names.emplace_back(spec.name());
    mo.index_lines.push_back(IndexConfig::CanonicalLine(spec));
  }
  mo.writer.values = MdbValueRulesFor(db);
  mo.index = MdbIndexOptionsFor(db, run);
  return mo;
}

Status RequireIndexConfigurationFor(const ResolvedDatabase& db, const Schema& schema,
                                    const IndexConfig& config, std::string_view way_out) {
  if (!config.empty()) return Status::Ok();
  Result<MdbIndexPlan> existing = PlanMdbIndexRebuild(db.dir, schema, config, {}, false);
  if (!existing.ok() || existing->unconfigured.empty()) return Status::Ok();
  return Status::InvalidArgument(db.dir + " has indexes (" +
                                 JoinWithCommas(existing->unconfigured) +
                                 ") but no index configuration was given: give the "
                                 "configuration (-f, -F or --index) so that the appended entries "
                                 "are indexed" +
                                 std::string(way_out))
      .WithOrigin(ErrorOrigin::kUsage);
}

}  // namespace dirload
