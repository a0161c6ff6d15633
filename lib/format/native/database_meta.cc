#include "lib/format/native/database_meta.h"

#include <charconv>

#include "lib/store/tables.h"

namespace dirload {

std::string_view DatabaseStateName(DatabaseState state) {
  switch (state) {
    case DatabaseState::kEmpty:
      return "empty";
    case DatabaseState::kLoading:
      return "loading";
    case DatabaseState::kReady:
      return "ready";
  }
  return "unknown";
}
namespace {

Result<uint64_t> Number(std::string_view key, const std::string& text) {
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size()) {
    return Status::Corruption("meta: bad value '" + text + "' for '" + std::string(key) + "'");
  }
  return v;
}

}  // namespace

Result<DatabaseMeta> ReadMeta(Store* store, AttributeDictionary* dictionary) {
  DatabaseMeta meta;
  std::string v;
  DIRLOAD_ASSIGN_OR_RETURN(bool has_format, store->Get(kMetaTable, "format", &v));
  if (!has_format) return meta;
  if (v != std::to_string(kNativeLayoutVersion)) {
    return Status::Unsupported("database format " + v + " in " + store->path() +
                               " is not the format this dirload reads (" +
                               std::to_string(kNativeLayoutVersion) + ")");
  }
  DIRLOAD_ASSIGN_OR_RETURN(bool has_state, store->Get(kMetaTable, "state", &v));
  meta.state = has_state && v == "ready" ? DatabaseState::kReady : DatabaseState::kLoading;
  DIRLOAD_ASSIGN_OR_RETURN(bool has_suffix, store->Get(kMetaTable, "suffix", &meta.suffix));
  (void)has_suffix;
  DIRLOAD_ASSIGN_OR_RETURN(bool has_next, store->Get(kMetaTable, "next_id", &v));
  if (has_next) {
    DIRLOAD_ASSIGN_OR_RETURN(meta.next_id, Number("next_id", v));
  }
  DIRLOAD_ASSIGN_OR_RETURN(bool has_entries, store->Get(kMetaTable, "entries", &v));
  if (has_entries) {
    DIRLOAD_ASSIGN_OR_RETURN(meta.entries, Number("entries", v));
  }
  if (dictionary != nullptr) {
    DIRLOAD_ASSIGN_OR_RETURN(bool has_dict, store->Get(kMetaTable, "attrdesc", &v));
    if (has_dict) DIRLOAD_RETURN_IF_ERROR(dictionary->Load(v));
  }
  return meta;
}

Status WriteState(Store* store, DatabaseState state) {
  DIRLOAD_RETURN_IF_ERROR(store->Put(kMetaTable, "format", std::to_string(kNativeLayoutVersion)));
  return store->Put(kMetaTable, "state", state == DatabaseState::kReady ? "ready" : "loading");
}

Status WriteMeta(Store* store, const DatabaseMeta& meta) {
  DIRLOAD_RETURN_IF_ERROR(WriteState(store, meta.state));
  DIRLOAD_RETURN_IF_ERROR(store->Put(kMetaTable, "suffix", meta.suffix));
  DIRLOAD_RETURN_IF_ERROR(store->Put(kMetaTable, "next_id", std::to_string(meta.next_id)));
  return store->Put(kMetaTable, "entries", std::to_string(meta.entries));
}

Status WriteDictionary(Store* store, const AttributeDictionary& dictionary) {
  return store->Put(kMetaTable, "attrdesc", dictionary.Serialize());
}

Status RequireReady(const DatabaseMeta& meta, const std::string& dir) {
  switch (meta.state) {
    case DatabaseState::kReady:
      return Status::Ok();
    case DatabaseState::kEmpty:
      return Status::NotFound(dir + ": no dirload database here (load one with 'dirload add')")
          .WithOrigin(ErrorOrigin::kDatabase);
    case DatabaseState::kLoading:
      return Status::Corruption(
                 dir +
                 ": this database was left by a load that did not finish (state 'loading'); "
                 "its contents are incomplete. Run 'dirload recover' on it")
          .WithOrigin(ErrorOrigin::kDatabase);
  }
  return Status::Internal("unknown database state");
}

}  // namespace dirload
