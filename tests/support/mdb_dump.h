// Reading slapd's back-mdb databases in oracle tests through lmdb-utils'
// mdb_dump, as an operator would compare two databases: the sub-databases
// listed, each one dumped, and id2e values compared up to their padding
// (slapd reserves the padding bytes and leaves them as they were; dirload
// zeroes them).
//
// A failing mdb_dump does not abort the test here: the functions return
// text that names the failure, so the comparison that uses it fails and
// shows it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace dirload::testing {

// `mdb_dump -l DIR`: the names of the sub-databases.
std::vector<std::string> MdbDatabases(const std::string& dir);
// `mdb_dump -s NAME DIR`.
std::string MdbDump(const std::string& dir, const std::string& name);

// An mdb_dump of id2e with every value's padding bytes set to zero;
// *dirty counts the values whose padding was not zero.
std::string MaskId2ePadding(const std::string& dump, size_t* dirty);

// "" when equal, else the first differing line of each (mdb_dump prints one
// key or value per line).
std::string FirstDifference(const std::string& mine, const std::string& theirs);

// Every sub-database of the environment in `mine` against the one in
// `theirs`, as mdb_dump prints them, id2e up to its padding (which must be
// zero in `mine`): "" when all are equal, else a line per difference, e.g.
// "cn: line 12: dirload ' 534d30' slapadd ' 534d31'".
std::string SubDatabaseDifferences(const std::string& mine, const std::string& theirs);

}  // namespace dirload::testing
