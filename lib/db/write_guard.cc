#include "lib/db/write_guard.h"

#include <algorithm>
#include <chrono>

#include "lib/db/database_lock.h"
#include "lib/db/undo_copy.h"
#include "lib/format/native/database_meta.h"

namespace dirload {

Result<WriteGuard> WriteGuard::BeginLoad(const std::string& dir, Backend backend,
                                         const StoreOptions& options) {
  DIRLOAD_ASSIGN_OR_RETURN(std::optional<PendingWork> pending, ReadPendingWork(dir));
  if (pending) return PendingWorkError(dir, *pending);
  // Left from an append that finished, or from one that never started.
  DIRLOAD_RETURN_IF_ERROR(RemoveUndoCopy(dir));
  DIRLOAD_ASSIGN_OR_RETURN(std::vector<std::string> files, NativeDatabaseFiles(dir));
  WorkKind kind = WorkKind::kLoad;
  if (!files.empty()) {
    StoreOptions ro = options;
    ro.create = false;
    ro.read_only = true;
    Result<std::unique_ptr<Store>> store = Store::Open(backend, dir, ro);
    if (store.ok()) {
      DIRLOAD_ASSIGN_OR_RETURN(DatabaseMeta meta, ReadMeta(store->get(), nullptr));
      if (meta.state == DatabaseState::kLoading) return RequireReady(meta, dir);
      if (meta.state == DatabaseState::kReady) kind = WorkKind::kAppend;
    } else if (store.status().code() != StatusCode::kNotFound) {
      return store.status();
    }
  }
  return MarkNative(dir, kind, /*copy=*/kind == WorkKind::kAppend);
}

Result<WriteGuard> WriteGuard::MarkNative(const std::string& dir, WorkKind kind, bool copy) {
  WriteGuard guard(dir, kind);
  if (copy) {
    const auto start = std::chrono::steady_clock::now();
    DIRLOAD_ASSIGN_OR_RETURN(guard.copied_bytes_, TakeUndoCopy(dir));
    guard.copy_seconds_ =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  PendingWork work;
  work.kind = kind;
  work.format = DatabaseFormat::kNative;
  work.command = ProcessCommandLine();
  Status marked = BeginPendingWork(dir, work);
  if (!marked.ok()) {
    (void)RemoveUndoCopy(dir);
    return marked;
  }
  return guard;
}

Result<WriteGuard> WriteGuard::BeginModify(const std::string& dir) {
  DIRLOAD_ASSIGN_OR_RETURN(std::optional<PendingWork> pending, ReadPendingWork(dir));
  if (pending) return PendingWorkError(dir, *pending);
  DIRLOAD_RETURN_IF_ERROR(RemoveUndoCopy(dir));
  return MarkNative(dir, WorkKind::kModify, /*copy=*/true);
}

Result<WriteGuard> WriteGuard::BeginIndex(const std::string& dir, DatabaseFormat format,
                                          const std::vector<std::string>& lines) {
  DIRLOAD_ASSIGN_OR_RETURN(std::optional<PendingWork> pending, ReadPendingWork(dir));
  if (pending && pending->kind != WorkKind::kIndex) return PendingWorkError(dir, *pending);
  PendingWork work;
  work.kind = WorkKind::kIndex;
  work.format = format;
  work.command = ProcessCommandLine();
  work.index_lines = lines;
  // A resumed rebuild keeps the indexes the interrupted one was building.
  if (pending) {
    for (const std::string& l : pending->index_lines) {
      if (std::find(work.index_lines.begin(), work.index_lines.end(), l) ==
          work.index_lines.end()) {
        work.index_lines.push_back(l);
      }
    }
  }
  DIRLOAD_RETURN_IF_ERROR(BeginPendingWork(dir, work));
  return WriteGuard(dir, WorkKind::kIndex);
}

Status WriteGuard::Done() {
  DIRLOAD_RETURN_IF_ERROR(EndPendingWork(dir_));
  return RemoveUndoCopy(dir_);
}

Status WriteGuard::RollBack() {
  switch (kind_) {
    case WorkKind::kAppend:
    case WorkKind::kModify:
      DIRLOAD_RETURN_IF_ERROR(RestoreUndoCopy(dir_));
      break;
    case WorkKind::kLoad:
      DIRLOAD_RETURN_IF_ERROR(RemoveNativeDatabaseFiles(dir_));
      break;
    case WorkKind::kIndex:
      return Status::Ok();  // stays pending: see above
    case WorkKind::kOnlineAdd:
      break;  // not a guard's: online_load.h keeps its own mark
  }
  return EndPendingWork(dir_);
}

}  // namespace dirload
