// EntrySink: the half of the format seam that a load drives. Phase 1
// (lib/load/loader.h) reads, checks and numbers the entries the same way
// for every format and hands each one here; a sink keeps them as its format
// keeps entries (dirload's native tables, slapd's back-mdb, or nothing at
// all for a dry run) and answers the questions the checks ask of what is
// stored: is this DN taken, what is stored under this ID.
//
// The work is split as the loader splits it: a Preparer per checking worker
// does the costly per-entry work of the format (encoding, normalized copies)
// in parallel; the loader's calling thread then calls the sink itself, in
// input order, and only it.
//
// Thread safety: a Preparer on its own worker; every other call on the
// loader's calling thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/entry/entry_codec.h"
#include "lib/schema/dn_ancestors.h"
#include "lib/util/status.h"

namespace dirload {

class EntrySink {
 public:
  // (description as the checks made it canonical: "cn;lang-de", value)
  using ValuePair = std::pair<std::string_view, std::string_view>;

  struct Value {
    std::string_view description;
    std::string_view value;
    // Made by this load (operational_attributes.h), not read: slapd stores
    // timestamps and CSNs it made without a normalized copy.
    bool generated = false;
  };

  // What a format made of one entry on a checking worker, for Find and Add.
  struct Prepared {
    std::string name_key;  // the format's key for the normalized DN, if it has one
    std::string encoded;   // the entry's values as the format encodes them
    // Per value: what the format stores beside it (slapd's normalized
    // copies); has_beside[i] is 0 where it stores nothing.
    std::vector<std::string> beside;
    std::vector<uint8_t> has_beside;
  };

  class Preparer {
   public:
    virtual ~Preparer() = default;
    // `equalities[i]`, when not null, is values[i] under its equality rule as
    // the checks computed it.
    virtual Status Prepare(std::string_view ndn, std::span<const ValuePair> values,
                           std::span<const std::string* const> equalities, Prepared* out) = 0;
  };

  // What is stored when a load starts, or when it ends: the next free ID,
  // the entries, and the suffix the database holds ("" when it holds none
  // or does not record it).
  struct Start {
    uint64_t next_id = 1;
    uint64_t entries = 0;
    std::string suffix;
    std::string where;  // how messages name the database (its directory)
  };

  struct NewEntry {
    EntryId id = 0;
    std::string_view ndn;  // normalized
    std::string_view dn;   // as given, insignificant spaces removed
    std::string_view rdn;  // its own RDN, likewise
    bool is_suffix = false;
    std::span<const ValuePair> values;  // its own, in input order
    const Prepared* prepared = nullptr;
    std::span<const Value> added;  // the operational values this load made
    uint64_t line = 0;             // where its record starts in the input
  };

  // An entry as stored, valid until the next call to the sink.
  struct StoredEntry {
    std::string_view dn;
    std::vector<Value> values;
  };

  virtual ~EntrySink() = default;

  // Called once per checking worker, before the workers start.
  virtual std::unique_ptr<Preparer> NewPreparer() = 0;
  // What is stored already; refuses a database an unfinished run left.
  virtual Result<Start> Stored() = 0;
  // Marks the work begun on the database of `suffix` (as configured;
  // `nsuffix` normalized), before anything is written.
  virtual Status Begin(std::string_view suffix, std::string_view nsuffix) = 0;
  // The ID of the entry named `ndn`, stored before this load or added by it,
  // or nullopt. `prepared` is the entry's own when it is the entry being
  // loaded, else null. AlreadyExists when the format cannot hold the name
  // beside one it holds.
  virtual Result<std::optional<EntryId>> Find(std::string_view ndn, const Prepared* prepared) = 0;
  // `id` is kept for the entry `name`, which has not come yet: a child came
  // before it (its ID puts it before the child, as slapadd reserves it).
  // The bytes of name.ndn stay valid until the entry is added or Finish:
  // the loader keeps them, so a deep chain of reserved ancestors costs no
  // copies (dn_ancestors.h).
  virtual void Reserve(EntryId /*id*/, DnName /*name*/) {}
  // IDs come in ascending order, except reserved ones.
  virtual Status Add(const NewEntry& entry) = 0;
  // The suffix entry (-w), or an entry added by this load whose ancestor
  // never came (-c).
  virtual Result<StoredEntry> Read(EntryId id) = 0;
  virtual Status Remove(EntryId id, std::string_view ndn) = 0;
  // The entry's values replaced (-w, the suffix entry's contextCSN).
  virtual Status Replace(EntryId id, std::span<const Value> values) = 0;
  // Everything written, the database durable and marked complete (for the
  // formats whose sink owns that; slapd's is installed by its load).
  virtual Status Finish(const Start& end) = 0;
};

}  // namespace dirload
