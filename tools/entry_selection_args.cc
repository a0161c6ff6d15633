#include "tools/entry_selection_args.h"

#include "lib/search/ldap_url.h"

namespace dirload::tools {

void AddSelectionOptions(CLI::App* cmd, SelectionArgs* args) {
  cmd->add_option("-a,--filter", args->filter,
                  "only entries matching this RFC 4515 filter (as 'dirload search' finds them)");
  cmd->add_option("-s,--subtree", args->subtree,
                  "only the entries of this subtree (slapcat -s; the same as -H ldap:///DN)");
  cmd->add_option("-H,--url", args->url,
                  "only the entries in the URL's base, scope and filter (slapcat -H "
                  "'ldap:///BASE??SCOPE?FILTER'; no base: the suffix; no scope: sub)");
}

Result<std::optional<EntrySelection>> ParseSelection(const SelectionArgs& a) {
  if (a.filter.empty() && a.subtree.empty() && a.url.empty()) {
    return std::optional<EntrySelection>();
  }
  ToolUrl url;
  if (!a.url.empty()) {
    DIRLOAD_ASSIGN_OR_RETURN(url, ParseToolUrl(a.url));
  }
  if (!a.subtree.empty()) {
    url.base = a.subtree;
    url.scope = SearchScope::kSub;
  }
  if (!a.filter.empty()) url.filter = a.filter;
  Result<Filter> filter = ParseFilter(url.filter.value_or("(objectClass=*)"));
  if (!filter.ok()) return filter.status().WithOrigin(ErrorOrigin::kUsage);
  return std::optional<EntrySelection>(EntrySelection{url.base, url.scope, std::move(*filter)});
}

}  // namespace dirload::tools
