// WordEmbedder: the default embedder when the word-vector file is present
// (spec 20). No model server, no network: a text's vector is the SIF-weighted
// mean of its English words' vectors (word_vectors.h) with the common
// component removed (Arora et al. 2017, "A simple but tough-to-beat baseline
// for sentence embeddings"), L2-normalised.
//
// English words are the maximal runs of ASCII letters, lower-cased, that are
// in the vocabulary; everything else (Chinese, Arabic, numbers, identifiers'
// punctuation) is left to the keyword side. A text without such a word gets
// the zero vector (no vector is stored for it), as the Embedder contract says.
//
// Signature "words-v<kVersion>-<first 16 hex digits of the file's checksum>":
// another file, or any change to the algorithm, is another vector space.
//
// Thread-safety: stateless past construction; Embed may run on many threads.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "embed/embedder.h"
#include "embed/word_vectors.h"

namespace mnemo::embed {

// Calls `sink` with each English word of `text` (ASCII letter runs,
// lower-cased), in order. The one definition of "English word" shared by the
// embedder and soft term matching.
void ForEachEnglishWord(std::string_view text, const std::function<void(std::string_view)>& sink);

class WordEmbedder final : public Embedder {
 public:
  static constexpr int kVersion = 1;

  explicit WordEmbedder(std::shared_ptr<const WordVectors> vectors);

  const std::string& signature() const override { return signature_; }
  int dimensions() const override { return static_cast<int>(vectors_->dimensions()); }
  Result<std::vector<Vector>> Embed(std::span<const std::string> texts) override;

  // The vector of one text into `out` (dimensions() floats); false (and all
  // zeros) when the text has no English word in the vocabulary.
  bool EmbedInto(std::string_view text, std::span<float> out) const;

  const std::shared_ptr<const WordVectors>& vectors() const { return vectors_; }

 private:
  std::shared_ptr<const WordVectors> vectors_;
  std::string signature_;
};

}  // namespace mnemo::embed
