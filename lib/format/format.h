// The seam between the two database formats: what differs between dirload's
// native tables (on LMDB or Berkeley DB) and slapd 2.5's back-mdb database,
// behind one interface that lib/db's Database drives, so that no caller
// above it asks which format it holds.
//
// A FormatReader is one opened database seen by a reading command: its
// attribute dictionary, its suffix, the indexes a search may trust, every
// entry in ID order, a search, a report of what it holds, and a
// verification of its tables against each other. Each format
// implements it in its own folder (native/, mdb/).
//
// Thread safety: one reader, one thread. Concurrent readers open one each.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lib/entry/entry_codec.h"
#include "lib/format/database_report.h"
#include "lib/format/format_detect.h"
#include "lib/format/verify_report.h"
#include "lib/index/index_spec.h"
#include "lib/schema/schema.h"
#include "lib/search/search.h"
#include "lib/util/status.h"

namespace dirload {

// Called for each entry; `entry` is valid during the call only.
using EntryCallback = std::function<Status(const EntryView& entry)>;

// Called for each key of an index table, tables in name order and keys in
// the table's order, with the key as stored and its IDs ascending; every
// view is valid during the call only. A range list of slapd's format
// (IDs first..last) comes as {0, first, last}, as it is stored.
using IndexListCallback = std::function<Status(std::string_view table, std::string_view key,
                                               std::span<const uint64_t> ids)>;

// Which entries a scan visits (cat -a, -s, -H): those in `scope` of `base`
// matching `filter`. An unset base is the database's suffix.
struct EntrySelection {
  std::optional<std::string> base;
  SearchScope scope = SearchScope::kSub;
  Filter filter;
};

// What a reader asks of the database it belongs to, when it first needs it.
struct ReaderContext {
  std::function<Result<const Schema*>()> schema;
  // The index configuration given (slapd.conf, cn=config, --index);
  // nullopt when none was given.
  std::function<Result<std::optional<IndexConfig>>()> configured_indexes;
  // The indexes an interrupted rebuild left unfinished, by attribute name
  // (an empty list: all of them); nullopt when none is.
  std::optional<std::vector<std::string>> unfinished_indexes;
};

class FormatReader {
 public:
  virtual ~FormatReader() = default;

  // Reads what the database says about itself and refuses one that is not
  // complete. Every method below but Report() requires it; Report() reads
  // the engine's figures before anything else has touched them.
  virtual Status Prepare() = 0;

  virtual DatabaseFormat format() const = 0;
  // Resolves the descriptions of the entries the reader hands out.
  virtual const AttributeDictionary& dictionary() const = 0;
  // The suffix the database holds: recorded (native) or configured (slapd's).
  virtual const std::string& suffix() const = 0;
  // How `cat` writes the entries out: as slapcat does, base64 rule included
  // (slapd's format), or as RFC 2849 asks (native).
  virtual bool slapcat_ldif() const = 0;

  // The indexes a search may use, and those it must not, each as "NAME: why".
  // Sorted out on first use (they need the schema).
  Result<const IndexConfig*> UsableIndexes();
  Result<std::vector<std::string>> UnusableIndexes();

  // Every entry, or those `selection` picks, in ID order (slapcat's). A
  // selection is a search (lib/search/search.h) over the format's
  // SearchSource.
  virtual Status ForEachEntry(const EntrySelection* selection, const EntryCallback& callback) = 0;
  // ForEachEntry, then `finish` once the last entry has been given, before
  // the scan lets go of what its views point into.
  virtual Status ForEachEntryThen(const EntrySelection* selection, const EntryCallback& callback,
                                  const std::function<Status()>& finish) {
    DIRLOAD_RETURN_IF_ERROR(ForEachEntry(selection, callback));
    return finish();
  }
  // Whether the views of values and normalized copies that ForEachEntryThen
  // gives (not the DN's) stay valid until its `finish` returns, so that a
  // caller may hand a batch of entries to other threads without copying
  // their bytes.
  virtual bool ValuesOutliveCallback(const EntrySelection* selection) const {
    (void)selection;
    return false;
  }
  // An exact search, run by lib/search/search.h over the format's
  // SearchSource: indexes propose, every candidate is checked. The
  // request's `indexes` is ignored: UsableIndexes() are used unless
  // request.use_indexes is false.
  virtual Result<SearchResult> Search(SearchRequest request, const SearchCallback& callback) = 0;
  // What the database holds (entries, tables, indexes, the engine), in the
  // shape both formats fill (database_report.h).
  virtual Result<DatabaseReport> Report() = 0;
  // `dirload verify` (verify_report.h): the entries, the DN tree and the
  // configured indexes (native: the configuration in force, given else
  // recorded) checked against each other. What is wrong goes into the
  // report; errors are the engine's and the request's.
  virtual Result<VerifyReport> Verify(const VerifyOptions& options) = 0;
  // Every index table's (key, IDs) lists as stored (`stat --digest`).
  virtual Status ForEachIndexList(const IndexListCallback& callback) = 0;

 protected:
  // Splits the configuration in force into the indexes a search may use and
  // the others, each "NAME: why", as the format knows them.
  virtual Status SortIndexes(IndexConfig* usable, std::vector<std::string>* unusable) = 0;

 private:
  std::optional<IndexConfig> usable_;
  std::vector<std::string> unusable_;
};

}  // namespace dirload
