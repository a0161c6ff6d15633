// MdbReader: the entries of a slapd 2.5 back-mdb database, read as slapcat
// reads them: in ID order (id2e's key order), each with its DN rebuilt from
// dn2i and its attribute values exactly as stored.
//
// DNs: an entry's self node (the first duplicate under its own ID in dn2i)
// holds its RDN as given, its normalized RDN and its parent's ID. The DN is
// the RDN, a comma, and the parent's DN, up to the suffix entry (parent 0)
// whose "RDN" is the whole suffix DN; the normalized DN is built the same
// way from the normalized RDNs. DNs of parents are cached, so a scan costs
// one dn2i lookup per entry and memory grows with the number of entries
// that have children, not with all entries.
//
// Descriptions: ad2i maps 1..N to description text ("cn;lang-de"). The
// reader's AttributeDictionary gives each the id equal to its ad2i number
// (id 0 is an unused empty placeholder), so ValueRef::description is the
// ad2i number and lib/search's evaluation works on the entries unchanged.
// Values kept in id2v (back-mdb's `multival` option) are read from there
// (mdb_id2v.h), in id2v's order, as slapd reads them.
//
// Placeholders: when slapadd meets an entry whose ancestors are missing, it
// gives each missing ancestor an ID, a dn2i node and an empty id2e value.
// slapcat skips those IDs and so does ForEach; Get says NotFound. Their DNs
// still serve as parents of the entries below them.
//
// Errors name the entry's ID and the sub-database (Corruption for bytes that
// do not decode, kStorage for engine failures).
//
// Thread safety: one thread at a time. The environment is opened read-only
// (mdb_env.h says how the lock file is used); the reader owns it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "lib/entry/entry_codec.h"
#include "lib/format/mdb/mdb_entry_codec.h"
#include "lib/format/mdb/mdb_env.h"
#include "lib/util/status.h"

namespace dirload::mdb {

struct MdbReadEntry {
  uint64_t id = 0;
  std::string dn;   // as slapcat prints it: the RDNs as given, joined by ","
  std::string ndn;  // the same from the normalized RDNs (slapd's normalization)
  // The decoded id2e value, as views: in ForEach into the database's map
  // (nothing is copied per entry), after Get into `bytes`.
  MdbEntryView stored;
  std::string bytes;  // Get: a copy of the value, which outlives the read transaction
  // dn and the values of `stored` in stored order, descriptions as ad2i
  // numbers; the views point into this struct (and for ForEach into the
  // map, valid during the call): do not copy or move it.
  EntryView view;
};

class MdbReader {
 public:
  static Result<std::unique_ptr<MdbReader>> Open(const std::string& dir);

  // ad2i's descriptions (see above).
  const AttributeDictionary& dictionary() const { return dictionary_; }
  MdbEnv* env() { return env_.get(); }
  // How much of each id2e value is checked (mdb_entry_codec.h): kFull by
  // default, as cat reads; searches take kBounds, which never reads past a
  // value but leaves the values a filter does not test untouched.
  void set_entry_checks(MdbEntryChecks checks) { checks_ = checks; }
  const std::string& path() const { return env_->path(); }

  // Calls `fn` for each entry in ID order; stops at and returns the first
  // non-OK status. `fn`'s entry is valid only during the call.
  // `wanted`, when given, sees each entry before its DN is built (dn,
  // ndn and the view's dn are empty then) and decides whether `fn` gets it: a scan
  // that keeps few entries spares the others their walk of dn2i.
  // `finish`, when given, runs after the last entry inside the scan's read
  // transaction, while the views `fn` was given are still valid.
  Status ForEach(const std::function<Status(const MdbReadEntry&)>& fn,
                 const std::function<Result<bool>(const MdbReadEntry&)>& wanted = nullptr,
                 const std::function<Status()>& finish = nullptr);
  // The entry `id`; NotFound when id2e has no such ID.
  Status Get(uint64_t id, MdbReadEntry* out);

 private:
  struct Names {
    std::string dn, ndn;
  };
  MdbReader() = default;
  Status LoadDescriptions(MdbTxn* txn);
  // Decodes `value` (id2e's bytes for `id`, which must outlive *out's use)
  // into *out, DN left empty; FillDn then rebuilds the DN.
  Status FillValues(MdbTxn* txn, uint64_t id, std::string_view value, MdbReadEntry* out);
  Status FillDn(MdbTxn* txn, MdbReadEntry* out);
  // The DN and normalized DN of `id` (REQUIRES: id != 0), from the cache or
  // by walking up dn2i; the walk's parents are cached.
  Status ParentNames(MdbTxn* txn, uint64_t id, const Names** out);
  // `id`'s self node: its RDN, normalized RDN, and parent ID.
  Status SelfNode(MdbTxn* txn, uint64_t id, std::string* rdn, std::string* nrdn, uint64_t* parent);

  std::unique_ptr<MdbEnv> env_;
  AttributeDictionary dictionary_;
  std::unordered_map<uint64_t, Names> parents_;
  std::string rdn_, nrdn_;  // FillDn's, kept for their capacity
  MdbEntryChecks checks_ = MdbEntryChecks::kFull;
};

// The 8-byte key of an ID in id2e and dn2i (native order: little-endian).
std::string MdbIdKey(uint64_t id);
uint64_t MdbDecodeId(std::string_view key);

}  // namespace dirload::mdb
