#include "lib/store/store.h"

#include "lib/store/bdb_store.h"
#ifdef DIRLOAD_FAULT_INJECTION
#include "lib/store/fault_injection.h"
#endif
#include "lib/store/lmdb_store.h"
#include "lib/store/store_util.h"

namespace dirload {

std::string_view BackendName(Backend backend) {
  switch (backend) {
    case Backend::kLmdb:
      return "lmdb";
    case Backend::kBdb:
      return "bdb";
  }
  return "unknown";
}

Result<Backend> ParseBackend(std::string_view name) {
  if (name == "lmdb") return Backend::kLmdb;
  if (name == "bdb") return Backend::kBdb;
  return Status::InvalidArgument("unknown backend '" + std::string(name) +
                                 "' (expected lmdb or bdb)");
}

Result<Backend> DetectBackend(const std::string& dir) {
  if (store_internal::FileExists(dir + "/data.mdb")) return Backend::kLmdb;
  Result<std::vector<std::string>> tables =
      store_internal::ListFilesWithSuffix("store", dir, ".bdb");
  if (tables.ok() && !tables->empty()) return Backend::kBdb;
  return Status::NotFound("store: " + dir +
                          ": no dirload database here (neither data.mdb nor *.bdb)")
      .WithOrigin(ErrorOrigin::kDatabase);
}

std::string_view CachePriorityName(CachePriority priority) {
  switch (priority) {
    case CachePriority::kDefault:
      return "default";
    case CachePriority::kVeryLow:
      return "very_low";
    case CachePriority::kLow:
      return "low";
    case CachePriority::kHigh:
      return "high";
    case CachePriority::kVeryHigh:
      return "very_high";
  }
  return "unknown";
}

Result<CachePriority> ParseCachePriority(std::string_view name) {
  for (CachePriority p : {CachePriority::kDefault, CachePriority::kVeryLow, CachePriority::kLow,
                          CachePriority::kHigh, CachePriority::kVeryHigh}) {
    if (name == CachePriorityName(p)) return p;
  }
  return Status::InvalidArgument("unknown cache priority '" + std::string(name) +
                                 "' (expected very_low, low, default, high or very_high)");
}

namespace {

Result<std::unique_ptr<Store>> OpenEngine(Backend backend, const std::string& dir,
                                          const StoreOptions& options) {
  switch (backend) {
    case Backend::kLmdb:
      return OpenLmdbStore(dir, options);
    case Backend::kBdb:
      return OpenBdbStore(dir, options);
  }
  return Status::InvalidArgument("store: unknown backend");
}

}  // namespace

Result<std::unique_ptr<Store>> Store::Open(Backend backend, const std::string& dir,
                                           const StoreOptions& options) {
#ifdef DIRLOAD_FAULT_INJECTION
  // A read-only store writes nothing, so it has no point to fail at.
  if (!options.read_only) {
    Status plan_error;
    FaultInjector* injector = ProcessFaultInjector(&plan_error);
    if (!plan_error.ok()) return plan_error;
    if (injector != nullptr) {
      Result<std::unique_ptr<Store>> store = OpenEngine(backend, dir, options);
      if (!store.ok()) return store.status();
      return std::unique_ptr<Store>(
          std::make_unique<FaultInjectingStore>(std::move(*store), injector));
    }
  }
#endif
  return OpenEngine(backend, dir, options);
}

}  // namespace dirload
