// Replication as an OpenLDAP configuration sets it up, for what a load must
// know before it makes CSNs: the server IDs (slapd's global `serverID` lines,
// olcServerID in cn=config) and, for the database being loaded, its syncprov
// and accesslog overlays, its syncrepl consumers and multi-provider mode.
//
// Why: an entryCSN carries the server ID of the server that made the change,
// and syncrepl compares CSNs per server ID. Where several providers share a
// configuration (each `serverID N URL`), CSNs made with an ID none of them
// has, or with 0, are changes no provider owns: a load must use one of
// theirs (CheckLoadServerId).
//
// Thread safety: values and pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "lib/util/status.h"

namespace dirload {

// A `serverID` line or olcServerID value.
struct ServerId {
  int id = 0;         // 0..4095
  std::string url;    // with several providers, the one this ID is; else empty
  std::string where;  // "slapd.conf:3", for messages
};

// Reads serverID's arguments as slapd 2.5 does: a decimal number, or else a
// hex one ("0x1f" or "1f"), from 0 to 4095, and an optional URL. `where`
// ("slapd.conf:3") is kept and names the line in errors.
Result<ServerId> ParseServerId(std::string_view number, std::string_view url,
                               const std::string& where);

// Appends `id` to `ids` with slapd's rules: one ID without a URL, or any
// number each with a URL, never both. Errors say what slapd says.
Status AddServerId(ServerId id, std::vector<ServerId>* ids);

struct ReplicationSetup {
  std::vector<ServerId> server_ids;  // the configuration's, in order
  bool syncprov = false;             // `overlay syncprov` on the database
  bool accesslog = false;            // `overlay accesslog`
  bool multiprovider = false;        // `multiprovider on` (or `mirrormode on`)
  // The database's syncrepl consumers, each as "rid=001 provider=URL"
  // (never its credentials).
  std::vector<std::string> consumers;

  // The distinct IDs configured, ascending.
  std::vector<int> ids() const;
  // Several serverIDs: several providers replicate this configuration's data.
  bool several_providers() const { return ids().size() > 1; }
  // One line for -v: "serverID 1 (ldap://a/), 2 (ldap://b/); syncprov
  // overlay; 1 syncrepl consumer (rid=001 provider=ldap://a/); no accesslog
  // overlay".
  std::string Describe() const;
};

// The rid and provider of a syncrepl line or olcSyncrepl value, as
// ReplicationSetup::consumers keeps them.
std::string SyncreplConsumer(std::string_view syncrepl_arguments);

// With several providers configured, the server ID a load writes its CSNs
// with (-S, 0 when not given) must be one of theirs, and not 0: otherwise a
// usage error naming the IDs configured (`config` names the configuration).
// With one or no serverID, every ID is taken, as slapadd takes it.
Status CheckLoadServerId(const ReplicationSetup& replication, int sid, const std::string& config);

}  // namespace dirload
