#include "lib/format/mdb/mdb_entry_codec.h"

#include <algorithm>
#include <cstring>

namespace dirload::mdb {
namespace {

constexpr uint32_t kMaxAdx = 0x3fffffffu;
constexpr uint32_t kMaxNumvals = 0x7fffffffu;

void PutWord(uint32_t v, char* p) {
  p[0] = static_cast<char>(v & 0xff);
  p[1] = static_cast<char>((v >> 8) & 0xff);
  p[2] = static_cast<char>((v >> 16) & 0xff);
  p[3] = static_cast<char>((v >> 24) & 0xff);
}

uint32_t GetWord(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return static_cast<uint32_t>(u[0]) | static_cast<uint32_t>(u[1]) << 8 |
         static_cast<uint32_t>(u[2]) << 16 | static_cast<uint32_t>(u[3]) << 24;
}

// The three counts of the header and the data area size, or an error.
struct Layout {
  uint64_t nvals = 0;
  uint64_t table_words = 0;
  uint64_t data_bytes = 0;
};

Status Measure(const MdbEntry& entry, Layout* layout) {
  if (entry.attributes.size() > kMaxNumvals) {
    return Status::InvalidArgument("mdb entry: too many attributes");
  }
  for (const MdbAttribute& a : entry.attributes) {
    if (a.adx == 0 || a.adx > kMaxAdx) {
      return Status::InvalidArgument("mdb entry: attribute number " + std::to_string(a.adx) +
                                     " is outside 1..2^30-1");
    }
    uint64_t n = a.numvals();
    if (n > kMaxNumvals) return Status::InvalidArgument("mdb entry: too many values");
    bool has_norm = a.normalized.has_value();
    if (a.multival) {
      if (!a.values.empty() || (has_norm && !a.normalized->empty())) {
        return Status::InvalidArgument("mdb entry: a multival record holds no values inline");
      }
    } else if (has_norm && a.normalized->size() != a.values.size()) {
      return Status::InvalidArgument("mdb entry: attribute " + std::to_string(a.adx) + " has " +
                                     std::to_string(a.values.size()) + " values but " +
                                     std::to_string(a.normalized->size()) + " normalized values");
    }
    layout->nvals += (n + 1) * (has_norm ? 2 : 1);
    layout->table_words += 2;
    if (a.multival) continue;
    layout->table_words += n * (has_norm ? 2 : 1);
    for (const std::string& v : a.values) {
      if (v.size() > UINT32_MAX) return Status::InvalidArgument("mdb entry: value too long");
      layout->data_bytes += v.size() + 1;
    }
    if (has_norm) {
      for (const std::string& v : *a.normalized) {
        if (v.size() > UINT32_MAX) return Status::InvalidArgument("mdb entry: value too long");
        layout->data_bytes += v.size() + 1;
      }
    }
  }
  if (layout->nvals > UINT32_MAX || layout->table_words > UINT32_MAX) {
    return Status::InvalidArgument("mdb entry: too many values");
  }
  return Status::Ok();
}

uint64_t PaddedSize(const Layout& l) {
  uint64_t raw = 16 + 4 * l.table_words + l.data_bytes;
  return (raw + 7) & ~uint64_t{7};
}

}  // namespace

size_t MdbEncodedEntrySize(const MdbEntry& entry) {
  Layout l;
  if (!Measure(entry, &l).ok()) return 0;
  return static_cast<size_t>(PaddedSize(l));
}

Status EncodeMdbEntry(const MdbEntry& entry, std::string* out) {
  Layout l;
  DIRLOAD_RETURN_IF_ERROR(Measure(entry, &l));
  size_t start = out->size();
  out->resize(start + PaddedSize(l), '\0');
  char* base = out->data() + start;
  char* word = base;
  PutWord(static_cast<uint32_t>(entry.attributes.size()), word);
  PutWord(static_cast<uint32_t>(l.nvals), word + 4);
  PutWord(entry.ocflags, word + 8);
  PutWord(static_cast<uint32_t>(l.table_words), word + 12);
  word += 16;
  char* data = base + 16 + 4 * l.table_words;
  auto put_value = [&](const std::string& v) {
    PutWord(static_cast<uint32_t>(v.size()), word);
    word += 4;
    std::memcpy(data, v.data(), v.size());
    data += v.size() + 1;  // the NUL is already there
  };
  for (const MdbAttribute& a : entry.attributes) {
    uint32_t adx = a.adx | (a.sorted ? kMdbAdxSorted : 0) | (a.multival ? kMdbAdxMultival : 0);
    uint32_t numvals = a.numvals() | (a.normalized ? kMdbNumvalsNormalized : 0);
    PutWord(adx, word);
    PutWord(numvals, word + 4);
    word += 8;
    if (a.multival) continue;
    for (const std::string& v : a.values) put_value(v);
    if (a.normalized) {
      for (const std::string& v : *a.normalized) put_value(v);
    }
  }
  return Status::Ok();
}

Result<std::string> EncodeMdbEntry(const MdbEntry& entry) {
  std::string out;
  DIRLOAD_RETURN_IF_ERROR(EncodeMdbEntry(entry, &out));
  return out;
}

Status DecodeMdbEntryView(std::string_view bytes, MdbEntryView* out, MdbEntryChecks checks) {
  return DecodeMdbEntryView(bytes, out, checks, {});
}

Status DecodeMdbEntryView(std::string_view bytes, MdbEntryView* out, MdbEntryChecks checks,
                          std::span<const uint8_t> wanted) {
  const bool everything = wanted.empty();
  const bool full = checks == MdbEntryChecks::kFull;
  auto corrupt = [](const std::string& what) { return Status::Corruption("mdb entry: " + what); };
  out->attributes.clear();
  out->values.clear();
  if (bytes.size() < 16) return corrupt("shorter than its 16-byte header");
  uint32_t nattrs = GetWord(bytes.data());
  uint32_t nvals = GetWord(bytes.data() + 4);
  out->ocflags = GetWord(bytes.data() + 8);
  uint32_t offset = GetWord(bytes.data() + 12);
  if (16 + uint64_t{offset} * 4 > bytes.size()) {
    return corrupt("length table of " + std::to_string(offset) + " words exceeds the record");
  }
  const char* word = bytes.data() + 16;
  const char* table_end = word + uint64_t{offset} * 4;
  const char* data = table_end;
  const char* end = bytes.data() + bytes.size();
  auto next_word = [&](uint32_t* v) {
    if (word + 4 > table_end) return false;
    *v = GetWord(word);
    word += 4;
    return true;
  };
  uint64_t counted_nvals = 0;
  // Every attribute takes two table words: a corrupt nattrs must not size
  // the vector.
  out->attributes.reserve(std::min(nattrs, offset / 2));
  for (uint32_t i = 0; i < nattrs; ++i) {
    uint32_t adx, numvals;
    if (!next_word(&adx) || !next_word(&numvals)) {
      return corrupt("length table ends before attribute " + std::to_string(i + 1) + " of " +
                     std::to_string(nattrs));
    }
    MdbAttributeView a;
    a.sorted = (adx & kMdbAdxSorted) != 0;
    a.multival = (adx & kMdbAdxMultival) != 0;
    a.adx = adx & kMaxAdx;
    a.has_normalized = (numvals & kMdbNumvalsNormalized) != 0;
    a.count = numvals & kMaxNumvals;
    a.first = static_cast<uint32_t>(out->values.size());
    counted_nvals += (uint64_t{a.count} + 1) * (a.has_normalized ? 2 : 1);
    const bool skip = !everything && a.adx < wanted.size() && !wanted[a.adx];
    if (!a.multival) {
      if (a.count > offset) return corrupt("attribute claims more values than the table holds");
      const uint32_t n = a.has_normalized ? 2 * a.count : a.count;
      if (n > static_cast<uint64_t>(table_end - word) / 4) {
        return corrupt("length table ends inside an attribute");
      }
      if (skip) {
        // Only the lengths: the sum of n of them fits in 64 bits.
        uint64_t bytes_used = 0;
        for (uint32_t j = 0; j < n; ++j) bytes_used += uint64_t{GetWord(word + 4 * j)} + 1;
        if (static_cast<uint64_t>(end - data) < bytes_used) {
          return corrupt("values of " + std::to_string(bytes_used) + " bytes run past the record");
        }
        word += 4 * static_cast<size_t>(n);
        data += bytes_used;
        continue;
      }
      // Every entry of a scan comes through here: the slots are made at
      // once and filled through a pointer, so that the loop keeps its
      // cursors in registers.
      const size_t first = out->values.size();
      out->values.resize(first + n);
      std::string_view* slot = out->values.data() + first;
      for (uint32_t j = 0; j < n; ++j) {
        const uint32_t len = GetWord(word);
        word += 4;
        if (static_cast<uint64_t>(end - data) < uint64_t{len} + 1 || (full && data[len] != '\0')) {
          return corrupt("value of " + std::to_string(len) + " bytes runs past the record");
        }
        slot[j] = std::string_view(data, len);
        data += len + 1;
      }
    }
    if (!skip) out->attributes.push_back(a);
  }
  if (word != table_end) return corrupt("length table holds words no attribute uses");
  if (counted_nvals != nvals) {
    return corrupt("header says " + std::to_string(nvals) + " value slots, the attributes " +
                   std::to_string(counted_nvals));
  }
  if (static_cast<uint64_t>(end - data) >= 8) return corrupt("more than 7 bytes after the data");
  return Status::Ok();
}

Result<MdbEntry> DecodeMdbEntry(std::string_view bytes) {
  MdbEntryView view;
  DIRLOAD_RETURN_IF_ERROR(DecodeMdbEntryView(bytes, &view));
  MdbEntry entry;
  entry.ocflags = view.ocflags;
  entry.attributes.reserve(view.attributes.size());
  for (const MdbAttributeView& v : view.attributes) {
    MdbAttribute a;
    a.adx = v.adx;
    a.sorted = v.sorted;
    a.multival = v.multival;
    if (v.multival) {
      a.multival_count = v.count;
      if (v.has_normalized) a.normalized.emplace();
    } else {
      for (std::string_view s : view.Values(v)) a.values.emplace_back(s);
      if (v.has_normalized) {
        a.normalized.emplace();
        for (std::string_view s : view.Normalized(v)) a.normalized->emplace_back(s);
      }
    }
    entry.attributes.push_back(std::move(a));
  }
  return entry;
}

}  // namespace dirload::mdb
