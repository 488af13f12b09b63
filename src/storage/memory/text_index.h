// A keyword index of the in-memory backend: documents of one or more text
// columns, indexed and scored exactly as a contentless FTS5 table of the
// SQLite backend scored with mnemo_score (the tokens of IndexColumn, the
// document length FTS5 counts, bm25.h over every indexed document), so both
// backends return the same hits with the same scores.
//
// Thread-safety: none; the backend guards it with its own lock.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace mnemo::storage::internal {

class TextIndex {
 public:
  // Indexes `columns` as document `id` (which must not be indexed yet).
  void Add(int64_t id, std::initializer_list<std::string_view> columns);
  // Removes document `id`; nothing when it is not indexed.
  void Remove(int64_t id);

  // Every document that contains one of `terms` (distinct, as DistinctTerms
  // gives them) and passes `keep`, with its normalised BM25 score; in no
  // particular order. The statistics (N, avgdl, n_t) are those of every
  // indexed document, or, when `counted` is given, of the documents it
  // holds for (the caller's own, so that one principal's scores never
  // depend on another's documents; O(documents) per call).
  std::vector<std::pair<int64_t, double>> Score(
      const std::vector<std::string>& terms, const std::function<bool(int64_t)>& keep,
      const std::function<bool(int64_t)>& counted = nullptr) const;

  // In how many indexed documents `token` occurs.
  int64_t DocumentsWith(const std::string& token) const;

 private:
  struct Doc {
    int64_t length = 0;                                  // tokens, as FTS5 counts them
    std::unordered_map<std::string, int64_t> frequency;  // token -> occurrences
  };

  std::unordered_map<int64_t, Doc> docs_;
  std::unordered_map<std::string, std::unordered_set<int64_t>> postings_;
  int64_t total_tokens_ = 0;
};

}  // namespace mnemo::storage::internal
