// memory_search and memory_recall over entries (spec 10, spec 20 "Scores").
//
// Hybrid: candidates come from both sides (top-N keyword hits and top-N
// vector neighbours, filters applied inside each), every candidate gets both
// signals (hybrid_search.cc), and fusion.h turns them into the final score.

#include <algorithm>

#include "core/engine_impl.h"
#include "core/fusion.h"
#include "core/hybrid_search.h"
#include "core/public_id.h"
#include "core/recall_order.h"
#include "core/turn_ranking.h"
#include "core/validation.h"
#include "rules/tool_rule.h"
#include "text/query.h"
#include "text/snippet.h"
#include "text/strip.h"

namespace mnemo {
namespace {

std::string TurnKey(const storage::TurnRow& r) {
  return r.session_id + "#" + std::to_string(r.seq);
}

}  // namespace

Result<SearchResponse> Engine::Impl::Search(const Principal& who, const SearchRequest& req) {
  MNEMO_RETURN_IF_ERROR(CheckEnabled());
  MNEMO_RETURN_IF_ERROR(ValidateQuery(req.query));
  MNEMO_RETURN_IF_ERROR(ValidateMaxResults(req.max_results));
  if (req.category) MNEMO_RETURN_IF_ERROR(ValidateCategory(*req.category, "category"));
  if (req.ns) MNEMO_RETURN_IF_ERROR(ValidateNamespace(*req.ns, "namespace"));
  MNEMO_RETURN_IF_ERROR(ValidateTags(req.tags, "tags"));
  if (req.embedding) MNEMO_RETURN_IF_ERROR(ValidateEmbedding(*req.embedding));
  MNEMO_RETURN_IF_ERROR(ValidateTimeWindow(req.window));
  MNEMO_RETURN_IF_ERROR(ValidateRecencyWeight(req.recency_weight));
  double min_score = req.min_score.value_or(config.search.min_relevance_score);
  if (!(min_score >= 0 && min_score <= 1)) {
    return InvalidArgument("min_score must be between 0 and 1", "min_score");
  }

  HybridQuery q;
  q.terms = text::QueryTerms(req.query);
  q.filter.category = req.category;
  q.filter.ns = req.ns;
  q.filter.tags = req.tags;
  q.filter.include_archived = req.include_archived;
  q.filter.scope = ScopeFor(who);
  q.filter.since = req.window.since;
  q.filter.until = req.window.until;
  // Candidates from both sides, N >= 4k each (spec 20).
  q.candidates = std::max(4 * req.max_results, 40);
  SearchResponse resp;
  MNEMO_RETURN_IF_ERROR(PrepareVectorSide(req, &q, &resp.degraded));
  MNEMO_ASSIGN_OR_RETURN(std::vector<Candidate> found, CollectCandidates(q));

  std::vector<FusionInput> inputs;
  inputs.reserve(found.size());
  for (const Candidate& c : found) {
    inputs.push_back({.keyword = c.hit.keyword_score,
                      .vector = c.vector,
                      .updated_at = c.hit.entry.updated_at,
                      .key = c.hit.entry.key});
  }
  FusionOptions fusion{
      .mode = config.search.fusion == "rrf" ? FusionMode::kRrf : FusionMode::kWeighted,
      .vector_weight = config.search.vector_weight,
      .keyword_weight = config.search.keyword_weight,
      .vector_side = q.space != nullptr};
  std::vector<double> scores = FuseScores(inputs, fusion);
  if (req.recency_weight > 0) {
    const TimeMs now = clock->NowMs();
    for (size_t i = 0; i < scores.size(); ++i) {
      scores[i] = BlendRecency(scores[i], inputs[i].updated_at, now, req.recency_weight);
    }
  }
  for (size_t i : RankOrder(inputs, scores)) {
    if (static_cast<int>(resp.results.size()) == req.max_results) break;
    if (scores[i] < min_score) break;  // ordered by score: the rest are lower
    Entry& e = found[i].hit.entry;
    SearchHit out;
    out.snippet = text::MakeSnippet(e.content, q.terms);
    out.id = std::move(e.id);
    out.key = std::move(e.key);
    out.ns = std::move(e.ns);
    out.category = std::move(e.category);
    out.owner = std::move(e.owner);
    out.content = std::move(e.content);
    out.keyword_score = found[i].hit.keyword_score;
    out.vector_score = found[i].vector;
    out.score = scores[i];
    out.updated_at = e.updated_at;
    resp.results.push_back(std::move(out));
  }
  return resp;
}

Result<RecallResponse> Engine::Impl::Recall(const Principal& who, const RecallRequest& req) {
  MNEMO_RETURN_IF_ERROR(CheckEnabled());
  MNEMO_RETURN_IF_ERROR(ValidateContextTurns(req.context_turns));
  MNEMO_RETURN_IF_ERROR(ValidateTimeWindow(req.window));
  if (req.agent_id) MNEMO_RETURN_IF_ERROR(ValidateKey(*req.agent_id, "agent_id"));
  MNEMO_RETURN_IF_ERROR(ValidateRecencyWeight(req.recency_weight));
  if (config.memory.acl_enabled) {
    return Disabled(
        "memory_recall is disabled while ACL is on (acl_disabled): broad recall could cross "
        "principals; use memory_search");
  }
  SearchRequest s;
  s.query = req.query;
  s.ns = req.ns;
  s.max_results = req.max_results;
  s.window = req.window;
  s.recency_weight = req.recency_weight;
  MNEMO_ASSIGN_OR_RETURN(SearchResponse found, Search(who, s));
  RecallResponse resp;
  resp.degraded = found.degraded;
  for (SearchHit& h : found.results) {
    RecallHit r;
    // A rule namespace holds tool rules (spec 30); its hits say so.
    r.source = rules::ToolOfNamespace(h.ns) && h.key.starts_with("rule/") ? "tool_rule" : "entry";
    r.id = std::move(h.id);
    r.key = std::move(h.key);
    r.ns = std::move(h.ns);
    r.category = std::move(h.category);
    r.content = std::move(h.content);
    r.score = h.score;
    resp.results.push_back(std::move(r));
  }
  // Every layer (spec 10): without a namespace, conversation turns, the
  // recaps and events of closed segments and documents join the entries, all
  // scored in [0,1], best first, the evidence (entries, turns) before what was
  // derived from it.
  if (!req.ns) {
    const std::vector<std::string> terms = text::QueryTerms(req.query);
    MNEMO_ASSIGN_OR_RETURN(
        std::vector<TurnPassage> passages,
        RankPassages(*stores.episodic,
                     {.terms = terms,
                      .limit = req.max_results,
                      .since = req.window.since,
                      .until = req.window.until,
                      .agent_id = req.agent_id},
                     &tools->registry(), {.weight = req.recency_weight, .now = clock->NowMs()}));
    const double min_score = config.search.min_relevance_score;
    std::vector<std::string> quoted;  // the returned turns' texts
    for (TurnPassage& p : passages) {
      const storage::TurnRow& row = p.hit.row;
      if (p.hit.passage_score < min_score) continue;
      quoted.insert(quoted.end(), p.lines.begin(), p.lines.end());
      RecallHit hit{
          .source = "turn",
          .id = std::to_string(internal::PublicTurnId(row.owner, row.session_id, row.seq)),
          .key = TurnKey(row),
          .category = row.role,
          .content = std::move(p.text),
          .score = p.hit.score};
      MNEMO_ASSIGN_OR_RETURN(std::vector<storage::TurnRow> near,
                             NeighbourTurns(*stores.episodic, row, req.context_turns));
      for (storage::TurnRow& r : near) {
        const bool in_passage =
            std::any_of(p.turns.begin(), p.turns.end(),
                        [&](const storage::TurnRow& t) { return t.seq == r.seq; });
        if (in_passage) continue;
        hit.context.push_back(
            {.source = "turn",
             .id = std::to_string(internal::PublicTurnId(r.owner, r.session_id, r.seq)),
             .key = TurnKey(r),
             .category = r.role,
             .content = ReadableTurnText(r, terms, &tools->registry())});
      }
      resp.results.push_back(std::move(hit));
    }
    std::vector<RecallHit> derived;
    // Recaps, events and documents come from many turns: no one time or
    // agent. They only fill the places the evidence leaves free.
    if (!req.window.empty() || req.agent_id ||
        resp.results.size() >= static_cast<size_t>(req.max_results)) {
      return resp;
    }
    MNEMO_ASSIGN_OR_RETURN(
        std::vector<storage::EventHit> events,
        stores.episodic->SearchEvents({.terms = terms, .limit = req.max_results}));
    for (storage::EventHit& h : events) {
      if (h.score < min_score) continue;
      derived.push_back({.source = "event",
                         .id = h.row.id,
                         .key = h.row.session_id,
                         .category = std::move(h.row.type),
                         .content = std::move(h.row.text),
                         .score = h.score});
    }
    MNEMO_ASSIGN_OR_RETURN(std::vector<RecallHit> recaps,
                           RecallRecaps(req.query, terms, req.max_results));
    for (RecallHit& h : recaps) derived.push_back(std::move(h));
    MNEMO_ASSIGN_OR_RETURN(std::vector<RecallHit> documents,
                           documents->Hits(terms, req.max_results));
    for (RecallHit& h : documents) derived.push_back(std::move(h));
    // A derived result is read like a passage: its best matching part.
    for (RecallHit& h : derived) h.content = BestPassage(h.content, terms);
    resp.results = EvidenceFirst(std::move(resp.results), std::move(derived), quoted,
                                 static_cast<size_t>(req.max_results));
  }
  return resp;
}

}  // namespace mnemo
