#include "embed/soft_match.h"

#include <algorithm>
#include <unordered_set>

#include "embed/word_embedder.h"
#include "text/stemmer.h"
#include "text/stopwords.h"

namespace mnemo::embed {

SoftMatcher::SoftMatcher(std::shared_ptr<const WordVectors> vectors)
    : vectors_(std::move(vectors)) {}

SoftMatcher::Query SoftMatcher::Prepare(std::string_view query) const {
  Query q;
  std::unordered_set<std::string> seen;
  ForEachEnglishWord(query, [&](std::string_view w) {
    if (w.size() < 2 || text::IsStopWord(w) || !seen.emplace(w).second) return;
    QueryWord qw;
    qw.word = std::string(w);
    qw.stem = text::Stem(w);
    if (text::IsStopWord(qw.stem)) return;
    const auto rank = vectors_->Find(w);
    // A word outside the vocabulary still weighs in the denominator (it is
    // part of what was asked) at full weight; it can only match exactly.
    qw.weight = rank ? SifWeightForRank(*rank) : 1.0;
    if (rank) {
      qw.vector.resize(vectors_->dimensions());
      vectors_->Load(*rank, qw.vector);
    }
    q.total_weight += qw.weight;
    q.words.push_back(std::move(qw));
  });
  return q;
}

SoftScore SoftMatcher::Score(const Query& query, std::string_view text) const {
  SoftScore out;
  if (query.words.empty() || !(query.total_weight > 0)) return out;
  struct TextWord {
    uint32_t rank;
    std::string word;
  };
  thread_local std::vector<TextWord> words;   // in the vocabulary, distinct, no stop words
  thread_local std::vector<std::string> all;  // every English word, for exact matches
  thread_local std::unordered_set<uint32_t> ranks;
  words.clear();
  all.clear();
  ranks.clear();
  ForEachEnglishWord(text, [&](std::string_view w) {
    all.emplace_back(w);
    if (w.size() < 2 || text::IsStopWord(w)) return;
    const auto rank = vectors_->Find(w);
    if (rank && ranks.insert(*rank).second) words.push_back({*rank, std::string(w)});
  });
  // Whether a word of the text has `stem` as its stem. Porter2 keeps a
  // word's first two letters (but for a few irregular forms: dying -> die),
  // so only words that start like the stem are stemmed; stemming every word
  // of every candidate was most of the cost.
  auto said_exactly = [&](const std::string& stem) {
    const std::string_view head = std::string_view(stem).substr(0, 2);
    for (const std::string& w : all) {
      if (std::string_view(w).substr(0, 2) == head && text::Stem(w) == stem) return true;
    }
    return false;
  };
  double sum = 0;
  for (const QueryWord& q : query.words) {
    if (q.vector.empty()) continue;
    double best = kSoftThreshold;
    const TextWord* best_word = nullptr;
    for (const TextWord& t : words) {
      const double c = vectors_->DotWith(t.rank, q.vector);
      if (c > best) {
        best = c;
        best_word = &t;
      }
    }
    if (best_word == nullptr || said_exactly(q.stem)) continue;
    sum += q.weight * (best - kSoftThreshold) / (1.0 - kSoftThreshold);
    out.matches.push_back({q.word, best_word->word, best});
  }
  out.score = std::clamp(sum / query.total_weight, 0.0, 1.0);
  return out;
}

}  // namespace mnemo::embed
