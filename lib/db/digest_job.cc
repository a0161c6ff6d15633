#include "lib/db/digest_job.h"

#include "lib/compare/canonical_entry.h"
#include "lib/schema/dn.h"

namespace dirload {
namespace {}  // namespace

Result<DatabaseDigest> DigestDatabase(Database* db) {
  DatabaseDigest d;
  DIRLOAD_ASSIGN_OR_RETURN(const Schema* schema, db->schema());
  EntryCanonicalizer canon(*schema, CanonicalOptions{});
  DIRLOAD_RETURN_IF_ERROR(canon.status());
  // The suffix entry's contextCSN; without a known suffix, the first entry
  // that has one (the suffix entry comes first in ID order).
  std::string nsuffix;
  if (!db->suffix().empty()) DIRLOAD_RETURN_IF_ERROR(NormalizeDn(*schema, db->suffix(), &nsuffix));
  bool csn_found = false;
  HashSum sum;
  CanonicalEntry entry;
  DIRLOAD_RETURN_IF_ERROR(db->ForEachEntry(nullptr, [&](const EntryView& e) -> Status {
    DIRLOAD_RETURN_IF_ERROR(canon.FromView(e, db->dictionary(), &entry));
    sum.Add(EntryHash(entry));
    ++d.entries;
    if (!csn_found && (nsuffix.empty() || entry.ndn == nsuffix)) {
      if (const CanonicalAttribute* csn = entry.Find("contextCSN")) {
        d.context_csn = csn->values;
        csn_found = true;
      }
    }
    return Status::Ok();
  }));
  Sha1 content;
  content.UpdateString("dirload-content-1");
  content.UpdateU64(d.entries);
  content.Update(
      std::string_view(reinterpret_cast<const char*>(sum.value().data()), sum.value().size()));
  d.content = content.Final();

  Sha1 indexes;
  indexes.UpdateString("dirload-indexes-1");
  std::string last_table;
  DIRLOAD_RETURN_IF_ERROR(db->ForEachIndexList(
      [&](std::string_view table, std::string_view key, std::span<const uint64_t> ids) {
        if (d.index_keys == 0 || table != last_table) {
          ++d.index_tables;
          last_table.assign(table);
        }
        ++d.index_keys;
        indexes.UpdateString(table);
        indexes.UpdateString(key);
        indexes.UpdateU64(ids.size());
        for (uint64_t id : ids) indexes.UpdateU64(id);
        return Status::Ok();
      }));
  d.indexes = indexes.Final();

  Sha1 all;
  all.UpdateString("dirload-digest-1");
  all.Update(std::string_view(reinterpret_cast<const char*>(d.content.data()), d.content.size()));
  all.Update(std::string_view(reinterpret_cast<const char*>(d.indexes.data()), d.indexes.size()));
  d.digest = all.Final();
  return d;
}

}  // namespace dirload
