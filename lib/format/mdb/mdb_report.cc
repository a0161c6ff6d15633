#include "lib/format/mdb/mdb_report.h"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <vector>

#include "lib/format/mdb/mdb_env.h"
#include "lib/format/mdb/mdb_reader.h"
#include "lib/util/ascii.h"
#include "lib/util/file.h"

namespace dirload::mdb {
namespace {

std::string U64(uint64_t v) { return std::to_string(v); }

Status IndexFigures(MdbTxn* txn, MdbDb db, IndexReport* r) {
  uint64_t pairs = 0, ranges = 0;
  std::string key;
  std::vector<uint64_t> ids;
  auto finish = [&] {
    if (ids.empty()) return;
    IdListReport list;
    ++r->keys;
    if (ids.size() == 3 && ids[0] == 0) {
      list.range = std::make_pair(ids[1], ids[2]);
      list.ids = ids[2] >= ids[1] ? ids[2] - ids[1] + 1 : 0;
      ++ranges;
    } else {
      list.ids = ids.size();
    }
    r->ids += list.ids;
    if (list.ids > 0) {
      size_t b = IdlHistogramBucket(list.ids);
      if (r->histogram.size() <= b) r->histogram.resize(b + 1, 0);
      ++r->histogram[b];
    }
    if (WouldKeepLongest(list.ids, r->longest)) {
      list.key = HexEncode(key);
      OfferLongest(std::move(list), &r->longest);
    }
    ids.clear();
  };
  DIRLOAD_RETURN_IF_ERROR(txn->Scan(db, [&](std::string_view k, std::string_view v) {
    if (ids.empty() || k != key) {
      finish();
      key.assign(k);
    }
    if (v.size() != 8) {
      return Status::Corruption(r->table + ": key " + HexEncode(k) + ": a duplicate of " +
                                U64(v.size()) + " bytes, not an 8-byte ID");
    }
    ids.push_back(MdbDecodeId(v));
    ++pairs;
    return Status::Ok();
  }));
  finish();
  r->pairs = pairs;
  r->ranges = ranges;
  return Status::Ok();
}

}  // namespace

Result<DatabaseReport> BuildMdbReport(const std::string& dir, std::optional<std::string> suffix) {
  DatabaseReport r;
  r.format = DatabaseFormat::kMdb;
  r.backend = Backend::kLmdb;
  r.path = dir;
  r.suffix = std::move(suffix);
  std::error_code ec;
  uint64_t size = std::filesystem::file_size(std::filesystem::path(dir) / "data.mdb", ec);
  r.file_bytes = ec ? 0 : size;
  r.allocated_bytes = AllocatedBytes((std::filesystem::path(dir) / "data.mdb").string());

  MdbEnvOptions options;
  options.read_only = true;
  DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<MdbEnv> env, MdbEnv::Open(dir, options));
  DIRLOAD_ASSIGN_OR_RETURN(MdbTxn txn, env->Begin(false));
  auto add = [&](std::string name, MdbDb db) -> Status {
    MdbDbStat stat;
    DIRLOAD_RETURN_IF_ERROR(txn.Stat(db, &stat).WithPrefix(name + ": "));
    uint64_t keys = 0, pairs = 0;
    DIRLOAD_RETURN_IF_ERROR(txn.Count(db, &keys, &pairs).WithPrefix(name + ": "));
    TableReport t;
    t.name = std::move(name);
    t.entries = stat.entries;
    t.keys = keys;
    t.page_size = stat.page_size;
    t.depth = stat.depth;
    t.branch_pages = stat.branch_pages;
    t.leaf_pages = stat.leaf_pages;
    t.overflow_pages = stat.overflow_pages;
    t.bytes = (stat.branch_pages + stat.leaf_pages + stat.overflow_pages) * stat.page_size;
    r.tables.push_back(std::move(t));
    return Status::Ok();
  };
  DIRLOAD_RETURN_IF_ERROR(add(std::string(kMdbAd2i), env->ad2i()));
  DIRLOAD_RETURN_IF_ERROR(add(std::string(kMdbDn2i), env->dn2i()));
  DIRLOAD_RETURN_IF_ERROR(add(std::string(kMdbId2e), env->id2e()));
  DIRLOAD_RETURN_IF_ERROR(add(std::string(kMdbId2v), env->id2v()));
  r.descriptions = r.tables[0].entries;
  r.entries = r.tables[2].entries;
  uint64_t max_id = 0;
  DIRLOAD_RETURN_IF_ERROR(txn.Scan(env->id2e(), [&](std::string_view k, std::string_view) {
    max_id = std::max(max_id, MdbDecodeId(k));
    return Status::Ok();
  }));
  r.max_id = max_id;
  for (const std::string& name : env->index_names()) {
    DIRLOAD_ASSIGN_OR_RETURN(MdbDb db, env->Index(name));
    DIRLOAD_RETURN_IF_ERROR(add(name, db));
    IndexReport ix;
    // slapd names an index database after the attribute type.
    ix.table = name;
    ix.attribute = name;
    DIRLOAD_RETURN_IF_ERROR(IndexFigures(&txn, db, &ix));
    r.indexes.push_back(std::move(ix));
  }
  return r;
}

}  // namespace dirload::mdb
