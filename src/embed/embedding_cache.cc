#include "embed/embedding_cache.h"

#include <algorithm>

#include "base/sha256.h"

namespace mnemo::embed {

std::string EmbeddingCacheKey(std::string_view text, std::string_view signature) {
  std::string key = internal::Sha256Hex(text);
  key += ':';
  key += signature;
  return key;
}

LruEmbeddingCache::LruEmbeddingCache(size_t budget_bytes) : budget_bytes_(budget_bytes) {}

size_t LruEmbeddingCache::Cost(const Entry& entry) {
  // List node and hash-map node overheads, roughly, so that a budget of
  // small vectors is not badly exceeded.
  constexpr size_t kOverhead = 96;
  return kOverhead + entry.key.size() + entry.vector.size() * sizeof(float);
}

std::optional<Vector> LruEmbeddingCache::Get(std::string_view key) {
  std::lock_guard lock(mu_);
  const auto it = index_.find(key);
  if (it == index_.end()) {
    ++misses_;
    return std::nullopt;
  }
  ++hits_;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->vector;
}

void LruEmbeddingCache::Put(std::string_view key, std::span<const float> vector) {
  Entry entry{std::string(key), Vector(vector.begin(), vector.end())};
  const size_t cost = Cost(entry);
  std::lock_guard lock(mu_);
  if (const auto it = index_.find(key); it != index_.end()) {
    const auto node = it->second;
    bytes_ -= Cost(*node);
    index_.erase(it);  // before the node: the map's key views the node's key
    lru_.erase(node);
  }
  if (cost > budget_bytes_) return;
  lru_.push_front(std::move(entry));
  index_.emplace(lru_.front().key, lru_.begin());
  bytes_ += cost;
  EvictLocked();
}

void LruEmbeddingCache::EvictLocked() {
  while (bytes_ > budget_bytes_ && !lru_.empty()) {
    const Entry& victim = lru_.back();
    bytes_ -= Cost(victim);
    index_.erase(victim.key);
    lru_.pop_back();
  }
}

LruEmbeddingCache::Stats LruEmbeddingCache::stats() const {
  std::lock_guard lock(mu_);
  return {.hits = hits_, .misses = misses_, .entries = lru_.size(), .bytes = bytes_};
}

CachingEmbedder::CachingEmbedder(std::unique_ptr<Embedder> inner,
                                 std::shared_ptr<EmbeddingCache> cache)
    : inner_(std::move(inner)), cache_(std::move(cache)) {}

Result<std::vector<Vector>> CachingEmbedder::Embed(std::span<const std::string> texts) {
  const auto dim = static_cast<size_t>(inner_->dimensions());
  std::vector<Vector> out(texts.size());
  std::vector<std::string> keys(texts.size());
  // Distinct missing texts, and for each text the miss it waits for.
  std::vector<std::string> misses;
  std::unordered_map<std::string_view, size_t> miss_of_key;
  std::vector<size_t> waits_for(texts.size(), SIZE_MAX);
  for (size_t i = 0; i < texts.size(); ++i) {
    keys[i] = EmbeddingCacheKey(texts[i], inner_->signature());
    if (auto cached = cache_->Get(keys[i]); cached && cached->size() == dim) {
      out[i] = std::move(*cached);
      continue;
    }
    const auto [it, inserted] = miss_of_key.emplace(keys[i], misses.size());
    if (inserted) misses.push_back(texts[i]);
    waits_for[i] = it->second;
  }
  if (misses.empty()) return out;

  MNEMO_ASSIGN_OR_RETURN(std::vector<Vector> fresh, inner_->Embed(misses));
  if (fresh.size() != misses.size()) {
    return Internal("embedder " + inner_->signature() + " returned " +
                    std::to_string(fresh.size()) + " vectors for " + std::to_string(misses.size()) +
                    " texts");
  }
  for (auto [key, m] : miss_of_key) {
    const Vector& v = fresh[m];
    if (v.size() == dim && std::any_of(v.begin(), v.end(), [](float x) { return x != 0; })) {
      cache_->Put(key, v);
    }
  }
  for (size_t i = 0; i < texts.size(); ++i) {
    if (waits_for[i] != SIZE_MAX) out[i] = fresh[waits_for[i]];
  }
  return out;
}

}  // namespace mnemo::embed
