// The Archivist's engine side (spec 40): the per-turn episodic rows of
// memory.turn_complete, the read methods and the MEMORY.md writer.

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <thread>

#include "archivist/archive_writer.h"
#include "archivist/memory_md.h"
#include "archivist/profile.h"
#include "archivist/segments.h"
#include "archivist/turn_indexer.h"
#include "core/engine_impl.h"
#include "core/fusion.h"
#include "core/public_id.h"
#include "core/turn_ranking.h"
#include "core/turn_result_json.h"
#include "core/validation.h"
#include "text/query.h"
#include "text/snippet.h"
#include "text/strip.h"

namespace mnemo {
namespace {

EpisodicTurn ToPublic(storage::TurnRow r) {
  return EpisodicTurn{.id = internal::PublicTurnId(r.owner, r.session_id, r.seq),
                      .session_id = std::move(r.session_id),
                      .seq = r.seq,
                      .role = std::move(r.role),
                      .content = std::move(r.content),
                      .lesson = std::move(r.lesson),
                      .tool_calls_json = std::move(r.tool_calls_json),
                      .timestamp = r.timestamp_ms,
                      .cost_microdollars = r.cost_microdollars,
                      .agent_id = std::move(r.agent_id),
                      .owner = std::move(r.owner)};
}

// The facet as it was at `t` (ProfileRequest::as_of); nullopt when it was
// first stated later.
std::optional<ProfileFacet> FacetAsOf(ProfileFacet f, TimeMs t) {
  auto earlier = [&](TimeMs from) {
    std::vector<ProfileValue> kept;
    for (ProfileValue& h : f.history) {
      if (h.valid_from < from) kept.push_back(std::move(h));
    }
    return kept;
  };
  if (f.valid_from <= t) {
    f.history = earlier(f.valid_from);
    return f;
  }
  for (auto h = f.history.rbegin(); h != f.history.rend(); ++h) {
    if (h->valid_from > t || (h->valid_to != 0 && h->valid_to <= t)) continue;
    ProfileFacet then = f;
    then.value = h->value;
    then.confidence = h->confidence;
    then.evidence = h->evidence;
    then.valid_from = h->valid_from;
    then.evidence_count = 0;
    then.segment_ids.clear();
    then.history = earlier(h->valid_from);
    return then;
  }
  return std::nullopt;
}

ProfileFacet ToProfileFacet(storage::FacetRow r) {
  ProfileFacet f{.facet_type = std::move(r.facet_type),
                 .key = std::move(r.key),
                 .value = std::move(r.value),
                 .confidence = r.confidence,
                 .evidence_count = r.evidence_count,
                 .segment_ids = std::move(r.segment_ids),
                 .updated_at = r.updated_at,
                 .valid_from = r.valid_from,
                 .evidence = std::move(r.evidence)};
  for (storage::FacetValue& v : r.history) {
    f.history.push_back({.value = std::move(v.value),
                         .confidence = v.confidence,
                         .evidence = std::move(v.evidence),
                         .valid_from = v.valid_from,
                         .valid_to = v.valid_to});
  }
  return f;
}

// Facets stated through memory.profile_put (spec 40).
constexpr double kStatedConfidence = 0.9;

archivist::SegmentPolicy SegmentPolicyOf(const Config& config) {
  // The drift check is meaningful with a semantic embedder only (spec 15).
  const double fallback = config.embedding.provider == "openai" ? 0.4 : 0.0;
  return {.max_turns = config.learning.max_turns_per_segment,
          .max_time_gap_secs = config.learning.max_time_gap_secs,
          .min_cosine = config.learning.min_cosine_similarity.value_or(fallback)};
}

Status ValidateSessionId(std::string_view session_id) {
  if (text::IsBlank(session_id)) {
    return InvalidArgument("session_id must not be blank", "session_id");
  }
  return ValidateKey(session_id, "session_id");
}

}  // namespace

Status Engine::Impl::IndexTurnRows(const Principal& who, const Turn& turn, TimeMs timestamp,
                                   const storage::TurnClaim* claim,
                                   std::optional<storage::TurnClaim>& earlier, TurnResult& result,
                                   std::vector<size_t>& cleaner_failed) {
  if (!config.learning.episodic_capture_enabled) {
    if (claim == nullptr) return Status::Ok();
    // No rows to store, but the turn id is still claimed once.
    MNEMO_ASSIGN_OR_RETURN(storage::TurnClaimOutcome outcome,
                           stores.episodic->ClaimTurn(*claim, {}));
    if (!outcome.claimed) earlier = std::move(outcome.claim);
    return Status::Ok();
  }
  MNEMO_ASSIGN_OR_RETURN(const context::ToolRegistry* registry, tools->Current());
  archivist::TurnIndexOptions options{
      .redact = config.security.redact_episodic, .tools = registry, .claim = claim};
  MNEMO_ASSIGN_OR_RETURN(
      archivist::IndexedTurn indexed,
      archivist::IndexTurn(*stores.episodic, who.name, turn, timestamp, options));
  if (indexed.earlier) {
    earlier = std::move(indexed.earlier);
    return Status::Ok();
  }
  // The archive is best effort (spec 40) and written in the background; a
  // failure is logged, never fatal. "sync": true waits for it.
  archive->Enqueue(archivist::ArchiveRowsOf(indexed));
  for (const context::CleanerFailure& f : indexed.computation.failures) {
    cleaner_failed.push_back(f.call_index);
  }
  // Segmentation (spec 40): the drift check needs the turn's vector, so it is
  // computed only when that check is on.
  const archivist::SegmentPolicy policy = SegmentPolicyOf(config);
  std::vector<float> vector;
  if (policy.min_cosine > 0 && vectors->embedder() != nullptr) {
    const std::string text = indexed.computation.Joined();
    auto embedded = vectors->embedder()->Embed(std::span<const std::string>(&text, 1));
    if (embedded.ok() && embedded->size() == 1) vector = std::move((*embedded)[0]);
  }
  MNEMO_ASSIGN_OR_RETURN(
      archivist::SegmentStep step,
      archivist::AdvanceSegment(*stores.episodic, indexed.user, indexed.assistant,
                                turn.user_message, vector, policy));
  result.segment_id = step.open_id;
  result.closed_segment_id = step.closed_id;
  if (!step.closed_id.empty()) PostFinalize(step.closed_id);
  if (turn.sync) {
    archive->Flush();
    segment_worker->Flush();
  }
  result.redactions = indexed.redactions;
  result.user_row = ToPublic(std::move(indexed.user));
  result.assistant_row = ToPublic(std::move(indexed.assistant));
  return Status::Ok();
}

Result<TurnResult> Engine::Impl::ReplayTurn(storage::TurnClaim claim) {
  // The first call stores its result right after its rule capture; a
  // duplicate that arrives meanwhile waits for it (polling the store, so a
  // duplicate in another process waits too).
  const auto deadline = std::chrono::steady_clock::now() + kReplayWait;
  auto pause = std::chrono::milliseconds(1);
  while (claim.result.empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(25));
    MNEMO_ASSIGN_OR_RETURN(std::optional<storage::TurnClaim> now,
                           stores.episodic->GetTurnClaim(claim.key));
    if (!now) return NotFound("turn " + claim.key.turn_id + " is no longer stored");
    claim = std::move(*now);
  }
  TurnResult out;
  // Without a result the first call never finished (it failed before
  // storing it, or its process died): what it stored is the answer.
  if (!claim.result.empty()) {
    MNEMO_ASSIGN_OR_RETURN(out, DecodeTurnResult(claim.result));
  }
  if (claim.first_seq >= 0) {
    MNEMO_ASSIGN_OR_RETURN(std::vector<storage::TurnRow> rows,
                           stores.episodic->SessionTurns(claim.key.owner, claim.key.session_id,
                                                         claim.first_seq, claim.first_seq + 1));
    for (storage::TurnRow& r : rows) {
      if (r.role == "user") {
        out.user_row = ToPublic(std::move(r));
      } else {
        out.assistant_row = ToPublic(std::move(r));
      }
    }
  }
  out.replayed = true;
  return out;
}

Result<std::vector<EpisodicHit>> Engine::Impl::EpisodicSearch(const Principal& who,
                                                              const EpisodicQuery& q) {
  MNEMO_RETURN_IF_ERROR(CheckEnabled());
  if (text::IsBlank(q.query)) {
    return InvalidArgument("query must not be blank", "query");
  }
  if (q.limit < 1 || q.limit > 100) {
    return InvalidArgument("limit must be between 1 and 100", "limit");
  }
  if (q.session_id) MNEMO_RETURN_IF_ERROR(ValidateSessionId(*q.session_id));
  MNEMO_RETURN_IF_ERROR(ValidateContextTurns(q.context_turns));
  MNEMO_RETURN_IF_ERROR(ValidateTimeWindow(q.window));
  if (q.agent_id) MNEMO_RETURN_IF_ERROR(ValidateKey(*q.agent_id, "agent_id"));
  MNEMO_RETURN_IF_ERROR(ValidateRecencyWeight(q.recency_weight));
  storage::TurnQuery query{.terms = text::QueryTerms(q.query),
                           .session_id = q.session_id,
                           .all = !config.memory.acl_enabled,
                           .owner = who.name,
                           .limit = q.limit,
                           .since = q.window.since,
                           .until = q.window.until,
                           .agent_id = q.agent_id};
  MNEMO_ASSIGN_OR_RETURN(
      std::vector<RankedTurn> hits,
      RankTurnsInConversation(*stores.episodic, query,
                              {.weight = q.recency_weight, .now = clock->NowMs()}));
  std::vector<EpisodicHit> out;
  out.reserve(hits.size());
  for (RankedTurn& h : hits) {
    EpisodicHit hit{.score = h.score};
    hit.snippet =
        text::MakeSnippet(ReadableTurnText(h.row, query.terms, &tools->registry()), query.terms);
    MNEMO_ASSIGN_OR_RETURN(std::vector<storage::TurnRow> near,
                           NeighbourTurns(*stores.episodic, h.row, q.context_turns));
    for (storage::TurnRow& r : near) hit.context.push_back(ToPublic(std::move(r)));
    hit.turn = ToPublic(std::move(h.row));
    out.push_back(std::move(hit));
  }
  return out;
}

Result<std::vector<EpisodicTurn>> Engine::Impl::SessionTurns(const Principal& who,
                                                             std::string_view session_id) {
  MNEMO_RETURN_IF_ERROR(CheckEnabled());
  MNEMO_RETURN_IF_ERROR(ValidateSessionId(session_id));
  MNEMO_ASSIGN_OR_RETURN(std::vector<storage::TurnRow> rows,
                         stores.episodic->SessionTurns(who.name, session_id, 0, INT64_MAX));
  std::vector<EpisodicTurn> out;
  out.reserve(rows.size());
  for (storage::TurnRow& r : rows) out.push_back(ToPublic(std::move(r)));
  return out;
}

Result<std::vector<RecallHit>> Engine::Impl::RecallRecaps(const std::string& query,
                                                          const std::vector<std::string>& terms,
                                                          int limit, const std::string& owner) {
  const size_t k = static_cast<size_t>(std::max(4 * limit, 40));
  const std::optional<std::string> scope =
      owner.empty() ? std::nullopt : std::optional<std::string>(owner);
  MNEMO_ASSIGN_OR_RETURN(std::vector<storage::SegmentHit> keyword,
                         stores.episodic->SearchSegments(
                             {.terms = terms, .owner = scope, .limit = static_cast<int>(k)}));
  std::vector<float> q;
  if (recaps != nullptr) {
    auto embedded = vectors->embedder()->Embed(std::span<const std::string>(&query, 1));
    // Without a query vector (embedder down, nothing to embed) recaps are
    // ranked by their keyword side alone, as entries are.
    if (embedded.ok() && embedded->size() == 1 && !embed::IsZeroVector((*embedded)[0])) {
      q = std::move((*embedded)[0]);
    }
  }
  std::map<std::string, size_t> at;
  std::vector<storage::SegmentRow> rows;
  std::vector<FusionInput> inputs;
  for (storage::SegmentHit& h : keyword) {
    at.emplace(h.row.id, rows.size());
    inputs.push_back({.keyword = h.score, .updated_at = h.row.closed_at});
    rows.push_back(std::move(h.row));
  }
  if (!q.empty()) {
    MNEMO_ASSIGN_OR_RETURN(std::vector<RecapVectors::Hit> near, recaps->Nearest(q, k, scope));
    for (const RecapVectors::Hit& n : near) {
      const double cosine = std::clamp(n.cosine, 0.0, 1.0);
      if (auto it = at.find(n.segment_id); it != at.end()) {
        inputs[it->second].vector = cosine;
        continue;
      }
      MNEMO_ASSIGN_OR_RETURN(std::optional<storage::SegmentRow> row,
                             stores.episodic->GetSegment(n.segment_id));
      if (!row || row->status != "closed" || row->recap.empty()) continue;
      at.emplace(row->id, rows.size());
      inputs.push_back({.vector = cosine, .updated_at = row->closed_at});
      rows.push_back(std::move(*row));
    }
    // Keyword hits beyond the vector side's k still get their cosine.
    for (size_t i = 0; i < rows.size(); ++i) {
      if (!inputs[i].vector) {
        if (auto c = recaps->Cosine(q, rows[i].id)) inputs[i].vector = std::clamp(*c, 0.0, 1.0);
      }
    }
  }
  for (size_t i = 0; i < rows.size(); ++i) inputs[i].key = rows[i].id;
  const FusionOptions fusion{
      .mode = config.search.fusion == "rrf" ? FusionMode::kRrf : FusionMode::kWeighted,
      .vector_weight = config.search.vector_weight,
      .keyword_weight = config.search.keyword_weight,
      .vector_side = !q.empty()};
  const std::vector<double> scores = FuseScores(inputs, fusion);
  std::vector<RecallHit> out;
  for (size_t i : RankOrder(inputs, scores)) {
    if (static_cast<int>(out.size()) == limit) break;
    if (scores[i] < config.search.min_relevance_score) break;
    storage::SegmentRow& r = rows[i];
    out.push_back({.source = "segment",
                   .id = r.id,
                   .key = r.session_id + "#seq" + std::to_string(r.first_seq) + "-" +
                          std::to_string(r.last_seq),
                   .category = r.recap_source,
                   .content = std::move(r.recap),
                   .score = scores[i]});
  }
  return out;
}

Result<int64_t> Engine::Impl::FillMissingRecapVectors() {
  if (vectors->embedder() == nullptr) return 0;
  std::set<std::string> have;
  for (int64_t version = 0;;) {
    constexpr int kBatch = 1000;
    MNEMO_ASSIGN_OR_RETURN(
        std::vector<storage::SegmentVector> batch,
        stores.episodic->SegmentVectorsSince(vectors->embedder()->signature(), version, kBatch));
    for (storage::SegmentVector& v : batch) {
      version = std::max(version, v.version);
      have.insert(std::move(v.segment_id));
    }
    if (batch.size() < static_cast<size_t>(kBatch)) break;
  }
  MNEMO_ASSIGN_OR_RETURN(std::vector<storage::SegmentRow> segments,
                         stores.episodic->Segments(true, "", std::nullopt));
  int64_t embedded = 0;
  for (const storage::SegmentRow& s : segments) {
    if (s.status != "closed" || s.recap.empty() || have.contains(s.id)) continue;
    MNEMO_RETURN_IF_ERROR(archivist::EmbedRecap(*stores.episodic, s, vectors->embedder()));
    ++embedded;
  }
  return embedded;
}

Status Engine::Impl::OpenArchivist() {
  if (vectors->embedder() != nullptr)
    recaps = std::make_unique<RecapVectors>(*stores.episodic, vectors->embedder()->signature());
  MNEMO_ASSIGN_OR_RETURN(llm, llm::MakeChatClient(config.llm));
  segment_worker = std::make_unique<internal::BackgroundWorker>();
  // Recaps written under another embedder (or while it was down) get their
  // vector of this one, in the background.
  if (vectors->embedder() != nullptr) {
    segment_worker->Post([this] {
      if (Result<int64_t> n = FillMissingRecapVectors(); !n.ok()) {
        logger->Log(LogLevel::kWarn, "embedding earlier recaps: " + n.status().message());
      }
    });
  }
  return Status::Ok();
}

void Engine::Impl::PostFinalize(std::string segment_id) {
  segment_worker->Post([this, id = std::move(segment_id)] {
    archivist::FinalizeOptions options{.token_budget = config.llm.recap_token_budget,
                                       .events = config.learning.events_enabled,
                                       .profile = config.learning.profile_enabled,
                                       .llm = llm.get(),
                                       .embedder = vectors->embedder(),
                                       .documents = config.learning.chat_to_documents_enabled};
    if (Status s = archivist::FinalizeSegment(*stores.episodic, *stores.documents, *stores.graph,
                                              id, options, clock->NowMs());
        !s.ok()) {
      logger->Log(LogLevel::kWarn, "cannot finalise segment " + id + ": " + s.message());
    }
    // Then give earlier extractive recaps another chance with the LLM.
    if (Result<int> pass = archivist::ResummarisePass(*stores.episodic, options); !pass.ok()) {
      logger->Log(LogLevel::kWarn, "re-summarising recaps: " + pass.status().message());
    }
  });
}

Result<SessionEndResult> Engine::Impl::SessionEnd(const Principal& who, std::string_view session_id,
                                                  bool sync) {
  MNEMO_RETURN_IF_ERROR(CheckEnabled());
  MNEMO_RETURN_IF_ERROR(ValidateSessionId(session_id));
  MNEMO_ASSIGN_OR_RETURN(
      std::string closed,
      archivist::CloseOpenSegment(*stores.episodic, who.name, session_id, clock->NowMs()));
  SessionEndResult out{.closed = !closed.empty(), .segment_id = closed};
  if (out.closed) PostFinalize(std::move(closed));
  if (sync) segment_worker->Flush();
  return out;
}

Result<std::vector<SegmentInfo>> Engine::Impl::Segments(const Principal& who,
                                                        std::string_view session_id) {
  MNEMO_RETURN_IF_ERROR(CheckEnabled());
  std::optional<std::string_view> session;
  if (!session_id.empty()) {
    MNEMO_RETURN_IF_ERROR(ValidateSessionId(session_id));
    session = session_id;
  }
  MNEMO_ASSIGN_OR_RETURN(std::vector<storage::SegmentRow> rows,
                         stores.episodic->Segments(!config.memory.acl_enabled, who.name, session));
  std::vector<SegmentInfo> out;
  out.reserve(rows.size());
  for (storage::SegmentRow& r : rows) {
    out.push_back({.id = std::move(r.id),
                   .session_id = std::move(r.session_id),
                   .status = std::move(r.status),
                   .first_seq = r.first_seq,
                   .last_seq = r.last_seq,
                   .turn_count = r.turn_count,
                   .started_at = r.started_at,
                   .last_turn_at = r.last_turn_at,
                   .closed_at = r.closed_at,
                   .recap = std::move(r.recap),
                   .recap_source = std::move(r.recap_source)});
  }
  return out;
}

Result<std::vector<EventInfo>> Engine::Impl::Events(const Principal& who, const EventsQuery& q) {
  MNEMO_RETURN_IF_ERROR(CheckEnabled());
  if (q.limit < 1 || q.limit > 100) {
    return InvalidArgument("limit must be between 1 and 100", "limit");
  }
  storage::EventQuery query{.type = q.type,
                            .terms = text::QueryTerms(q.query),
                            .all = !config.memory.acl_enabled,
                            .owner = who.name,
                            .limit = q.limit};
  MNEMO_ASSIGN_OR_RETURN(std::vector<storage::EventHit> hits, stores.episodic->SearchEvents(query));
  std::vector<EventInfo> out;
  out.reserve(hits.size());
  for (storage::EventHit& h : hits) {
    out.push_back({.id = std::move(h.row.id),
                   .session_id = std::move(h.row.session_id),
                   .segment_id = std::move(h.row.segment_id),
                   .type = std::move(h.row.type),
                   .text = std::move(h.row.text),
                   .confidence = h.row.confidence,
                   .created_at = h.row.created_at,
                   .score = h.score});
  }
  return out;
}

Result<std::vector<ProfileFacet>> Engine::Impl::Profile(const Principal& who,
                                                        const ProfileRequest& req) {
  MNEMO_RETURN_IF_ERROR(CheckEnabled());
  MNEMO_ASSIGN_OR_RETURN(std::vector<storage::FacetRow> rows,
                         stores.episodic->Facets(!config.memory.acl_enabled, who.name));
  std::vector<ProfileFacet> out;
  out.reserve(rows.size());
  for (storage::FacetRow& r : rows) {
    ProfileFacet f = ToProfileFacet(std::move(r));
    if (!req.as_of) {
      out.push_back(std::move(f));
    } else if (std::optional<ProfileFacet> then = FacetAsOf(std::move(f), *req.as_of)) {
      out.push_back(std::move(*then));
    }
  }
  return out;
}

Result<ProfileFacet> Engine::Impl::ProfilePut(const Principal& who, std::string_view facet_type,
                                              std::string_view key, std::string_view value) {
  MNEMO_RETURN_IF_ERROR(CheckEnabled());
  MNEMO_RETURN_IF_ERROR(ValidateCategory(facet_type, "facet_type"));
  MNEMO_RETURN_IF_ERROR(ValidateKey(key, "key"));
  MNEMO_RETURN_IF_ERROR(ValidateContent(value, "value"));
  if (value.size() > kMaxFacetValueBytes) {
    return InvalidArgument(
        "value is " + std::to_string(value.size()) + " bytes long: at most 4096 bytes are allowed",
        "value");
  }
  MNEMO_RETURN_IF_ERROR(CheckSecret(config.security.secrets, value, "value"));
  // Stated at 0.9, a correction supersedes the current value (spec 40 §5):
  // the old one goes to the history and the count restarts.
  const TimeMs now = clock->NowMs();
  MNEMO_ASSIGN_OR_RETURN(storage::FacetRow r,
                         stores.episodic->MergeFacet({.owner = who.name,
                                                      .facet_type = std::string(facet_type),
                                                      .key = std::string(key),
                                                      .value = std::string(value),
                                                      .confidence = kStatedConfidence,
                                                      .evidence_count = 1,
                                                      .updated_at = now,
                                                      .valid_from = now}));
  return ToProfileFacet(std::move(r));
}

Result<std::string> Engine::Impl::ProfileRender(const Principal& who) {
  MNEMO_ASSIGN_OR_RETURN(std::vector<ProfileFacet> facets, Profile(who));
  std::vector<archivist::Facet> view;
  view.reserve(facets.size());
  for (ProfileFacet& f : facets) {
    view.push_back({.facet_type = std::move(f.facet_type),
                    .key = std::move(f.key),
                    .value = std::move(f.value),
                    .confidence = f.confidence,
                    .evidence_count = f.evidence_count,
                    .segment_ids = std::move(f.segment_ids)});
  }
  return archivist::RenderProfile(view);
}

Result<MemoryMdReport> Engine::Impl::UpdateMemoryMd(const Principal& who,
                                                    const MemoryMdRequest& req) {
  MNEMO_RETURN_IF_ERROR(CheckEnabled());
  if (!IsAdmin(who)) {
    return PermissionDenied(
        "writing MEMORY.md or SKILL.md needs the admin role: every principal's agent reads them");
  }
  MNEMO_ASSIGN_OR_RETURN(archivist::MemoryMdAction action,
                         archivist::ParseMemoryMdAction(req.action));
  MNEMO_RETURN_IF_ERROR(CheckSecret(config.security.secrets, req.content, "content"));
  MNEMO_ASSIGN_OR_RETURN(archivist::MemoryMdResult r,
                         archivist::UpdateMemoryMd(workspace, {.file = req.file,
                                                               .action = action,
                                                               .section_title = req.section_title,
                                                               .content = req.content}));
  return MemoryMdReport{.file = req.file, .bytes = r.bytes, .section_created = r.section_created};
}

}  // namespace mnemo
