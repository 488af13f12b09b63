#include "text/summary.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "base/strings.h"
#include "text/phatic.h"
#include "text/pipeline/stopwords.h"
#include "text/pipeline/tokenizer.h"
#include "text/sentences.h"

namespace mnemo::text {
namespace {

constexpr std::string_view kEllipsis = "\xE2\x80\xA6";  // …

// A unit-length vector of term weights, sorted by term id.
using SparseVector = std::vector<std::pair<size_t, double>>;

// Term ids in first-occurrence order, so that every floating-point sum below
// runs in the same order for the same input.
class Vocabulary {
 public:
  size_t Id(std::string_view term) {
    return ids_.try_emplace(std::string(term), ids_.size()).first->second;
  }
  size_t size() const { return ids_.size(); }

 private:
  std::unordered_map<std::string, size_t> ids_;
};

SparseVector TermVector(std::string_view sentence, Vocabulary& vocabulary) {
  std::unordered_map<size_t, double> counts;
  Tokenize(sentence, [&](const TokenView& token) {
    if (token.colocated || IsStopWord(token.text)) return;
    counts[vocabulary.Id(token.text)] += 1;
  });
  SparseVector v(counts.begin(), counts.end());
  std::sort(v.begin(), v.end());
  double norm = 0;
  for (const auto& [id, weight] : v) norm += weight * weight;
  norm = std::sqrt(norm);
  for (auto& [id, weight] : v) weight /= norm;
  return v;
}

bool IsAsciiWordByte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// `s` (longer than `max_bytes`) cut to at most `max_bytes` bytes, "…"
// included when it fits: at a code point boundary, and before a word that
// would be cut in half when an earlier space allows it ("The production…",
// not "The production de…"; Chinese has no spaces and is cut anywhere).
std::string CutToFit(std::string_view s, size_t max_bytes) {
  const bool with_ellipsis = max_bytes > kEllipsis.size();
  size_t cut =
      mnemo::internal::Utf8CutBytes(s, with_ellipsis ? max_bytes - kEllipsis.size() : max_bytes);
  if (cut > 0 && IsAsciiWordByte(s[cut - 1]) && IsAsciiWordByte(s[cut])) {
    const size_t space = s.substr(0, cut).find_last_of(' ');
    if (space != std::string_view::npos && space > 0) cut = space;
  }
  std::string out(s.substr(0, cut));
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (with_ellipsis) out += kEllipsis;
  return out;
}

}  // namespace

std::string ExtractiveSummary(const std::vector<std::string>& texts, size_t max_bytes,
                              const SentenceOptions& options) {
  if (max_bytes == 0) return "";
  std::vector<std::string> sentences;
  std::unordered_set<std::string> seen;
  std::vector<std::string> phatic;  // used only when nothing else is said
  for (const std::string& text : texts) {
    for (std::string& sentence : SplitSentences(text, options)) {
      if (!seen.insert(sentence).second) continue;
      (IsPhaticSentence(sentence) ? phatic : sentences).push_back(std::move(sentence));
    }
  }
  if (sentences.empty()) sentences = std::move(phatic);
  if (sentences.empty()) return "";

  Vocabulary vocabulary;
  std::vector<SparseVector> vectors;
  vectors.reserve(sentences.size());
  for (const std::string& sentence : sentences) {
    vectors.push_back(TermVector(sentence, vocabulary));
  }
  // With C the sum of all unit vectors, v·(C - v) is the sum of v's cosines
  // to the other sentences, in O(terms) per sentence instead of O(n²).
  std::vector<double> centroid(vocabulary.size(), 0.0);
  for (const SparseVector& v : vectors) {
    for (const auto& [id, weight] : v) centroid[id] += weight;
  }
  std::vector<double> scores(sentences.size(), 0.0);
  for (size_t i = 0; i < vectors.size(); ++i) {
    for (const auto& [id, weight] : vectors[i]) scores[i] += weight * (centroid[id] - weight);
  }

  std::vector<size_t> order(sentences.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return scores[a] > scores[b]; });

  std::vector<size_t> chosen;
  size_t used = 0;
  for (size_t i : order) {
    const size_t cost = sentences[i].size() + (chosen.empty() ? 0 : 1);
    if (cost > max_bytes - used) continue;
    used += cost;
    chosen.push_back(i);
  }
  if (chosen.empty()) return CutToFit(sentences[order.front()], max_bytes);

  std::sort(chosen.begin(), chosen.end());
  std::string summary;
  summary.reserve(used);
  for (size_t i : chosen) {
    if (!summary.empty()) summary += ' ';
    summary += sentences[i];
  }
  return summary;
}

}  // namespace mnemo::text
