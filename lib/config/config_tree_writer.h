// Writes slapd's configuration directory (slapd.d, given to slapd with -F)
// as back-ldif stores the cn=config database, from entries already in the
// form slapd keeps them (names, "{N}" prefixes, attribute order and
// operational attributes settled: lib/db/config_load.h does that).
//
// Layout: the entry "cn=config" is DIR/cn=config.ldif; the entry
// "RDN,PARENT" is PARENTPATH/RDN.ldif, where PARENTPATH is the parent's
// file name without ".ldif" (a directory made when the first child is
// written, mode 0750 before the umask). Files are mode 0600. Each file is:
//
//   "# AUTO-GENERATED FILE - DO NOT EDIT!! Use ldapmodify.\n"
//   "# CRC32 %08x\n"      CRC-32 (IEEE 802.3, reflected, as zlib's crc32)
//                         of all the bytes after this line
//   "dn: RDN\n"           the entry's own RDN only, as back-ldif stores it
//   "attr: value\n"...    in the entry's order, folded at 78 bytes, base64
//                         (::) as slapd's LDIF writer chooses, olcRootPW and
//                         userPassword always
//
// no blank line at the end. slapd reads the CRC back and complains of a
// file whose bytes do not match it.
//
// WriteConfigTree builds the tree in a temporary directory inside DIR and
// moves cn=config and then cn=config.ldif into place, so an error leaves
// DIR as it was; it refuses a DIR that already holds cn=config.ldif (a
// configuration) and a DIR that does not exist. AddToConfigTree adds
// entries to the configuration such a DIR holds.
//
// Errors are marked ErrorOrigin::kStorage (file system), kInput (a
// configuration already there: its cn=config entry exists, as slapadd
// reports it) or kConfiguration (DIR missing, a name back-ldif would have
// to escape).
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lib/config/config_schema.h"
#include "lib/util/status.h"

namespace dirload {

struct ConfigTreeEntry {
  // The RDNs from the entry's own to "cn=config", as they are named on disk
  // ({"olcDatabase={1}mdb", "cn=config"}).
  std::vector<std::string> rdns;
  std::vector<ConfigAttribute> attributes;
};

uint32_t ConfigFileCrc32(std::string_view bytes);

// The bytes of the entry's file, header included.
std::string FormatConfigFile(const ConfigTreeEntry& entry);

// DIR/cn=config.ldif relative path of an entry ("cn=config/olcDatabase={1}mdb.ldif").
std::string ConfigFilePath(const ConfigTreeEntry& entry);

// Refuses as described above; otherwise Ok. Also run by WriteConfigTree.
Status CheckConfigDirectoryEmpty(const std::string& dir);

// REQUIRES: entries[0] is cn=config and every entry comes after its parent.
Status WriteConfigTree(const std::string& dir, const std::vector<ConfigTreeEntry>& entries);

// Adds `entries` to the configuration DIR already holds (slapadd -n 0 into
// a slapd.d with a configuration): a file per entry, the parent's directory
// made when it has none. Refuses an entry whose file exists and cn=config
// itself. Nothing is added unless every file is written.
// REQUIRES: every entry comes after its parent or has it in DIR.
Status AddToConfigTree(const std::string& dir, const std::vector<ConfigTreeEntry>& entries);

}  // namespace dirload
