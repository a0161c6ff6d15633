#include "lib/format/mdb/mdb_online_index.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>

#include "lib/format/mdb/mdb_entry_codec.h"
#include "lib/format/mdb/mdb_env.h"
#include "lib/format/mdb/mdb_id2v.h"
#include "lib/format/mdb/mdb_key_maker.h"
#include "lib/format/mdb/mdb_reader.h"
#include "lib/schema/schema.h"

namespace dirload::mdb {
namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// One attribute's rebuild inside `txn`.
Status RebuildOne(MdbEnv& env, MdbTxn& txn, const Schema& schema, const IndexSpec& spec,
                  const MdbKeyOptions& options, MdbOnlineIndexStats* stats) {
  DIRLOAD_ASSIGN_OR_RETURN(MdbKeyMaker maker, MdbKeyMaker::Create(schema, spec, options));
  DIRLOAD_ASSIGN_OR_RETURN(MdbDb db, env.Index(spec.name()));
  // Which ad2i numbers feed this index, as committed when the transaction began.
  const std::vector<IndexSpec> one = {spec};
  std::vector<bool> routed;
  DIRLOAD_RETURN_IF_ERROR(txn.Scan(env.ad2i(), [&](std::string_view k, std::string_view v) {
    const uint64_t n = MdbDecodeId(k);
    if (routed.size() <= n) routed.resize(n + 1, false);
    Result<AttributeDescription> d = schema.ParseAttributeDescription(v);
    routed[n] = d.ok() && !IndexTargets(one, d->type).empty();
    return Status::Ok();
  }));
  // Key -> ascending IDs (id2e is read in ID order). std::map orders keys
  // as memcmp does, LMDB's order for the index databases.
  std::map<std::string, std::vector<uint64_t>, std::less<>> lists;
  MdbEntryView view;
  MdbKeyList keys;
  DIRLOAD_RETURN_IF_ERROR(txn.Scan(env.id2e(), [&](std::string_view k, std::string_view v) {
    const uint64_t id = MdbDecodeId(k);
    DIRLOAD_RETURN_IF_ERROR(DecodeMdbEntryView(v, &view, MdbEntryChecks::kBounds));
    DIRLOAD_RETURN_IF_ERROR(ResolveMdbMultival(txn, env.id2v(), id, &view, env.path()));
    keys.clear();
    for (const MdbAttributeView& a : view.attributes) {
      if (a.adx >= routed.size()) {
        return Status::Corruption(env.path() + ": id2e entry " + std::to_string(id) +
                                  " uses ad2i number " + std::to_string(a.adx) +
                                  ", which ad2i lacks")
            .WithOrigin(ErrorOrigin::kDatabase);
      }
      if (!routed[a.adx]) continue;
      maker.AddKeys(view.Normalized(a), &keys);
    }
    for (size_t i = 0; i < keys.size(); ++i) {
      auto it = lists.find(keys[i]);
      if (it == lists.end())
        it = lists.emplace(std::string(keys[i]), std::vector<uint64_t>()).first;
      if (it->second.empty() || it->second.back() != id) it->second.push_back(id);
    }
    ++stats->entries;
    return Status::Ok();
  }));
  // The old index goes in the same transaction as the new one comes.
  DIRLOAD_RETURN_IF_ERROR(txn.Drop(db));
  std::string data;
  for (const auto& [key, ids] : lists) {
    const std::vector<uint64_t> dups = MdbIdListDuplicates(ids, options.max_ids_per_key());
    data.clear();
    for (uint64_t d : dups) data += MdbIdBytes(d);
    DIRLOAD_RETURN_IF_ERROR(txn.AppendMultiple(db, key, data, 8));
    ++stats->keys;
    stats->ids += ids.size();
    if (ids.size() > options.max_ids_per_key()) ++stats->ranges;
  }
  ++stats->indexes;
  return Status::Ok();
}

}  // namespace

Result<MdbOnlineIndexStats> RebuildMdbIndexesOnline(
    const std::string& dir, const Schema& schema, const std::vector<IndexSpec>& specs,
    const MdbKeyOptions& keys,
    const std::function<void(std::string_view name, double seconds)>& done) {
  MdbEnvOptions eo;
  eo.map_size = 0;  // slapd's size: see MdbOnlineWriter::Open
  for (const IndexSpec& spec : specs) eo.index_names.emplace_back(spec.name());
  DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<MdbEnv> env, MdbEnv::Open(dir, eo));
  MdbOnlineIndexStats stats;
  for (const IndexSpec& spec : specs) {
    const double start = Now();
    DIRLOAD_ASSIGN_OR_RETURN(MdbTxn txn, env->Begin(true));
    Status built = RebuildOne(*env, txn, schema, spec, keys, &stats);
    if (!built.ok()) return built.WithPrefix(std::string(spec.name()) + ": ");
    DIRLOAD_RETURN_IF_ERROR(txn.Commit());
    const double seconds = Now() - start;
    stats.max_txn_seconds = std::max(stats.max_txn_seconds, seconds);
    if (done) done(spec.name(), seconds);
  }
  return stats;
}

}  // namespace dirload::mdb
