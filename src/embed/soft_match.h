// Soft term matching (spec 20): a query word with no exact match in a text
// draws on the text's nearest words by word-vector cosine. Late interaction
// over a candidate's own words: each query word's best match among them,
// counted above kSoftThreshold, rescaled to [0, 1] and weighted by the query
// word's importance (its SIF weight, an inverse-frequency weight from the
// vector file's frequency ranks: near 0 for "the", near 1 for rare words).
//
//   soft(text) = Σ_{q unmatched} w(q) · (c(q) - τ) / (1 - τ)  /  Σ_q w(q)
//
// over the query's English content words q (ForEachEnglishWord, stop words
// left out); "unmatched" means no word of the text has q's Porter2 stem (the
// keyword side already counts those), c(q) the best cosine between q and a
// word of the text, τ = kSoftThreshold. Only English words take part: other
// scripts keep the keyword path alone. The cost is proportional to the
// query's words times the candidate's words; nothing scans the vocabulary.
//
// Thread-safety: immutable; Score may run on many threads.
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "embed/word_vectors.h"

namespace mnemo::embed {

// Below this cosine two GloVe words are rarely related in meaning; the
// prototype of issue 43 measured 0.5 on LoCoMo dev, and it was kept, not
// tuned on the evaluation questions.
inline constexpr double kSoftThreshold = 0.5;

struct SoftMatch {
  std::string query_word;
  std::string stored_word;
  double similarity = 0;  // cosine of the two words' vectors
};

struct SoftScore {
  double score = 0;                // in [0, 1], the formula above
  std::vector<SoftMatch> matches;  // the query words that counted, query order
};

class SoftMatcher {
 public:
  explicit SoftMatcher(std::shared_ptr<const WordVectors> vectors);

  struct QueryWord {
    std::string word;
    std::string stem;
    double weight = 0;
    std::vector<float> vector;  // empty: not in the vocabulary
  };
  struct Query {
    std::vector<QueryWord> words;
    double total_weight = 0;
  };

  // The query's English content words, once per query.
  Query Prepare(std::string_view query) const;
  // The soft score of `text` for `query` (0 when nothing counts).
  SoftScore Score(const Query& query, std::string_view text) const;

  // How entries and documents rank with soft matching: their keyword score
  // (the share of the query's idf mass a text holds, in [0, 1]) plus the
  // soft score, the share held in other words, capped at 1.
  static double WithSoft(double keyword, const SoftScore& soft) {
    return std::min(1.0, keyword + soft.score);
  }

 private:
  std::shared_ptr<const WordVectors> vectors_;
};

}  // namespace mnemo::embed
