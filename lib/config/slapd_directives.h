// What slapd 2.5 knows of a configuration: the slapd.conf directives and
// the cn=config (olc*) attribute types of slapd itself, its backends and
// overlays and OpenLDAP's contrib modules, derived from OpenLDAP's source
// (slapd_directives_table.cc is written by scripts/gen_slapd_directives.py). A
// directive or attribute outside these is one slapadd refuses ("unknown
// directive <frobnicate> outside backend info and database definitions",
// "str2ad(olcFrobnicate): attribute type undefined"), so the readers
// refuse it too; one inside them that dirload does not need is accepted and
// listed as a note.
//
// Thread safety: pure functions over constant tables.
#pragma once

#include <cstddef>
#include <string_view>

namespace dirload {

// Whether slapd 2.5 takes `name` (any case) as a slapd.conf directive: its
// whole name, the prefix a few directives are matched by (`rwm-rewrite*`,
// `pcache-*`), or `chain-` and a directive (the chain overlay's).
bool SlapdKnowsDirective(std::string_view name);

// Whether slapd 2.5 defines `name` (any case, no options) as a cn=config
// attribute type beginning with "olc".
bool SlapdKnowsConfigAttribute(std::string_view name);

// Whether `name` (as ModuleName gives it: "ppolicy", "back_mdb") is a module
// OpenLDAP 2.5 builds, or back-bdb/back-hdb (2.4's, whose sections dirload
// reads). Any other module is a third party's: slapd knows the directives
// and cn=config attributes it brings, and dirload cannot, so the readers
// take them as that module's and note them instead of refusing them.
bool SlapdKnowsModule(std::string_view name);

// Whether `name` is one of back-bdb's and back-hdb's directives (OpenLDAP
// 2.4; both backends are gone from 2.5), which dirload's Berkeley DB engine
// reads from their database sections.
bool BackBdbDirective(std::string_view name);

namespace slapd_directives_internal {
struct DirectiveName {
  const char* name;  // lower case
  int prefix;        // matched by its first `prefix` characters; 0: the whole name
};
extern const DirectiveName kDirectives[];
extern const size_t kDirectiveCount;
extern const char* const kConfigAttributes[];  // lower case, sorted
extern const size_t kConfigAttributeCount;
extern const char* const kModules[];  // sorted
extern const size_t kModuleCount;
}  // namespace slapd_directives_internal

}  // namespace dirload
