// What dirload says when a damaged database file makes the process fault.
//
// LMDB maps the database file and reads it in place: a file cut short makes
// a read past its end raise SIGBUS, and a page of garbage can send LMDB's
// pointers astray (SIGSEGV). Neither can be turned into a Status, so the
// handlers installed here end the process the way a storage error does: a
// one-line message naming the file and exit status 4 (tools/exit_codes.h).
// They speak only while an open database file is registered, and a SIGSEGV
// only when the faulting instruction is in the engine's code (liblmdb,
// libdb); any other fault is a bug, and it crashes as it would without them.
//
// Thread safety: InstallDamageSignalHandlers() is for main(), before any
// thread starts. Register/Clear may be called from any thread, but one
// database file is registered at a time (the last registration wins); the
// handlers only read what they left.
#pragma once

#include <string_view>

namespace dirload {

// Installs the SIGBUS and SIGSEGV handlers. Call once, at the start of main.
void InstallDamageSignalHandlers();

// Records `path` (a database file or directory) as the one a fault would be
// blamed on. A path longer than the handler's buffer is cut.
void RegisterMappedDatabaseFile(std::string_view path);

// For faults the engine catches itself (LMDB's assertions, which abort):
// with a database file registered, writes "dirload: database file damaged:
// PATH (DETAIL); restore a copy or load again" to stderr and exits with
// status 4; with none, returns (and the caller goes on to abort).
void ExitIfDatabaseRegistered(std::string_view detail);

// Forgets the registration if it is still `path`'s (a later store's
// registration is left alone).
void ClearMappedDatabaseFile(std::string_view path);

}  // namespace dirload
