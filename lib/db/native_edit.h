// `dirload modify` on dirload's native format: the format's editor
// (lib/format/native/native_entry_editor.h) behind the undo copy of an
// append (write_guard.h), so that a run that fails, a dry run and a run
// killed midway (then `dirload recover`) all leave the database as it was.
//
// Thread safety: one thread; the caller holds the writer's lock.
#pragma once

#include <memory>
#include <string>

#include "lib/config/database_config.h"
#include "lib/format/entry_editor.h"
#include "lib/schema/schema.h"
#include "lib/util/status.h"

namespace dirload {

Result<std::unique_ptr<EntryEditor>> BeginNativeEdit(const ResolvedDatabase& db,
                                                     const Schema& schema, std::string nsuffix);

}  // namespace dirload
