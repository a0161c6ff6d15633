// Fuzz target for back-mdb's id2e value decoder (lib/format/mdb/
// mdb_entry_codec.h): dirload reads databases slapd wrote, or that were
// damaged, so any byte string must decode or give Corruption, never read
// out of bounds. Both decoders (the copying one cat and recover use, and the
// view the indexer scans with) must agree, the view's bounds-only mode
// (searches and the indexer's scans) must stay in bounds, and a decoded entry must encode
// to bytes that decode to the same entry.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "lib/format/mdb/mdb_entry_codec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dirload;
  using namespace dirload::mdb;
  std::string_view bytes(reinterpret_cast<const char*>(data), size);

  Result<MdbEntry> entry = DecodeMdbEntry(bytes);
  MdbEntryView view;
  Status view_status = DecodeMdbEntryView(bytes, &view);
  if (entry.ok() != view_status.ok()) std::abort();
  // The scans' bounds-only decoding reads nothing past the record (ASan
  // watches) and accepts at least what the full checks accept.
  MdbEntryView bounded;
  Status bounded_status = DecodeMdbEntryView(bytes, &bounded, MdbEntryChecks::kBounds);
  if (view_status.ok() && !bounded_status.ok()) std::abort();
  // A scan that reads some attributes' values (odd ad2i numbers here)
  // checks the same bounds, and gives those values as the whole decode.
  static const std::vector<uint8_t> kOdd = [] {
    std::vector<uint8_t> w(64);
    for (size_t i = 1; i < w.size(); i += 2) w[i] = 1;
    return w;
  }();
  MdbEntryView some;
  Status some_status = DecodeMdbEntryView(bytes, &some, MdbEntryChecks::kBounds, kOdd);
  if (some_status.ok() != bounded_status.ok()) std::abort();
  if (some_status.ok()) {
    // The wanted attributes, in order, with the whole decode's values.
    size_t k = 0;
    for (const MdbAttributeView& b : bounded.attributes) {
      if (b.adx < kOdd.size() && kOdd[b.adx] == 0) continue;
      if (k >= some.attributes.size()) std::abort();
      const MdbAttributeView& a = some.attributes[k++];
      if (a.adx != b.adx || a.count != b.count || a.multival != b.multival) std::abort();
      auto got = some.Normalized(a);
      auto expected = bounded.Normalized(b);
      if (!std::equal(got.begin(), got.end(), expected.begin(), expected.end())) std::abort();
    }
    if (k != some.attributes.size()) std::abort();
  }
  if (!entry.ok()) return 0;

  if (view.ocflags != entry->ocflags || view.attributes.size() != entry->attributes.size()) {
    std::abort();
  }
  for (size_t i = 0; i < view.attributes.size(); ++i) {
    const MdbAttributeView& a = view.attributes[i];
    const MdbAttribute& b = entry->attributes[i];
    if (a.adx != b.adx || a.multival != b.multival || a.count != b.numvals()) std::abort();
    auto values = view.Values(a);
    if (values.size() != b.values.size()) std::abort();
    for (size_t k = 0; k < values.size(); ++k) {
      if (values[k] != b.values[k]) std::abort();
    }
  }

  // The decoder passes attribute number 0 on to its callers (the reader
  // reports it as not in ad2i); the encoder refuses it. That is the one
  // decoded entry that need not encode (seeds/mdb_entry/adx_zero.bin).
  bool adx_zero = false;
  for (const MdbAttribute& a : entry->attributes) adx_zero |= a.adx == 0;
  Result<std::string> encoded = EncodeMdbEntry(*entry);
  if (!encoded.ok()) {
    if (adx_zero) return 0;
    std::abort();
  }
  if (encoded->size() != MdbEncodedEntrySize(*entry) || encoded->size() % 8 != 0) std::abort();
  Result<MdbEntry> again = DecodeMdbEntry(*encoded);
  if (!again.ok() || !(*again == *entry)) std::abort();
  return 0;
}
