// The fields of a search, checked once (issue 45, item 2): memory_search,
// memory_recall and memory.context_build parse what they take from their
// caller at their entry, each rule by the one function of validation.h that
// states it, and hand the search service a SearchQuery, which it reads and
// never checks again. Each type is made only by its Parse (or, for the
// search itself, from parts already parsed).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "mnemo/status.h"
#include "mnemo/types.h"
#include "storage/values.h"

namespace mnemo {

// A time window whose since is before its until when both are given
// (field "until"). The default is no window.
class Window {
 public:
  Window() = default;
  static Result<Window> Parse(const TimeWindow& window);
  const TimeWindow& get() const { return window_; }

 private:
  explicit Window(const TimeWindow& window) : window_(window) {}
  TimeWindow window_;
};

// recency_weight in [0, 1]; the default 0 is relevance only.
class RecencyWeight {
 public:
  RecencyWeight() = default;
  static Result<RecencyWeight> Parse(double weight);
  double value() const { return weight_; }

 private:
  explicit RecencyWeight(double weight) : weight_(weight) {}
  double weight_ = 0;
};

// max_results in 1..kMaxResults.
class ResultCount {
 public:
  static Result<ResultCount> Parse(int n);
  int value() const { return n_; }

 private:
  explicit ResultCount(int n) : n_(n) {}
  int n_;
};

// A namespace filter: one namespace, or a prefix of namespaces ("namespace"
// or "namespace_prefix", each a valid namespace), not both; the default is
// every non-system namespace.
class NamespaceFilter {
 public:
  NamespaceFilter() = default;
  static Result<NamespaceFilter> Parse(const std::optional<std::string>& ns,
                                       const std::optional<std::string>& prefix);
  const std::optional<std::string>& ns() const { return ns_; }
  const std::optional<std::string>& prefix() const { return prefix_; }

 private:
  std::optional<std::string> ns_;
  std::optional<std::string> prefix_;
};

// A search of entries, every field checked. It views the request it was
// parsed from (the query, the tags, the vector): valid for the one call
// that parsed it.
class SearchQuery {
 public:
  // memory_search: every field of `req` but the query, which `query`
  // parsed. min_score absent is `default_min_score` (the configuration's);
  // either way it must lie in [0, 1].
  static Result<SearchQuery> Parse(const Query& query, const SearchRequest& req,
                                   double default_min_score);
  // The entries of recall and context_build, from fields their entries
  // parsed: no category, tag or vector of the caller's, archived entries
  // left out; `min_score` is the engine's (the configuration's, or 0).
  static SearchQuery Within(const Query& query, NamespaceFilter ns, ResultCount max_results,
                            Window window, RecencyWeight recency, double min_score);

  const Query& query() const { return query_; }
  const std::optional<Category>& category() const { return category_; }
  const NamespaceFilter& ns() const { return ns_; }
  std::span<const std::string> tags() const { return tags_; }
  int max_results() const { return max_results_.value(); }
  double min_score() const { return min_score_; }
  bool include_archived() const { return include_archived_; }
  // The caller's own query vector (non-zero, finite, of a valid size), or
  // null: the embedder's.
  const std::vector<float>* embedding() const { return embedding_; }
  const TimeWindow& window() const { return window_.get(); }
  double recency_weight() const { return recency_.value(); }

 private:
  SearchQuery(const Query& query, NamespaceFilter ns, ResultCount max_results, Window window,
              RecencyWeight recency, double min_score)
      : query_(query),
        ns_(std::move(ns)),
        max_results_(max_results),
        min_score_(min_score),
        window_(window),
        recency_(recency) {}

  Query query_;
  std::optional<Category> category_;
  NamespaceFilter ns_;
  std::span<const std::string> tags_;
  ResultCount max_results_;
  double min_score_;
  bool include_archived_ = false;
  const std::vector<float>* embedding_ = nullptr;
  Window window_;
  RecencyWeight recency_;
};

}  // namespace mnemo
