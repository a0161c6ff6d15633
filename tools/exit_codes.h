// Exit statuses of the dirload command, for scripts.
#pragma once

namespace dirload::tools {

inline constexpr int kExitOk = 0;
inline constexpr int kExitBadData = 1;  // bad input records (rejected, or the run stopped)
inline constexpr int kExitUsage = 2;    // bad options or configuration
inline constexpr int kExitRefused = 3;  // the database is incomplete or not a dirload database
inline constexpr int kExitStorage = 4;  // storage or I/O failure

}  // namespace dirload::tools
