// The Archivist service's reads (core/archivist/archivist_options.h): episodic
// search, a session's turns, segments, events, recaps for recall, the
// profile and MEMORY.md.

#include <algorithm>
#include <map>

#include "archivist/archive/memory_md.h"
#include "archivist/profile/profile.h"
#include "archivist/profile/slot_graph.h"
#include "core/access.h"
#include "core/archivist/archivist_options.h"
#include "core/archivist/public_episodic.h"
#include "core/audit_record.h"
#include "core/search/fusion.h"
#include "core/search/search_query.h"
#include "core/search/turn_ranking.h"
#include "core/validation.h"
#include "storage/values.h"
#include "text/pipeline/query.h"
#include "text/snippet.h"
#include "text/strip.h"

namespace mnemo {
namespace {

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

// Facets stated through memory.profile_put (spec 40).
constexpr double kStatedConfidence = 0.9;

}  // namespace

ProfileFacet ToProfileFacet(storage::FacetRow r) {
  ProfileFacet f{.owner = std::move(r.owner),
                 .facet_type = std::move(r.facet_type),
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

Result<std::vector<EpisodicHit>> Archivist::EpisodicSearch(const Principal& who,
                                                           const EpisodicQuery& q) {
  internal::AuditRecord audit(audit_, who, "memory.episodic_search");
  return audit.End([&]() -> Result<std::vector<EpisodicHit>> {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->memory_enabled));
    MNEMO_RETURN_IF_ERROR(Query::Parse(q.query).status());
    if (q.limit < 1 || q.limit > kMaxResults) {
      return InvalidArgument("limit must be between 1 and " + std::to_string(kMaxResults), "limit");
    }
    std::optional<SessionId> session;
    if (q.session_id) {
      MNEMO_ASSIGN_OR_RETURN(session, SessionId::Parse(*q.session_id));
    }
    MNEMO_RETURN_IF_ERROR(ValidateContextTurns(q.context_turns));
    // The window and the recency weight by the search's own types, parsed
    // here as Memory::Search parses them (core/search/search_query.h).
    MNEMO_ASSIGN_OR_RETURN(const Window window, Window::Parse(q.window));
    if (q.agent_id) MNEMO_RETURN_IF_ERROR(ValidateKey(*q.agent_id, "agent_id"));
    MNEMO_ASSIGN_OR_RETURN(const RecencyWeight recency, RecencyWeight::Parse(q.recency_weight));
    storage::TurnQuery query{.terms = text::QueryTerms(q.query),
                             .session_id = std::move(session),
                             .all = !options_->acl_enabled,
                             .owner = who.name,
                             .limit = q.limit,
                             .since = window.get().since,
                             .until = window.get().until,
                             .agent_id = q.agent_id};
    MNEMO_ASSIGN_OR_RETURN(
        std::vector<RankedTurn> hits,
        RankTurnsInConversation(episodic_, query, {.weight = recency, .now = clock_->NowMs()},
                                {.matcher = vectors_.soft_matcher(), .query = q.query}));
    std::vector<EpisodicHit> out;
    out.reserve(hits.size());
    for (RankedTurn& h : hits) {
      EpisodicHit hit{.score = h.score};
      hit.snippet =
          text::MakeSnippet(ReadableTurnText(h.row, query.terms, &tools_.registry()), query.terms);
      MNEMO_ASSIGN_OR_RETURN(std::vector<storage::TurnRow> near,
                             NeighbourTurns(episodic_, h.row, q.context_turns));
      for (storage::TurnRow& r : near) hit.context.push_back(ToEpisodicTurn(std::move(r)));
      hit.turn = ToEpisodicTurn(std::move(h.row));
      out.push_back(std::move(hit));
    }
    return out;
  }());
}

Result<std::vector<EpisodicTurn>> Archivist::SessionTurns(const Principal& who,
                                                          std::string_view session_id) {
  internal::AuditRecord audit(audit_, who, "memory.session_turns");
  return audit.End([&]() -> Result<std::vector<EpisodicTurn>> {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->memory_enabled));
    MNEMO_ASSIGN_OR_RETURN(SessionId session, SessionId::Parse(std::string(session_id)));
    MNEMO_ASSIGN_OR_RETURN(std::vector<storage::TurnRow> rows,
                           episodic_.SessionTurns(who.name, session, 0, INT64_MAX));
    std::vector<EpisodicTurn> out;
    out.reserve(rows.size());
    for (storage::TurnRow& r : rows) out.push_back(ToEpisodicTurn(std::move(r)));
    return out;
  }());
}

Result<std::vector<RecallHit>> Archivist::RecallRecaps(const std::string& query,
                                                       const std::vector<std::string>& terms,
                                                       int limit, const std::string& owner) {
  const size_t k = static_cast<size_t>(std::max(4 * limit, 40));
  const std::optional<std::string> scope =
      owner.empty() ? std::nullopt : std::optional<std::string>(owner);
  MNEMO_ASSIGN_OR_RETURN(
      std::vector<storage::SegmentHit> keyword,
      episodic_.SearchSegments({.terms = terms, .owner = scope, .limit = static_cast<int>(k)}));
  std::vector<float> q;
  if (recaps_ != nullptr) {
    const std::string read(text::QueryText(query));  // what the keyword terms read
    auto embedded = vectors_.embedder()->Embed(std::span<const std::string>(&read, 1));
    // Without a query vector (embedder down, nothing to embed) recaps are
    // ranked by their keyword side alone, as entries are.
    if (embedded.ok() && embedded->size() == 1 && !embed::IsZeroVector((*embedded)[0])) {
      q = std::move((*embedded)[0]);
    }
  }
  std::map<std::string, size_t> at;
  std::vector<storage::SegmentRow> rows;
  std::vector<FusionInput> inputs;
  double vector_floor = 0;
  for (storage::SegmentHit& h : keyword) {
    at.emplace(h.row.id, rows.size());
    inputs.push_back({.keyword = h.score, .updated_at = h.row.closed_at});
    rows.push_back(std::move(h.row));
  }
  if (!q.empty()) {
    MNEMO_ASSIGN_OR_RETURN(std::vector<RecapVectors::Hit> near, recaps_->Nearest(q, k, scope));
    std::vector<double> side;
    side.reserve(near.size());
    for (const RecapVectors::Hit& n : near) side.push_back(std::clamp(n.cosine, 0.0, 1.0));
    vector_floor = VectorFloor(side, k);
    for (const RecapVectors::Hit& n : near) {
      const double cosine = std::clamp(n.cosine, 0.0, 1.0);
      if (auto it = at.find(n.segment_id); it != at.end()) {
        inputs[it->second].vector = cosine;
        continue;
      }
      MNEMO_ASSIGN_OR_RETURN(std::optional<storage::SegmentRow> row,
                             episodic_.GetSegment(n.segment_id));
      if (!row || row->status != "closed" || row->recap.empty()) continue;
      at.emplace(row->id, rows.size());
      inputs.push_back({.vector = cosine, .updated_at = row->closed_at});
      rows.push_back(std::move(*row));
    }
    // Keyword hits beyond the vector side's k still get their cosine.
    for (size_t i = 0; i < rows.size(); ++i) {
      if (!inputs[i].vector) {
        if (auto c = recaps_->Cosine(q, rows[i].id)) inputs[i].vector = std::clamp(*c, 0.0, 1.0);
      }
    }
  }
  for (size_t i = 0; i < rows.size(); ++i) inputs[i].key = rows[i].id;
  FusionOptions fusion = FusionOptionsOf(options_->search, /*vector_side=*/!q.empty());
  fusion.vector_floor = vector_floor;
  const std::vector<double> scores = FuseScores(inputs, fusion);
  std::vector<RecallHit> out;
  for (size_t i : RankOrder(inputs, scores)) {
    if (static_cast<int>(out.size()) == limit) break;
    if (scores[i] < options_->search.min_relevance_score) break;
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

Result<std::vector<SegmentInfo>> Archivist::Segments(const Principal& who,
                                                     std::string_view session_id) {
  internal::AuditRecord audit(audit_, who, "memory.segments");
  return audit.End([&]() -> Result<std::vector<SegmentInfo>> {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->memory_enabled));
    std::optional<SessionId> session;
    if (!session_id.empty()) {
      MNEMO_ASSIGN_OR_RETURN(session, SessionId::Parse(std::string(session_id)));
    }
    MNEMO_ASSIGN_OR_RETURN(std::vector<storage::SegmentRow> rows,
                           episodic_.Segments(!options_->acl_enabled, who.name, session));
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
  }());
}

Result<std::vector<EventInfo>> Archivist::Events(const Principal& who, const EventsQuery& q) {
  internal::AuditRecord audit(audit_, who, "memory.events");
  return audit.End([&]() -> Result<std::vector<EventInfo>> {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->memory_enabled));
    if (q.limit < 1 || q.limit > kMaxResults) {
      return InvalidArgument("limit must be between 1 and " + std::to_string(kMaxResults), "limit");
    }
    storage::EventQuery query{.type = q.type,
                              .terms = text::QueryTerms(q.query),
                              .all = !options_->acl_enabled,
                              .owner = who.name,
                              .limit = q.limit};
    MNEMO_ASSIGN_OR_RETURN(std::vector<storage::EventHit> hits, episodic_.SearchEvents(query));
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
                     .score = h.score,
                     .closed_at = h.row.closed_at});
    }
    return out;
  }());
}

Result<std::vector<ProfileFacet>> Archivist::Profile(const Principal& who,
                                                     const ProfileRequest& req) {
  MNEMO_ASSIGN_OR_RETURN(std::vector<storage::FacetRow> rows,
                         episodic_.Facets(!options_->acl_enabled, who.name));
  std::vector<ProfileFacet> out;
  out.reserve(rows.size());
  for (storage::FacetRow& r : rows) {
    ProfileFacet f = ToProfileFacet(std::move(r));
    if (req.as_of) {
      std::optional<ProfileFacet> then = FacetAsOf(std::move(f), *req.as_of);
      if (!then) continue;
      f = std::move(*then);
    }
    // A slot whose value was ended ("I no longer work at …") has none now.
    if (!f.value.empty()) out.push_back(std::move(f));
  }
  return out;
}

Result<ProfileFacet> Archivist::ProfilePut(const Principal& who, std::string_view facet_type,
                                           std::string_view key, std::string_view value) {
  MNEMO_RETURN_IF_ERROR(ValidateCategory(facet_type, "facet_type"));
  MNEMO_RETURN_IF_ERROR(ValidateKey(key, "key"));
  MNEMO_RETURN_IF_ERROR(ValidateFacetValue(value, "value"));
  MNEMO_RETURN_IF_ERROR(CheckSecret(options_->secrets, value, "value"));
  // Stated at 0.9, a correction supersedes the current value (spec 40 §5):
  // the old one goes to the history and the count restarts.
  const TimeMs now = clock_->NowMs();
  MNEMO_ASSIGN_OR_RETURN(storage::FacetRow r,
                         episodic_.MergeFacet({.owner = who.name,
                                               .facet_type = std::string(facet_type),
                                               .key = std::string(key),
                                               .value = std::string(value),
                                               .confidence = kStatedConfidence,
                                               .evidence_count = 1,
                                               .updated_at = now,
                                               .valid_from = now}));
  // A slot's triple follows its value (archivist/profile/slot_graph.h).
  MNEMO_RETURN_IF_ERROR(archivist::SyncSlotTriple(graph_, r, archivist::kStatedSlotSource, now));
  return ToProfileFacet(std::move(r));
}

Result<std::string> Archivist::ProfileRender(const Principal& who) {
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

Result<MemoryMdReport> Archivist::UpdateMemoryMd(const Principal& who, const MemoryMdRequest& req) {
  internal::AuditRecord audit(audit_, who, "memory.update_memory_md");
  return audit.End([&]() -> Result<MemoryMdReport> {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->memory_enabled));
    if (!IsAdmin(who, options_->acl_enabled)) {
      return PermissionDenied(
          "writing MEMORY.md or SKILL.md needs the admin role: every principal's agent reads them");
    }
    MNEMO_ASSIGN_OR_RETURN(archivist::MemoryMdAction action,
                           archivist::ParseMemoryMdAction(req.action));
    MNEMO_RETURN_IF_ERROR(CheckSecret(options_->secrets, req.content, "content"));
    MNEMO_ASSIGN_OR_RETURN(
        archivist::MemoryMdResult r,
        archivist::UpdateMemoryMd(options_->workspace, {.file = req.file,
                                                        .action = action,
                                                        .section_title = req.section_title,
                                                        .content = req.content}));
    return MemoryMdReport{.file = req.file, .bytes = r.bytes, .section_created = r.section_created};
  }());
}

}  // namespace mnemo
