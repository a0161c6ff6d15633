#include "lib/idl/idl_store.h"

#include <limits>

#include "lib/idl/idl_format.h"
#include "lib/util/coding.h"

namespace dirload {
namespace {

// Bytes `id` takes in a chunk body whose last ID is `prev` (0: first of body).
inline size_t EncodedSize(EntryId prev, EntryId id) { return VarintLength(id - prev); }

std::string Where(std::string_view table, std::string_view index_key) {
  std::string s(table);
  s += ": key of ";
  s += std::to_string(index_key.size());
  s += " bytes: ";
  return s;
}

}  // namespace

Result<IdList> ReadIdList(Store* store, std::string_view table, std::string_view index_key) {
  std::string tail_value;
  DIRLOAD_ASSIGN_OR_RETURN(bool found,
                           store->Get(table, StoredKey(index_key, kTailChunk), &tail_value));
  if (!found) return IdList();
  TailHeader header;
  std::string_view tail_body;
  DIRLOAD_RETURN_IF_ERROR(
      ParseTail(tail_value, &header, &tail_body).WithPrefix(Where(table, index_key)));
  std::vector<EntryId> ids;
  ids.reserve(header.total_ids);
  if (header.full_chunks > 0) {
    std::unique_ptr<Cursor> cursor = store->NewCursor(table);
    std::string want = StoredKey(index_key, 0);
    cursor->Seek(want);
    for (uint32_t n = 0; n < header.full_chunks; ++n) {
      want.resize(want.size() - 4);
      PutBigEndian32(n, &want);
      if (!cursor->valid() || cursor->key() != want) {
        DIRLOAD_RETURN_IF_ERROR(cursor->status());
        return Status::Corruption(Where(table, index_key) + "ID list chunk " + std::to_string(n) +
                                  " missing");
      }
      DIRLOAD_RETURN_IF_ERROR(DecodeChunkBody(cursor->value(), ids.empty() ? 0 : ids.back(), &ids)
                                  .WithPrefix(Where(table, index_key)));
      cursor->Next();
    }
    DIRLOAD_RETURN_IF_ERROR(cursor->status());
  }
  DIRLOAD_RETURN_IF_ERROR(DecodeChunkBody(tail_body, ids.empty() ? 0 : ids.back(), &ids)
                              .WithPrefix(Where(table, index_key)));
  if (ids.size() != header.total_ids) {
    return Status::Corruption(Where(table, index_key) + "ID list holds " +
                              std::to_string(ids.size()) + " IDs, its header says " +
                              std::to_string(header.total_ids));
  }
  return IdList(std::move(ids));
}

Result<uint64_t> CountIds(Store* store, std::string_view table, std::string_view index_key) {
  std::string tail_value;
  DIRLOAD_ASSIGN_OR_RETURN(bool found,
                           store->Get(table, StoredKey(index_key, kTailChunk), &tail_value));
  if (!found) return uint64_t{0};
  TailHeader header;
  std::string_view body;
  DIRLOAD_RETURN_IF_ERROR(
      ParseTail(tail_value, &header, &body).WithPrefix(Where(table, index_key)));
  return header.total_ids;
}

Status AppendIds(Store* store, std::string_view table, std::string_view index_key,
                 std::span<const EntryId> ids, uint64_t* bytes_written, bool* created) {
  if (created != nullptr) *created = false;
  if (ids.empty()) return Status::Ok();
  if (index_key.empty() || index_key.size() > kMaxIndexKeySize) {
    return Status::InvalidArgument(Where(table, index_key) + "index key length out of range");
  }
  for (size_t i = 1; i < ids.size(); ++i) {
    if (ids[i - 1] >= ids[i]) {
      return Status::InvalidArgument(Where(table, index_key) + "IDs to append not ascending");
    }
  }
  if (ids[0] == 0) return Status::InvalidArgument(Where(table, index_key) + "ID 0");

  std::string tail_key = StoredKey(index_key, kTailChunk);
  std::string value;
  DIRLOAD_ASSIGN_OR_RETURN(bool found, store->Get(table, tail_key, &value));
  TailHeader header;
  std::vector<EntryId> tail;
  size_t tail_bytes = 0;
  if (found) {
    std::string_view body;
    DIRLOAD_RETURN_IF_ERROR(ParseTail(value, &header, &body).WithPrefix(Where(table, index_key)));
    DIRLOAD_RETURN_IF_ERROR(DecodeChunkBody(body, 0, &tail).WithPrefix(Where(table, index_key)));
    tail_bytes = body.size();
    if (ids[0] <= tail.back()) {
      return Status::InvalidArgument(Where(table, index_key) + "ID " + std::to_string(ids[0]) +
                                     " not after the list's last ID " +
                                     std::to_string(tail.back()));
    }
  }

  uint64_t written = 0;
  std::string chunk_key;
  for (EntryId id : ids) {
    size_t size = EncodedSize(tail.empty() ? 0 : tail.back(), id);
    if (!tail.empty() && tail_bytes + size > kChunkBodyBytes) {
      // The tail is full: it becomes full chunk m and a new tail starts.
      value.clear();
      EncodeChunkBody(tail, &value);
      chunk_key.clear();
      AppendStoredKey(index_key, header.full_chunks, &chunk_key);
      DIRLOAD_RETURN_IF_ERROR(store->Put(table, chunk_key, value));
      written += chunk_key.size() + value.size();
      ++header.full_chunks;
      tail.clear();
      tail_bytes = 0;
      size = EncodedSize(0, id);
    }
    tail.push_back(id);
    tail_bytes += size;
  }
  header.total_ids += ids.size();
  value.clear();
  EncodeTail(header, tail, &value);
  DIRLOAD_RETURN_IF_ERROR(store->Put(table, tail_key, value));
  written += tail_key.size() + value.size();
  if (bytes_written != nullptr) *bytes_written += written;
  if (created != nullptr) *created = !found;
  return Status::Ok();
}

Status ReplaceIdList(Store* store, std::string_view table, std::string_view index_key,
                     std::span<const EntryId> ids) {
  std::string tail;
  DIRLOAD_ASSIGN_OR_RETURN(bool has, store->Get(table, StoredKey(index_key, kTailChunk), &tail));
  if (has) {
    TailHeader header;
    std::string_view body;
    DIRLOAD_RETURN_IF_ERROR(ParseTail(tail, &header, &body));
    for (uint32_t chunk = 0; chunk < header.full_chunks; ++chunk) {
      DIRLOAD_RETURN_IF_ERROR(store->Delete(table, StoredKey(index_key, chunk)));
    }
    DIRLOAD_RETURN_IF_ERROR(store->Delete(table, StoredKey(index_key, kTailChunk)));
  }
  if (ids.empty()) return Status::Ok();
  return AppendIds(store, table, index_key, ids);
}

IdlAppender::IdlAppender(Store* store, std::string table)
    : output_([store](std::string_view t, std::string_view k, std::string_view v) {
        return store->Append(t, k, v);
      }),
      table_(std::move(table)) {}

IdlAppender::IdlAppender(Output output, std::string table)
    : output_(std::move(output)), table_(std::move(table)) {}

Status IdlAppender::StartKey(std::string_view index_key) {
  if (index_key.empty() || index_key.size() > kMaxIndexKeySize) {
    return Status::InvalidArgument(Where(table_, index_key) + "index key length out of range");
  }
  if (have_key_) {
    DIRLOAD_RETURN_IF_ERROR(WriteTail());
    if (index_key <= std::string_view(key_)) {
      return Status::InvalidArgument(Where(table_, index_key) + "index keys not ascending");
    }
  }
  key_.assign(index_key);
  have_key_ = true;
  chunk_.clear();
  chunk_bytes_ = 0;
  full_chunks_ = 0;
  key_ids_ = 0;
  last_id_ = 0;
  ++keys_;
  return Status::Ok();
}

Status IdlAppender::Emit(uint32_t chunk) {
  scratch_key_.clear();
  AppendStoredKey(key_, chunk, &scratch_key_);
  DIRLOAD_RETURN_IF_ERROR(output_(table_, scratch_key_, scratch_value_));
  bytes_ += scratch_key_.size() + scratch_value_.size();
  return Status::Ok();
}

Status IdlAppender::FlushFullChunk() {
  scratch_value_.clear();
  EncodeChunkBody(chunk_, &scratch_value_);
  DIRLOAD_RETURN_IF_ERROR(Emit(full_chunks_));
  ++full_chunks_;
  chunk_.clear();
  chunk_bytes_ = 0;
  return Status::Ok();
}

Status IdlAppender::WriteTail() {
  if (chunk_.empty()) return Status::Ok();
  scratch_value_.clear();
  EncodeTail(TailHeader{key_ids_, full_chunks_}, chunk_, &scratch_value_);
  DIRLOAD_RETURN_IF_ERROR(Emit(kTailChunk));
  chunk_.clear();
  chunk_bytes_ = 0;
  return Status::Ok();
}

Status IdlAppender::Add(std::string_view index_key, EntryId id) {
  return AddMany(index_key, std::span<const EntryId>(&id, 1));
}

Status IdlAppender::AddMany(std::string_view index_key, std::span<const EntryId> ids) {
  if (!have_key_ || index_key != std::string_view(key_)) {
    DIRLOAD_RETURN_IF_ERROR(StartKey(index_key));
  }
  for (EntryId id : ids) {
    if (id <= last_id_) {
      return Status::InvalidArgument(Where(table_, index_key) + "IDs not ascending");
    }
    last_id_ = id;
    size_t size = EncodedSize(chunk_.empty() ? 0 : chunk_.back(), id);
    if (!chunk_.empty() && chunk_bytes_ + size > kChunkBodyBytes) {
      DIRLOAD_RETURN_IF_ERROR(FlushFullChunk());
      size = EncodedSize(0, id);
    }
    chunk_.push_back(id);
    chunk_bytes_ += size;
    ++key_ids_;
    ++ids_;
  }
  return Status::Ok();
}

Status IdlAppender::AddWhole(std::string_view index_key, std::string_view body, uint64_t count) {
  if (have_key_ && index_key == std::string_view(key_)) {
    return Status::InvalidArgument(Where(table_, index_key) + "a whole list added to a key begun");
  }
  if (body.size() > kChunkBodyBytes) {
    scratch_ids_.clear();
    DIRLOAD_RETURN_IF_ERROR(
        DecodeChunkBody(body, 0, &scratch_ids_).WithPrefix(Where(table_, index_key)));
    DIRLOAD_RETURN_IF_ERROR(AddMany(index_key, scratch_ids_));
  } else {
    // Greedy chunking keeps a body this short whole: the list is its tail.
    DIRLOAD_RETURN_IF_ERROR(StartKey(index_key));
    scratch_value_.clear();
    AppendTailHeader(TailHeader{count, 0}, &scratch_value_);
    scratch_value_.append(body);
    DIRLOAD_RETURN_IF_ERROR(Emit(kTailChunk));
    key_ids_ = count;
    ids_ += count;
  }
  // An ID added to the key after its whole list would not be in order.
  last_id_ = std::numeric_limits<EntryId>::max();
  return Status::Ok();
}

Status IdlAppender::Finish() {
  DIRLOAD_RETURN_IF_ERROR(WriteTail());
  have_key_ = false;
  return Status::Ok();
}

Status ForEachIdList(Store* store, std::string_view table,
                     const std::function<bool(std::string_view, const IdList&)>& fn) {
  std::unique_ptr<Cursor> cursor = store->NewCursor(table);
  cursor->SeekToFirst();
  std::string key, current;
  uint32_t chunk = 0;
  uint32_t expect_chunk = 0;
  bool open = false;
  std::vector<EntryId> ids;
  for (; cursor->valid(); cursor->Next()) {
    DIRLOAD_RETURN_IF_ERROR(
        ParseStoredKey(cursor->key(), &key, &chunk).WithPrefix(std::string(table) + ": "));
    if (!open) {
      current = key;
      open = true;
      expect_chunk = 0;
      ids.clear();
    } else if (key != current) {
      return Status::Corruption(std::string(table) + ": ID list without a tail");
    }
    std::string_view body = cursor->value();
    TailHeader header;
    if (chunk == kTailChunk) {
      DIRLOAD_RETURN_IF_ERROR(
          ParseTail(cursor->value(), &header, &body).WithPrefix(std::string(table) + ": "));
      if (header.full_chunks != expect_chunk) {
        return Status::Corruption(std::string(table) + ": ID list chunk count mismatch");
      }
    } else if (chunk != expect_chunk) {
      return Status::Corruption(std::string(table) + ": ID list chunks out of sequence");
    }
    DIRLOAD_RETURN_IF_ERROR(DecodeChunkBody(body, ids.empty() ? 0 : ids.back(), &ids)
                                .WithPrefix(std::string(table) + ": "));
    if (chunk == kTailChunk) {
      if (ids.size() != header.total_ids) {
        return Status::Corruption(std::string(table) + ": ID list length mismatch");
      }
      IdList list(std::move(ids));
      ids = std::vector<EntryId>();
      open = false;
      if (!fn(current, list)) return Status::Ok();
    } else {
      ++expect_chunk;
    }
  }
  DIRLOAD_RETURN_IF_ERROR(cursor->status());
  if (open) return Status::Corruption(std::string(table) + ": ID list without a tail");
  return Status::Ok();
}

}  // namespace dirload
