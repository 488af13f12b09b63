// Segments of a conversation (spec 40): each turn continues the session's
// open segment or closes it and opens a new one at this turn; a closed
// segment is finalised (recap, events, profile facets) by FinalizeSegment,
// which the engine runs on a background worker.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "archivist/topics.h"
#include "embed/embedder.h"
#include "llm/chat_client.h"
#include "mnemo/status.h"
#include "storage/document_store.h"
#include "storage/episodic_store.h"
#include "storage/graph_store.h"
#include "storage/values.h"

namespace mnemo::archivist {

struct SegmentStep {
  std::string open_id;    // the segment this turn belongs to
  std::string closed_id;  // the segment this turn closed ("" = none)
  BoundaryReason reason = BoundaryReason::kNone;
};

// What a turn whose rows are `user` and `assistant` does to the session's
// segments in state `view` (the decision of EpisodicStore::StepSegment and
// RecordTurn); `step` receives the segment the turn belongs to and the one
// it closes, which only counts when the store applied the close.
// `turn_vector` may be empty.
storage::SegmentChange DecideSegment(const storage::SegmentView& view, const storage::TurnRow& user,
                                     const storage::TurnRow& assistant,
                                     std::string_view user_message,
                                     std::span<const float> turn_vector,
                                     const SegmentPolicy& policy, SegmentStep& step);

// After the turn's rows are stored, in a transaction of its own (IndexTurn
// steps the segment in the rows' transaction). `turn_vector` may be empty.
Result<SegmentStep> AdvanceSegment(storage::EpisodicStore& episodic, const storage::TurnRow& user,
                                   const storage::TurnRow& assistant, std::string_view user_message,
                                   std::span<const float> turn_vector, const SegmentPolicy& policy);

// Closes the open segment of (owner, session): its id, or "" when none was
// open (or another caller closed it first). Idempotent.
Result<std::string> CloseOpenSegment(storage::EpisodicStore& episodic, std::string_view owner,
                                     const SessionId& session_id, TimeMs now);

struct FinalizeOptions {
  int64_t token_budget = 2000;
  bool events = true;
  bool profile = true;
  llm::ChatClient* llm = nullptr;  // null: extractive recap only
  // Embeds recaps into the recap vectors of its signature (spec 40, point
  // 3); null: no recap vectors.
  embed::Embedder* embedder = nullptr;
  // The segment's raw prose becomes a document (spec 40 point 6,
  // learning.chat_to_documents_enabled).
  bool documents = true;
  // Told once per segment when `llm` could not give slot and event
  // candidates (down, timeout, an answer that is not the expected JSON):
  // the deterministic reading is kept. May be empty.
  std::function<void(const std::string&)> warn;
};

// The provenance of a segment's document:
// "agent://session/<s>/segment/<seg>#seq<a>-<b>", the session id
// percent-encoded (RFC 3986: every byte but unreserved ones).
std::string SegmentDocumentSource(const storage::SegmentRow& segment);
// The session and the span of turns a segment document's provenance names;
// nullopt when `source` is not one SegmentDocumentSource makes.
struct SegmentSpan {
  std::string session_id;  // decoded
  int64_t first_seq = 0;
  int64_t last_seq = 0;
};
std::optional<SegmentSpan> ParseSegmentDocumentSource(std::string_view source);
// "agent://session/<s>/segment/": what every segment document of session
// `session_id` starts with, and no other session's (the encoding has no '/').
std::string SessionDocumentSourcePrefix(std::string_view session_id);

// The segment's prose: one "<role>: <content>" paragraph per row with
// content, in seq order, separated by a blank line. Tool calls are not part
// of it (they are stored beside the rows).
std::string SegmentProse(std::span<const storage::TurnRow> rows);

// Stores the vector of `segment`'s recap for the embedder's signature; does
// nothing for an empty recap (or one with nothing to embed) or without an
// embedder.
Status EmbedRecap(storage::EpisodicStore& episodic, const storage::SegmentRow& segment,
                  embed::Embedder* embedder);

// Recap (LLM when available, else extractive; its source recorded), events
// from the segment's user rows, and their profile facets: the deterministic
// reading, and with an LLM the candidates it adds (archivist/profile/llm_candidates.h).
// A message that says a task is done closes it (archivist/event_closing.h). Run once per
// closed segment (CloseSegment decides which caller closed it).
Status FinalizeSegment(storage::EpisodicStore& episodic, storage::DocumentStore& documents,
                       storage::GraphStore& graph, std::string_view segment_id,
                       const FinalizeOptions& options, TimeMs now);

// Extractive recaps are re-summarised once an LLM answers (spec 40): at most
// kResummariseBatch segments per pass, kResummariseAttempts attempts each.
inline constexpr int kResummariseBatch = 3;
inline constexpr int64_t kResummariseAttempts = 2;

// One pass; returns how many recaps the LLM replaced. Does nothing without
// an LLM.
Result<int> ResummarisePass(storage::EpisodicStore& episodic, const FinalizeOptions& options);

}  // namespace mnemo::archivist
