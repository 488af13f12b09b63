#include "embed/soft_match.h"

#include <algorithm>
#include <unordered_set>
#include <vector>

#include "embed/word_embedder.h"
#include "text/pipeline/stemmer.h"
#include "text/pipeline/stopwords.h"

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
    uint32_t at;  // index in `all`
  };
  thread_local std::vector<std::string> all;          // every English word, for exact matches
  thread_local std::vector<std::string_view> looked;  // in `all`: no stop words
  thread_local std::vector<uint32_t> found;           // FindMany's answers
  thread_local std::vector<uint32_t> looked_at;       // index in `all` of looked[i]
  thread_local std::vector<TextWord> words;           // in the vocabulary, distinct, no stop words
  size_t count = 0;
  ForEachEnglishWord(text, [&](std::string_view w) {
    if (count == all.size()) all.emplace_back();
    all[count++].assign(w);
  });
  looked.clear();
  looked_at.clear();
  for (size_t i = 0; i < count; ++i) {
    const std::string& w = all[i];
    if (w.size() < 2 || text::IsStopWord(w)) continue;
    looked.push_back(w);
    looked_at.push_back(static_cast<uint32_t>(i));
  }
  found.resize(looked.size());
  vectors_->FindMany(looked, found);
  words.clear();
  for (size_t i = 0; i < looked.size(); ++i) {
    if (found[i] == 0) continue;
    words.push_back({found[i] - 1, looked_at[i]});
  }
  // Distinct ranks, first occurrence kept (the word shown in `matches`).
  std::stable_sort(words.begin(), words.end(),
                   [](const TextWord& a, const TextWord& b) { return a.rank < b.rank; });
  words.erase(std::unique(words.begin(), words.end(),
                          [](const TextWord& a, const TextWord& b) { return a.rank == b.rank; }),
              words.end());
  for (const TextWord& t : words) vectors_->Prefetch(t.rank);
  // Whether a word of the text has `stem` as its stem. Porter2 keeps a
  // word's first two letters (but for a few irregular forms: dying -> die),
  // so only words that start like the stem are stemmed; stemming every word
  // of every candidate was most of the cost.
  auto said_exactly = [&](const std::string& stem) {
    const std::string_view head = std::string_view(stem).substr(0, 2);
    for (size_t i = 0; i < count; ++i) {
      const std::string& w = all[i];
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
      // Equal similarity: the word said first (the order before dedup).
      if (c > best || (best_word != nullptr && c == best && t.at < best_word->at)) {
        best = c;
        best_word = &t;
      }
    }
    if (best_word == nullptr || said_exactly(q.stem)) continue;
    sum += q.weight * (best - kSoftThreshold) / (1.0 - kSoftThreshold);
    out.matches.push_back({q.word, all[best_word->at], best});
  }
  out.score = std::clamp(sum / query.total_weight, 0.0, 1.0);
  return out;
}

}  // namespace mnemo::embed
