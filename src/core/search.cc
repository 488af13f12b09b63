// memory_search and memory_recall over entries (spec 10, spec 20 "Scores").
//
// Keyword side only for now: the final score is the normalised keyword score
// and vector_score is null. Fusion with vectors plugs in here (spec 20).

#include <algorithm>

#include "core/engine_impl.h"
#include "core/validation.h"
#include "text/query.h"
#include "text/snippet.h"

namespace mnemo {
namespace {

constexpr int kMaxResults = 100;
constexpr size_t kMaxQueryBytes = 1 << 20;

Status ValidateQuery(std::string_view query) {
  if (query.find_first_not_of(" \t\r\n\f\v") == std::string_view::npos) {
    return InvalidArgument("query must not be empty or whitespace: say what to look for", "query");
  }
  if (query.size() > kMaxQueryBytes) {
    return InvalidArgument("query is longer than 1 MiB", "query");
  }
  return Status::Ok();
}

Status ValidateLimit(int max_results) {
  if (max_results < 1 || max_results > kMaxResults) {
    return InvalidArgument("max_results must be between 1 and 100", "max_results");
  }
  return Status::Ok();
}

}  // namespace

Result<SearchResponse> Engine::Impl::Search(const Principal& who, const SearchRequest& req) {
  MNEMO_RETURN_IF_ERROR(CheckEnabled());
  MNEMO_RETURN_IF_ERROR(ValidateQuery(req.query));
  MNEMO_RETURN_IF_ERROR(ValidateLimit(req.max_results));
  if (req.category) MNEMO_RETURN_IF_ERROR(ValidateCategory(*req.category, "category"));
  if (req.ns) MNEMO_RETURN_IF_ERROR(ValidateNamespace(*req.ns, "namespace"));
  MNEMO_RETURN_IF_ERROR(ValidateTags(req.tags, "tags"));
  double min_score = req.min_score.value_or(config.search.min_relevance_score);
  if (!(min_score >= 0 && min_score <= 1)) {
    return InvalidArgument("min_score must be between 0 and 1", "min_score");
  }

  storage::KeywordQuery q;
  q.terms = text::QueryTerms(req.query);
  q.filter.category = req.category;
  q.filter.ns = req.ns;
  q.filter.tags = req.tags;
  q.filter.include_archived = req.include_archived;
  q.filter.scope = ScopeFor(who);
  q.limit = req.max_results;
  SearchResponse resp;
  if (q.terms.empty()) return resp;  // nothing searchable (punctuation only)
  MNEMO_ASSIGN_OR_RETURN(std::vector<storage::KeywordHit> hits, backend->KeywordSearch(q));
  for (storage::KeywordHit& h : hits) {
    // Hits arrive ordered by score, so the first one under the threshold ends it.
    if (h.keyword_score < min_score) break;
    SearchHit out;
    out.snippet = text::MakeSnippet(h.entry.content, q.terms);
    out.id = std::move(h.entry.id);
    out.key = std::move(h.entry.key);
    out.ns = std::move(h.entry.ns);
    out.category = std::move(h.entry.category);
    out.owner = std::move(h.entry.owner);
    out.content = std::move(h.entry.content);
    out.keyword_score = h.keyword_score;
    out.score = h.keyword_score;
    out.updated_at = h.entry.updated_at;
    resp.results.push_back(std::move(out));
  }
  return resp;
}

Result<RecallResponse> Engine::Impl::Recall(const Principal& who, const RecallRequest& req) {
  MNEMO_RETURN_IF_ERROR(CheckEnabled());
  if (config.memory.acl_enabled) {
    return Disabled(
        "memory_recall is disabled while ACL is on (acl_disabled): broad recall could cross "
        "principals; use memory_search");
  }
  SearchRequest s;
  s.query = req.query;
  s.ns = req.ns;
  s.max_results = req.max_results;
  MNEMO_ASSIGN_OR_RETURN(SearchResponse found, Search(who, s));
  RecallResponse resp;
  resp.degraded = found.degraded;
  for (SearchHit& h : found.results) {
    RecallHit r;
    r.source = "entry";
    r.id = std::move(h.id);
    r.key = std::move(h.key);
    r.ns = std::move(h.ns);
    r.category = std::move(h.category);
    r.content = std::move(h.content);
    r.score = h.score;
    resp.results.push_back(std::move(r));
  }
  return resp;
}

}  // namespace mnemo
