#include "lib/format/mdb/mdb_report.h"

#include <algorithm>
#include <filesystem>
#include <memory>

#include "lib/format/mdb/mdb_reader.h"
#include "lib/util/ascii.h"
#include "lib/util/json.h"

namespace dirload::mdb {
namespace {

std::string U64(uint64_t v) { return std::to_string(v); }

// Keeps the `kMdbReportLongest` longest lists seen, longest first (earlier
// keys first among equals).
void Offer(MdbIdList list, std::vector<MdbIdList>* longest) {
  auto pos = std::upper_bound(longest->begin(), longest->end(), list.ids,
                              [](uint64_t ids, const MdbIdList& l) { return ids > l.ids; });
  if (static_cast<size_t>(pos - longest->begin()) >= kMdbReportLongest) return;
  longest->insert(pos, std::move(list));
  if (longest->size() > kMdbReportLongest) longest->pop_back();
}

Status IndexFigures(MdbTxn* txn, MdbDb db, MdbIndexReport* r) {
  std::string key;
  std::vector<uint64_t> ids;
  auto finish = [&] {
    if (ids.empty()) return;
    MdbIdList list;
    list.key = key;
    ++r->keys;
    if (ids.size() == 3 && ids[0] == 0) {
      list.range = true;
      list.lo = ids[1];
      list.hi = ids[2];
      list.ids = ids[2] >= ids[1] ? ids[2] - ids[1] + 1 : 0;
      ++r->ranges;
    } else {
      list.ids = ids.size();
    }
    r->ids += list.ids;
    Offer(std::move(list), &r->longest);
    ids.clear();
  };
  DIRLOAD_RETURN_IF_ERROR(txn->Scan(db, [&](std::string_view k, std::string_view v) {
    if (ids.empty() || k != key) {
      finish();
      key.assign(k);
    }
    if (v.size() != 8) {
      return Status::Corruption(r->name + ": key " + MdbKeyHex(k) + ": a duplicate of " +
                                U64(v.size()) + " bytes, not an 8-byte ID");
    }
    ids.push_back(MdbDecodeId(v));
    ++r->pairs;
    return Status::Ok();
  }));
  finish();
  return Status::Ok();
}

}  // namespace

std::string MdbKeyHex(std::string_view key) { return HexEncode(key); }

std::string MdbIdListText(const MdbIdList& list) {
  return list.range ? U64(list.lo) + ".." + U64(list.hi) : U64(list.ids);
}

Result<MdbDatabaseReport> BuildMdbReport(const std::string& dir) {
  MdbDatabaseReport r;
  r.path = dir;
  std::error_code ec;
  uint64_t size = std::filesystem::file_size(std::filesystem::path(dir) / "data.mdb", ec);
  r.file_bytes = ec ? 0 : size;

  MdbEnvOptions options;
  options.read_only = true;
  DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<MdbEnv> env, MdbEnv::Open(dir, options));
  DIRLOAD_ASSIGN_OR_RETURN(MdbTxn txn, env->Begin(false));
  auto add = [&](std::string name, MdbDb db) -> Status {
    MdbSubDbReport s;
    s.name = std::move(name);
    DIRLOAD_RETURN_IF_ERROR(txn.Stat(db, &s.stat).WithPrefix(s.name + ": "));
    uint64_t pairs = 0;
    DIRLOAD_RETURN_IF_ERROR(txn.Count(db, &s.keys, &pairs).WithPrefix(s.name + ": "));
    r.subdbs.push_back(std::move(s));
    return Status::Ok();
  };
  DIRLOAD_RETURN_IF_ERROR(add(std::string(kMdbAd2i), env->ad2i()));
  DIRLOAD_RETURN_IF_ERROR(add(std::string(kMdbDn2i), env->dn2i()));
  DIRLOAD_RETURN_IF_ERROR(add(std::string(kMdbId2e), env->id2e()));
  DIRLOAD_RETURN_IF_ERROR(add(std::string(kMdbId2v), env->id2v()));
  r.descriptions = r.subdbs[0].stat.entries;
  r.entries = r.subdbs[2].stat.entries;
  DIRLOAD_RETURN_IF_ERROR(txn.Scan(env->id2e(), [&](std::string_view k, std::string_view) {
    r.max_id = std::max(r.max_id, MdbDecodeId(k));
    return Status::Ok();
  }));
  for (const std::string& name : env->index_names()) {
    DIRLOAD_ASSIGN_OR_RETURN(MdbDb db, env->Index(name));
    DIRLOAD_RETURN_IF_ERROR(add(name, db));
    MdbIndexReport ix;
    ix.name = name;
    DIRLOAD_RETURN_IF_ERROR(IndexFigures(&txn, db, &ix));
    r.indexes.push_back(std::move(ix));
  }
  return r;
}

std::string MdbReportToJson(const MdbDatabaseReport& r) {
  std::string out = "{\"format\": \"mdb\", \"path\": " + JsonString(r.path) +
                    ", \"file_bytes\": " + U64(r.file_bytes) + ", \"entries\": " + U64(r.entries) +
                    ", \"max_id\": " + U64(r.max_id) +
                    ", \"descriptions\": " + U64(r.descriptions) + ", \"tables\": [";
  for (size_t i = 0; i < r.subdbs.size(); ++i) {
    const MdbSubDbReport& s = r.subdbs[i];
    if (i > 0) out += ", ";
    out += "{\"name\": " + JsonString(s.name) + ", \"entries\": " + U64(s.stat.entries) +
           ", \"keys\": " + U64(s.keys) + ", \"depth\": " + U64(s.stat.depth) +
           ", \"branch_pages\": " + U64(s.stat.branch_pages) +
           ", \"leaf_pages\": " + U64(s.stat.leaf_pages) +
           ", \"overflow_pages\": " + U64(s.stat.overflow_pages) +
           ", \"page_size\": " + U64(s.stat.page_size) + "}";
  }
  out += "], \"indexes\": [";
  for (size_t i = 0; i < r.indexes.size(); ++i) {
    const MdbIndexReport& ix = r.indexes[i];
    if (i > 0) out += ", ";
    out += "{\"name\": " + JsonString(ix.name) + ", \"keys\": " + U64(ix.keys) +
           ", \"pairs\": " + U64(ix.pairs) + ", \"ids\": " + U64(ix.ids) +
           ", \"ranges\": " + U64(ix.ranges) + ", \"longest\": [";
    for (size_t j = 0; j < ix.longest.size(); ++j) {
      const MdbIdList& l = ix.longest[j];
      if (j > 0) out += ", ";
      out += "{\"key\": " + JsonString(MdbKeyHex(l.key)) + ", \"ids\": " + U64(l.ids);
      if (l.range) out += ", \"range\": [" + U64(l.lo) + ", " + U64(l.hi) + "]";
      out += "}";
    }
    out += "]}";
  }
  return out + "]}\n";
}

}  // namespace dirload::mdb
