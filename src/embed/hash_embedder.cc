#include "embed/hash_embedder.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include "text/pipeline/stopwords.h"
#include "text/pipeline/tokenizer.h"
#include "text/utf8.h"

namespace mnemo::embed {
namespace {

// Feature classes and their weights, chosen by vector-only recall@10 on the
// benchmark dataset (../bench/datagen.py --n 10000 --queries 1000 --seed 7;
// 384 dimensions; exact top-10 by cosine; all / keyword / paraphrase /
// phrase / zh queries):
//   tokens only                                  0.549  .588 .410 .739 .505
//   token 1, bigram 0.5, trigram 0.25            0.616  .687 .452 .861 .529
//     + stop words at 0.1, no stop-word n-grams  0.704  .731 .847 .856 .508
//   token 1, bigram 0.5, trigram 0.5 (+ stop)    0.790  .845 .910 .909 .595
//   token 1, bigram 0.5, trigram 1   (+ stop)    0.818  .851 .914 .913 .672  <- chosen
//   token 1, bigram 1,   trigram 1   (+ stop)    0.799  .833 .908 .920 .633
//   token 1, bigram 0.25, trigram 1  (+ stop)    0.822  .851 .924 .906 .684
//   token 1, bigram 0.5, trigram 1.5 (+ stop)    0.816  .836 .929 .906 .678
//   stop-word weight 0 / 0.1 / 0.25              0.814 / 0.818 / 0.819
// Trigrams matter most: they spread a word over several components (fewer
// harmful collisions in 384 dimensions) and match inflections and partial
// words. Bigrams add word order (phrase queries). Stop words carry almost no
// signal but are frequent, so at full weight they make unrelated texts look
// alike; they keep a small weight so a text of stop words only still has a
// vector. Differences below ~0.01 are noise (1000 queries).
enum FeatureClass { kToken = 0, kStopWord = 1, kBigram = 2, kTrigram = 3, kClassCount = 4 };
constexpr std::array<double, kClassCount> kClassWeight = {1.0, 0.1, 0.5, 1.0};
// Distinct per class so that the token "ab" and the trigram "ab" hash apart.
constexpr std::array<uint64_t, kClassCount> kClassSalt = {
    0x9E3779B97F4A7C15ULL, 0xD6E8FEB86659FD93ULL, 0xC2B2AE3D27D4EB4FULL, 0x165667B19E3779F9ULL};

constexpr uint64_t kFnvOffset = 14695981039346656037ULL;
constexpr uint64_t kFnvPrime = 1099511628211ULL;
// Bytes that never occur in UTF-8, so no token can forge them.
constexpr unsigned char kBoundary = 0xFE;       // token start/end in trigrams
constexpr unsigned char kPairSeparator = 0xFF;  // between the tokens of a bigram

uint64_t FnvByte(uint64_t h, unsigned char c) { return (h ^ c) * kFnvPrime; }

uint64_t FnvBytes(uint64_t h, std::string_view s) {
  for (unsigned char c : s) h = FnvByte(h, c);
  return h;
}

// MurmurHash3's fmix64: FNV-1a's low bits are weak, and index = h % dim
// reads exactly those.
uint64_t Finish(uint64_t h, FeatureClass c) {
  h ^= kClassSalt[c];
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDULL;
  h ^= h >> 33;
  h *= 0xC4CEB9FE1A85EC53ULL;
  h ^= h >> 33;
  return h;
}

struct Scratch {
  std::array<std::vector<uint64_t>, kClassCount> features;
  std::vector<uint32_t> starts;  // code point starts of one token, then its end
  std::vector<double> sums;
};

// Character 3-grams of `token` over code points, padded with one boundary
// marker on each side: n code points give n trigrams ("a" -> ^a$).
void AddTrigrams(std::string_view token, Scratch& s) {
  s.starts.clear();
  for (size_t pos = 0; pos < token.size();) {
    s.starts.push_back(static_cast<uint32_t>(pos));
    int32_t cp = 0;
    pos += static_cast<size_t>(text::DecodeUtf8(token, pos, &cp));
  }
  const size_t n = s.starts.size();
  s.starts.push_back(static_cast<uint32_t>(token.size()));
  auto& out = s.features[kTrigram];
  for (size_t i = 0; i < n; ++i) {
    // Padded positions i, i+1, i+2; padded position p > 0 is code point p-1.
    const size_t first = i == 0 ? 0 : i - 1;
    const size_t last = std::min(i + 2, n);  // one past the last code point
    uint64_t h = kFnvOffset;
    if (i == 0) h = FnvByte(h, kBoundary);
    h = FnvBytes(h, token.substr(s.starts[first], s.starts[last] - s.starts[first]));
    if (i + 1 == n) h = FnvByte(h, kBoundary);
    out.push_back(Finish(h, kTrigram));
  }
}

}  // namespace

HashEmbedder::HashEmbedder(int dimensions)
    : dimensions_(std::clamp(dimensions, 1, kMaxDimensions)),
      signature_("hash-v" + std::to_string(kVersion) + "-" + std::to_string(dimensions_)) {}

bool HashEmbedder::EmbedInto(std::string_view text, std::span<float> out) const {
  thread_local Scratch s;
  for (auto& f : s.features) f.clear();
  // Raw FNV state of the previous non-colocated token, when it was no stop word.
  std::optional<uint64_t> previous;
  text::Tokenize(text, [&](const text::TokenView& token) {
    const uint64_t raw = FnvBytes(kFnvOffset, token.text);
    const bool stop_word = text::IsStopWord(token.text);
    if (stop_word) {
      s.features[kStopWord].push_back(Finish(raw, kStopWord));
    } else {
      s.features[kToken].push_back(Finish(raw, kToken));
      AddTrigrams(token.text, s);
    }
    if (!token.colocated) {
      if (previous && !stop_word) {
        const uint64_t pair = FnvBytes(FnvByte(*previous, kPairSeparator), token.text);
        s.features[kBigram].push_back(Finish(pair, kBigram));
      }
      previous = stop_word ? std::nullopt : std::optional<uint64_t>(raw);
    }
  });

  const auto dim = static_cast<uint64_t>(dimensions_);
  s.sums.assign(static_cast<size_t>(dimensions_), 0.0);
  for (int c = 0; c < kClassCount; ++c) {
    auto& features = s.features[c];
    // Sorting groups equal features (for tf) and fixes the summation order.
    std::sort(features.begin(), features.end());
    for (size_t i = 0; i < features.size();) {
      size_t j = i + 1;
      while (j < features.size() && features[j] == features[i]) ++j;
      const uint64_t h = features[i];
      const size_t tf = j - i;  // 1 for most features: skip the logarithm
      const double weight =
          tf == 1 ? kClassWeight[c] : kClassWeight[c] * (1.0 + std::log(static_cast<double>(tf)));
      s.sums[h % dim] += (h >> 63) != 0 ? -weight : weight;
      i = j;
    }
  }
  double norm2 = 0;
  for (double v : s.sums) norm2 += v * v;
  const double scale = norm2 > 0 ? 1.0 / std::sqrt(norm2) : 0.0;
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = i < s.sums.size() ? static_cast<float>(s.sums[i] * scale) : 0.0f;
  }
  return norm2 > 0;
}

Result<std::vector<Vector>> HashEmbedder::Embed(std::span<const std::string> texts) {
  std::vector<Vector> out(texts.size(), Vector(static_cast<size_t>(dimensions_)));
  for (size_t i = 0; i < texts.size(); ++i) EmbedInto(texts[i], out[i]);
  return out;
}

}  // namespace mnemo::embed
