#include "tests/support/mdb_dump.h"

#include <algorithm>
#include <cstdint>
#include <string_view>

#include "lib/util/ascii.h"
#include "tests/support/child_process.h"
#include "tests/support/hex.h"
#include "tests/support/openldap.h"

namespace dirload::testing {
namespace {

// The little-endian uint32 at byte `byte` of a value printed in hex.
uint32_t HexWord(std::string_view hex, size_t byte) {
  uint32_t w = 0;
  for (int b = 3; b >= 0; --b) {
    const size_t at = 2 * (byte + static_cast<size_t>(b));
    w = w << 8 | static_cast<uint32_t>(HexDigitValue(hex[at]) << 4 | HexDigitValue(hex[at + 1]));
  }
  return w;
}

// The length of an id2e value before its padding: a 16-byte header, per
// attribute its number, its value count (high bit: normalized copies
// follow) and one length per value (none when the number has the multival
// bit: the values are in id2v), then each value with a NUL.
size_t UnpaddedId2eBytes(std::string_view hex) {
  const size_t bytes = hex.size() / 2;
  if (bytes < 16) return bytes;
  const uint32_t nattrs = HexWord(hex, 0);
  size_t pos = 16, data = 0;
  for (uint32_t a = 0; a < nattrs; ++a) {
    if (pos + 8 > bytes) return bytes;
    const uint32_t adx = HexWord(hex, pos);
    const uint32_t numvals = HexWord(hex, pos + 4);
    pos += 8;
    // A multival record's values are in id2v: no lengths here.
    if (adx & 0x40000000) continue;
    size_t lengths = numvals & 0x7fffffff;
    if (numvals & 0x80000000) lengths *= 2;
    for (size_t v = 0; v < lengths; ++v) {
      if (pos + 4 > bytes) return bytes;
      data += HexWord(hex, pos) + 1;
      pos += 4;
    }
  }
  return std::min(bytes, pos + data);
}

}  // namespace

std::vector<std::string> MdbDatabases(const std::string& dir) {
  ProcessResult r = RunMdbDump({"-l", dir}, 60);
  if (r.exit_code != 0) return {"mdb_dump -l failed: " + r.Describe()};
  std::vector<std::string> names;
  for (size_t p = 0; p < r.out.size();) {
    size_t e = r.out.find('\n', p);
    if (e == std::string::npos) e = r.out.size();
    if (e > p) names.push_back(r.out.substr(p, e - p));
    p = e + 1;
  }
  return names;
}

std::string MdbDump(const std::string& dir, const std::string& name) {
  ProcessResult r = RunMdbDump({"-s", name, dir}, 120);
  if (r.exit_code != 0) return "mdb_dump -s " + name + " failed: " + r.Describe();
  return r.out;
}

std::string MaskId2ePadding(const std::string& dump, size_t* dirty) {
  size_t p = dump.find("HEADER=END\n");
  if (p == std::string::npos) return dump;
  p += 11;
  std::string out = dump.substr(0, p);
  bool value = false;  // lines alternate: key, value
  while (p < dump.size()) {
    size_t e = dump.find('\n', p);
    if (e == std::string::npos) e = dump.size();
    std::string line = dump.substr(p, e - p);
    p = e + 1;
    if (!line.empty() && line[0] == ' ') {
      if (value) {
        const size_t used = 1 + 2 * UnpaddedId2eBytes(std::string_view(line).substr(1));
        if (line.find_first_not_of('0', used) != std::string::npos) {
          ++*dirty;
          std::fill(line.begin() + static_cast<std::ptrdiff_t>(used), line.end(), '0');
        }
      }
      value = !value;
    }
    out += line + "\n";
  }
  return out;
}

std::string FirstDifference(const std::string& mine, const std::string& theirs) {
  if (mine == theirs) return "";
  size_t line = 1, p = 0;
  while (true) {
    size_t a = mine.find('\n', p), b = theirs.find('\n', p);
    std::string x = mine.substr(p, a == std::string::npos ? a : a - p);
    std::string y = theirs.substr(p, b == std::string::npos ? b : b - p);
    if (x != y || a == std::string::npos || b == std::string::npos) {
      return "line " + std::to_string(line) + ": dirload '" + x.substr(0, 300) + "' slapadd '" +
             y.substr(0, 300) + "'";
    }
    p = a + 1;
    ++line;
  }
}

std::string SubDatabaseDifferences(const std::string& mine, const std::string& theirs) {
  const std::vector<std::string> names = MdbDatabases(theirs);
  const std::vector<std::string> mine_names = MdbDatabases(mine);
  std::string out;
  if (mine_names != names) {
    out += "sub-databases: mine";
    for (const std::string& n : mine_names) out += " " + n;
    out += "; theirs";
    for (const std::string& n : names) out += " " + n;
    out += "\n";
  }
  for (const std::string& name : names) {
    std::string a = MdbDump(mine, name), b = MdbDump(theirs, name);
    if (name == "id2e") {
      size_t dirty = 0;
      a = MaskId2ePadding(a, &dirty);
      if (dirty != 0)
        out += "id2e: " + std::to_string(dirty) + " values of mine padded with non-zero bytes\n";
      b = MaskId2ePadding(b, &dirty);
    }
    const std::string d = FirstDifference(a, b);
    if (!d.empty()) out += name + ": " + d + "\n";
  }
  return out;
}

}  // namespace dirload::testing
