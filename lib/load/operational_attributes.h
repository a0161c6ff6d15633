// OperationalAttributes: the values slapadd gives an entry when lastmod is on
// and the input lacks them: entryUUID, creatorsName, createTimestamp,
// entryCSN, modifiersName, modifyTimestamp (structuralObjectClass comes from
// the schema check, not from here). Formats, as OpenLDAP 2.5 writes them:
//
//   entryUUID        time-based (version 1) UUID, lower-case hex,
//                    "1dd447fa-81a4-11f1-9ac9-79f6883d1da3"; the 60-bit time
//                    counts 100 ns since 1582-10-15 and is made strictly
//                    increasing, so no two entries of one run share a UUID;
//                    the clock sequence and the node (a random one, with the
//                    multicast bit set as RFC 4122 asks) are drawn once.
//                    Or, given a name space, name-based (version 5, SHA-1 of
//                    the name space and the entry's normalized DN): the same
//                    DN gets the same UUID in every load, so that replicas
//                    loaded apart agree (dirload add -o uuid=dn).
//   create/modifyTimestamp  "YYYYmmddHHMMSSZ", GMT.
//   entryCSN         "YYYYmmddHHMMSS.uuuuuuZ#cccccc#SID#000000": GMT time to
//                    the microsecond, a hex change counter that is 0 unless
//                    the microsecond did not advance (then the time stays and
//                    the counter goes up), the server ID as 3 hex digits. So
//                    the CSNs of one run are strictly increasing. A clock
//                    that stands still (dirload add -o csn-time) gives one
//                    time and counters 0, 1, 2, ... in the order of Next();
//                    after counter ffffff the time moves on a microsecond.
//   creators/modifiersName  the database's rootdn ("" without one).
//
// The time is read once per entry (as slapadd does); the date is converted
// only when the second changes, and nothing is allocated per entry.
//
// Thread safety: not thread-safe; the loader's writing thread owns it.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "lib/util/status.h"
#include "lib/util/uuid.h"

namespace dirload {

// The attributes a load may add, in the order slapadd appends them.
enum class OperationalAttribute : uint8_t {
  kStructuralObjectClass,
  kEntryUuid,
  kCreatorsName,
  kCreateTimestamp,
  kEntryCsn,
  kModifiersName,
  kModifyTimestamp,
};
inline constexpr size_t kOperationalAttributeCount = 7;
inline constexpr std::array<std::string_view, kOperationalAttributeCount>
    kOperationalAttributeNames = {"structuralObjectClass", "entryUUID", "creatorsName",
                                  "createTimestamp",       "entryCSN",  "modifiersName",
                                  "modifyTimestamp"};
inline constexpr uint8_t OperationalBit(OperationalAttribute a) {
  return static_cast<uint8_t>(1u << static_cast<unsigned>(a));
}
inline constexpr std::string_view kContextCsnName = "contextCSN";

// A point in time: seconds since the Unix epoch and microseconds.
struct WallTime {
  int64_t seconds = 0;
  uint32_t micros = 0;
};

class OperationalAttributes {
 public:
  // Null: the system clock. Tests pass a fixed or stepping one.
  using Clock = std::function<WallTime()>;
  struct Options {
    std::string rootdn;
    int sid = 0;  // 0..0xfff
    Clock clock;
    // 0: the UUID clock sequence and node come from /dev/urandom; otherwise
    // from this seed, so that a run can be repeated.
    uint64_t seed = 0;
  };

  explicit OperationalAttributes(Options options);

  // From now on, entryUUIDs are name-based in `name_space` (see above).
  void SetUuidNameSpace(const Uuid& name_space) { uuid_name_space_ = name_space; }

  // Takes the time and makes the next entry's values; `ndn`, the entry's
  // normalized DN, names its UUID when UUIDs are name-based. The views below
  // stay valid until the next call.
  void Next(std::string_view ndn = {});

  std::string_view entry_uuid() const { return {uuid_.data(), uuid_.size()}; }
  std::string_view entry_csn() const { return {csn_.data(), csn_.size()}; }
  std::string_view timestamp() const { return {timestamp_.data(), timestamp_.size()}; }
  std::string_view rootdn() const { return options_.rootdn; }
  // The value of `a` made by the last Next(); empty for kStructuralObjectClass.
  std::string_view value(OperationalAttribute a) const;

 private:
  WallTime Now() const;

  static constexpr uint32_t kMaxCsnCounter = 0xffffff;  // six hex digits

  Options options_;
  std::optional<Uuid> uuid_name_space_;
  uint16_t clock_sequence_ = 0;  // 14 bits, with the variant bits added when written
  std::array<uint8_t, 6> node_{};
  uint64_t last_uuid_time_ = 0;  // 100 ns since 1582-10-15
  WallTime last_csn_time_{-1, 0};
  uint32_t csn_counter_ = 0;
  int64_t date_second_ = INT64_MIN;  // the second date_ shows
  std::array<char, 14> date_{};      // "YYYYmmddHHMMSS"
  std::array<char, 36> uuid_{};
  std::array<char, 40> csn_{};
  std::array<char, 15> timestamp_{};
};

// A load's fixed time (dirload add -o csn-time=TIME): GeneralizedTime as
// RFC 4517 writes it ("20260101000000Z", a fraction of a second and a
// time-zone offset allowed), to the microsecond; InvalidArgument naming the
// value otherwise. A time before 1970, a leap second and a fraction finer
// than a microsecond are refused: no CSN slapd makes shows them.
Result<WallTime> ParseCsnTime(std::string_view text);

// Greatest CSN per server ID, for contextCSN (-w). CSNs compare as text:
// their fields have fixed widths.
class CsnTracker {
 public:
  // Ignores values that are not CSNs.
  void Add(std::string_view csn);
  bool empty() const { return max_.empty(); }
  // The greatest value per SID, by ascending SID.
  const std::map<int, std::string>& values() const { return max_; }
  // The SID of a CSN ("...#SID#..."), or -1 when it is not a CSN.
  static int Sid(std::string_view csn);

 private:
  std::map<int, std::string> max_;
};

}  // namespace dirload
