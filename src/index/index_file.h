// Index files: a saved VectorIndex beside the database, named
// <dir>/<signature, sanitised>.<kind>.idx. Format (docs/storage.md, "Vector
// index files"), little-endian:
//
//   0    8  magic "MNEMOIDX"
//   8    4  u32 format version (kIndexFormatVersion)
//   12   4  u32 kind (1 flat, 2 hnsw)
//   16   4  u32 dimensions
//   20   4  u32 checksum algorithm (1 = XXH64, seed 0)
//   24   8  u64 count (live vectors)
//   32   8  u64 storage watermark (the storage change counter it reflects)
//   40   8  u64 payload length
//   48   4  u32 signature length n (<= 1024)
//   52   4  u32 store id length m (<= 256)
//   56   n  signature
//   56+n m  store id (EntryStore::store_id of the store it was built from)
//   56+n+m 8 u64 checksum = XXH64(payload bytes, then header bytes [0, 56+n+m))
//   64+n+m   payload (FlatIndex / HnswIndex::WritePayload)
//
// Version 4 pads an hnsw payload so that its level-0 block starts at a
// multiple of 64 KiB in the file, where it can be mapped instead of read
// (HnswIndex::WritePayload); a version 3 file is read as before.
// Version 3 added a u32 vector encoding at the start of an hnsw payload
// (HnswIndex::WritePayload); a version 2 file is read as float32 (its hnsw
// payload lacks that field, its flat payload is the same).
// Version 1 (until schema v11) had no store id: n at 48, the signature at
// 52, the checksum after it. Such a file is refused (LoadIndexFile) and the
// index rebuilt from storage once.
//
// Files are written atomically (temp file in the same folder, fsync,
// rename, fsync of the folder), so a reader sees the old file or the new
// one, never a torn one.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "index/index_factory.h"
#include "index/vector_index.h"

namespace mnemo::index {

inline constexpr uint32_t kIndexFormatVersion = 4;
// The oldest version LoadIndexFile still reads.
inline constexpr uint32_t kOldestIndexFormatVersion = 2;

struct IndexFileHeader {
  IndexKind kind = IndexKind::kFlat;
  uint32_t dimensions = 0;
  std::string signature;  // the real one (the file name holds a sanitised form)
  std::string store_id;   // of the store the index was built from
  uint64_t count = 0;
  uint64_t watermark = 0;
  uint64_t payload_length = 0;
  uint64_t checksum = 0;
  uint32_t version = kIndexFormatVersion;
};

// <dir>/<name>.<kind>.idx where <name> is `signature` with every byte outside
// [A-Za-z0-9_-] (and a leading '.') replaced by '_', cut to 100 bytes, plus
// "-" and 16 hex digits of its hash when anything was replaced or cut, so
// "openai:x:768" and "openai_x_768" do not share a file.
std::filesystem::path IndexFilePath(const std::filesystem::path& dir, std::string_view signature,
                                    IndexKind kind);

// Saves `index` to `path` atomically. `store_id` is EntryStore::store_id() of
// the store the index reflects; `watermark` is the storage change counter
// it reflects: read it before applying the last change the index holds (a
// lower value is safe, replaying changes is idempotent; a higher one would
// skip changes). Concurrent searches go on meanwhile; writes to the index
// wait for the payload to be written. kInvalidArgument for a signature
// over 1024 bytes or a store id over 256; kUnavailable when the folder is
// not writable or the disk is full (no partial file remains).
Status SaveIndexFile(const std::filesystem::path& path, const VectorIndex& index,
                     std::string_view signature, std::string_view store_id, uint64_t watermark);

// Reads and checks the header only (no checksum: it covers the payload).
// For deciding whether a file is stale (watermark) without loading it.
// Errors as LoadIndexFile.
Result<IndexFileHeader> ReadIndexFileHeader(const std::filesystem::path& path);

enum class VerifyMode {
  kNow,       // the checksum is verified while loading; the index is returned only if it matches
  kDeferred,  // loads without hashing; LoadedIndex::pending verifies later
};

struct LoadedIndex;

// Loads an index file written for `expected_signature`, the store
// `expected_store_id` and `expected_dims`. HnswIndex's ef_search and build
// threads come from `options`.
//
// Errors: kNotFound when the file does not exist; kUnavailable "index file
// <path> was built from another store …; rebuilding from storage" for
// another store id, "index file <path> has format version 1 …" for a file
// of an older format; kCorruption "index file <path> is corrupt: <what>;
// rebuilding from storage" for a wrong magic, newer format version, kind,
// signature or dimension, a truncated or overlong
// file, a checksum mismatch (kNow) or a payload that fails validation; and
// kUnavailable "cannot read index file <path>: …" for I/O errors. No byte
// sequence crashes the loader or a later search: every payload field is
// validated before use (HnswIndex::ReadPayload), whatever the checksum says.
//
// kDeferred (spec 20: at 1M entries opening must stay fast) skips only the
// checksum, which is then verified by `pending->Run()`. Until Run returns
// OK the engine must not trust the graph's answers: it answers with
// index->SearchExact (the exact scan of the loaded vectors; the "flat path")
// or builds a flat index from storage, applies changes since the watermark
// as usual, runs `pending->Run()` on a background thread, and switches to
// Search when it succeeds. When it fails the engine discards the index and
// rebuilds from storage, logging the Status.
Result<LoadedIndex> LoadIndexFile(const std::filesystem::path& path,
                                  std::string_view expected_signature,
                                  std::string_view expected_store_id, size_t expected_dims,
                                  VerifyMode mode, const IndexOptions& options = {});

// Checks the file at `path` against its own checksum without loading it:
// its header as LoadIndexFile does, then XXH64 over the payload and header.
// OK; kNotFound when there is no file; kCorruption ("index file <path> is
// corrupt: checksum mismatch; rebuilding from storage", or what is wrong
// with the header); kUnavailable for I/O errors. For memory.health.
Status VerifyIndexFile(const std::filesystem::path& path);

// A deferred checksum check of a loaded file. Run re-reads the file (after
// checking by device, inode, size and modification time that it is still the
// file that was loaded) and compares its checksum. It does not touch the
// index, so it may run on any thread while the index is searched and
// changed. OK, kCorruption ("… is corrupt: checksum mismatch …") or
// kUnavailable ("… was replaced since it was loaded").
class PendingVerification {
 public:
  // `stop`, when given and set while it runs, ends it early with
  // kUnavailable "… was not verified: stopped" (a closing engine).
  Status Run(const std::atomic<bool>* stop = nullptr) const;

 private:
  friend Result<LoadedIndex> LoadIndexFile(const std::filesystem::path&, std::string_view,
                                           std::string_view, size_t, VerifyMode,
                                           const IndexOptions&);
  std::filesystem::path path_;
  uint64_t device_ = 0, inode_ = 0, size_ = 0;
  int64_t mtime_ns_ = 0;
  std::string header_bytes_;  // [0, 56+n+m): hashed after the payload
  uint64_t payload_offset_ = 0, payload_length_ = 0, checksum_ = 0;
};

struct LoadedIndex {
  std::unique_ptr<VectorIndex> index;
  IndexFileHeader header;
  // Set for VerifyMode::kDeferred only.
  std::optional<PendingVerification> pending;
};

}  // namespace mnemo::index
