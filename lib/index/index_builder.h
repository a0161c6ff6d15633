// IndexBuilder: phase 2. Consumes entries in ascending ID order, makes the
// index keys of each configured index (index_keys.h) and writes the index
// tables ("idx.<attr>", lists in the format of lib/idl/idl_format.h), by one of
// two methods with the same result, byte for byte:
//
//   kCache  ID lists collect in the IDL cache (lib/idl/idl_cache.h), at most
//           `idl_cache_size` lists in memory; the least recently used list is
//           flushed into its table (AppendIds: the tail chunk is read and
//           rewritten) to make room. The cost depends on the cache size, as
//           with OpenLDAP's tools; 0 writes every ID straight to its table.
//           What is left at Finish() is written in key order.
//   kSort   (table, key, ID) triples are grouped per key in memory until
//           `sort_memory` bytes are used, then the run is sorted by key and
//           spilled to a file under `tmpdir` (a private directory, removed
//           on every exit path). Finish() k-way merges the runs (or uses the
//           single in-memory run directly) and writes every table in key
//           order with Store::Append: no reads, full pages.
//
// Values of a type are indexed into its own index and into the index of
// every supertype that has one (index_spec.h). Presence keys are per entry.
// Values that cannot be normalised give no eq/sub keys and are counted.
//
// The builder drops the tables of its specs at Create() (when
// drop_existing), so the tables it leaves hold exactly what it built; it
// commits every `commit_bytes` written, and Finish() commits but does not
// sync (the caller syncs once at the end, as slapadd -q does). After an
// error the builder is unusable (errors are sticky) and the tables are
// partial: the caller must leave them marked stale.
//
// Thread safety: one calling thread (kSort may start options.threads of its
// own, and as many again to encode their lists at the end; none of them
// touches the store). The Schema, the specs' types and the
// Store must outlive the builder; nothing else may write the store while it
// runs.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lib/entry/entry_codec.h"
#include "lib/idl/idl_cache.h"
#include "lib/index/index_spec.h"
#include "lib/schema/schema.h"
#include "lib/store/store.h"
#include "lib/util/cpu_ledger.h"
#include "lib/util/status.h"

namespace dirload {

enum class IndexMethod { kCache, kSort };
std::string_view IndexMethodName(IndexMethod method);  // "cache", "sort"
Result<IndexMethod> ParseIndexMethod(std::string_view name);

struct BuilderOptions {
  // kCache: lists kept in memory (--idl-cache-size); 0 writes every ID
  // straight to its table.
  uint64_t idl_cache_size = 1u << 20;
  // kSort: bytes of grouped keys and IDs held before a run is spilled
  // (--sort-memory); at least 1 MB is used.
  uint64_t sort_memory = 512ull << 20;
  // kSort: where spill files go (--tmpdir); empty: $TMPDIR, else /tmp.
  std::string tmpdir;
  // Commit the store after about this many bytes written; 0: only at Finish.
  uint64_t commit_bytes = 64ull << 20;
  // Drop the specs' tables at Create().
  bool drop_existing = true;
  // --stats: where phase 2's CPU time goes (stages "read" for the calling
  // thread's entries and values, "keys", "sort", "write"; roles "reader",
  // "index", "encode"). May be null.
  CpuLedger* ledger = nullptr;
  // kSort: with 2 or more, that many threads of the builder's own share
  // the indexes out (by the weight of their keys in the first entries); each
  // makes, groups, spills and at the end sorts the keys of its indexes, from
  // values the calling thread only copies. 1 does everything on the calling
  // thread.
  unsigned threads = 2;
  // kSort: the lists go here instead of into the tables (a verification
  // compares them with what the tables hold): each spec's lists together,
  // keys in bytewise order, IDs ascending, from Finish on the calling
  // thread. The store is then neither written nor committed, and
  // drop_existing must be false.
  std::function<Status(uint32_t spec, std::string_view key, std::span<const EntryId> ids)> lists;
};

// An index build as a command asks for it, whichever the format.
struct IndexRunOptions {
  IndexMethod method = IndexMethod::kSort;
  BuilderOptions builder;
  // Rebuild only these attributes (names as configured); empty: all.
  std::vector<std::string> only;
};

// Per index.
struct IndexBuildStats {
  std::string name;             // attribute type's canonical name
  std::string table;            // "idx.cn"
  std::string kinds;            // "eq,sub"
  uint64_t values = 0;          // values indexed (own type and subtypes)
  uint64_t unnormalizable = 0;  // values that gave no eq/sub keys
  uint64_t keys = 0;            // distinct index keys written
  uint64_t ids = 0;             // (key, ID) pairs written
};

struct BuilderStats {
  IndexMethod method = IndexMethod::kCache;
  uint64_t entries = 0;
  uint64_t pairs = 0;          // (key, ID) pairs over all indexes
  IdlCacheStats cache;         // kCache only
  uint64_t runs_spilled = 0;   // kSort: runs written to temp files
  uint64_t spill_bytes = 0;    // kSort: bytes written to temp files
  uint64_t bytes_written = 0;  // keys + values written to the store
  uint64_t commits = 0;
  std::vector<IndexBuildStats> indexes;  // in spec order
};

// One value with its attribute type already resolved (an alternative to an
// encoded entry).
struct TypedValue {
  const AttributeType* type = nullptr;
  std::string_view value;
};

class IndexBuilder {
 public:
  [[nodiscard]] static Result<std::unique_ptr<IndexBuilder>> Create(
      IndexMethod method, const std::vector<IndexSpec>& specs, const Schema& schema, Store* store,
      const BuilderOptions& options);
  virtual ~IndexBuilder() = default;
  IndexBuilder(const IndexBuilder&) = delete;
  IndexBuilder& operator=(const IndexBuilder&) = delete;

  // Indexes one entry decoded from id2entry; descriptions are resolved
  // through `dict` (and cached per dictionary id, so `dict` must be the same
  // dictionary, possibly grown, on every call). Descriptions the schema does
  // not know are not indexed.
  // REQUIRES: id > every ID added before; id != 0.
  [[nodiscard]] virtual Status Add(EntryId id, const EntryView& entry,
                                   const AttributeDictionary& dict) = 0;
  // The same for values whose types are already known.
  [[nodiscard]] virtual Status AddValues(EntryId id, std::span<const TypedValue> values) = 0;
  // Writes what is still in memory and commits. Must be called once, last.
  [[nodiscard]] virtual Status Finish() = 0;

  // REQUIRES: Finish() was called, or options.threads is 1 (the workers
  // update the counts and spill figures as they go).
  virtual BuilderStats stats() const = 0;

 protected:
  IndexBuilder() = default;
};

}  // namespace dirload
