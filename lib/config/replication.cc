#include "lib/config/replication.h"

#include <algorithm>
#include <charconv>

#include "lib/util/ascii.h"

namespace dirload {
namespace {

bool ParseWhole(std::string_view text, int base, int* out) {
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out, base);
  return ec == std::errc() && end == text.data() + text.size();
}

// "1 (ldap://a/), 2 (ldap://b/)"
std::string ListIds(const std::vector<ServerId>& ids) {
  std::string out;
  for (const ServerId& s : ids) {
    out += (out.empty() ? "" : ", ") + std::to_string(s.id);
    if (!s.url.empty()) out += " (" + s.url + ")";
  }
  return out;
}

}  // namespace

Result<ServerId> ParseServerId(std::string_view number, std::string_view url,
                               const std::string& where) {
  // slapd: lutil_atoi, else lutil_atoix in base 16 (strtol, so "0x" may lead).
  int id = -1;
  std::string_view hex = number;
  if (hex.size() > 2 && hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X')) hex.remove_prefix(2);
  if ((!ParseWhole(number, 10, &id) && !ParseWhole(hex, 16, &id)) || id < 0 || id > 0xfff) {
    return Status::ParseError(where + ": serverID '" + std::string(number) +
                              "': illegal server ID (a number from 0 to 4095, decimal or hex)");
  }
  ServerId s;
  s.id = id;
  s.url = std::string(url);
  s.where = where;
  return s;
}

Status AddServerId(ServerId id, std::vector<ServerId>* ids) {
  if (!ids->empty()) {
    const std::string where = id.where + ": ";
    if (id.url.empty()) {
      return Status::ParseError(where + "serverID " + std::to_string(id.id) +
                                " has no URL: unqualified server ID not allowed now (" +
                                ids->front().where + " gives one already, as slapd says)");
    }
    if (ids->front().url.empty()) {
      return Status::ParseError(where + "serverID " + std::to_string(id.id) +
                                ": only one server ID allowed now (" + ids->front().where +
                                " gives one without a URL, as slapd says)");
    }
  }
  ids->push_back(std::move(id));
  return Status::Ok();
}

std::vector<int> ReplicationSetup::ids() const {
  std::vector<int> out;
  for (const ServerId& s : server_ids) out.push_back(s.id);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string ReplicationSetup::Describe() const {
  std::string out = server_ids.empty() ? "no serverID" : "serverID " + ListIds(server_ids);
  if (several_providers()) out += " (several providers: -S must be one of them)";
  out += syncprov ? "; syncprov overlay" : "; no syncprov overlay";
  if (consumers.empty()) {
    out += "; no syncrepl consumer";
  } else {
    out += "; " + std::to_string(consumers.size()) + " syncrepl consumer" +
           (consumers.size() > 1 ? "s" : "") + " (";
    for (size_t i = 0; i < consumers.size(); ++i) out += (i ? ", " : "") + consumers[i];
    out += ")";
  }
  if (multiprovider) out += "; multiprovider";
  out += accesslog ? "; accesslog overlay" : "; no accesslog overlay";
  return out;
}

std::string SyncreplConsumer(std::string_view text) {
  // Words "name=value", the value perhaps in quotes (slapd.d keeps them);
  // rid and provider never hold spaces.
  std::string rid, provider;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && text[i] == ' ') ++i;
    size_t end = text.find(' ', i);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view word = text.substr(i, end - i);
    const size_t eq = word.find('=');
    if (eq != std::string_view::npos) {
      const std::string name = AsciiLowerCopy(word.substr(0, eq));
      std::string_view value = word.substr(eq + 1);
      if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
        value = value.substr(1, value.size() - 2);
      }
      if (name == "rid") rid = std::string(value);
      if (name == "provider") provider = std::string(value);
    }
    i = end;
  }
  std::string out = "rid=" + (rid.empty() ? std::string("?") : rid);
  if (!provider.empty()) out += " provider=" + provider;
  return out;
}

Status CheckLoadServerId(const ReplicationSetup& replication, int sid, const std::string& config) {
  if (!replication.several_providers()) return Status::Ok();
  const std::vector<int> ids = replication.ids();
  // 0 is never a choice: several providers each need an ID of their own.
  std::vector<int> usable;
  for (int id : ids) {
    if (id != 0) usable.push_back(id);
  }
  std::string choices;
  for (size_t i = 0; i < usable.size(); ++i) {
    if (i > 0) choices += i + 1 == usable.size() ? " or " : ", ";
    choices += "-S " + std::to_string(usable[i]);
  }
  const std::string configured =
      config + " configures several providers, serverID " + ListIds(replication.server_ids);
  if (sid == 0) {
    return Status::InvalidArgument("server ID 0 (-S 0, the default): " + configured +
                                   "; CSNs with ID 0 belong to none of them: give " + choices)
        .WithOrigin(ErrorOrigin::kUsage);
  }
  if (std::find(ids.begin(), ids.end(), sid) == ids.end()) {
    return Status::InvalidArgument("-S " + std::to_string(sid) + ": " + configured +
                                   ", and none is " + std::to_string(sid) + ": give " + choices)
        .WithOrigin(ErrorOrigin::kUsage);
  }
  return Status::Ok();
}

}  // namespace dirload
