#include "lib/format/mdb/mdb_index_keys.h"

#include <algorithm>

#include "lib/schema/object_class.h"
#include "lib/schema/schema.h"

namespace dirload::mdb {
namespace {

constexpr uint32_t kFnv32Offset = 0x811c9dc5u;
constexpr uint32_t kFnv32Prime = 16777619u;
constexpr uint64_t kFnv64Offset = 0xcbf29ce484222325ull;
constexpr uint64_t kFnv64Prime = 0x100000001b3ull;

constexpr std::string_view kOidSyntax = "1.3.6.1.4.1.1466.115.121.1.38";
constexpr std::string_view kObjectIdentifierMatch = "2.5.13.0";

uint64_t Feed(bool hash64, uint64_t state, std::string_view bytes) {
  if (hash64) {
    for (unsigned char c : bytes) {
      state ^= c;
      state *= kFnv64Prime;
    }
    return state;
  }
  auto h = static_cast<uint32_t>(state);
  for (unsigned char c : bytes) {
    h *= kFnv32Prime;
    h ^= c;
  }
  return h;
}

// Minimal big-endian two's complement of the decimal `digits` (sign already
// removed), negated when `negative`; at least one byte.
std::string DecimalToTwosComplement(std::string_view digits, bool negative) {
  std::string mag(1, '\0');  // big-endian magnitude
  for (char d : digits) {
    unsigned carry = static_cast<unsigned>(d - '0');
    for (size_t i = mag.size(); i-- > 0;) {
      unsigned v = static_cast<unsigned char>(mag[i]) * 10u + carry;
      mag[i] = static_cast<char>(v & 0xff);
      carry = v >> 8;
    }
    while (carry) {
      mag.insert(mag.begin(), static_cast<char>(carry & 0xff));
      carry >>= 8;
    }
  }
  size_t first = 0;
  while (first + 1 < mag.size() && mag[first] == '\0') ++first;
  mag.erase(0, first);
  unsigned char neg = negative ? 0xff : 0x00;
  if (negative) {
    for (char& c : mag) c = static_cast<char>(~static_cast<unsigned char>(c));
    for (size_t i = mag.size(); i-- > 0;) {
      unsigned char c = static_cast<unsigned char>(mag[i]) + 1;
      mag[i] = static_cast<char>(c);
      if (c != 0) break;
    }
  }
  if ((static_cast<unsigned char>(mag[0]) ^ neg) & 0x80) {
    mag.insert(mag.begin(), static_cast<char>(neg));
  }
  return mag;
}

}  // namespace

MdbKeyHasher::MdbKeyHasher(const MdbKeyOptions& options, std::string_view type_name, char prefix,
                           std::string_view syntax_oid, std::string_view rule_oid)
    : hash64_(options.hash64), state_(options.hash64 ? kFnv64Offset : kFnv32Offset) {
  state_ = Feed(hash64_, state_, type_name);
  if (prefix != 0) state_ = Feed(hash64_, state_, std::string_view(&prefix, 1));
  state_ = Feed(hash64_, state_, syntax_oid);
  state_ = Feed(hash64_, state_, rule_oid);
}

uint64_t MdbKeyHasher::Hash(std::string_view value) const { return Feed(hash64_, state_, value); }

uint64_t MdbKeyHasher::Extend(uint64_t hash, std::string_view more) const {
  return Feed(hash64_, hash, more);
}

std::string MdbKeyHasher::Key(std::string_view value) const {
  uint64_t h = Feed(hash64_, state_, value);
  std::string key(hash64_ ? 8 : 4, '\0');
  for (size_t i = 0; i < key.size(); ++i) key[i] = static_cast<char>((h >> (8 * i)) & 0xff);
  return key;
}

std::string MdbPresenceKey() { return std::string(4, '\0'); }

void MdbEqualityKeys(const MdbKeyOptions& options, std::string_view type_name,
                     std::string_view syntax_oid, std::string_view equality_oid,
                     std::span<const std::string> values, std::vector<std::string>* keys) {
  MdbKeyHasher hasher(options, type_name, 0, syntax_oid, equality_oid);
  for (const std::string& v : values) hasher.AppendKey(v, keys);
}

void MdbSubstringKeys(const MdbKeyOptions& options, std::string_view type_name,
                      std::string_view syntax_oid, std::string_view substr_oid,
                      std::span<const std::string> values, std::vector<std::string>* keys) {
  MdbKeyHasher any(options, type_name, kMdbSubstrAnyPrefix, syntax_oid, substr_oid);
  MdbKeyHasher initial(options, type_name, kMdbSubstrInitialPrefix, syntax_oid, substr_oid);
  MdbKeyHasher final_(options, type_name, kMdbSubstrFinalPrefix, syntax_oid, substr_oid);
  const size_t any_len = options.substr_any_len;
  const size_t minlen = options.substr_if_minlen;
  for (const std::string& v : values) {
    std::string_view s(v);
    if (any_len > 0 && s.size() >= any_len) {
      for (size_t j = 0; j + any_len <= s.size(); ++j) any.AppendKey(s.substr(j, any_len), keys);
    }
    if (s.size() < minlen) continue;
    size_t max = std::min<size_t>(options.substr_if_maxlen, s.size());
    for (size_t j = minlen; j <= max; ++j) {
      initial.AppendKey(s.substr(0, j), keys);
      final_.AppendKey(s.substr(s.size() - j), keys);
    }
  }
}

namespace {

template <typename S>
std::vector<std::string> Expand(const Schema& schema, std::span<const S> values) {
  std::vector<const ObjectClass*> classes;
  classes.reserve(values.size() + 4);
  for (const S& v : values) classes.push_back(schema.FindObjectClass(v));
  // Breadth first over direct superclasses; classes already present (by
  // identity, unknown values never match) are not added again.
  for (size_t i = 0; i < classes.size(); ++i) {
    if (classes[i] == nullptr) continue;
    for (const ObjectClass* sup : classes[i]->sup) {
      if (std::find(classes.begin(), classes.end(), sup) == classes.end()) {
        classes.push_back(sup);
      }
    }
  }
  std::vector<std::string> names;
  names.reserve(classes.size());
  for (size_t i = 0; i < classes.size(); ++i) {
    names.emplace_back(classes[i] ? std::string(classes[i]->name()) : std::string(values[i]));
  }
  return names;
}

}  // namespace

std::vector<std::string> ExpandObjectClasses(const Schema& schema,
                                             std::span<const std::string> values) {
  return Expand(schema, values);
}

std::vector<std::string> ExpandObjectClasses(const Schema& schema,
                                             std::span<const std::string_view> values) {
  return Expand(schema, values);
}

MdbKeyHasher MdbObjectClassHasher(const MdbKeyOptions& options) {
  return MdbKeyHasher(options, "objectClass", 0, kOidSyntax, kObjectIdentifierMatch);
}

void MdbObjectClassKeys(const MdbKeyOptions& options, std::span<const std::string> class_names,
                        std::vector<std::string>* keys) {
  MdbEqualityKeys(options, "objectClass", kOidSyntax, kObjectIdentifierMatch, class_names, keys);
}

Result<std::string> MdbIntegerKey(const MdbKeyOptions& options, std::string_view value) {
  const int64_t intlen = options.intlen;
  if (intlen < 4 || intlen > 255) {
    return Status::InvalidArgument("index_intlen " + std::to_string(intlen) + " is outside 4..255");
  }
  bool negative = !value.empty() && value[0] == '-';
  std::string_view digits = negative ? value.substr(1) : value;
  if (digits.empty() ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return Status::InvalidArgument("not an integer: '" + std::string(value) + "'");
  }
  // The number of digits (counting the sign) kept exactly; longer numbers
  // lose whole groups of 7 digits and record 3 bytes per group instead.
  int64_t keep = (8 * intlen - 1) * 146 / 485 + 3;
  if (!negative) --keep;
  int64_t chop_bytes = 0;
  int64_t len = static_cast<int64_t>(value.size());
  if (len > keep) {
    int64_t groups = (len - keep + 2) / 7;
    digits = digits.substr(0, digits.size() - static_cast<size_t>(groups * 7));
    chop_bytes = groups * 3;
  }
  unsigned char neg = negative ? 0xff : 0x00;
  std::string bin = DecimalToTwosComplement(digits, negative);
  if (static_cast<unsigned char>(bin[0]) == neg) bin.erase(0, 1);

  std::string key(static_cast<size_t>(intlen), '\0');
  unsigned signmask = ~0x7fu;
  int64_t k = intlen - (static_cast<int64_t>(bin.size()) + chop_bytes);
  size_t copy_len = bin.size();
  if (k > 0) {
    std::fill(key.begin(), key.begin() + k, static_cast<char>(neg));
  } else if (k != 0 || ((static_cast<unsigned char>(bin[0]) ^ neg) & 0xc0)) {
    // Exponent form: leading bytes hold the (sign-adjusted) count of bytes
    // that do not fit, flagged by as many high bits as there are such bytes.
    std::string lenbuf;
    uint64_t exponent = static_cast<uint64_t>(-k);
    unsigned char last;
    do {
      last = static_cast<unsigned char>((exponent & 0xff) ^ neg);
      lenbuf.insert(lenbuf.begin(), static_cast<char>(last));
      signmask >>= 1;
      exponent >>= 8;
    } while (exponent != 0 || ((signmask >> 1) & (last ^ neg)));
    k = std::min<int64_t>(static_cast<int64_t>(lenbuf.size()), intlen);
    std::copy(lenbuf.begin(), lenbuf.begin() + k, key.begin());
    copy_len = static_cast<size_t>(intlen - k);
  }
  std::copy(bin.begin(), bin.begin() + static_cast<int64_t>(std::min(copy_len, bin.size())),
            key.begin() + k);
  key[0] = static_cast<char>(static_cast<unsigned char>(key[0]) ^ (signmask & 0xff));
  return key;
}

namespace {

// Two decimal digits at p[0], p[1] (already known to be digits).
int TwoDigits(const char* p) { return (p[0] - '0') * 10 + (p[1] - '0'); }

// Days from 0000-01-01 to the given date, proleptic Gregorian, with the
// truncating division of the C calendar code slapd uses (so negative years
// come out as slapd has them). `month` is 0..11.
int64_t DaysFromYearZero(int year, int month, int day) {
  static constexpr int kMonthStart[12] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};
  int64_t days = static_cast<int64_t>(year) * 365;
  int leap = (year - 1) / 4;
  days += leap;
  leap /= 25;
  days -= leap;
  leap /= 4;
  days += leap;
  if (year > 0) ++days;  // year 0 is a leap year
  days += kMonthStart[month];
  if (month > 1 && year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) ++days;
  return days + (day - 1);
}

}  // namespace

std::optional<std::array<char, kMdbTimeKeySize>> MdbTimeKey(std::string_view value) {
  size_t i = 0;
  const bool negative = !value.empty() && value[0] == '-';
  if (negative) ++i;
  size_t digits = 0;
  while (i + digits < value.size() && value[i + digits] >= '0' && value[i + digits] <= '9') {
    ++digits;
  }
  if (digits < 14) return std::nullopt;
  const char* p = value.data() + i;
  int year = TwoDigits(p) * 100 + TwoDigits(p + 2);
  if (negative) year = -year;
  const int month = TwoDigits(p + 4), day = TwoDigits(p + 6), hour = TwoDigits(p + 8),
            minute = TwoDigits(p + 10), second = TwoDigits(p + 12);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 61) {
    return std::nullopt;
  }
  i += 14;
  if (i < value.size() && value[i] == '.') {
    ++i;
    while (i < value.size() && value[i] >= '0' && value[i] <= '9') ++i;
  }
  if (i >= value.size() || value[i] != 'Z') return std::nullopt;

  // Units of 128 seconds: a day is 675 of them.
  const int64_t units = DaysFromYearZero(year, month - 1, day) * 675;
  const auto high = static_cast<uint8_t>(((units >> 25) & 0x7f) ^ 0x40);
  const auto low = static_cast<uint32_t>(static_cast<uint64_t>(units) * 128 +
                                         static_cast<uint64_t>(hour * 3600 + minute * 60 + second));
  return std::array<char, kMdbTimeKeySize>{static_cast<char>(high), static_cast<char>(low >> 24),
                                           static_cast<char>(low >> 16),
                                           static_cast<char>(low >> 8), static_cast<char>(low)};
}

std::string_view MdbUniqueMemberKeyPart(std::string_view normalized) {
  const size_t hash = normalized.rfind('#');
  if (hash == std::string_view::npos) return normalized;
  const std::string_view uid = normalized.substr(hash + 1);
  if (uid.size() < 3 || uid.front() != '\'' || uid[uid.size() - 2] != '\'' || uid.back() != 'B') {
    return normalized;
  }
  for (size_t j = 1; j + 2 < uid.size(); ++j) {
    if (uid[j] != '0' && uid[j] != '1') return normalized;
  }
  return normalized.substr(0, hash);
}

std::vector<uint64_t> MdbIdListDuplicates(std::span<const uint64_t> ids, size_t max_ids) {
  if (ids.size() > max_ids) return {0, ids.front(), ids.back()};
  return std::vector<uint64_t>(ids.begin(), ids.end());
}

std::string MdbIdBytes(uint64_t id) {
  std::string b(8, '\0');
  for (int i = 0; i < 8; ++i) b[i] = static_cast<char>((id >> (8 * i)) & 0xff);
  return b;
}

}  // namespace dirload::mdb
