// Fuzz target for the RFC 4515 filter parser (lib/search/filter.h): filters
// come from the command line and from scripts, so any string must parse or
// give an error, never crash or recurse without bound. A parsed filter's
// ToString() must parse back to an equal filter and print the same again.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "lib/search/filter.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dirload;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  Result<Filter> filter = ParseFilter(text);
  if (!filter.ok()) return 0;
  std::string printed = filter->ToString();
  Result<Filter> again = ParseFilter(printed);
  if (!again.ok() || !(*again == *filter)) std::abort();
  if (again->ToString() != printed) std::abort();
  return 0;
}
