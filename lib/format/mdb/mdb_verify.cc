#include "lib/format/mdb/mdb_verify.h"

#include <set>
#include <string>
#include <unordered_map>

#include "lib/format/mdb/mdb_entry_codec.h"
#include "lib/format/mdb/mdb_id2v.h"
#include "lib/format/mdb/mdb_index_compare.h"
#include "lib/format/mdb/mdb_key_maker.h"
#include "lib/format/mdb/mdb_tree_check.h"
#include "lib/util/ascii.h"

namespace dirload::mdb {
namespace {

// What the entry pass learnt, by ID.
struct EntryScan {
  std::vector<bool> has_record;  // id2e holds a record (entries, placeholders)
  std::vector<bool> exists;      // an entry that decodes
  std::vector<uint64_t> skip;    // records left out of the expected keys
};

std::string Describe(MdbReader* reader, uint64_t id) {
  MdbReadEntry e;
  Status st = reader->Get(id, &e);
  if (!st.ok()) return "entry " + std::to_string(id) + " (no DN: " + st.message() + ")";
  return "entry " + std::to_string(id) + " (" + e.dn + ")";
}

// Every id2e record in full, its descriptions against ad2i.
Status CheckEntries(MdbReader* reader, VerifyReport* report, EntryScan* scan) {
  MdbEnv& env = *reader->env();
  DIRLOAD_ASSIGN_OR_RETURN(MdbTxn txn, env.Begin(false));
  std::vector<bool> in_ad2i;
  uint64_t expected_number = 1;
  DIRLOAD_RETURN_IF_ERROR(txn.Scan(env.ad2i(), [&](std::string_view k, std::string_view) {
    const uint64_t n = k.size() == 4 || k.size() == 8 ? MdbDecodeId(k) : 0;
    if (n != expected_number) {
      report->entry_problems.Add("ad2i: number " + std::to_string(n) + " where " +
                                 std::to_string(expected_number) + " was due (no gaps)");
    }
    expected_number = n + 1;
    if (n < (uint64_t{1} << 30)) {
      if (in_ad2i.size() <= n) in_ad2i.resize(n + 1, false);
      in_ad2i[n] = true;
    }
    return Status::Ok();
  }));
  {
    std::string_view last_key, last_value;
    Status st = txn.Last(env.id2e(), &last_key, &last_value);
    if (!st.ok() && st.code() != StatusCode::kNotFound) return st;
    const uint64_t last = st.ok() ? MdbDecodeId(last_key) : 0;
    scan->has_record.assign(last + 1, false);
    scan->exists.assign(last + 1, false);
  }
  MdbEntryView e;
  uint64_t previous = 0;
  // id2v key -> the values its record counts.
  std::unordered_map<std::string, uint64_t> id2v_owners;
  auto bad = [&](uint64_t id, const std::string& why) {
    if (report->entry_problems.wants_more()) {
      report->entry_problems.Add("entry " + std::to_string(id) + ": " + why);
    } else {
      report->entry_problems.Add({});
    }
    scan->skip.push_back(id);
  };
  DIRLOAD_RETURN_IF_ERROR(txn.Scan(env.id2e(), [&](std::string_view k, std::string_view v) {
    ++report->entries;
    if (k.size() != 8) {
      report->entry_problems.Add("id2e: a key of " + std::to_string(k.size()) +
                                 " bytes, not an ID");
      return Status::Ok();
    }
    const uint64_t id = MdbDecodeId(k);
    if (id == 0 || id <= previous) {
      report->entry_problems.Add("id2e: ID " + std::to_string(id) + " after " +
                                 std::to_string(previous) + " (IDs ascend from 1)");
      return Status::Ok();
    }
    previous = id;
    scan->has_record[id] = true;
    if (v.empty()) return Status::Ok();  // slapadd's placeholder for a missing ancestor
    Status st = DecodeMdbEntryView(v, &e, MdbEntryChecks::kFull);
    if (!st.ok()) {
      bad(id, "its record does not decode: " + st.message());
      return Status::Ok();
    }
    for (const MdbAttributeView& a : e.attributes) {
      if (a.adx >= in_ad2i.size() || !in_ad2i[a.adx]) {
        bad(id, "attribute number " + std::to_string(a.adx) + " is not in ad2i");
        return Status::Ok();
      }
    }
    // The values kept in id2v (multival) must all be there and decode.
    st = ResolveMdbMultival(txn, env.id2v(), id, &e, env.path());
    if (!st.ok()) {
      if (st.code() != StatusCode::kCorruption) return st;
      bad(id, st.message());
      return Status::Ok();
    }
    for (const MdbAttributeView& a : e.attributes) {
      if (a.multival) id2v_owners[MdbId2vKey(id, a.adx)] = a.count;
    }
    scan->exists[id] = true;
    return Status::Ok();
  }));
  // Every id2v key belongs to a multival record of its entry, and holds the
  // values the record counts, no more: slapd reads that many and no others.
  std::string key;
  uint64_t held = 0;
  auto settle = [&]() {
    if (key.empty()) return;
    const uint64_t id = key.size() == 10 ? MdbDecodeId(std::string_view(key).substr(0, 8)) : 0;
    auto owner = id2v_owners.find(key);
    if (owner == id2v_owners.end()) {
      report->entry_problems.Add("id2v: " + std::to_string(held) + " values under entry ID " +
                                 std::to_string(id) + " that no multival record of it owns");
    } else if (held != owner->second) {
      report->entry_problems.Add("id2v: entry ID " + std::to_string(id) + " has " +
                                 std::to_string(held) + " values where its record counts " +
                                 std::to_string(owner->second));
    }
  };
  DIRLOAD_RETURN_IF_ERROR(txn.Scan(env.id2v(), [&](std::string_view k, std::string_view) {
    if (k != key) {
      settle();
      key.assign(k);
      held = 0;
    }
    ++held;
    return Status::Ok();
  }));
  settle();
  return Status::Ok();
}

// A wrong pair named: the entry's DN, and the value of the entry that gives
// the key (found by making each value's keys again), else the key's bytes.
IndexPairProblem NamePair(MdbReader* reader, const Schema& schema,
                          const std::vector<IndexSpec>& specs, size_t index, MdbKeyMaker& maker,
                          const KeyIdPair& p) {
  IndexPairProblem out;
  out.attribute = std::string(specs[index].name());
  out.id = p.id;
  out.key = "key " + HexEncode(p.key);
  if (p.key == MdbPresenceKey()) out.key = "presence key";
  MdbReadEntry e;
  Status st = reader->Get(p.id, &e);
  if (!st.ok()) {
    out.dn = "no DN: " + st.message();
    return out;
  }
  out.dn = e.dn;
  MdbKeyList keys;
  for (const MdbAttributeView& a : e.stored.attributes) {
    if (a.adx >= reader->dictionary().size()) continue;
    const std::string_view description = reader->dictionary().Name(a.adx);
    Result<AttributeDescription> desc = schema.ParseAttributeDescription(description);
    if (!desc.ok()) continue;
    bool routed = false;
    for (const IndexSpec* s : IndexTargets(specs, desc->type)) routed |= s == &specs[index];
    if (!routed) continue;
    std::span<const std::string_view> values = e.stored.Values(a);
    std::span<const std::string_view> normalized = e.stored.Normalized(a);
    for (size_t i = 0; i < normalized.size(); ++i) {
      keys.clear();
      maker.AddKeys(normalized.subspan(i, 1), &keys);
      for (size_t j = 0; j < keys.size(); ++j) {
        if (keys[j] != p.key) continue;
        out.attribute = std::string(description);
        if (p.key != MdbPresenceKey()) {
          out.key += " of '" + std::string(values[i]) + "'";
        }
        return out;
      }
    }
  }
  if (p.key != MdbPresenceKey()) out.key += " (no value of the entry gives it)";
  return out;
}

Status CompareIndexes(MdbReader* reader, const Schema& schema, const std::vector<IndexSpec>& specs,
                      const MdbKeyOptions& keys, const VerifyOptions& options,
                      const EntryScan& scan, VerifyReport* report) {
  MdbEnv& env = *reader->env();
  std::vector<std::optional<MdbDb>> dbs;
  for (const IndexSpec& spec : specs) {
    Result<MdbDb> db = env.Index(spec.name());
    dbs.push_back(db.ok() ? std::optional<MdbDb>(*db) : std::nullopt);
  }
  MdbIndexComparer comparer(env, dbs, &scan.exists, options.examples);
  MdbIndexOptions io;
  io.keys = keys;
  io.memory_budget = options.memory;
  io.temp_dir = options.tmpdir;
  io.threads = options.jobs;
  io.skip = scan.skip;
  DIRLOAD_RETURN_IF_ERROR(MdbIndexBuilder::Stream(env, schema, specs, io, &comparer).status());
  DIRLOAD_RETURN_IF_ERROR(comparer.Finish());
  for (size_t i = 0; i < specs.size(); ++i) {
    const ListComparison& c = comparer.results()[i].tally;
    IndexVerifyResult r;
    r.name = std::string(specs[i].name());
    r.kinds = IndexMaskToString(specs[i].mask & kIndexKindsMask);
    r.present = comparer.results()[i].db.has_value();
    r.keys = c.keys;
    r.ids = c.ids;
    r.ranges = c.ranges;
    r.missing = c.missing;
    r.extra = c.extra;
    if (!c.first_missing.empty() || !c.first_extra.empty()) {
      DIRLOAD_ASSIGN_OR_RETURN(MdbKeyMaker maker, MdbKeyMaker::Create(schema, specs[i], keys));
      for (const KeyIdPair& p : c.first_missing) {
        r.first_missing.push_back(NamePair(reader, schema, specs, i, maker, p));
      }
      for (const KeyIdPair& p : c.first_extra) {
        r.first_extra.push_back(NamePair(reader, schema, specs, i, maker, p));
      }
    }
    report->indexes.push_back(std::move(r));
  }
  return Status::Ok();
}

}  // namespace

Status VerifyMdbDatabase(MdbReader* reader, const Schema& schema,
                         const std::optional<IndexConfig>& config, const MdbKeyOptions& keys,
                         const VerifyOptions& options, VerifyReport* report) {
  report->format = "mdb";
  report->dir = reader->path();
  report->entry_problems = ProblemList(options.examples);
  report->tree_problems = ProblemList(options.examples);

  std::vector<IndexSpec> specs;
  std::set<std::string> configured;
  if (config.has_value()) {
    for (const IndexSpec& spec : config->specs()) configured.emplace(spec.name());
    if (options.attributes.empty()) specs = config->specs();
    for (const std::string& name : options.attributes) {
      const IndexSpec* spec = config->Find(schema, name);
      if (spec == nullptr) {
        return Status::InvalidArgument("'" + name + "' is not indexed in the configuration")
            .WithOrigin(ErrorOrigin::kUsage);
      }
      specs.push_back(*spec);
    }
  } else {
    report->index_note =
        "no index configuration given (slapd's format records none): give -f, -F or --index "
        "to check the indexes";
  }
  for (const std::string& name : reader->env()->index_names()) {
    if (!configured.count(name)) report->unconfigured.push_back(name);
  }

  EntryScan scan;
  DIRLOAD_RETURN_IF_ERROR(CheckEntries(reader, report, &scan));
  DIRLOAD_RETURN_IF_ERROR(CheckMdbDnTree(
      *reader->env(), scan.has_record, [&](uint64_t id) { return Describe(reader, id); },
      &report->tree_problems, &report->tree_nodes));
  if (specs.empty()) return Status::Ok();
  return CompareIndexes(reader, schema, specs, keys, options, scan, report);
}

}  // namespace dirload::mdb
