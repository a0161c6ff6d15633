#include "lib/pipeline/mdb_staged_load.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <unordered_map>
#include <utility>
#include <vector>

#include "lib/format/mdb/mdb_env.h"
#include "lib/format/mdb/mdb_normalized.h"
#include "lib/pipeline/database_meta.h"
#include "lib/schema/ascii.h"
#include "lib/schema/attribute_type.h"
#include "lib/schema/dn.h"
#include "lib/schema/matching_rule.h"
#include "lib/util/ascii.h"
#include "lib/util/coding.h"
#include "lib/util/file.h"

namespace dirload {
namespace {

namespace fs = std::filesystem;

constexpr char kBuildDirName[] = ".dirload-build";

Status StorageError(const std::string& what, const std::error_code& ec) {
  return Status::IoError(what + ": " + ec.message()).WithOrigin(ErrorOrigin::kStorage);
}

// `dn` as slapd stores an entry's DN (dnPretty, what slapcat and slapd show):
// each type by its canonical name, options dropped; the AVAs of an RDN
// sorted by that name; in a value, , + " \ < > ; = NUL, a leading '#' or
// space and a trailing space written as \XX (upper-case hex), every other
// byte (UTF-8, control characters) as it is. Dn::ToString writes "\," where
// slapd writes "\2C": an export of slapcat's would not load back to the same
// bytes. (slapd also folds runs of spaces in directory strings; an export
// has none left.) `dn` was parsed by the loader; one that does not parse
// again is kept as it is.
std::string SlapdPrettyDn(const Schema& schema, std::string_view dn) {
  // Most RDNs are one plain AVA with the type as the schema names it
  // ("uid=jdoe"): already slapd's form, kept without parsing (this runs on
  // the writing thread, per entry).
  std::string_view type, value;
  if (IsPlainAva(dn, &type, &value)) {
    const AttributeType* t = schema.FindAttribute(type);
    if (t != nullptr && t->name() == type) return std::string(dn);
  }
  Result<Dn> parsed = ParseDn(dn);
  if (!parsed.ok()) return std::string(dn);
  std::string out;
  std::vector<std::pair<std::string_view, const Ava*>> avas;
  for (size_t r = 0; r < parsed->rdns.size(); ++r) {
    if (r > 0) out.push_back(',');
    avas.clear();
    for (const Ava& ava : parsed->rdns[r]) {
      const AttributeType* type = schema.FindAttribute(ava.type);
      if (type == nullptr || ava.ber) return std::string(dn);
      avas.emplace_back(type->name(), &ava);
    }
    std::stable_sort(avas.begin(), avas.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (size_t a = 0; a < avas.size(); ++a) {
      if (a > 0) out.push_back('+');
      out.append(avas[a].first);
      out.push_back('=');
      const std::string& v = avas[a].second->value;
      for (size_t i = 0; i < v.size(); ++i) {
        const auto c = static_cast<unsigned char>(v[i]);
        const bool hex = c == 0 || c == ',' || c == '+' || c == '"' || c == '\\' || c == '<' ||
                         c == '>' || c == ';' || c == '=' || (i == 0 && (c == '#' || c == ' ')) ||
                         (i + 1 == v.size() && c == ' ');
        if (hex) {
          out.push_back('\\');
          AppendHexByte(c, &out, kUpperHexDigits);
        } else {
          out.push_back(static_cast<char>(c));
        }
      }
    }
  }
  return out;
}

}  // namespace

Result<DatabaseFormat> ChooseLoadFormat(const std::string& dir, std::string_view requested,
                                        std::string_view config_database_type) {
  Result<DatabaseFormat> found = DetectDatabaseFormat(dir);
  if (found.ok()) {
    if (!requested.empty() && requested != DatabaseFormatName(*found)) {
      return Status::InvalidArgument(dir + " holds a " + std::string(DatabaseFormatName(*found)) +
                                     " database; --format " + std::string(requested) +
                                     " cannot be added to it")
          .WithOrigin(ErrorOrigin::kDatabase);
    }
    return *found;
  }
  if (found.status().code() != StatusCode::kNotFound) return found.status();
  if (requested == "mdb") return DatabaseFormat::kMdb;
  if (requested == "native") return DatabaseFormat::kNative;
  // A new database: slapd's own format when the configuration is slapd's
  // and names back-mdb, so that slapd serves what was loaded.
  return config_database_type == "mdb" ? DatabaseFormat::kMdb : DatabaseFormat::kNative;
}

mdb::MdbIndexOptions MdbIndexOptionsFor(const ResolvedDatabase& db, const IndexRunOptions& run) {
  mdb::MdbIndexOptions o;
  o.keys = MdbKeyOptionsFrom(db.index_tuning);
  o.method = run.method;
  o.idl_cache_size = run.builder.idl_cache_size;
  o.memory_budget = run.builder.sort_memory;
  o.temp_dir = run.builder.tmpdir;
  return o;
}

MdbStagedLoadOptions MdbStagedLoadOptionsFor(const ResolvedDatabase& db,
                                             const std::vector<IndexSpec>& specs,
                                             const IndexRunOptions& run) {
  MdbStagedLoadOptions mo;
  mo.suffix = db.suffix;
  mo.writer.map_size =
      db.store_options.lmdb_map_size != 0 ? db.store_options.lmdb_map_size : uint64_t{64} << 30;
  mo.writer.quick = true;  // one sync at the end, as slapadd -q
  // As the native loader's dn2id records: phase 2's sort memory is not in use yet.
  mo.writer.held_child_bytes = run.builder.sort_memory / 4;
  for (const IndexSpec& spec : specs) mo.writer.index_names.emplace_back(spec.name());
  mo.index = MdbIndexOptionsFor(db, run);
  return mo;
}

MdbSink::MdbSink(mdb::MdbLoadWriter* writer, const Schema* schema)
    : writer_(writer), schema_(schema), written_(writer->last_id()) {}

namespace {

// slapd's normalized copies, per checking worker, with what it learnt of
// each description.
class MdbValueNormalizer final : public EntrySink::ValueNormalizer {
 public:
  explicit MdbValueNormalizer(const Schema* schema) : schema_(schema) {}
  Status Normalize(std::string_view description, std::string_view value,
                   const std::string* equality, std::string* out, bool* stored) override {
    auto it = types_.find(description);
    if (it == types_.end()) {
      Result<AttributeDescription> d = schema_->ParseAttributeDescription(description);
      Type t;
      t.type = d.ok() && mdb::MdbStoresNormalized(*d->type) ? d->type : nullptr;
      t.dn = t.type != nullptr && t.type->equality->normalizer == Normalizer::kDistinguishedName;
      // slapd's copy is the equality normalization, except UUIDs (16 bytes).
      t.reuse = t.type != nullptr && t.type->equality->normalizer != Normalizer::kUuid;
      it = types_.emplace(std::string(description), t).first;
    }
    const Type& t = it->second;
    *stored = t.type != nullptr;
    if (!*stored) return Status::Ok();
    if (equality != nullptr && t.reuse) {
      out->assign(*equality);
      return Status::Ok();
    }
    if (!t.dn) return mdb::MdbNormalizedValue(*schema_, *t.type, value, out);
    // DN values (member, manager, seeAlso) name the same few entries over
    // and over, and a DN costs the most to normalize.
    auto hit = dns_.find(value);
    if (hit != dns_.end()) {
      out->assign(hit->second);
      return Status::Ok();
    }
    DIRLOAD_RETURN_IF_ERROR(mdb::MdbNormalizedValue(*schema_, *t.type, value, out));
    if (dns_.size() >= kMaxDns) dns_.clear();
    dns_.emplace(std::string(value), *out);
    return Status::Ok();
  }

 private:
  struct Type {
    const AttributeType* type = nullptr;  // null: no normalized copy
    bool dn = false;                      // distinguishedNameMatch
    bool reuse = false;                   // the checks' equality normalization is slapd's copy
  };
  template <typename V>
  using Map = std::unordered_map<std::string, V, schema_internal::StringHash, std::equal_to<>>;
  // Bounds the DN memo (a few MB per worker).
  static constexpr size_t kMaxDns = 32768;

  const Schema* schema_;
  Map<Type> types_;
  Map<std::string> dns_;
};

}  // namespace

std::unique_ptr<EntrySink::ValueNormalizer> MdbSink::NewNormalizer() const {
  return std::make_unique<MdbValueNormalizer>(schema_);
}

void MdbSink::Owned::Assign(std::span<const Value> in) {
  descriptions.clear();
  values.clear();
  normalized.clear();
  generated.clear();
  has_normalized.clear();
  for (const Value& v : in) {
    descriptions.emplace_back(v.description);
    values.emplace_back(v.value);
    normalized.emplace_back(v.normalized);
    generated.push_back(v.generated);
    has_normalized.push_back(v.has_normalized);
  }
}

std::vector<EntrySink::Value> MdbSink::Owned::View() const {
  std::vector<Value> out;
  out.reserve(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    out.push_back({descriptions[i], values[i], generated[i], normalized[i], has_normalized[i]});
  }
  return out;
}

Status MdbSink::WriteView(EntryId id, EntryId parent, std::string_view nrdn, std::string_view rdn,
                          std::span<const Value> values) {
  std::vector<mdb::MdbValue>& out = written_values_;
  out.clear();
  for (const Value& v : values) {
    out.push_back({v.description, v.value, v.generated, v.normalized, v.has_normalized});
  }
  DIRLOAD_RETURN_IF_ERROR(writer_->AddEntry(id, parent, nrdn, rdn, out));
  written_ = id;
  return Status::Ok();
}

Status MdbSink::Write(EntryId id, const Owned& e) {
  std::vector<Value> view = e.View();
  return WriteView(id, e.parent, e.nrdn, e.rdn, view);
}

std::string MdbSink::NameKey(EntryId parent, std::string_view nrdn) {
  std::string key;
  PutBigEndian64(parent, &key);
  key.append(nrdn);
  return key;
}

void MdbSink::ErasePending(std::map<EntryId, Owned>::iterator it) {
  pending_names_.erase(NameKey(it->second.parent, it->second.nrdn));
  pending_.erase(it);
}

Status MdbSink::Drain() {
  while (!pending_.empty() && pending_.begin()->first == written_ + 1) {
    auto it = pending_.begin();
    DIRLOAD_RETURN_IF_ERROR(Write(it->first, it->second));
    ErasePending(it);
  }
  return Status::Ok();
}

Status MdbSink::Add(EntryId id, EntryId parent, std::string_view ndn, std::string_view dn,
                    std::span<const Value> values) {
  // back-mdb keeps each entry's own RDN (normalised and as given) under its
  // parent; the suffix entry's "RDN" is the whole suffix DN.
  std::string_view nrdn = parent == 0 ? ndn : mdb::MdbLeftmostRdn(ndn);
  const std::string pretty = SlapdPrettyDn(*schema_, parent == 0 ? dn : mdb::MdbLeftmostRdn(dn));
  std::string_view rdn = pretty;
  if (parent == 0) {
    suffix_id_ = id;
    suffix_.parent = 0;
    suffix_.nrdn.assign(nrdn);
    suffix_.rdn.assign(rdn);
    suffix_.Assign(values);
  }
  if (id == written_ + 1 && pending_.empty()) return WriteView(id, parent, nrdn, rdn, values);
  // A reserved ID below this one is still to come: wait for it.
  Owned& e = pending_[id];
  e.parent = parent;
  e.nrdn.assign(nrdn);
  e.rdn.assign(rdn);
  e.Assign(values);
  pending_names_[NameKey(parent, nrdn)] = id;
  return Drain();
}

Result<std::optional<EntryId>> MdbSink::Find(EntryId parent, std::string_view ndn) {
  std::string_view nrdn = parent == 0 ? ndn : mdb::MdbLeftmostRdn(ndn);
  if (!pending_names_.empty()) {
    if (auto it = pending_names_.find(NameKey(parent, nrdn)); it != pending_names_.end()) {
      return std::optional<EntryId>(it->second);
    }
  }
  return writer_->FindChild(parent, nrdn);
}

Status MdbSink::Remove(EntryId id) {
  if (auto it = pending_.find(id); it != pending_.end()) {
    ErasePending(it);
    return Status::Ok();
  }
  // An entry below a parent that never came always waits behind the
  // parent's reserved ID, so it cannot have been written.
  return Status::Internal("entry " + std::to_string(id) + " was written before its parent");
}

Result<std::vector<EntrySink::Value>> MdbSink::Values(EntryId id) {
  if (id == suffix_id_ && suffix_id_ != 0) return suffix_.View();
  if (auto it = pending_.find(id); it != pending_.end()) return it->second.View();
  return Status::Internal("entry " + std::to_string(id) +
                          ": only the suffix entry and the waiting ones are kept");
}

Status MdbSink::Replace(EntryId id, std::span<const Value> values) {
  if (auto it = pending_.find(id); it != pending_.end()) {
    it->second.Assign(values);
    return Status::Ok();
  }
  std::vector<mdb::MdbValue> out;
  for (const Value& v : values) out.push_back({v.description, v.value, v.generated, {}, false});
  return writer_->ReplaceEntry(id, out);
}

Status MdbSink::Flush() {
  for (auto& [id, e] : pending_) DIRLOAD_RETURN_IF_ERROR(Write(id, e));
  pending_.clear();
  pending_names_.clear();
  return Status::Ok();
}

Result<std::unique_ptr<MdbStagedLoad>> MdbStagedLoad::Begin(const std::string& dir,
                                                            const Schema& schema,
                                                            const MdbStagedLoadOptions& options) {
  std::unique_ptr<MdbStagedLoad> load(new MdbStagedLoad(schema, options));
  load->dir_ = dir;
  load->build_dir_ = (fs::path(dir) / kBuildDirName).string();
  load->scratch_dir_ = (fs::path(load->build_dir_) / "scratch").string();
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return StorageError("create " + dir, ec);
  // What a killed run left is of no use: start again.
  fs::remove_all(load->build_dir_, ec);
  if (ec) return StorageError("remove " + load->build_dir_, ec);
  fs::create_directories(load->scratch_dir_, ec);
  if (ec) return StorageError("create " + load->scratch_dir_, ec);

  const std::string existing = (fs::path(dir) / "data.mdb").string();
  load->appending_ = fs::exists(existing);
  if (load->appending_) {
    // Append on a copy: the database slapd may serve is not touched until Install.
    {
      mdb::MdbEnvOptions ro;
      ro.read_only = true;
      DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<mdb::MdbEnv> old, mdb::MdbEnv::Open(dir, ro));
      DIRLOAD_RETURN_IF_ERROR(old->CopyTo(load->build_dir_));
    }
  }
  StoreOptions so;
  so.create = true;
  // The scratch store lives for one run and holds a few records.
  so.lmdb_write_map = true;
  DIRLOAD_ASSIGN_OR_RETURN(load->scratch_, Store::Open(Backend::kLmdb, load->scratch_dir_, so));
  if (load->appending_) {
    DIRLOAD_ASSIGN_OR_RETURN(
        load->writer_, mdb::MdbLoadWriter::OpenExisting(schema, load->build_dir_, options.writer));
    DIRLOAD_RETURN_IF_ERROR(load->DescribeExisting());
  } else {
    DIRLOAD_ASSIGN_OR_RETURN(load->writer_,
                             mdb::MdbLoadWriter::Create(schema, load->build_dir_, options.writer));
  }
  load->sink_ = std::make_unique<MdbSink>(load->writer_.get(), &schema);
  return load;
}

Status MdbStagedLoad::DescribeExisting() {
  // The loader takes IDs from next_id on, and counts the stored entries,
  // from its own state: what a native database would have said.
  mdb::MdbDbStat id2e;  // one pair per entry
  {
    DIRLOAD_ASSIGN_OR_RETURN(mdb::MdbTxn txn, writer_->env().Begin(false));
    DIRLOAD_RETURN_IF_ERROR(txn.Stat(writer_->env().id2e(), &id2e));
  }
  DatabaseMeta meta;
  meta.state = DatabaseState::kReady;
  meta.suffix = options_.suffix;
  meta.next_id = writer_->last_id() + 1;
  meta.entries = id2e.entries;
  DIRLOAD_RETURN_IF_ERROR(WriteMeta(scratch_.get(), meta));
  return scratch_->Commit();
}

Status MdbStagedLoad::FinishEntries() {
  DIRLOAD_RETURN_IF_ERROR(sink_->Flush());
  DIRLOAD_RETURN_IF_ERROR(writer_->Finish());
  // Phase 2 writes best through the map (MdbLoadWriter::ReopenForIndexes).
  if (!options_.writer.index_names.empty()) DIRLOAD_RETURN_IF_ERROR(writer_->ReopenForIndexes());
  // Install syncs once, for both phases; starting the writes now overlaps
  // them with phase 2 instead of waiting for them here or there.
  mdb::MdbEnv* env = &writer_->env();
  writeback_ = std::thread([env] { env->StartWriteback(); });
  return Status::Ok();
}

Result<mdb::MdbIndexStats> MdbStagedLoad::BuildIndexes(const std::vector<IndexSpec>& specs) {
  mdb::MdbIndexOptions o = options_.index;
  // On append the old entries' keys are rebuilt with the new ones.
  o.rebuild = appending_;
  o.sync = false;  // Install syncs
  return mdb::MdbIndexBuilder::Build(writer_->env(), schema_, specs, o);
}

Status MdbStagedLoad::Install() {
  if (writeback_.joinable()) writeback_.join();
  DIRLOAD_RETURN_IF_ERROR(writer_->env().Sync());
  scratch_.reset();
  sink_.reset();
  writer_.reset();
  const std::string built = (fs::path(build_dir_) / "data.mdb").string();
  const std::string target = (fs::path(dir_) / "data.mdb").string();
  DIRLOAD_RETURN_IF_ERROR(SyncPath(built).WithOrigin(ErrorOrigin::kStorage));
  // The files take the directory's owner: slapd (user openldap) must be
  // able to open what root loaded.
  struct stat st {};
  const bool owner_known = ::stat(dir_.c_str(), &st) == 0;
  if (owner_known) {
    if (::chown(built.c_str(), st.st_uid, st.st_gid) != 0 && geteuid() == 0) {
      return StorageError("chown " + built, std::error_code(errno, std::generic_category()));
    }
  }
  if (::rename(built.c_str(), target.c_str()) != 0) {
    return StorageError("rename " + built + " to " + target,
                        std::error_code(errno, std::generic_category()));
  }
  DIRLOAD_RETURN_IF_ERROR(SyncPath(dir_).WithOrigin(ErrorOrigin::kStorage));
  installed_ = true;
  std::error_code ec;
  fs::remove_all(build_dir_, ec);
  // slapd's lock file: created by whoever opens the database first; make
  // sure an existing one is slapd's to open too.
  const std::string lock = (fs::path(dir_) / "lock.mdb").string();
  if (owner_known && fs::exists(lock)) (void)::chown(lock.c_str(), st.st_uid, st.st_gid);
  return Status::Ok();
}

MdbStagedLoad::~MdbStagedLoad() {
  if (writeback_.joinable()) writeback_.join();
  scratch_.reset();
  sink_.reset();
  writer_.reset();
  if (!installed_ && !build_dir_.empty()) {
    std::error_code ec;
    fs::remove_all(build_dir_, ec);
  }
}

}  // namespace dirload
