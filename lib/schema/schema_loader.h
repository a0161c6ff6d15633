// Reading schema text: RFC 4512 descriptions and OpenLDAP's .schema files
// (the format of /etc/ldap/schema/*.schema, which is slapd.conf syntax).
//
// File syntax, as slapd reads it:
//   - a statement starts on a line beginning with a non-blank character; a
//     line beginning with a space or TAB continues the previous statement;
//   - blank lines and lines starting with '#' are ignored and end the
//     statement in progress (slapd does the same: a comment inside a
//     definition cuts it short);
//   - statements: `attributetype ( ... )`, `objectclass ( ... )`,
//     `objectidentifier NAME OID`, `ldapsyntax ( ... )` (keywords are
//     case-insensitive); `ditcontentrule` is accepted and ignored; anything
//     else is reported as a warning and skipped, as slapd skips
//     dsee.schema's misspelt "attributeype";
//   - inside descriptions: quoted strings '...', NAME ( 'a' 'b' ),
//     oid lists ( a $ b ), SYNTAX oid{len}, OID macros ("OLcfg:1.2"), X-
//     extensions (kept, not interpreted), keywords in any order.
// Errors name the source and the line the statement starts on:
//   "core.schema:93: attributetype: SUP 'name' not found".
//
// Thread safety: functions writing a Schema need exclusive access to it.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lib/schema/schema.h"
#include "lib/util/status.h"

namespace dirload {

// Parses the parenthesised description that follows a keyword. `schema`
// supplies OID macros. References are not resolved here; Schema::Add* does.
Result<AttributeTypeDescription> ParseAttributeTypeDescription(const Schema& schema,
                                                               std::string_view text);
Result<ObjectClassDescription> ParseObjectClassDescription(const Schema& schema,
                                                           std::string_view text);
Result<SyntaxDescription> ParseSyntaxDescription(const Schema& schema, std::string_view text);

// True for the statement keywords this module handles (case-insensitive).
bool IsSchemaDirective(std::string_view keyword);

// Applies one statement, for a slapd.conf reader that has already split
// `keyword` from its arguments. Messages carry no location; callers add it.
// Non-fatal findings (an objectidentifier redefined with the same OID) are
// appended to *warnings when it is not null.
Status ApplySchemaDirective(Schema* schema, std::string_view keyword, std::string_view args,
                            std::vector<std::string>* warnings = nullptr);

// Loads every statement of `text`; `source` names it in messages and
// warnings. Stops at the first error.
Status LoadSchemaText(Schema* schema, std::string_view text, std::string_view source,
                      std::vector<std::string>* warnings = nullptr);

// Reads `path` and loads it with LoadSchemaText (source = path).
Status LoadSchemaFile(Schema* schema, const std::string& path,
                      std::vector<std::string>* warnings = nullptr);

// One definition given as text rather than read from a file: what slapd's
// configuration directory (slapd.d, cn=schema entries) holds. `keyword` is
// the .schema statement the value corresponds to ("attributetype" for
// olcAttributeTypes, "objectclass", "objectidentifier", "ldapsyntax",
// "ditcontentrule"); `text` is its argument in .schema syntax, without any
// "{N}" ordering prefix; `source` names where it came from in messages
// ("slapd.d/cn=config/cn=schema/cn={0}core.ldif:12").
struct SchemaDefinition {
  std::string keyword;
  std::string text;
  std::string source;

  bool operator==(const SchemaDefinition&) const = default;
};

// Applies each definition in order, as LoadSchemaText applies statements.
// Errors and warnings are prefixed with the definition's source. Stops at the
// first error.
Status LoadSchemaDefinitions(Schema* schema, std::span<const SchemaDefinition> definitions,
                             std::vector<std::string>* warnings = nullptr);

}  // namespace dirload
