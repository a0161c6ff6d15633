// Fuzz target for the native id2entry codec (lib/entry/entry_codec.h): cat,
// stat and recover decode stored entries they did not write, so any byte
// string must decode or give Corruption, never read out of bounds. A decoded
// entry must encode to bytes that decode to the same entry. The attribute
// dictionary's Load, which reads the meta table, gets the same bytes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "lib/entry/entry_codec.h"

namespace {

bool SameEntry(const dirload::EntryView& a, const dirload::EntryView& b) {
  if (a.dn != b.dn || a.values.size() != b.values.size()) return false;
  for (size_t i = 0; i < a.values.size(); ++i) {
    if (a.values[i].description != b.values[i].description) return false;
    if (a.values[i].value != b.values[i].value) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dirload;
  std::string_view bytes(reinterpret_cast<const char*>(data), size);

  EntryView entry;
  if (DecodeEntry(bytes, &entry).ok()) {
    std::string encoded;
    EncodeEntry(entry.dn, entry.values, &encoded);
    EntryView again;
    if (!DecodeEntry(encoded, &again).ok() || !SameEntry(entry, again)) std::abort();
    // The two-step encoding must give the same bytes.
    std::string values, two_step;
    EncodeValues(entry.values, &values);
    EncodeEntryFromValues(entry.dn, values, &two_step);
    if (two_step != encoded) std::abort();
  }

  AttributeDictionary dictionary;
  if (dictionary.Load(bytes).ok()) {
    AttributeDictionary reloaded;
    if (!reloaded.Load(dictionary.Serialize()).ok() || reloaded.size() != dictionary.size()) {
      std::abort();
    }
    for (uint32_t id = 0; id < dictionary.size(); ++id) {
      if (reloaded.Name(id) != dictionary.Name(id)) std::abort();
    }
  }
  return 0;
}
