#include "lib/format/mdb/mdb_rebuild.h"

#include <algorithm>
#include <memory>
#include <set>

#include "lib/format/mdb/mdb_build_dir.h"
#include "lib/format/mdb/mdb_env.h"
#include "lib/util/ascii.h"

namespace dirload {
namespace {

// The index databases back-mdb 2.5 can open: its 128 named databases less
// ad2i, dn2i, id2e and id2v.
constexpr size_t kMdbMaxIndexes = mdb::kMdbMaxDbs - 4;

}  // namespace

Result<MdbIndexPlan> PlanMdbIndexRebuild(const std::string& dir, const Schema& schema,
                                         const IndexConfig& config,
                                         std::span<const std::string> attributes, bool all) {
  if (config.specs().size() > kMdbMaxIndexes) {
    return Status::InvalidArgument(std::to_string(config.specs().size()) +
                                   " attributes are indexed; back-mdb opens at most " +
                                   std::to_string(kMdbMaxIndexes) + " index databases")
        .WithOrigin(ErrorOrigin::kConfiguration);
  }
  std::vector<std::string> existing;
  {
    mdb::MdbEnvOptions ro;
    ro.read_only = true;
    DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<mdb::MdbEnv> env, mdb::MdbEnv::Open(dir, ro));
    existing = env->index_names();
  }
  MdbIndexPlan plan;
  std::set<std::string> configured;
  for (const IndexSpec& spec : config.specs()) configured.emplace(spec.name());
  for (const std::string& n : existing) {
    if (!configured.count(n)) plan.unconfigured.push_back(n);
  }
  if (attributes.empty()) {
    plan.rebuild = config.specs();
    if (all) plan.drop = plan.unconfigured;
  } else {
    for (const std::string& name : attributes) {
      if (const IndexSpec* spec = config.Find(schema, name)) {
        plan.rebuild.push_back(*spec);
        continue;
      }
      // Not configured: its database, if there is one, is dropped.
      const AttributeType* type = schema.FindAttribute(name);
      std::string canonical = type != nullptr ? std::string(type->name()) : name;
      auto it = std::find_if(plan.unconfigured.begin(), plan.unconfigured.end(),
                             [&](const std::string& n) { return EqualsIgnoreCase(n, canonical); });
      if (it == plan.unconfigured.end()) {
        return Status::InvalidArgument("no index is configured on '" + name + "' and " + dir +
                                       " has no index database for it")
            .WithOrigin(ErrorOrigin::kUsage);
      }
      plan.drop.push_back(*it);
    }
  }
  for (const IndexSpec& spec : config.specs()) {
    if (std::find(existing.begin(), existing.end(), spec.name()) == existing.end()) {
      plan.missing.emplace_back(spec.name());
    }
  }
  return plan;
}

Result<mdb::MdbIndexStats> RunMdbIndexRebuild(const std::string& dir, uint64_t map_size,
                                              const Schema& schema, const MdbIndexPlan& plan,
                                              const mdb::MdbIndexOptions& options) {
  mdb::MdbEnvOptions wo;
  // slapd's maxsize, else room enough: LMDB maps the file sparsely.
  wo.map_size = map_size != 0 ? map_size : uint64_t{64} << 30;
  wo.quick = true;      // as slapindex -q: one sync at the end (MdbIndexBuilder::Build)
  wo.write_map = true;  // index records change pages all over the file
  for (const IndexSpec& spec : plan.rebuild) wo.index_names.emplace_back(spec.name());
  for (const std::string& n : plan.drop) wo.index_names.push_back(n);
  DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<mdb::MdbBuildDir> build,
                           mdb::MdbBuildDir::Create(dir, /*copy_existing=*/true));
  mdb::MdbIndexStats built;
  {
    DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<mdb::MdbEnv> env,
                             mdb::MdbEnv::Open(build->path(), wo));
    if (!plan.drop.empty()) {
      DIRLOAD_ASSIGN_OR_RETURN(mdb::MdbTxn txn, env->Begin(true));
      for (const std::string& n : plan.drop) {
        DIRLOAD_ASSIGN_OR_RETURN(mdb::MdbDb d, env->Index(n));
        DIRLOAD_RETURN_IF_ERROR(txn.DeleteDb(d));
      }
      DIRLOAD_RETURN_IF_ERROR(txn.Commit());
      // Without a rebuild nothing else syncs.
      if (plan.rebuild.empty()) DIRLOAD_RETURN_IF_ERROR(env->Sync());
    }
    if (!plan.rebuild.empty()) {
      mdb::MdbIndexOptions o = options;
      o.rebuild = true;
      o.sync = true;
      DIRLOAD_ASSIGN_OR_RETURN(built, mdb::MdbIndexBuilder::Build(*env, schema, plan.rebuild, o));
    }
  }
  DIRLOAD_RETURN_IF_ERROR(build->Install());
  return built;
}

Result<mdb::MdbIndexStats> FinishMdbBuild(const std::string& dir, uint64_t map_size,
                                          const Schema& schema, uint64_t entries,
                                          const std::vector<IndexSpec>& specs,
                                          const mdb::MdbIndexOptions& options) {
  DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<mdb::MdbBuildDir> build, mdb::MdbBuildDir::Resume(dir));
  mdb::MdbEnvOptions wo;
  wo.map_size = map_size != 0 ? map_size : uint64_t{64} << 30;
  wo.quick = true;
  wo.write_map = true;
  for (const IndexSpec& spec : specs) wo.index_names.emplace_back(spec.name());
  mdb::MdbIndexStats built;
  {
    DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<mdb::MdbEnv> env,
                             mdb::MdbEnv::Open(build->path(), wo));
    {
      DIRLOAD_ASSIGN_OR_RETURN(mdb::MdbTxn txn, env->Begin(false));
      mdb::MdbDbStat stat;
      DIRLOAD_RETURN_IF_ERROR(txn.Stat(env->id2e(), &stat));
      if (stat.entries != entries) {
        return Status::Corruption(build->path() + ": id2e holds " + std::to_string(stat.entries) +
                                  " entries where the load recorded " + std::to_string(entries))
            .WithOrigin(ErrorOrigin::kDatabase);
      }
    }
    mdb::MdbIndexOptions o = options;
    o.rebuild = true;  // what phase 2 wrote before it stopped is rewritten
    o.sync = true;
    DIRLOAD_ASSIGN_OR_RETURN(built, mdb::MdbIndexBuilder::Build(*env, schema, specs, o));
  }
  DIRLOAD_RETURN_IF_ERROR(build->Install());
  return built;
}

}  // namespace dirload
