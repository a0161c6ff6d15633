// The native format's reader (format.h): dirload's own tables on LMDB or
// Berkeley DB, opened read-only. meta gives the suffix, the attribute
// dictionary and the state; the indexes a search may use are those meta
// records as built with the configuration in force (given, else recorded),
// so that a stale index is set aside and results stay exact.
//
// Thread safety: one thread (as Store).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lib/format/format.h"
#include "lib/format/native/database_meta.h"
#include "lib/store/store.h"

namespace dirload {

class NativeReader final : public FormatReader {
 public:
  // Opens the store in `dir` read-only; nothing is read from it yet.
  static Result<std::unique_ptr<NativeReader>> Open(const std::string& dir, Backend backend,
                                                    StoreOptions options, ReaderContext context);

  Status Prepare() override;
  DatabaseFormat format() const override { return DatabaseFormat::kNative; }
  const AttributeDictionary& dictionary() const override { return dictionary_; }
  const std::string& suffix() const override { return meta_.suffix; }
  bool slapcat_ldif() const override { return false; }
  Status ForEachEntry(const EntrySelection* selection, const EntryCallback& callback) override;
  Result<SearchResult> Search(SearchRequest request, const SearchCallback& callback) override;
  Result<DatabaseReport> Report() override;
  Result<VerifyReport> Verify(const VerifyOptions& options) override;
  Status ForEachIndexList(const IndexListCallback& callback) override;

 private:
  NativeReader(std::string dir, ReaderContext context)
      : dir_(std::move(dir)), context_(std::move(context)) {}
  Status SortIndexes(IndexConfig* usable, std::vector<std::string>* unusable) override;

  std::string dir_;
  ReaderContext context_;
  std::unique_ptr<Store> store_;
  DatabaseMeta meta_;
  AttributeDictionary dictionary_;
};

}  // namespace dirload
