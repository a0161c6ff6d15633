// MdbEntryEncoder: one entry's values as back-mdb's id2e record
// (mdb_entry_codec.h has the layout), made on the writing thread of a load.
// Values arrive as the loader hands them over (MdbValue); they are merged
// into one attribute record per canonical description ("cn;lang-de"), in
// order of first appearance, as slapadd without -q merges them, with
// slapd's normalized copies (made here when the caller did not make them)
// and ocflags. Each description's ad2i number is asked of the caller once,
// the first time an entry uses it: the caller owns ad2i (a bulk load's own
// transaction, or a live environment that slapd writes too).
//
// Layout() works out the record and its size; Write() then writes the bytes
// of the same values into space the caller reserved (an LMDB page), so no
// copy of the entry is made.
//
// Value rules (MdbValueRules, from slapd's configuration): the values of a
// `sortvals` type are sorted in slapd's order (mdb_value_order.h) and the
// record flagged sorted (kMdbAdxSorted), as slapd's str2entry does; a
// record of a `multival` description with more values than its high
// threshold keeps only its counts in id2e (kMdbAdxMultival), and
// ForEachId2vRecord hands its values, in id2v's order, to the caller, who
// puts them in id2v (mdb_id2v.h).
//
// Thread safety: one thread; the Schema must outlive the encoder.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lib/format/mdb/mdb_value_order.h"
#include "lib/util/sequence_lookup.h"
#include "lib/util/status.h"
#include "lib/util/string_map.h"

namespace dirload {
class Schema;
struct AttributeType;
}  // namespace dirload

namespace dirload::mdb {

// One attribute value of an entry, as read.
struct MdbValue {
  std::string_view description;  // as written ("CN;lang-DE")
  std::string_view value;
  // A value slapadd generates itself (createTimestamp, modifyTimestamp,
  // entryCSN): stored without a normalized copy. Decided per attribute
  // record, by its first value.
  bool generated = false;
  // The normalized copy, when the caller computed it (MdbNormalizedValue;
  // empty when the type stores none); computed here otherwise.
  std::string_view normalized;
  bool has_normalized = false;
};

// slapd's `sortvals` (global) and back-mdb's `multival` (per database).
struct MdbValueRules {
  // Attribute types (any name or OID) whose values are kept sorted.
  std::vector<std::string> sorted_types;
  // `multival ATTRS HI,LO`: a record of `description` (exactly, options
  // included; "default" for every description no other names) with more
  // than `hi` values goes to id2v. `lo` matters to slapd's modifications
  // only.
  struct Multival {
    std::string description;
    uint32_t hi = 0;
    uint32_t lo = 0;
  };
  std::vector<Multival> multival;

  bool empty() const { return sorted_types.empty() && multival.empty(); }
};

class MdbEntryEncoder {
 public:
  // The ad2i number of a canonical description, assigning one if it has
  // none yet.
  using Ad2iNumber = std::function<Result<uint32_t>(const std::string& description)>;

  explicit MdbEntryEncoder(const Schema& schema) : schema_(schema) {}

  // Applies `rules` to every entry laid out from now on. InvalidArgument
  // (origin kConfiguration) for an undefined type or description, a
  // sortvals type slapd refuses (single-valued, X-ORDERED), a threshold
  // pair with lo above hi, or a type whose order mdb_value_order.h does not
  // reproduce.
  Status SetValueRules(const MdbValueRules& rules);

  // Lays `values` out as entry `id` (the ID names it in messages only).
  // InvalidArgument for a value without a normalized form or counts that
  // overflow the format's words.
  Status Layout(uint64_t id, std::span<const MdbValue> values, const Ad2iNumber& ad2i);
  // The record's size in bytes, padding included. REQUIRES: Layout succeeded.
  uint64_t size() const { return encoded_size_; }
  // Writes size() bytes to `out`. REQUIRES: the same `values` as the last
  // Layout.
  void Write(std::span<const MdbValue> values, char* out) const;

  // Whether the last Layout put any record's values in id2v.
  bool has_id2v() const { return id2v_records_ != 0; }
  // Calls `fn` for each record of the last Layout whose values go to id2v,
  // in ascending ad2i number (id2v's key order): its ad2i number, its value
  // order, and its values as id2v duplicates (mdb_id2v.h) in that order.
  // REQUIRES: the same `values` as the last Layout.
  using Id2vRecordFn = std::function<Status(uint32_t adx, MdbValueOrder order,
                                            std::span<const std::string> duplicates)>;
  Status ForEachId2vRecord(std::span<const MdbValue> values, const Id2vRecordFn& fn);

 private:
  // MdbEntryOcFlags of one objectClass value, remembered; `position` is
  // its place among the entry's objectClass values.
  uint32_t OcFlags(size_t position, std::string_view object_class);

  const Schema& schema_;
  uint64_t encoded_size_ = 0;
  uint64_t table_words_ = 0;
  uint64_t nvals_ = 0;
  // What Layout learnt of each description as written: entries repeat a
  // few dozen descriptions millions of times.
  struct Description {
    std::string written;  // as the entries write it (its key in descriptions_)
    std::string name;     // canonical ("cn;lang-de"), or as written when undefined
    const AttributeType* type = nullptr;
    bool normalized = false;            // slapd stores normalized copies
    bool object_class = false;          // objectClass: its values set the ocflags
    uint32_t adx = 0;                   // ad2i number, 0 until first used
    bool sorted = false;                // a sortvals type
    uint32_t multival_hi = UINT32_MAX;  // more values than this go to id2v
    MdbValueOrder order = MdbValueOrder::kOctet;
    uint32_t canonical = 0;                  // in canonical_: one per name
    SequenceLookup<Description>::Link next;  // for sequence_
    // The last value Layout normalized itself, and its normalized copy.
    bool has_last = false;
    std::string last_value, last_normalized;
  };
  StringMap<Description> descriptions_;
  // Layout's lookups of descriptions, mostly without hashing.
  SequenceLookup<Description> sequence_;
  // A description first seen, in descriptions_.
  Result<Description*> AddDescription(std::string_view written);
  // Per canonical name: which of records_ holds it, when `entry` is the
  // entry being laid out (Layout's count of entries).
  struct Canonical {
    uint64_t entry = 0;
    uint32_t record = 0;
  };
  StringMap<uint32_t> canonical_ids_;
  std::vector<Canonical> canonical_;
  uint64_t encoded_entries_ = 0;
  // objectClass value as written -> its ocflags (MdbEntryOcFlags), up to
  // kMaxOcFlags of them.
  static constexpr size_t kMaxOcFlags = 1024;
  StringMap<uint32_t> oc_flags_;
  // The last entry's objectClass values and their flags, by position: most
  // entries name the classes of the one before, in the same order.
  std::vector<std::pair<std::string, uint32_t>> last_classes_;
  uint32_t entry_oc_flags_ = 0;  // Layout's, for Write
  // Layout's scratch, kept from entry to entry.
  struct Record {
    Description* d = nullptr;
    bool generated = false;   // its first value is one slapadd makes itself
    bool normalized = false;  // carries normalized copies
    bool all_given = true;    // every value came with its normalized copy
    uint32_t count = 0;
    uint32_t first = 0;     // in order_
    bool multival = false;  // its values go to id2v
  };
  // The value (or its normalized copy) the order compares, of value index k
  // of `rec`.
  std::string_view Ordered(std::span<const MdbValue> values, const Record& rec, uint32_t k) const;
  // Sorts rec's values in order_ by its description's order; InvalidArgument
  // for two equal values where slapd refuses them.
  Status SortRecord(uint64_t id, std::span<const MdbValue> values, Record& rec);
  std::vector<Record> records_;
  std::vector<uint32_t> record_of_;    // per value
  std::vector<uint32_t> order_;        // value indexes grouped by record
  std::vector<std::string> computed_;  // normalized copies made here, per value
  // The value rules, resolved: sortvals types (by AttributeType::id) and
  // multival thresholds by canonical description.
  std::vector<bool> sorted_types_;
  StringMap<uint32_t> multival_hi_;
  uint32_t default_multival_hi_ = UINT32_MAX;
  uint32_t id2v_records_ = 0;           // in the last Layout
  std::vector<std::string> id2v_dups_;  // ForEachId2vRecord's scratch
};

}  // namespace dirload::mdb
