// Embedding cache (spec 20): the same text under the same signature is
// embedded once. Keys are (SHA-256 of the text, signature), so a cache never
// mixes vector spaces and never holds the text itself.
//
// EmbeddingCache is the seam: LruEmbeddingCache is the in-process layer; a
// storage-backed layer (persistent across runs) will implement the same
// interface and sit behind it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

#include "embed/embedder.h"

namespace mnemo::embed {

// "<sha256 hex of text>:<signature>".
std::string EmbeddingCacheKey(std::string_view text, std::string_view signature);

// Thread-safe.
class EmbeddingCache {
 public:
  virtual ~EmbeddingCache() = default;
  virtual std::optional<Vector> Get(std::string_view key) = 0;
  virtual void Put(std::string_view key, std::span<const float> vector) = 0;
};

// Least-recently-used eviction within a byte budget (keys, vectors and
// bookkeeping counted). An entry larger than the whole budget is not kept.
class LruEmbeddingCache final : public EmbeddingCache {
 public:
  static constexpr size_t kDefaultBudgetBytes = size_t{64} << 20;

  explicit LruEmbeddingCache(size_t budget_bytes = kDefaultBudgetBytes);

  std::optional<Vector> Get(std::string_view key) override;
  void Put(std::string_view key, std::span<const float> vector) override;

  struct Stats {
    uint64_t hits = 0;
    uint64_t misses = 0;
    size_t entries = 0;
    size_t bytes = 0;
  };
  Stats stats() const;

 private:
  struct Entry {
    std::string key;
    Vector vector;
  };
  static size_t Cost(const Entry& entry);
  void EvictLocked();

  const size_t budget_bytes_;
  mutable std::mutex mu_;
  std::list<Entry> lru_;  // most recently used first
  std::unordered_map<std::string_view, std::list<Entry>::iterator> index_;  // views into lru_
  size_t bytes_ = 0;
  uint64_t hits_ = 0;
  uint64_t misses_ = 0;
};

// Decorates an embedder with a cache: each Embed call looks every text up,
// sends only the misses (each distinct text once) to the wrapped embedder,
// and stores what comes back. Zero vectors (nothing to embed) are not
// cached. A cached vector of the wrong length is ignored. Thread-safe when
// the wrapped embedder and the cache are; two threads missing the same text
// at once may both embed it.
class CachingEmbedder final : public Embedder {
 public:
  CachingEmbedder(std::unique_ptr<Embedder> inner, std::shared_ptr<EmbeddingCache> cache);

  const std::string& signature() const override { return inner_->signature(); }
  int dimensions() const override { return inner_->dimensions(); }
  Result<std::vector<Vector>> Embed(std::span<const std::string> texts) override;

 private:
  std::unique_ptr<Embedder> inner_;
  std::shared_ptr<EmbeddingCache> cache_;
};

}  // namespace mnemo::embed
