// The id2entry codec: how an entry is stored as the value of its ID.
//
// An entry is its DN and its attribute values, exactly as given in the input
// (not normalised), in input order. Attribute descriptions ("cn;lang-en") are
// replaced by small integers from an AttributeDictionary kept in the meta
// table, which is what makes the encoding compact: a description is written
// once per database, not once per value.
//
// Format, version 1 (all varints are unsigned LEB128):
//   byte     format version, 0x01
//   varint   DN length in bytes, then the DN bytes
//   varint   number of runs
//   per run (consecutive values of one description):
//     varint   description id
//     varint   number of values (>= 1)
//     per value: varint length, then the value bytes
// Runs keep the input order: "cn: a / sn: b / cn: c" is three runs.
//
// Thread safety: the functions are pure; a dictionary is used by one thread
// at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "lib/util/status.h"

namespace dirload {

using EntryId = uint64_t;

inline constexpr uint8_t kEntryFormatVersion = 1;

// One attribute value of an entry; the description is a dictionary id.
struct ValueRef {
  uint32_t description = 0;
  std::string_view value;
};

// An entry decoded in place: the views point into the encoded bytes, which
// must outlive it.
struct EntryView {
  std::string_view dn;
  std::vector<ValueRef> values;
  // Per value, the normalized copy the database keeps beside it (slapd's
  // format keeps one for the values of attributes with an equality rule,
  // made under the schema of the day it was written), or a null view; empty
  // when the format keeps none.
  std::vector<std::string_view> normalized;
};

// Appends the encoding of (dn, values) to `out`.
void EncodeEntry(std::string_view dn, const std::vector<ValueRef>& values, std::string* out);

// The same in two steps, so that the values can be encoded on another thread
// before the DN is known: EncodeValues writes the part after the DN, and
// EncodeEntryFromValues puts the version and DN in front of it.
void EncodeValues(const std::vector<ValueRef>& values, std::string* out);
void EncodeEntryFromValues(std::string_view dn, std::string_view encoded_values, std::string* out);
// The same with a second list of values after the first (each from
// EncodeValues, with no description in both), written in one pass.
// False, with nothing appended, when either list is not such an encoding.
bool EncodeEntryFromValues(std::string_view dn, std::string_view encoded_values,
                           std::string_view more_encoded_values, std::string* out);

// Decodes `bytes` into `*entry` (cleared first). Corruption when the bytes are
// not a complete version-1 encoding.
Status DecodeEntry(std::string_view bytes, EntryView* entry);

// Attribute descriptions as written in the input, each given a dense id in
// order of first appearance. Descriptions differing only in case are
// different entries: the stored data keeps exactly what the input said.
class AttributeDictionary {
 public:
  // Returns the id of `description`, adding it when new.
  uint32_t Intern(std::string_view description);
  // REQUIRES: id < size()
  std::string_view Name(uint32_t id) const { return names_[id]; }
  size_t size() const { return names_.size(); }
  // Ids from `first` on, the ones added since a caller last saved.
  // Serialised form: for each id in order, varint length + bytes.
  std::string Serialize(uint32_t first = 0) const;
  // Appends the descriptions serialised in `bytes` (ids continue from size()).
  Status Load(std::string_view bytes);

 private:
  // Transparent hashing: lookups by string_view allocate nothing, and Intern
  // runs once per attribute value during a load.
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  std::vector<std::string> names_;
  std::unordered_map<std::string, uint32_t, Hash, std::equal_to<>> ids_;
};

}  // namespace dirload
