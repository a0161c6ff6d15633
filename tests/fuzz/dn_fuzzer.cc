// Fuzz target for the RFC 4514 DN parser and normaliser (lib/schema/dn.h)
// with the built-in schema: DNs come from LDIF, the command line and
// configuration, so any string must parse or give an error, never crash.
// Properties checked: a parsed DN prints (ToString) to a string that parses
// to a DN printing the same; normalising is idempotent; a normalised DN is
// under its parent, and its sort key's parent is its parent's sort key.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "lib/schema/dn.h"
#include "lib/schema/schema.h"
#include "tests/fuzz/builtin_schema.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dirload;
  const Schema& schema = fuzz::BuiltinSchema();
  std::string_view text(reinterpret_cast<const char*>(data), size);

  Result<Dn> dn = ParseDn(text);
  if (dn.ok()) {
    std::string printed = dn->ToString();
    Result<Dn> again = ParseDn(printed);
    if (!again.ok() || again->size() != dn->size() || again->ToString() != printed) std::abort();
    if (!dn->empty()) (void)dn->Parent().ToString();
  }

  std::string normalized;
  if (NormalizeDn(schema, text, &normalized).ok()) {
    if (!dn.ok()) std::abort();  // what normalises must parse
    // Normalising again gives the same DN when it succeeds. It need not
    // succeed: in "c=S" followed by an escaped space the value is a valid
    // two-character country string, and its normalised value "s" is not
    // (seeds/dn/country_trailing_space.txt).
    std::string twice;
    if (NormalizeDn(schema, normalized, &twice).ok() && twice != normalized) std::abort();
    std::string_view parent = ParentDn(normalized);
    if (!IsUnder(normalized, parent)) std::abort();
    std::string key = DnSortKey(normalized);
    if (DnSortKeyParent(key) != DnSortKey(parent)) std::abort();
    std::string buffer, value;
    std::string_view stored = Dn2IdKey(key, &buffer);
    AppendDn2IdValue(42, key, &value);
    Dn2IdRecord record;
    if (!DecodeDn2IdRecord(stored, value, &record) || record.id != 42 || record.sort_key != key) {
      std::abort();
    }
  }
  return 0;
}
