#include "lib/format/mdb/mdb_id2v.h"

#include <cstring>

#include "lib/format/mdb/mdb_env.h"

namespace dirload::mdb {

std::string MdbId2vKey(uint64_t id, uint32_t adx) {
  std::string key(10, '\0');
  for (int i = 0; i < 8; ++i) key[i] = static_cast<char>(id >> (8 * i));
  key[8] = static_cast<char>(adx & 0xff);
  key[9] = static_cast<char>((adx >> 8) & 0xff);
  return key;
}

void AppendMdbId2vValue(std::string_view value, const std::string_view* normalized,
                        std::string* out) {
  if (normalized != nullptr) {
    out->append(*normalized);
    out->push_back('\0');
    out->append(value);
    out->push_back('\0');
    out->push_back(static_cast<char>(value.size() & 0xff));
    out->push_back(static_cast<char>((value.size() >> 8) & 0xff));
  } else {
    out->append(value);
    out->append(3, '\0');
  }
}

namespace {

uint16_t TrailingLength(std::string_view stored) {
  const auto* u = reinterpret_cast<const unsigned char*>(stored.data() + stored.size() - 2);
  return static_cast<uint16_t>(u[0] | (u[1] << 8));
}

}  // namespace

std::string_view MdbId2vOrderedPart(std::string_view stored) {
  // As slapd's comparator: 3 bytes of trailer, and with a value length s,
  // the value and its NUL before it.
  if (stored.size() < 3) return {};
  const uint16_t s = TrailingLength(stored);
  size_t len = stored.size() - 3;
  if (s != 0) len = len >= size_t{s} + 1 ? len - s - 1 : 0;
  return stored.substr(0, len);
}

Status DecodeMdbId2vValue(std::string_view stored, bool has_normalized, std::string_view* value,
                          std::string_view* normalized) {
  auto corrupt = [&](const std::string& what) {
    return Status::Corruption("id2v value of " + std::to_string(stored.size()) + " bytes: " + what);
  };
  if (stored.size() < 3) return corrupt("shorter than its 3-byte trailer");
  const uint16_t s = TrailingLength(stored);
  if (!has_normalized) {
    if (s != 0) return corrupt("carries a value length where the record has no normalized copies");
    if (stored[stored.size() - 3] != '\0') return corrupt("no NUL after the value");
    *value = stored.substr(0, stored.size() - 3);
    *normalized = *value;
    return Status::Ok();
  }
  if (stored.size() < size_t{s} + 4) return corrupt("its value length runs past it");
  const size_t nlen = stored.size() - s - 4;
  if (stored[nlen] != '\0' || stored[stored.size() - 3] != '\0') {
    return corrupt("a NUL terminator is missing");
  }
  *normalized = stored.substr(0, nlen);
  *value = stored.substr(nlen + 1, s);
  return Status::Ok();
}

Status ResolveMdbMultival(MdbTxn& txn, MdbDb id2v, uint64_t id, MdbEntryView* view,
                          std::string_view where) {
  std::vector<std::string_view> stored;
  std::vector<std::string_view> normalized;
  for (MdbAttributeView& a : view->attributes) {
    if (!a.multival || a.resolved) continue;
    auto corrupt = [&](const std::string& what) {
      return Status::Corruption(std::string(where) + ": id2v: entry ID " + std::to_string(id) +
                                ", ad2i number " + std::to_string(a.adx) + ": " + what)
          .WithOrigin(ErrorOrigin::kDatabase);
    };
    if (a.adx > kMdbId2vMaxAdx) return corrupt("too large for an id2v key");
    stored.clear();
    DIRLOAD_ASSIGN_OR_RETURN(size_t got,
                             txn.ReadDups(id2v, MdbId2vKey(id, a.adx), a.count, &stored));
    if (got != a.count) {
      return corrupt("id2e counts " + std::to_string(a.count) + " values, id2v holds " +
                     std::to_string(got));
    }
    a.first = static_cast<uint32_t>(view->values.size());
    normalized.clear();
    for (std::string_view s : stored) {
      std::string_view v, n;
      Status st = DecodeMdbId2vValue(s, a.has_normalized, &v, &n);
      if (!st.ok()) return corrupt(st.message());
      view->values.push_back(v);
      normalized.push_back(n);
    }
    if (a.has_normalized)
      view->values.insert(view->values.end(), normalized.begin(), normalized.end());
    a.resolved = true;
  }
  return Status::Ok();
}

}  // namespace dirload::mdb
