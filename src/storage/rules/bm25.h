// The one keyword score of every backend (spec 20, "Scores"): BM25 (k1 = 1.2,
// b = 0.75) normalised by the query's idf mass so that it lies in [0, 1] and
// means the same across queries.
//
// idf(t) = ln(1 + (N - n + 0.5) / (n + 0.5)) with n = max(n_t, 1): always
// positive, so a term in most (or all) documents of a small store keeps a
// weight of its own. (FTS5's ln((N - n + 0.5) / (n + 0.5)) clamped to 1e-6
// gave every present term of a two-entry store the weight 1e-6, and any
// other query word then took all of the mass: "decommission failover" scored
// 1e-6 where "decommission" alone scored 0.54.) A term that occurs nowhere
// weighs as a term of one document: its absence from a small store says
// little about how rare it is.
//
// Normalisation: score = min(1, bm25 / Σ idf(t)) where the sum runs over ALL
// query terms, including terms that occur in no document, so a query with a
// typo or an unknown word scores lower: a partial match scores its share of
// the query's idf mass. At term frequency 1 in a document of average length
// each present term contributes exactly its idf, so 1.0 means "every query
// term present in an ordinary text".
//
// Inputs are plain counts, so the SQLite rank function (fts_rank.cc) and the
// in-memory backend feed it the same numbers and get bit-identical scores.
#pragma once

#include <cstdint>
#include <span>

namespace mnemo::storage::internal {

inline constexpr double kBm25K1 = 1.2;
inline constexpr double kBm25B = 0.75;

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

// ln(1 + (N - n + 0.5) / (n + 0.5)), n = max(n_t, 1); 0 for an empty store.
double Bm25Idf(int64_t documents, int64_t documents_with_term);

// Σ idf(t) over `terms` (their frequencies are ignored).
double Bm25IdfMass(const Bm25Corpus& corpus, std::span<const Bm25Term> terms);

// min(1, bm25(d, q) / Σ idf) for a document of `document_length` tokens.
// Returns 0 when no term is present or the corpus is empty.
double NormalisedBm25(const Bm25Corpus& corpus, int64_t document_length,
                      std::span<const Bm25Term> terms);

}  // namespace mnemo::storage::internal
