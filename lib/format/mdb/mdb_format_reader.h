// slapd's back-mdb format's reader (format.h), read as slapcat and slapd
// read it: id2e through ad2i's dictionary, names through dn2i. slapd records
// no index configuration, so the indexes a search may use are the
// configured ones whose index databases exist and are not empty
// (mdb_search_source.h); the suffix is the configured one. Searches and
// selections run the search executor over an MdbSearchSource.
//
// Thread safety: one thread.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lib/format/format.h"
#include "lib/format/mdb/mdb_index_keys.h"
#include "lib/format/mdb/mdb_reader.h"

namespace dirload::mdb {

class MdbFormatReader final : public FormatReader {
 public:
  // `suffix`: the configuration's, if any. `keys`: its index_* settings, with
  // which the stored keys were made. Nothing is opened yet: Report() opens
  // the environment its own way.
  MdbFormatReader(std::string dir, std::optional<std::string> suffix, MdbKeyOptions keys,
                  ReaderContext context);

  Status Prepare() override;
  DatabaseFormat format() const override { return DatabaseFormat::kMdb; }
  const AttributeDictionary& dictionary() const override { return reader_->dictionary(); }
  const std::string& suffix() const override { return suffix_; }
  bool slapcat_ldif() const override { return true; }
  Status ForEachEntry(const EntrySelection* selection, const EntryCallback& callback) override;
  Status ForEachEntryThen(const EntrySelection* selection, const EntryCallback& callback,
                          const std::function<Status()>& finish) override;
  // The whole scan, `finish` included, runs in one read transaction and its
  // views point into the map, which LMDB keeps unchanged until that
  // transaction ends.
  bool ValuesOutliveCallback(const EntrySelection* selection) const override {
    return selection == nullptr;
  }
  Result<SearchResult> Search(SearchRequest request, const SearchCallback& callback) override;
  Result<DatabaseReport> Report() override;
  Result<VerifyReport> Verify(const VerifyOptions& options) override;
  Status ForEachIndexList(const IndexListCallback& callback) override;

 private:
  Status SortIndexes(IndexConfig* usable, std::vector<std::string>* unusable) override;

  std::string dir_;
  std::string suffix_;
  bool has_suffix_;
  MdbKeyOptions keys_;
  ReaderContext context_;
  std::unique_ptr<MdbReader> reader_;
};

}  // namespace dirload::mdb
