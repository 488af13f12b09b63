// The one keyword score of every backend (spec 20, "Scores"): FTS5's BM25
// (k1 = 1.2, b = 0.75, idf clamped below to 1e-6) normalised by the query's
// idf mass so that it lies in [0, 1] and means the same across queries.
//
// Normalisation: score = min(1, bm25 / Σ idf(t)) where the sum runs over ALL
// query terms, including terms that occur in no document. Such a term has a
// large idf, ln((N + 0.5) / 0.5), so a query with a typo or an unknown word
// scores low: a partial match scores its share of the query's idf mass. At
// term frequency 1 in a document of average length each present term
// contributes exactly its idf, so 1.0 means "every query term present in an
// ordinary text".
//
// Inputs are plain counts, so the SQLite rank function (fts_rank.cc) and the
// in-memory backend feed it the same numbers and get bit-identical scores.
#pragma once

#include <cstdint>
#include <span>

namespace mnemo::storage::internal {

inline constexpr double kBm25K1 = 1.2;
inline constexpr double kBm25B = 0.75;
inline constexpr double kBm25MinIdf = 1e-6;

// Statistics of the whole collection at query time.
struct Bm25Corpus {
  int64_t documents = 0;     // N
  int64_t total_tokens = 0;  // Σ document lengths; avgdl = total_tokens / N
};

// One query term as seen from one document.
struct Bm25Term {
  int64_t documents_with_term = 0;  // n_t over the collection
  int64_t frequency = 0;            // tf in this document (0: absent)
};

// ln((N - n_t + 0.5) / (n_t + 0.5)), clamped below to kBm25MinIdf.
double Bm25Idf(int64_t documents, int64_t documents_with_term);

// Σ idf(t) over `terms` (their frequencies are ignored).
double Bm25IdfMass(const Bm25Corpus& corpus, std::span<const Bm25Term> terms);

// min(1, bm25(d, q) / Σ idf) for a document of `document_length` tokens.
// Returns 0 when no term is present or the corpus is empty.
double NormalisedBm25(const Bm25Corpus& corpus, int64_t document_length,
                      std::span<const Bm25Term> terms);

}  // namespace mnemo::storage::internal
