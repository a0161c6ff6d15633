#include "lib/schema/generalized_time.h"

#include <cstdint>

#include "lib/util/ascii.h"

namespace dirload {
namespace {

bool IsLeapYear(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int DaysInMonth(int64_t y, int m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return (m == 2 && IsLeapYear(y)) ? 29 : kDays[m - 1];
}

// Days since 1970-01-01 in the proleptic Gregorian calendar, for any year:
// counts whole 400-year eras (146097 days each) from 0000-03-01 so February's
// length only matters at the end of an era-year.
int64_t DaysFromCivil(int64_t y, int m, int d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;                                   // [0, 399]
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;  // [0, 365]
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;           // [0, 146096]
  return era * 146097 + doe - 719468;
}

void CivilFromDays(int64_t z, int64_t* y, int* m, int* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  *d = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  *m = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  *y = yoe + era * 400 + (*m <= 2 ? 1 : 0);
}

Status Bad(std::string_view value, std::string_view why) {
  return Status::InvalidArgument("invalid generalized time '" + std::string(value) +
                                 "': " + std::string(why));
}

// Parses exactly two digits at value[*pos] into *v.
bool TwoDigits(std::string_view value, size_t* pos, int* v) {
  if (*pos + 2 > value.size() || !IsAsciiDigit(value[*pos]) || !IsAsciiDigit(value[*pos + 1])) {
    return false;
  }
  *v = (value[*pos] - '0') * 10 + (value[*pos + 1] - '0');
  *pos += 2;
  return true;
}

// Multiplies the decimal digit string `digits` by `factor` and splits the
// product at the original number of digits: digits/10^n * factor =
// *whole + 0.*frac. Exact, whatever the number of fraction digits.
void ScaleFraction(std::string_view digits, int factor, int64_t* whole, std::string* frac) {
  std::string product(digits);
  int carry = 0;
  for (size_t i = product.size(); i-- > 0;) {
    const int v = (product[i] - '0') * factor + carry;
    product[i] = static_cast<char>('0' + v % 10);
    carry = v / 10;
  }
  *whole = carry;  // factor <= 3600, so the carry is the whole part
  *frac = product;
}

}  // namespace

Status NormalizeGeneralizedTime(std::string_view value, std::string* out) {
  size_t pos = 0;
  int century, yy, month, day, hour;
  if (!TwoDigits(value, &pos, &century) || !TwoDigits(value, &pos, &yy) ||
      !TwoDigits(value, &pos, &month) || !TwoDigits(value, &pos, &day) ||
      !TwoDigits(value, &pos, &hour)) {
    return Bad(value, "expected YYYYMMDDHH");
  }
  const int64_t year = century * 100 + yy;
  if (month < 1 || month > 12) return Bad(value, "month out of range");
  if (day < 1 || day > DaysInMonth(year, month)) return Bad(value, "day out of range");
  if (hour > 23) return Bad(value, "hour out of range");

  int minute = 0, second = 0;
  int unit_seconds = 3600;  // what a fraction is a fraction of
  if (pos < value.size() && IsAsciiDigit(value[pos])) {
    if (!TwoDigits(value, &pos, &minute) || minute > 59) return Bad(value, "bad minute");
    unit_seconds = 60;
    if (pos < value.size() && IsAsciiDigit(value[pos])) {
      if (!TwoDigits(value, &pos, &second) || second > 60) return Bad(value, "bad second");
      unit_seconds = 1;
    }
  }
  std::string_view fraction;
  if (pos < value.size() && (value[pos] == '.' || value[pos] == ',')) {
    const size_t start = ++pos;
    while (pos < value.size() && IsAsciiDigit(value[pos])) ++pos;
    if (pos == start) return Bad(value, "empty fraction");
    fraction = value.substr(start, pos - start);
  }
  int64_t offset_seconds = 0;
  if (pos < value.size() && value[pos] == 'Z') {
    ++pos;
  } else if (pos < value.size() && (value[pos] == '+' || value[pos] == '-')) {
    const int sign = value[pos] == '-' ? -1 : 1;
    ++pos;
    int oh = 0, om = 0;
    if (!TwoDigits(value, &pos, &oh) || oh > 23) return Bad(value, "bad time-zone hour");
    if (pos < value.size() && (!TwoDigits(value, &pos, &om) || om > 59)) {
      return Bad(value, "bad time-zone minute");
    }
    offset_seconds = sign * (oh * 3600 + om * 60);
  } else {
    return Bad(value, "missing time zone ('Z' or +hhmm / -hhmm)");
  }
  if (pos != value.size()) return Bad(value, "trailing characters");

  int64_t extra_seconds = 0;
  std::string frac_digits;
  if (!fraction.empty()) ScaleFraction(fraction, unit_seconds, &extra_seconds, &frac_digits);
  while (!frac_digits.empty() && frac_digits.back() == '0') frac_digits.pop_back();

  // A leap second is carried as :59 through the arithmetic and restored after,
  // so it is neither rolled into the next minute nor lost.
  const bool leap = second == 60;
  if (leap) second = 59;
  int64_t t = DaysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second +
              extra_seconds - offset_seconds;
  int64_t days = t >= 0 ? t / 86400 : -((-t + 86399) / 86400);
  int64_t rem = t - days * 86400;
  int64_t out_year;
  int out_month, out_day;
  CivilFromDays(days, &out_year, &out_month, &out_day);
  if (out_year < 0 || out_year > 9999) return Bad(value, "year out of range after time-zone shift");
  int out_second = static_cast<int>(rem % 60);
  if (leap && out_second == 59) out_second = 60;

  // Digits by hand: every entry of an export holds two times, and
  // snprintf was a tenth of checking one.
  char buf[14];
  auto put = [&buf](size_t at, int64_t v, int width) {
    for (int i = width - 1; i >= 0; --i, v /= 10) buf[at + i] = static_cast<char>('0' + v % 10);
  };
  put(0, out_year, 4);
  put(4, out_month, 2);
  put(6, out_day, 2);
  put(8, rem / 3600, 2);
  put(10, (rem / 60) % 60, 2);
  put(12, out_second, 2);
  out->assign(buf, sizeof buf);
  if (!frac_digits.empty()) {
    out->push_back('.');
    out->append(frac_digits);
  }
  out->push_back('Z');
  return Status::Ok();
}

int CompareNormalizedGeneralizedTime(std::string_view a, std::string_view b) {
  const size_t head = 14;
  if (a.size() < head || b.size() < head) return a.compare(b);
  if (int c = a.substr(0, head).compare(b.substr(0, head)); c != 0) return c;
  // Fraction digits sit between '.' and the final 'Z'; a missing digit is 0.
  auto frac = [](std::string_view v) {
    if (v.size() > 15 && v[14] == '.') return v.substr(15, v.size() - 16);
    return std::string_view();
  };
  const std::string_view fa = frac(a), fb = frac(b);
  for (size_t i = 0; i < fa.size() || i < fb.size(); ++i) {
    const char ca = i < fa.size() ? fa[i] : '0';
    const char cb = i < fb.size() ? fb[i] : '0';
    if (ca != cb) return ca < cb ? -1 : 1;
  }
  return 0;
}

}  // namespace dirload
