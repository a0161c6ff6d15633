#include "lib/entry/entry_codec.h"

#include <cstring>

#include "lib/util/coding.h"

namespace dirload {
namespace {

// What every encoding starts with: the format version and the DN.
void PutEntryHeader(std::string_view dn, std::string* out) {
  out->push_back(static_cast<char>(kEntryFormatVersion));
  PutVarint(dn.size(), out);
  out->append(dn);
}

}  // namespace

void EncodeEntry(std::string_view dn, const std::vector<ValueRef>& values, std::string* out) {
  PutEntryHeader(dn, out);
  EncodeValues(values, out);
}

void EncodeEntryFromValues(std::string_view dn, std::string_view encoded_values, std::string* out) {
  PutEntryHeader(dn, out);
  out->append(encoded_values);
}

bool EncodeEntryFromValues(std::string_view dn, std::string_view encoded_values,
                           std::string_view more_encoded_values, std::string* out) {
  // The encoding is a run count and the runs: the two lists of runs simply
  // follow each other under the sum of their counts.
  uint64_t count = 0, more_count = 0;
  if (!GetVarint(&encoded_values, &count) || !GetVarint(&more_encoded_values, &more_count)) {
    return false;
  }
  PutEntryHeader(dn, out);
  PutVarint(count + more_count, out);
  out->append(encoded_values);
  out->append(more_encoded_values);
  return true;
}

void EncodeValues(const std::vector<ValueRef>& values, std::string* out) {
  // Measured first, then written through a pointer into one resize: this
  // runs for every entry, and appending byte by byte checked capacity for
  // every varint.
  size_t runs = 0, size = 0;
  for (size_t i = 0; i < values.size();) {
    size_t j = i;
    while (j < values.size() && values[j].description == values[i].description) ++j;
    ++runs;
    size += VarintLength(values[i].description) + VarintLength(j - i);
    for (; i < j; ++i) size += VarintLength(values[i].value.size()) + values[i].value.size();
  }
  size += VarintLength(runs);
  const size_t start = out->size();
  out->resize(start + size);
  char* p = out->data() + start;
  p = WriteVarint(runs, p);
  for (size_t i = 0; i < values.size();) {
    size_t j = i;
    while (j < values.size() && values[j].description == values[i].description) ++j;
    p = WriteVarint(values[i].description, p);
    p = WriteVarint(j - i, p);
    for (; i < j; ++i) {
      p = WriteVarint(values[i].value.size(), p);
      if (!values[i].value.empty()) {  // an empty view's data() may be null
        std::memcpy(p, values[i].value.data(), values[i].value.size());
        p += values[i].value.size();
      }
    }
  }
}

Status DecodeEntry(std::string_view bytes, EntryView* entry) {
  entry->dn = {};
  entry->values.clear();
  auto bad = [](const char* what) {
    return Status::Corruption(std::string("id2entry: bad entry encoding: ") + what);
  };
  if (bytes.empty() || static_cast<uint8_t>(bytes[0]) != kEntryFormatVersion) {
    return bad("unknown format version");
  }
  bytes.remove_prefix(1);
  uint64_t len = 0, runs = 0;
  if (!GetVarint(&bytes, &len) || len > bytes.size()) return bad("DN length");
  entry->dn = bytes.substr(0, len);
  bytes.remove_prefix(len);
  if (!GetVarint(&bytes, &runs)) return bad("run count");
  for (uint64_t r = 0; r < runs; ++r) {
    uint64_t desc = 0, n = 0;
    if (!GetVarint(&bytes, &desc) || desc > UINT32_MAX) return bad("description id");
    if (!GetVarint(&bytes, &n) || n == 0) return bad("value count");
    for (uint64_t k = 0; k < n; ++k) {
      if (!GetVarint(&bytes, &len) || len > bytes.size()) return bad("value length");
      entry->values.push_back({static_cast<uint32_t>(desc), bytes.substr(0, len)});
      bytes.remove_prefix(len);
    }
  }
  if (!bytes.empty()) return bad("trailing bytes");
  return Status::Ok();
}

uint32_t AttributeDictionary::Intern(std::string_view description) {
  auto it = ids_.find(description);
  if (it != ids_.end()) return it->second;
  uint32_t id = static_cast<uint32_t>(names_.size());
  names_.emplace_back(description);
  ids_.emplace(names_.back(), id);
  return id;
}

std::string AttributeDictionary::Serialize(uint32_t first) const {
  std::string out;
  for (size_t i = first; i < names_.size(); ++i) {
    PutVarint(names_[i].size(), &out);
    out += names_[i];
  }
  return out;
}

Status AttributeDictionary::Load(std::string_view bytes) {
  while (!bytes.empty()) {
    uint64_t len = 0;
    if (!GetVarint(&bytes, &len) || len > bytes.size()) {
      return Status::Corruption("meta: bad attribute dictionary encoding");
    }
    Intern(bytes.substr(0, len));
    bytes.remove_prefix(len);
  }
  return Status::Ok();
}

}  // namespace dirload
