#include "core/search/search_query.h"

#include <utility>

#include "core/validation.h"

namespace mnemo {

// Each Parse is the one door of its type; the rule itself is stated once, in
// validation.h.

Result<Window> Window::Parse(const TimeWindow& window) {
  MNEMO_RETURN_IF_ERROR(ValidateTimeWindow(window));
  return Window(window);
}

Result<RecencyWeight> RecencyWeight::Parse(double weight) {
  MNEMO_RETURN_IF_ERROR(ValidateRecencyWeight(weight));
  return RecencyWeight(weight);
}

Result<ResultCount> ResultCount::Parse(int n) {
  MNEMO_RETURN_IF_ERROR(ValidateMaxResults(n));
  return ResultCount(n);
}

Result<NamespaceFilter> NamespaceFilter::Parse(const std::optional<std::string>& ns,
                                               const std::optional<std::string>& prefix) {
  MNEMO_RETURN_IF_ERROR(ValidateNamespaceFilter(ns, prefix));
  NamespaceFilter out;
  out.ns_ = ns;
  out.prefix_ = prefix;
  return out;
}

Result<SearchQuery> SearchQuery::Parse(const Query& query, const SearchRequest& req,
                                       double default_min_score) {
  std::optional<Category> category;
  if (req.category) {
    MNEMO_ASSIGN_OR_RETURN(category, Category::Parse(*req.category));
  }
  MNEMO_ASSIGN_OR_RETURN(ResultCount max_results, ResultCount::Parse(req.max_results));
  MNEMO_ASSIGN_OR_RETURN(NamespaceFilter ns, NamespaceFilter::Parse(req.ns, req.ns_prefix));
  MNEMO_RETURN_IF_ERROR(ValidateTags(req.tags, "tags"));
  if (req.embedding) MNEMO_RETURN_IF_ERROR(ValidateEmbedding(*req.embedding));
  MNEMO_ASSIGN_OR_RETURN(Window window, Window::Parse(req.window));
  MNEMO_ASSIGN_OR_RETURN(RecencyWeight recency, RecencyWeight::Parse(req.recency_weight));
  const double min_score = req.min_score.value_or(default_min_score);
  if (!(min_score >= 0 && min_score <= 1)) {
    return InvalidArgument("min_score must be between 0 and 1", "min_score");
  }
  SearchQuery out(query, std::move(ns), max_results, window, recency, min_score);
  out.category_ = std::move(category);
  out.tags_ = req.tags;
  out.include_archived_ = req.include_archived;
  out.embedding_ = req.embedding ? &*req.embedding : nullptr;
  return out;
}

SearchQuery SearchQuery::Within(const Query& query, NamespaceFilter ns, ResultCount max_results,
                                Window window, RecencyWeight recency, double min_score) {
  return SearchQuery(query, std::move(ns), max_results, window, recency, min_score);
}

}  // namespace mnemo
