#include "archivist/segments.h"

#include <utility>
#include <vector>

#include "archivist/events.h"
#include "archivist/profile.h"
#include "archivist/recap.h"
#include "base/uuid.h"

namespace mnemo::archivist {
namespace {

storage::SegmentRow NewSegment(const storage::TurnRow& user, const storage::TurnRow& assistant,
                               std::span<const float> vector) {
  return storage::SegmentRow{.id = mnemo::internal::NewUuidV4(),
                             .owner = user.owner,
                             .session_id = user.session_id,
                             .status = "open",
                             .first_seq = user.seq,
                             .last_seq = assistant.seq,
                             .turn_count = 1,
                             .started_at = user.timestamp_ms,
                             .last_turn_at = user.timestamp_ms,
                             .centroid = std::vector<float>(vector.begin(), vector.end())};
}

}  // namespace

Result<SegmentStep> AdvanceSegment(storage::Backend& backend, const storage::TurnRow& user,
                                   const storage::TurnRow& assistant, std::string_view user_message,
                                   std::span<const float> turn_vector,
                                   const SegmentPolicy& policy) {
  SegmentStep step;
  MNEMO_ASSIGN_OR_RETURN(std::optional<storage::SegmentRow> open,
                         backend.OpenSegment(user.owner, user.session_id));
  if (open) {
    step.reason = SegmentBoundary(
        {.turn_count = open->turn_count,
         .last_turn_at_ms = open->last_turn_at,
         .centroid = open->centroid},
        {.timestamp_ms = user.timestamp_ms, .user_message = user_message, .vector = turn_vector},
        policy);
    if (step.reason == BoundaryReason::kNone) {
      UpdateCentroid(open->centroid, open->turn_count, turn_vector);
      open->last_seq = assistant.seq;
      open->turn_count += 1;
      open->last_turn_at = std::max(open->last_turn_at, user.timestamp_ms);
      MNEMO_RETURN_IF_ERROR(backend.PutSegment(*open));
      step.open_id = open->id;
      return step;
    }
    MNEMO_ASSIGN_OR_RETURN(bool closed, backend.CloseSegment(open->id, user.timestamp_ms));
    if (closed) step.closed_id = open->id;
  }
  storage::SegmentRow fresh = NewSegment(user, assistant, turn_vector);
  MNEMO_RETURN_IF_ERROR(backend.PutSegment(fresh));
  step.open_id = fresh.id;
  return step;
}

Result<std::string> CloseOpenSegment(storage::Backend& backend, std::string_view owner,
                                     std::string_view session_id, TimeMs now) {
  MNEMO_ASSIGN_OR_RETURN(std::optional<storage::SegmentRow> open,
                         backend.OpenSegment(owner, session_id));
  if (!open) return std::string();
  MNEMO_ASSIGN_OR_RETURN(bool closed, backend.CloseSegment(open->id, now));
  return closed ? open->id : std::string();
}

namespace {

// The (role, text) turns of a segment, for the recap prompt.
Result<std::vector<std::pair<std::string, std::string>>> RecapTurns(
    storage::Backend& backend, const storage::SegmentRow& segment) {
  MNEMO_ASSIGN_OR_RETURN(
      std::vector<storage::TurnRow> rows,
      backend.SessionTurns(segment.owner, segment.session_id, segment.first_seq, segment.last_seq));
  std::vector<std::pair<std::string, std::string>> turns;
  for (storage::TurnRow& r : rows) {
    if (!r.content.empty()) turns.emplace_back(std::move(r.role), std::move(r.content));
  }
  return turns;
}

}  // namespace

Result<int> ResummarisePass(storage::Backend& backend, const FinalizeOptions& options) {
  if (options.llm == nullptr) return 0;
  MNEMO_ASSIGN_OR_RETURN(std::vector<storage::SegmentRow> pending,
                         backend.SegmentsNeedingRecap(kResummariseBatch, kResummariseAttempts));
  int replaced = 0;
  for (storage::SegmentRow& segment : pending) {
    MNEMO_ASSIGN_OR_RETURN(auto turns, RecapTurns(backend, segment));
    ++segment.recap_attempts;
    Result<std::string> summary =
        turns.empty() ? Result<std::string>(Unavailable("no turns"))
                      : options.llm->Complete(llm::RecapPrompt(turns, options.token_budget),
                                              options.token_budget);
    if (summary.ok()) {
      segment.recap = std::move(*summary);
      segment.recap_source = "llm";
      ++replaced;
    }
    MNEMO_RETURN_IF_ERROR(backend.PutSegment(segment));
  }
  return replaced;
}

Status FinalizeSegment(storage::Backend& backend, std::string_view segment_id,
                       const FinalizeOptions& options, TimeMs now) {
  MNEMO_ASSIGN_OR_RETURN(std::optional<storage::SegmentRow> segment,
                         backend.GetSegment(segment_id));
  if (!segment) return NotFound("no segment " + std::string(segment_id));
  // Selected by sequence number, never by timestamp (spec 40 fix).
  MNEMO_ASSIGN_OR_RETURN(std::vector<storage::TurnRow> rows,
                         backend.SessionTurns(segment->owner, segment->session_id,
                                              segment->first_seq, segment->last_seq));
  std::vector<std::string> texts;
  std::vector<std::pair<std::string, std::string>> turns;
  for (const storage::TurnRow& r : rows) {
    if (r.content.empty()) continue;
    texts.push_back(r.content);
    turns.emplace_back(r.role, r.content);
  }
  if (segment->recap.empty() || segment->recap_source != "llm") {
    std::string recap;
    std::string source = "extractive";
    if (options.llm != nullptr && !turns.empty()) {
      Result<std::string> summary = options.llm->Complete(
          llm::RecapPrompt(turns, options.token_budget), options.token_budget);
      if (summary.ok()) {
        recap = std::move(*summary);
        source = "llm";
      }
    }
    if (source != "llm") recap = ExtractiveRecap(texts, options.token_budget);
    segment->recap = std::move(recap);
    segment->recap_source = texts.empty() ? "" : source;
    MNEMO_RETURN_IF_ERROR(backend.PutSegment(*segment));
  }
  if (!options.events) return Status::Ok();
  std::vector<storage::EventRow> events;
  for (const storage::TurnRow& r : rows) {
    if (r.role != "user") continue;
    for (Event& e : ExtractEvents(r.content)) {
      if (options.profile) {
        if (std::optional<Facet> f = FacetFromEvent(e, segment->id)) {
          MNEMO_RETURN_IF_ERROR(backend
                                    .MergeFacet({.owner = segment->owner,
                                                 .facet_type = f->facet_type,
                                                 .key = f->key,
                                                 .value = f->value,
                                                 .confidence = f->confidence,
                                                 .evidence_count = 1,
                                                 .segment_ids = f->segment_ids,
                                                 .updated_at = now})
                                    .status());
        }
      }
      events.push_back({.id = mnemo::internal::NewUuidV4(),
                        .owner = segment->owner,
                        .session_id = segment->session_id,
                        .segment_id = segment->id,
                        .type = std::move(e.type),
                        .text = std::move(e.text),
                        .confidence = e.confidence,
                        .created_at = now});
    }
  }
  return backend.AddEvents(events).status();
}

}  // namespace mnemo::archivist
