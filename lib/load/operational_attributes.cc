#include "lib/load/operational_attributes.h"

#include <sys/time.h>

#include <climits>
#include <ctime>
#include <fstream>
#include <random>

#include "lib/schema/generalized_time.h"
#include "lib/util/ascii.h"

namespace dirload {
namespace {

// 100 ns intervals from 1582-10-15 (the Gregorian reform, RFC 4122's epoch)
// to 1970-01-01.
constexpr uint64_t kUuidEpochOffset = 0x01B21DD213814000ULL;

void PutDigits(uint32_t v, int width, char* out) {
  for (int i = width - 1; i >= 0; --i) {
    out[i] = static_cast<char>('0' + v % 10);
    v /= 10;
  }
}

void PutHex(uint64_t v, int width, char* out) {
  for (int i = width - 1; i >= 0; --i) {
    out[i] = kLowerHexDigits[v & 0xf];
    v >>= 4;
  }
}

// Days from 1970-01-01 to the proleptic Gregorian date (H. Hinnant's
// days_from_civil).
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

uint32_t Digits(std::string_view s, size_t at, size_t n) {
  uint32_t v = 0;
  for (size_t i = at; i < at + n; ++i) v = v * 10 + static_cast<uint32_t>(s[i] - '0');
  return v;
}

uint64_t RandomSeed() {
  uint64_t seed = 0;
  std::ifstream in("/dev/urandom", std::ios::binary);
  if (in.read(reinterpret_cast<char*>(&seed), sizeof seed) && seed != 0) return seed;
  // No urandom: the time still keeps two runs apart most of the time.
  timeval tv{};
  gettimeofday(&tv, nullptr);
  return static_cast<uint64_t>(tv.tv_sec) * 1000003u ^ static_cast<uint64_t>(tv.tv_usec) ^
         0x9e3779b97f4a7c15ULL;
}

}  // namespace

OperationalAttributes::OperationalAttributes(Options options) : options_(std::move(options)) {
  std::mt19937_64 random(options_.seed != 0 ? options_.seed : RandomSeed());
  uint64_t r = random();
  clock_sequence_ = static_cast<uint16_t>(r & 0x3fff);
  r = random();
  for (size_t i = 0; i < node_.size(); ++i) node_[i] = static_cast<uint8_t>(r >> (8 * i));
  node_[0] |= 0x01;  // a random node, not a MAC address (RFC 4122 4.5)

  // The fixed parts of each value.
  uuid_.fill('-');
  PutHex(0x8000u | clock_sequence_, 4, &uuid_[19]);
  for (size_t i = 0; i < node_.size(); ++i) PutHex(node_[i], 2, &uuid_[24 + 2 * i]);
  static constexpr std::string_view kCsnShape = "YYYYmmddHHMMSS.uuuuuuZ#cccccc#SID#000000";
  std::copy(kCsnShape.begin(), kCsnShape.end(), csn_.begin());
  PutHex(static_cast<uint32_t>(options_.sid) & 0xfff, 3, &csn_[30]);
  timestamp_[14] = 'Z';
}

WallTime OperationalAttributes::Now() const {
  if (options_.clock) return options_.clock();
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return {static_cast<int64_t>(ts.tv_sec), static_cast<uint32_t>(ts.tv_nsec / 1000)};
}

void OperationalAttributes::Next(std::string_view ndn) {
  WallTime now = Now();
  // entryCSN: the time may not go back nor repeat; the counter tells apart
  // the CSNs of one microsecond, as far as its six hex digits go.
  if (now.seconds > last_csn_time_.seconds ||
      (now.seconds == last_csn_time_.seconds && now.micros > last_csn_time_.micros)) {
    last_csn_time_ = now;
    csn_counter_ = 0;
  } else if (csn_counter_ < kMaxCsnCounter) {
    now = last_csn_time_;
    ++csn_counter_;
  } else {
    if (++last_csn_time_.micros == 1000000) {
      last_csn_time_.micros = 0;
      ++last_csn_time_.seconds;
    }
    now = last_csn_time_;
    csn_counter_ = 0;
  }
  if (now.seconds != date_second_) {
    time_t t = static_cast<time_t>(now.seconds);
    tm g{};
    gmtime_r(&t, &g);
    PutDigits(static_cast<uint32_t>(g.tm_year + 1900), 4, &date_[0]);
    PutDigits(static_cast<uint32_t>(g.tm_mon + 1), 2, &date_[4]);
    PutDigits(static_cast<uint32_t>(g.tm_mday), 2, &date_[6]);
    PutDigits(static_cast<uint32_t>(g.tm_hour), 2, &date_[8]);
    PutDigits(static_cast<uint32_t>(g.tm_min), 2, &date_[10]);
    PutDigits(static_cast<uint32_t>(g.tm_sec), 2, &date_[12]);
    date_second_ = now.seconds;
    std::copy(date_.begin(), date_.end(), timestamp_.begin());
    std::copy(date_.begin(), date_.end(), csn_.begin());
  }
  PutDigits(now.micros, 6, &csn_[15]);
  PutHex(csn_counter_, 6, &csn_[23]);

  if (uuid_name_space_.has_value()) {
    FormatUuid(NameBasedUuid(*uuid_name_space_, ndn), uuid_.data());
    return;
  }
  // entryUUID: strictly increasing 100 ns ticks; several entries in one
  // tick borrow the next ticks.
  uint64_t t = kUuidEpochOffset + static_cast<uint64_t>(now.seconds) * 10000000ULL +
               static_cast<uint64_t>(now.micros) * 10ULL;
  if (t <= last_uuid_time_) t = last_uuid_time_ + 1;
  last_uuid_time_ = t;
  PutHex(t & 0xffffffffULL, 8, &uuid_[0]);
  PutHex((t >> 32) & 0xffff, 4, &uuid_[9]);
  PutHex(0x1000u | ((t >> 48) & 0x0fff), 4, &uuid_[14]);
}

std::string_view OperationalAttributes::value(OperationalAttribute a) const {
  switch (a) {
    case OperationalAttribute::kStructuralObjectClass:
      return {};
    case OperationalAttribute::kEntryUuid:
      return entry_uuid();
    case OperationalAttribute::kCreatorsName:
    case OperationalAttribute::kModifiersName:
      return rootdn();
    case OperationalAttribute::kCreateTimestamp:
    case OperationalAttribute::kModifyTimestamp:
      return timestamp();
    case OperationalAttribute::kEntryCsn:
      return entry_csn();
  }
  return {};
}

Result<WallTime> ParseCsnTime(std::string_view text) {
  auto bad = [&](std::string_view why) {
    std::string message = "'";
    message.append(text);
    message += "' ";
    message.append(why);
    return Status::InvalidArgument(std::move(message));
  };
  std::string t;
  Status st = NormalizeGeneralizedTime(text, &t);
  if (!st.ok()) {
    return bad("is not a GeneralizedTime such as 20260101000000Z (" + st.message() + ")");
  }
  // "YYYYmmddHHMMSS[.F]Z"
  const uint32_t year = Digits(t, 0, 4), month = Digits(t, 4, 2), day = Digits(t, 6, 2);
  const uint32_t hour = Digits(t, 8, 2), minute = Digits(t, 10, 2), second = Digits(t, 12, 2);
  if (year < 1970) return bad("is before 1970");
  if (second == 60) return bad("is a leap second, which no CSN shows");
  uint32_t micros = 0;
  if (t[14] == '.') {
    const std::string_view fraction = std::string_view(t).substr(15, t.size() - 16);
    if (fraction.size() > 6) return bad("is finer than a microsecond");
    micros = Digits(fraction, 0, fraction.size());
    for (size_t i = fraction.size(); i < 6; ++i) micros *= 10;
  }
  WallTime w;
  w.seconds = DaysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second;
  w.micros = micros;
  return w;
}

int CsnTracker::Sid(std::string_view csn) {
  // time#count#sid#mod
  size_t a = csn.find('#');
  if (a == std::string_view::npos) return -1;
  size_t b = csn.find('#', a + 1);
  if (b == std::string_view::npos) return -1;
  size_t c = csn.find('#', b + 1);
  if (c == std::string_view::npos || c == b + 1 || c - b - 1 > 3) return -1;
  int sid = 0;
  for (size_t i = b + 1; i < c; ++i) {
    int d = HexDigitValue(csn[i]);
    if (d < 0) return -1;
    sid = sid * 16 + d;
  }
  return sid;
}

void CsnTracker::Add(std::string_view csn) {
  int sid = Sid(csn);
  if (sid < 0) return;
  auto [it, inserted] = max_.try_emplace(sid, csn);
  if (!inserted && csn > std::string_view(it->second)) it->second.assign(csn);
}

}  // namespace dirload
