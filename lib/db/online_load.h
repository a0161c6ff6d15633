// `dirload add --online`: a load into slapd's database while slapd serves
// it, through LMDB's own write transactions (mdb_online_writer.h), as
// slapadd without -q writes: each batch of entries is committed whole, with
// its dn2i nodes, its ancestors' nsubs and its index keys, and slapd serves
// it from then on; slapd's own writes go on between batches and none is
// lost. The checks are a normal add's (the loader pipeline, schema, the
// duplicate DN and the parent asked of the live dn2i), -c and the reject
// file as usual.
//
// While it runs, DIR/dirload.pending (pending_work.h, work: online-add)
// says how far it got: after each commit, the entries committed and the
// input line to go on from with -j (the first line of the earliest entry
// not committed yet). A failed run says the same and removes the mark; a
// killed one leaves it, and `dirload recover` reports it and removes it.
// Nothing is ever rolled back: what was committed, slapd may already have
// served and built on.
//
// Thread safety: one thread, as LoadJob.
#pragma once

#include <memory>

#include "lib/db/load_target.h"
#include "lib/util/status.h"

namespace dirload {

// The target of an online load into `state`'s database (slapd's format,
// LMDB): the writer is open and the mark written when it returns.
Result<std::unique_ptr<LoadJob::Target>> BeginOnlineLoad(LoadJob::State* state);

}  // namespace dirload
