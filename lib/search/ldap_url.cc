#include "lib/search/ldap_url.h"

#include <vector>

#include "lib/util/ascii.h"

namespace dirload {
namespace {

Status UrlError(std::string_view url, std::string why) {
  return Status::InvalidArgument("-H " + std::string(url) + ": " + why)
      .WithOrigin(ErrorOrigin::kUsage);
}

}  // namespace

Result<std::string> PercentDecode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    int hi = i + 1 < text.size() ? HexDigitValue(text[i + 1]) : -1;
    int lo = i + 2 < text.size() ? HexDigitValue(text[i + 2]) : -1;
    if (hi < 0 || lo < 0) {
      return Status::InvalidArgument("bad percent-escape at position " + std::to_string(i));
    }
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

Result<ToolUrl> ParseToolUrl(std::string_view url) {
  constexpr std::string_view kScheme = "ldap://";
  if (url.size() < kScheme.size()) return UrlError(url, "not an ldap:// URL");
  for (size_t i = 0; i < kScheme.size(); ++i) {
    if (AsciiLower(url[i]) != kScheme[i]) {
      return UrlError(url, "not an ldap:// URL");
    }
  }
  std::string_view rest = url.substr(kScheme.size());
  size_t slash = rest.find('/');
  std::string_view host = rest.substr(0, slash);
  if (!host.empty()) return UrlError(url, "names a host; slapcat's URLs have none (ldap:///...)");
  rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
  std::vector<std::string_view> parts;
  for (;;) {
    size_t q = rest.find('?');
    parts.push_back(rest.substr(0, q));
    if (q == std::string_view::npos) break;
    rest = rest.substr(q + 1);
  }
  if (parts.size() > 5) return UrlError(url, "too many '?' parts");
  ToolUrl out;
  auto decode = [&](std::string_view part, const char* what) -> Result<std::string> {
    Result<std::string> d = PercentDecode(part);
    if (!d.ok()) return UrlError(url, std::string(what) + ": " + d.status().message());
    return d;
  };
  if (!parts[0].empty()) {
    DIRLOAD_ASSIGN_OR_RETURN(std::string base, decode(parts[0], "base"));
    out.base = std::move(base);
  }
  if (parts.size() > 1 && !parts[1].empty()) {
    return UrlError(url, "asks for attributes; slapcat writes whole entries");
  }
  if (parts.size() > 2 && !parts[2].empty()) {
    DIRLOAD_ASSIGN_OR_RETURN(std::string scope, decode(parts[2], "scope"));
    Result<SearchScope> s = ParseSearchScope(scope);
    if (!s.ok()) return UrlError(url, "unknown scope '" + scope + "' (base, one, sub or children)");
    out.scope = *s;
  }
  if (parts.size() > 3 && !parts[3].empty()) {
    DIRLOAD_ASSIGN_OR_RETURN(std::string filter, decode(parts[3], "filter"));
    out.filter = std::move(filter);
  }
  if (parts.size() > 4 && !parts[4].empty()) {
    return UrlError(url, "has extensions, which slapcat does not take");
  }
  return out;
}

}  // namespace dirload
