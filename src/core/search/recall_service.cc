// The recall service's memory_recall (spec 10; core/search/recall_service.h):
// every layer in one list, the evidence (entries, turns) before what was
// derived from it.

#include <algorithm>

#include "core/public_id.h"
#include "core/search/recall_order.h"
#include "core/search/recall_service.h"
#include "core/search/turn_ranking.h"
#include "core/validation.h"
#include "rules/tool_rule.h"
#include "text/pipeline/query.h"
#include "text/snippet.h"

namespace mnemo {
namespace {

std::string TurnKey(const storage::TurnRow& r) {
  return r.session_id + "#" + std::to_string(r.seq);
}

}  // namespace

RecallOptions RecallOptionsOf(const Config& config) {
  return {.acl_enabled = config.memory.acl_enabled, .search = config.search};
}

RecallService::RecallService(storage::EpisodicStore& episodic, storage::DocumentStore& documents,
                             SearchService& search, Archivist& archivist,
                             Documents& documents_service, Tools& tools,
                             std::shared_ptr<Clock> clock, RecallOptions options)
    : episodic_(episodic),
      documents_store_(documents),
      search_(search),
      archivist_(archivist),
      documents_(documents_service),
      tools_(tools),
      clock_(std::move(clock)),
      options_(std::move(options)) {}

Result<RecallResponse> RecallService::Recall(const Principal& who, const Query& query,
                                             const RecallRequest& req) {
  // Every field is parsed here, once: the search below takes them checked.
  MNEMO_RETURN_IF_ERROR(ValidateContextTurns(req.context_turns));
  MNEMO_ASSIGN_OR_RETURN(const Window window, Window::Parse(req.window));
  if (req.agent_id) MNEMO_RETURN_IF_ERROR(ValidateKey(*req.agent_id, "agent_id"));
  MNEMO_ASSIGN_OR_RETURN(const RecencyWeight recency, RecencyWeight::Parse(req.recency_weight));
  if (options_.acl_enabled) {
    return Disabled(
        "memory_recall is disabled while ACL is on (acl_disabled): broad recall could cross "
        "principals; use memory_search");
  }
  MNEMO_ASSIGN_OR_RETURN(const ResultCount max_results, ResultCount::Parse(req.max_results));
  MNEMO_ASSIGN_OR_RETURN(NamespaceFilter ns, NamespaceFilter::Parse(req.ns, std::nullopt));
  MNEMO_ASSIGN_OR_RETURN(
      SearchResponse found,
      search_.Search(who, SearchQuery::Within(query, std::move(ns), max_results, window, recency,
                                              search_.default_min_score())));
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
        RankPassages(episodic_,
                     {.terms = terms,
                      .limit = max_results.value(),
                      .since = window.get().since,
                      .until = window.get().until,
                      .agent_id = req.agent_id},
                     &tools_.registry(), {.weight = recency, .now = clock_->NowMs()}, kPassageChars,
                     {.matcher = search_.soft_matcher(), .query = req.query}));
    const double min_score = options_.search.min_relevance_score;
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
                             NeighbourTurns(episodic_, row, req.context_turns));
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
             .content = ReadableTurnText(r, terms, &tools_.registry())});
      }
      resp.results.push_back(std::move(hit));
    }
    std::vector<RecallHit> derived;
    // Recaps, events and documents come from many turns: no one time or
    // agent. They only fill the places the evidence leaves free.
    if (!window.get().empty() || req.agent_id ||
        resp.results.size() >= static_cast<size_t>(max_results.value())) {
      return resp;
    }
    MNEMO_ASSIGN_OR_RETURN(std::vector<storage::EventHit> events,
                           episodic_.SearchEvents({.terms = terms, .limit = max_results.value()}));
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
                           archivist_.RecallRecaps(req.query, terms, max_results.value()));
    for (RecallHit& h : recaps) derived.push_back(std::move(h));
    MNEMO_ASSIGN_OR_RETURN(std::vector<RecallHit> documents,
                           documents_.Hits(terms, max_results.value()));
    for (RecallHit& h : documents) derived.push_back(std::move(h));
    // A derived result is read like a passage: its best matching part.
    for (RecallHit& h : derived) h.content = BestPassage(h.content, terms);
    resp.results = EvidenceFirst(std::move(resp.results), std::move(derived), quoted,
                                 static_cast<size_t>(max_results.value()));
  }
  return resp;
}

}  // namespace mnemo
