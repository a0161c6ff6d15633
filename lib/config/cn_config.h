// Reads slapd's configuration directory (slapd.d, "cn=config", given to
// slapd and slapadd with -F) as slapd and slaptest write it, into the same
// SlapdConfig a slapd.conf gives (slapd_config.h):
//
//   DIR/cn=config.ldif                       olcIndexHash64, olcIndexSubstr*,
//                                            olcIndexIntLen, olcAttributeOptions,
//                                            olcServerID
//   DIR/cn=config/cn=module{N}.ldif          olcModuleLoad
//   DIR/cn=config/cn=schema.ldif             slapd's built-in schema: skipped,
//                                            dirload's system schema stands
//                                            for it (Schema::SystemOnly)
//   DIR/cn=config/cn=schema/cn={N}NAME.ldif  olcObjectIdentifier,
//                                            olcLdapSyntaxes,
//                                            olcAttributeTypes,
//                                            olcObjectClasses
//   DIR/cn=config/olcDatabase={N}TYPE.ldif   olcSuffix, olcDbDirectory,
//                                            olcDbIndex, olcDbMaxSize,
//                                            olcRootDN, olcLastMod,
//                                            olcDbEnvFlags, olcDbConfig,
//                                            olcSyncrepl, olcMultiProvider
//   DIR/cn=config/olcDatabase={N}TYPE/olcOverlay={M}NAME.ldif  olcOverlay
//
// Each file holds one LDIF entry (after slapd's "# AUTO-GENERATED FILE" and
// CRC comments; the CRC is not checked, slapd only warns about it either).
// "{N}" ordering prefixes are stripped from values, and values are taken in
// the order of their prefixes, as slapd does. The other configuration
// attributes of those entries (olcAccess, olcLogLevel, ...) are ignored, one
// note per attribute and file (shown with -v, as slapd.conf's ignored
// directives are); an attribute slapd 2.5 does not define is an error.
//
// Errors name the file (and line, for a malformed file) and are marked
// ErrorOrigin::kConfiguration.
//
// Reading the files (ReadCnConfigTree) is apart from interpreting them
// (ParseCnConfig), so that the interpretation can be checked on trees that
// exist only in memory.
//
// Thread safety: pure functions.
#pragma once

#include <map>
#include <set>
#include <string>

#include "lib/config/slapd_config.h"
#include "lib/util/status.h"

namespace dirload {

// The .ldif files and directories of a slapd.d tree, by their paths
// relative to it ("cn=config/olcDatabase={1}mdb.ldif").
struct CnConfigTree {
  std::string dir;  // names the files in messages
  std::map<std::string, std::string> files;
  std::set<std::string> directories;
};

Result<CnConfigTree> ReadCnConfigTree(const std::string& dir);
Result<SlapdConfig> ParseCnConfig(const CnConfigTree& tree);

// Both.
Result<SlapdConfig> ReadCnConfig(const std::string& dir);

}  // namespace dirload
