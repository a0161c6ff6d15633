#include "lib/format/mdb/mdb_report_text.h"

#include <string>
#include <vector>

#include "lib/util/text_table.h"

namespace dirload::mdb {
namespace {

std::string U64(uint64_t v) { return std::to_string(v); }

}  // namespace

std::string MdbReportText(const MdbDatabaseReport& r) {
  std::string out;
  out += "database    " + r.path + "\n";
  out += "format      slapd back-mdb (LMDB)\n";
  out += "entries     " + U64(r.entries) + "\n";
  out += "highest id  " + U64(r.max_id) + "\n";
  out += "attribute descriptions " + U64(r.descriptions) + " (ad2i)\n";
  out +=
      "on disk     " + U64(r.file_bytes) + " bytes (" + HumanBytes(r.file_bytes) + ", data.mdb)\n";

  std::vector<std::vector<std::string>> rows = {
      {"table", "entries", "keys", "depth", "branch pages", "leaf pages", "overflow pages"}};
  for (const MdbSubDbReport& t : r.subdbs) {
    rows.push_back({t.name, U64(t.stat.entries), U64(t.keys), U64(t.stat.depth),
                    U64(t.stat.branch_pages), U64(t.stat.leaf_pages), U64(t.stat.overflow_pages)});
  }
  out += "\ntables (mdb_stat; entries count duplicates)\n" + TextColumns(rows, 1);

  if (r.indexes.empty()) return out + "\nindexes: none\n";
  std::vector<std::vector<std::string>> ix_rows = {
      {"index", "keys", "IDs", "ranges", "average", "longest lists (IDs, or a range lo..hi)"}};
  for (const MdbIndexReport& ix : r.indexes) {
    std::string longest;
    for (const MdbIdList& l : ix.longest) {
      if (!longest.empty()) longest += "  ";
      longest += MdbKeyHex(l.key) + ":" + MdbIdListText(l);
    }
    double average = ix.keys == 0 ? 0.0 : static_cast<double>(ix.ids) / ix.keys;
    ix_rows.push_back({ix.name, U64(ix.keys), U64(ix.ids), U64(ix.ranges), FixedPoint(average, 2),
                       longest.empty() ? "-" : longest});
  }
  out += "\nindexes (keys are hashes or ordered keys, shown in hex)\n" + TextColumns(ix_rows, 1);
  return out;
}

}  // namespace dirload::mdb
