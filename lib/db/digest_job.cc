#include "lib/db/digest_job.h"

#include "lib/compare/canonical_entry.h"
#include "lib/schema/dn.h"

namespace dirload {
namespace {

void PutU64(uint64_t v, Sha1* h) {
  char b[8];
  for (int i = 7; i >= 0; --i) {
    b[i] = static_cast<char>(v & 0xff);
    v >>= 8;
  }
  h->Update(std::string_view(b, 8));
}

void PutString(std::string_view s, Sha1* h) {
  PutU64(s.size(), h);
  h->Update(s);
}

}  // namespace

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
  PutString("dirload-content-1", &content);
  PutU64(d.entries, &content);
  content.Update(
      std::string_view(reinterpret_cast<const char*>(sum.value().data()), sum.value().size()));
  d.content = content.Final();

  Sha1 indexes;
  PutString("dirload-indexes-1", &indexes);
  std::string last_table;
  DIRLOAD_RETURN_IF_ERROR(db->ForEachIndexList(
      [&](std::string_view table, std::string_view key, std::span<const uint64_t> ids) {
        if (d.index_keys == 0 || table != last_table) {
          ++d.index_tables;
          last_table.assign(table);
        }
        ++d.index_keys;
        PutString(table, &indexes);
        PutString(key, &indexes);
        PutU64(ids.size(), &indexes);
        for (uint64_t id : ids) PutU64(id, &indexes);
        return Status::Ok();
      }));
  d.indexes = indexes.Final();

  Sha1 all;
  PutString("dirload-digest-1", &all);
  all.Update(std::string_view(reinterpret_cast<const char*>(d.content.data()), d.content.size()));
  all.Update(std::string_view(reinterpret_cast<const char*>(d.indexes.data()), d.indexes.size()));
  d.digest = all.Final();
  return d;
}

}  // namespace dirload
