// HashEmbedder: the default embedder (spec 20). No model, no network.
//
// It is LEXICAL, NOT SEMANTIC: two texts are close when they share words,
// word pairs and spelling fragments, not when they mean the same thing
// ("car" and "automobile" are unrelated to it). It makes the vector side of
// hybrid search useful for near-duplicates, inflections, typos and partial
// words; for meaning, configure an `openai` embedder.
//
// Algorithm (signature "hash-v<kVersion>-<dim>"; any change to it, to the weights or
// to the tokenizer's or stop-word list's output must bump kVersion, because
// stored vectors of the old version stop being comparable):
//  - features, from text::Tokenize (the one text pipeline), in classes:
//      token     every token that is not a stop word, colocated
//                ones included                                 weight 1.0
//      stop      a stop-word token (text::IsStopWord)          weight 0.1
//      bigram    each pair of adjacent non-colocated tokens,
//                neither a stop word                           weight 0.5
//      trigram   each character 3-gram of every non-stop-word
//                token, over code points, with start/end
//                markers ("run" -> ^ru, run, un$; "a" -> ^a$)  weight 1.0
//  - each distinct feature f with count tf adds
//      sign(f) * class_weight * (1 + ln tf)
//    to component hash(f) mod dim, where hash = FNV-1a 64 over the feature's
//    bytes (separators are bytes UTF-8 never uses), mixed with a per-class
//    salt by MurmurHash3's fmix64, and sign = the hash's top bit;
//  - the sum is L2-normalised. A text without tokens gives the zero vector
//    (a text of stop words only does not: they keep their small weight).
// Deterministic across runs and platforms: no std::hash, no locale, a fixed
// summation order. The weights were chosen by measurement; the table is in
// hash_embedder.cc.
//
// Speed, one thread, benchmark texts (207 bytes on average): ~48k texts/s on
// an idle core, ~33k/s with the second core busy; the tokenizer is about half
// of it. Stateless, so Embed scales with threads.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "embed/embedder.h"

namespace mnemo::embed {

class HashEmbedder final : public Embedder {
 public:
  static constexpr int kVersion = 2;  // 2: Porter2 stems (text::kTextVersion 2)
  static constexpr int kDefaultDimensions = 384;

  // `dimensions` is clamped to [1, kMaxDimensions] (core's MakeEmbedder rejects
  // values outside it instead).
  explicit HashEmbedder(int dimensions = kDefaultDimensions);

  const std::string& signature() const override { return signature_; }
  int dimensions() const override { return dimensions_; }
  Result<std::vector<Vector>> Embed(std::span<const std::string> texts) override;

  // The vector of one text into `out`, which should hold dimensions()
  // floats (all are overwritten; any beyond dimensions() become 0). False
  // when the text has no tokens: `out` is then all zeros. No allocation
  // after a thread's first calls.
  bool EmbedInto(std::string_view text, std::span<float> out) const;

 private:
  int dimensions_;
  std::string signature_;
};

}  // namespace mnemo::embed
