#include "storage/rules/bm25.h"

#include <algorithm>
#include <cmath>

namespace mnemo::storage::internal {

double Bm25Idf(int64_t documents, int64_t documents_with_term) {
  if (documents <= 0) return 0;
  const double n = static_cast<double>(documents);
  const double nt = static_cast<double>(std::clamp<int64_t>(documents_with_term, 1, documents));
  return std::log1p((n - nt + 0.5) / (nt + 0.5));
}

double Bm25IdfMass(const Bm25Corpus& corpus, std::span<const Bm25Term> terms) {
  double mass = 0;
  for (const Bm25Term& t : terms) mass += Bm25Idf(corpus.documents, t.documents_with_term);
  return mass;
}

double NormalisedBm25(const Bm25Corpus& corpus, int64_t document_length,
                      std::span<const Bm25Term> terms) {
  if (corpus.documents <= 0 || terms.empty()) return 0;
  const double avgdl =
      static_cast<double>(corpus.total_tokens) / static_cast<double>(corpus.documents);
  // An empty collection of tokens would divide by zero; every length is then
  // "average".
  const double length_ratio = avgdl > 0 ? static_cast<double>(document_length) / avgdl : 1.0;
  const double norm = kBm25K1 * (1 - kBm25B + kBm25B * length_ratio);
  double score = 0;
  double mass = 0;
  for (const Bm25Term& t : terms) {
    const double idf = Bm25Idf(corpus.documents, t.documents_with_term);
    mass += idf;
    if (t.frequency <= 0) continue;
    const double tf = static_cast<double>(t.frequency);
    score += idf * tf * (kBm25K1 + 1) / (tf + norm);
  }
  if (score <= 0 || mass <= 0) return 0;
  return std::min(1.0, score / mass);
}

}  // namespace mnemo::storage::internal
