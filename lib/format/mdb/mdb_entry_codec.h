// The id2e value of slapd 2.5's back-mdb: how one entry's attributes are
// stored under its 8-byte ID. The entry's DN is not part of it (back-mdb
// rebuilds DNs from dn2i, mdb_dn_node.h).
//
// Format (as OpenLDAP 2.5 writes it on a little-endian 64-bit host; every
// "word" is a uint32 in little-endian order):
//   header, 4 words:
//     nattrs   number of attribute records
//     nvals    sum over records of (numvals + 1), plus (numvals + 1) again
//              for each record that carries normalized values
//     ocflags  slapd's object class flags of the entry (kMdbOc* below)
//     offset   number of words in the length table that follows the header
//   length table, per attribute record in entry order:
//     adx      the description's ad2i number, | 0x80000000 when the values
//              are known to be sorted, | 0x40000000 when the values live in
//              id2v instead of here ("multival")
//     numvals  number of values, | 0x80000000 when normalized values follow
//     len(v1) .. len(vn)        omitted for multival records
//     len(nv1) .. len(nvn)      only with normalized values, not multival
//   data area, starting right after the length table, per record in order:
//     v1 NUL v2 NUL .. vn NUL, then nv1 NUL .. nvn NUL (nothing for multival)
//   padding: zero bytes up to the next multiple of 8 of the whole value.
// So offset = sum over records of 2 + (numvals, twice with normalized
// values) for ordinary records and 2 for multival ones.
//
// A decoder accepts any padding bytes (slapd reserves the space and does not
// clear it) but rejects values running past the end, lengths whose NUL
// terminator is missing, and inconsistent nvals/offset words.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lib/util/status.h"

namespace dirload::mdb {

// Bits of an attribute record's adx and numvals words.
inline constexpr uint32_t kMdbAdxSorted = 0x80000000u;
inline constexpr uint32_t kMdbAdxMultival = 0x40000000u;
inline constexpr uint32_t kMdbNumvalsNormalized = 0x80000000u;

// ocflags bits (slapd's SLAP_OC_*): the classes an entry lists select flags;
// slapd relies on kMdbOcAlias and kMdbOcReferral when it serves the entry.
inline constexpr uint32_t kMdbOcAlias = 0x0001;
inline constexpr uint32_t kMdbOcReferral = 0x0002;
inline constexpr uint32_t kMdbOcSubentry = 0x0004;
inline constexpr uint32_t kMdbOcGlue = 0x0020;
inline constexpr uint32_t kMdbOcFlagsSet = 0x0100;  // always present once computed
inline constexpr uint32_t kMdbOcTop = 0x10000;      // the entry lists "top"

struct MdbAttribute {
  uint32_t adx = 0;  // ad2i number, 1..0x3fffffff
  bool sorted = false;
  // Values stored in id2v: `values` and `normalized` hold nothing here and
  // `multival_count` says how many there are.
  bool multival = false;
  uint32_t multival_count = 0;
  std::vector<std::string> values;
  // Present when the record carries normalized copies: one per value.
  std::optional<std::vector<std::string>> normalized;

  uint32_t numvals() const {
    return multival ? multival_count : static_cast<uint32_t>(values.size());
  }
  friend bool operator==(const MdbAttribute&, const MdbAttribute&) = default;
};

struct MdbEntry {
  uint32_t ocflags = 0;
  std::vector<MdbAttribute> attributes;
  friend bool operator==(const MdbEntry&, const MdbEntry&) = default;
};

// The encoded size, padding included. REQUIRES: the entry would encode.
size_t MdbEncodedEntrySize(const MdbEntry& entry);

// Appends the encoding of `entry` to *out. InvalidArgument when an adx does
// not fit in 30 bits, a normalized list has another length than its values,
// a value holds more than 2^32 - 1 bytes, or a count overflows a word.
Status EncodeMdbEntry(const MdbEntry& entry, std::string* out);
Result<std::string> EncodeMdbEntry(const MdbEntry& entry);

// Corruption when `bytes` is not a well-formed encoding (see the header).
Result<MdbEntry> DecodeMdbEntry(std::string_view bytes);

// The same entry as views into the encoded bytes, for scans that read every
// entry once: nothing is copied, and the vectors keep their capacity from
// one entry to the next.
struct MdbAttributeView {
  uint32_t adx = 0;
  bool sorted = false;
  bool multival = false;
  // A multival record whose id2v values ResolveMdbMultival (mdb_id2v.h)
  // appended to MdbEntryView::values.
  bool resolved = false;
  bool has_normalized = false;
  uint32_t count = 0;  // values (for multival: in id2v)
  uint32_t first = 0;  // index in MdbEntryView::values of the first value
};
struct MdbEntryView {
  uint32_t ocflags = 0;
  std::vector<MdbAttributeView> attributes;
  // Per record: its values, then its normalized copies when it has them.
  std::vector<std::string_view> values;

  std::span<const std::string_view> Values(const MdbAttributeView& a) const {
    return {values.data() + a.first, a.multival && !a.resolved ? 0 : a.count};
  }
  // The normalized copies, or the values when the record has none.
  std::span<const std::string_view> Normalized(const MdbAttributeView& a) const {
    if ((a.multival && !a.resolved) || !a.has_normalized) return Values(a);
    return {values.data() + a.first + a.count, a.count};
  }
};

// What DecodeMdbEntryView checks. kBounds: every count and length fits in
// the record, so nothing past it is ever read, whatever the bytes. kFull
// also checks the NUL slapd writes after each value, which means touching
// the last byte of every value: a scan that tests one attribute of each
// entry then reads all of the entry's memory instead of its length table
// (twice the time of an unindexed search of 60,000 entries).
enum class MdbEntryChecks { kFull, kBounds };

// Checks `bytes` as DecodeMdbEntry does (with kBounds, less: see above);
// *out views `bytes`, which must outlive it.
Status DecodeMdbEntryView(std::string_view bytes, MdbEntryView* out,
                          MdbEntryChecks checks = MdbEntryChecks::kFull);
// The same, for the attributes whose ad2i number `wanted` marks (a number
// past its end is wanted) only: the others are left out of `attributes`
// and their values get no views, though their lengths are still checked
// against the record and their counts against the header (kFull's check
// of the NUL after each value is made on the wanted values only). A
// multival attribute left out is not read from id2v either. A scan that
// keys a few attributes of each entry spent most of a full decode on
// values it does not read.
Status DecodeMdbEntryView(std::string_view bytes, MdbEntryView* out, MdbEntryChecks checks,
                          std::span<const uint8_t> wanted);

}  // namespace dirload::mdb
