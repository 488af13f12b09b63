// Embedder: turns texts into vectors for the vector side of hybrid search
// (spec 20, "Embedders"). Implementations: HashEmbedder (hash_embedder.h,
// the default, lexical), OpenAiEmbedder (openai_embedder.h, any
// OpenAI-compatible /v1/embeddings server); CachingEmbedder
// (embedding_cache.h) decorates either.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/net/http_client.h"
#include "mnemo/status.h"

namespace mnemo::embed {

using Vector = std::vector<float>;

// Thread-safe: Embed may be called from many threads at once.
class Embedder {
 public:
  virtual ~Embedder() = default;

  // Names the vector space: equal signatures mean comparable vectors
  // ("hash-v2-384", "openai:nomic-embed-text:768"). Every stored vector
  // carries it; changing an algorithm changes its signature.
  virtual const std::string& signature() const = 0;
  virtual int dimensions() const = 0;

  // One vector per text, in order, each of dimensions() floats and
  // L2-normalised (|v| = 1), except that a text with nothing to embed (empty,
  // or no tokens for the hash embedder) gets the all-zero vector: callers
  // store no vector for it. All or nothing: on error no vector is returned.
  // kUnavailable when a remote embedder cannot answer (the engine degrades
  // to keyword-only); never throws.
  virtual Result<std::vector<Vector>> Embed(std::span<const std::string> texts) = 0;
};

inline constexpr int kMaxDimensions = 16384;

// True for the all-zero vector Embed returns for a text with nothing to embed.
inline bool IsZeroVector(std::span<const float> v) {
  for (float x : v) {
    if (x != 0) return false;
  }
  return true;
}

// "external:<dim>": the space of vectors that callers bring themselves.
std::string ExternalSignature(int dimensions);
// True for the signatures ExternalSignature makes.
bool IsExternalSignature(std::string_view signature);

// Scales `v` to unit length and returns true; leaves an all-zero vector as
// it is and returns false. Computes the norm in double.
bool NormalizeL2(std::span<float> v);

// Dot product in double; the cosine for normalised vectors.
double Dot(std::span<const float> a, std::span<const float> b);

}  // namespace mnemo::embed
