#include "archivist/segments.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <utility>
#include <vector>

#include "archivist/event_closing.h"
#include "archivist/events.h"
#include "archivist/profile/llm_candidates.h"
#include "archivist/profile/profile.h"
#include "archivist/profile/slot_graph.h"
#include "archivist/profile/slots.h"
#include "archivist/recap.h"
#include "base/uuid.h"
#include "context/documents.h"
#include "text/pipeline/query.h"

namespace mnemo::archivist {
namespace {

// Turns in the rows first_seq..last_seq (each turn is a user and an
// assistant row with consecutive seqs).
int64_t TurnsBetween(int64_t first_seq, int64_t last_seq) { return (last_seq - first_seq + 1) / 2; }

// A new open segment from `first_seq` (the first turn no segment covers yet,
// so turns still on their way join it) to this turn.
storage::SegmentRow NewSegment(int64_t first_seq, const storage::TurnRow& user,
                               const storage::TurnRow& assistant, std::span<const float> vector) {
  return storage::SegmentRow{.id = mnemo::internal::NewUuidV4(),
                             .owner = user.owner,
                             .session_id = user.session_id,
                             .status = "open",
                             .first_seq = first_seq,
                             .last_seq = assistant.seq,
                             .turn_count = TurnsBetween(first_seq, assistant.seq),
                             .started_at = user.timestamp_ms,
                             .last_turn_at = user.timestamp_ms,
                             .centroid = std::vector<float>(vector.begin(), vector.end())};
}

}  // namespace

storage::SegmentChange DecideSegment(const storage::SegmentView& view, const storage::TurnRow& user,
                                     const storage::TurnRow& assistant,
                                     std::string_view user_message,
                                     std::span<const float> turn_vector,
                                     const SegmentPolicy& policy, SegmentStep& step) {
  step = SegmentStep();
  storage::SegmentChange change;
  if (user.seq < view.next_seq && (!view.open || user.seq < view.open->first_seq)) {
    // Already inside a closed segment's range.
    return change;
  }
  if (!view.open) {
    change.put = NewSegment(view.next_seq, user, assistant, turn_vector);
    step.open_id = change.put->id;
    return change;
  }
  const storage::SegmentRow& open = *view.open;
  step.reason = SegmentBoundary(
      {.turn_count = open.turn_count,
       .last_turn_at_ms = open.last_turn_at,
       .centroid = open.centroid},
      {.timestamp_ms = user.timestamp_ms, .user_message = user_message, .vector = turn_vector},
      policy);
  if (step.reason == BoundaryReason::kNone || user.seq <= open.last_seq) {
    // Continues the segment (a turn inside the open range always does).
    storage::SegmentRow extended = open;
    UpdateCentroid(extended.centroid, open.turn_count, turn_vector);
    extended.last_seq = std::max(open.last_seq, assistant.seq);
    extended.turn_count = TurnsBetween(extended.first_seq, extended.last_seq);
    extended.last_turn_at = std::max(open.last_turn_at, user.timestamp_ms);
    step.reason = BoundaryReason::kNone;
    step.open_id = open.id;
    change.put = std::move(extended);
    return change;
  }
  change.close_open = true;
  change.closed_at = user.timestamp_ms;
  step.closed_id = open.id;
  change.put = NewSegment(open.last_seq + 1, user, assistant, turn_vector);
  step.open_id = change.put->id;
  return change;
}

// Turns run concurrently (threads, processes): their rows get consecutive
// seqs when stored, but they may reach this step in any order. The whole
// read-decide-write happens in one storage transaction (StepSegment), and
// segments tile the session's seqs: a new segment starts right after the
// last covered row, so a turn that is still on its way is never left out,
// and a turn that arrives after its rows were covered by a closed segment
// changes nothing.
Result<SegmentStep> AdvanceSegment(storage::EpisodicStore& episodic, const storage::TurnRow& user,
                                   const storage::TurnRow& assistant, std::string_view user_message,
                                   std::span<const float> turn_vector,
                                   const SegmentPolicy& policy) {
  SegmentStep step;
  auto decide = [&](const storage::SegmentView& view) -> Result<storage::SegmentChange> {
    return DecideSegment(view, user, assistant, user_message, turn_vector, policy, step);
  };
  MNEMO_ASSIGN_OR_RETURN(SessionId session, SessionId::Parse(user.session_id));
  MNEMO_ASSIGN_OR_RETURN(storage::SegmentChange applied,
                         episodic.StepSegment(user.owner, session, decide));
  // Only the call whose close was applied finalises the segment.
  if (!applied.close_open) step.closed_id.clear();
  return step;
}

Result<std::string> CloseOpenSegment(storage::EpisodicStore& episodic, std::string_view owner,
                                     const SessionId& session_id, TimeMs now) {
  MNEMO_ASSIGN_OR_RETURN(std::optional<storage::SegmentRow> open,
                         episodic.OpenSegment(owner, session_id));
  if (!open) return std::string();
  MNEMO_ASSIGN_OR_RETURN(bool closed, episodic.CloseSegment(open->id, now));
  return closed ? open->id : std::string();
}

namespace {

// The (role, text) turns of a segment, for the recap prompt.
Result<std::vector<std::pair<std::string, std::string>>> RecapTurns(
    storage::EpisodicStore& episodic, const storage::SegmentRow& segment) {
  MNEMO_ASSIGN_OR_RETURN(SessionId session, SessionId::Parse(segment.session_id));
  MNEMO_ASSIGN_OR_RETURN(
      std::vector<storage::TurnRow> rows,
      episodic.SessionTurns(segment.owner, session, segment.first_seq, segment.last_seq));
  std::vector<std::pair<std::string, std::string>> turns;
  for (storage::TurnRow& r : rows) {
    if (!r.content.empty()) turns.emplace_back(std::move(r.role), std::move(r.content));
  }
  return turns;
}

// Open tasks (commitments, reminders) read per done statement: the best
// matches of its words, or the newest when it names its object by a
// pronoun.
constexpr int kOpenTaskCandidates = 20;

struct OpenTask {
  storage::EventRow* pending = nullptr;  // this segment's, not stored yet
  std::string id;                        // a stored one's
  TimeMs created_at = 0;
  Task task;
};

// The open tasks `done` (stated in `sentence`) may close, newest first:
// this segment's `pending` events, then `owner`'s stored ones.
Result<std::vector<OpenTask>> OpenTasksFor(storage::EpisodicStore& episodic, std::string_view owner,
                                           std::string_view sentence, const Task& done,
                                           std::vector<storage::EventRow>& pending) {
  std::vector<OpenTask> out;
  for (size_t i = pending.size(); i-- > 0;) {
    storage::EventRow& e = pending[i];
    if (!IsClosableEvent(e.type) || e.closed_at != 0) continue;
    if (std::optional<Task> task = TaskOf(e.text)) {
      out.push_back({.pending = &e, .task = std::move(*task)});
    }
  }
  std::vector<OpenTask> stored;
  const std::vector<std::string> terms = done.pronoun && done.objects.empty()
                                             ? std::vector<std::string>()
                                             : text::QueryTerms(sentence);
  for (std::string_view type : {kEventCommitment, kEventReminder}) {
    MNEMO_ASSIGN_OR_RETURN(std::vector<storage::EventHit> hits,
                           episodic.SearchEvents({.type = std::string(type),
                                                  .terms = terms,
                                                  .all = false,
                                                  .owner = std::string(owner),
                                                  .limit = kOpenTaskCandidates}));
    for (storage::EventHit& h : hits) {
      if (h.row.closed_at != 0) continue;
      if (std::optional<Task> task = TaskOf(h.row.text)) {
        stored.push_back(
            {.id = std::move(h.row.id), .created_at = h.row.created_at, .task = std::move(*task)});
      }
    }
  }
  std::stable_sort(stored.begin(), stored.end(), [](const OpenTask& a, const OpenTask& b) {
    return a.created_at > b.created_at;
  });
  for (OpenTask& t : stored) out.push_back(std::move(t));
  return out;
}

// Closes the open tasks that `message` says are done (event_closing.h), at
// `when`: this segment's `pending` events in place, stored ones in the
// store. A statement that names its object by a pronoun closes the newest
// task of its verb only.
Status CloseDoneTasks(storage::EpisodicStore& episodic, std::string_view owner,
                      std::string_view message, TimeMs when,
                      std::vector<storage::EventRow>& pending) {
  for (const std::string& sentence : EventSentences(message)) {
    for (const Task& done : DoneStatements(sentence)) {
      MNEMO_ASSIGN_OR_RETURN(std::vector<OpenTask> open,
                             OpenTasksFor(episodic, owner, sentence, done, pending));
      for (OpenTask& t : open) {
        if (!Closes(done, t.task)) continue;
        if (t.pending != nullptr) {
          t.pending->closed_at = when;
        } else {
          MNEMO_RETURN_IF_ERROR(episodic.CloseEvent(t.id, when).status());
        }
        if (done.pronoun && done.objects.empty()) break;
      }
    }
  }
  return Status::Ok();
}

// The slot and event candidates of the segment's user messages from the
// LLM; nullopt without one, or when it fails (told through options.warn).
std::optional<llm::Candidates> AskForCandidates(std::span<const storage::TurnRow> rows,
                                                const FinalizeOptions& options) {
  if (options.llm == nullptr) return std::nullopt;
  std::vector<std::string> messages;
  for (const storage::TurnRow& r : rows) {
    if (r.role == "user" && !r.content.empty()) messages.push_back(r.content);
  }
  if (messages.empty()) return std::nullopt;
  Result<std::string> answer =
      options.llm->Complete(llm::CandidatesPrompt(messages, kSlotKeys), llm::kCandidatesMaxTokens);
  Result<llm::Candidates> read =
      answer.ok() ? llm::ParseCandidates(*answer) : Result<llm::Candidates>(answer.status());
  if (read.ok()) return std::move(*read);
  if (options.warn) {
    options.warn("LLM slot and event candidates unavailable, the deterministic reading is kept: " +
                 read.status().message());
  }
  return std::nullopt;
}

}  // namespace

std::string SessionDocumentSourcePrefix(std::string_view session_id) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out = "agent://session/";
  for (const char c : session_id) {
    const auto b = static_cast<unsigned char>(c);
    if ((b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9') || b == '-' ||
        b == '.' || b == '_' || b == '~') {
      out += c;
    } else {
      out += '%';
      out += kHex[b >> 4];
      out += kHex[b & 0xF];
    }
  }
  out += "/segment/";
  return out;
}

std::optional<SegmentSpan> ParseSegmentDocumentSource(std::string_view source) {
  constexpr std::string_view kScheme = "agent://session/";
  constexpr std::string_view kSegment = "/segment/";
  constexpr std::string_view kSeq = "#seq";
  if (!source.starts_with(kScheme)) return std::nullopt;
  source.remove_prefix(kScheme.size());
  const size_t seg = source.find(kSegment);
  const size_t hash = source.rfind(kSeq);
  if (seg == std::string_view::npos || hash == std::string_view::npos || hash < seg) {
    return std::nullopt;
  }
  SegmentSpan span;
  for (size_t i = 0; i < seg; ++i) {
    if (source[i] != '%') {
      span.session_id += source[i];
      continue;
    }
    unsigned byte = 0;
    if (i + 2 >= seg ||
        std::sscanf(std::string(source.substr(i + 1, 2)).c_str(), "%2x", &byte) != 1) {
      return std::nullopt;
    }
    span.session_id += static_cast<char>(byte);
    i += 2;
  }
  const std::string range(source.substr(hash + kSeq.size()));
  char tail = 0;
  if (std::sscanf(range.c_str(), "%" SCNd64 "-%" SCNd64 "%c", &span.first_seq, &span.last_seq,
                  &tail) != 2) {
    return std::nullopt;
  }
  return span;
}

std::string SegmentDocumentSource(const storage::SegmentRow& segment) {
  return SessionDocumentSourcePrefix(segment.session_id) + segment.id + "#seq" +
         std::to_string(segment.first_seq) + "-" + std::to_string(segment.last_seq);
}

std::string SegmentProse(std::span<const storage::TurnRow> rows) {
  std::string prose;
  for (const storage::TurnRow& r : rows) {
    if (r.content.empty()) continue;
    if (!prose.empty()) prose += "\n\n";
    prose += r.role;
    prose += ": ";
    prose += r.content;
  }
  return prose;
}

Status EmbedRecap(storage::EpisodicStore& episodic, const storage::SegmentRow& segment,
                  embed::Embedder* embedder) {
  if (embedder == nullptr || segment.recap.empty()) return Status::Ok();
  MNEMO_ASSIGN_OR_RETURN(std::vector<embed::Vector> vectors,
                         embedder->Embed(std::span<const std::string>(&segment.recap, 1)));
  if (vectors.size() != 1 || embed::IsZeroVector(vectors[0])) return Status::Ok();
  return episodic.PutSegmentVector(segment.id, embedder->signature(), vectors[0]);
}

Result<int> ResummarisePass(storage::EpisodicStore& episodic, const FinalizeOptions& options) {
  if (options.llm == nullptr) return 0;
  MNEMO_ASSIGN_OR_RETURN(std::vector<storage::SegmentRow> pending,
                         episodic.SegmentsNeedingRecap(kResummariseBatch, kResummariseAttempts));
  int replaced = 0;
  for (storage::SegmentRow& segment : pending) {
    MNEMO_ASSIGN_OR_RETURN(auto turns, RecapTurns(episodic, segment));
    ++segment.recap_attempts;
    Result<std::string> summary =
        turns.empty() ? Result<std::string>(Unavailable("no turns"))
                      : options.llm->Complete(llm::RecapPrompt(turns, options.token_budget),
                                              options.token_budget);
    const bool ok = summary.ok();
    if (ok) {
      segment.recap = std::move(*summary);
      segment.recap_source = "llm";
      ++replaced;
    }
    MNEMO_RETURN_IF_ERROR(episodic.PutSegment(segment));
    // The replaced recap replaces its vector; an embedder failure leaves the
    // recap without one until the next change (logged by the caller).
    if (ok) MNEMO_RETURN_IF_ERROR(EmbedRecap(episodic, segment, options.embedder));
  }
  return replaced;
}

Status FinalizeSegment(storage::EpisodicStore& episodic, storage::DocumentStore& documents,
                       storage::GraphStore& graph, std::string_view segment_id,
                       const FinalizeOptions& options, TimeMs now) {
  MNEMO_ASSIGN_OR_RETURN(std::optional<storage::SegmentRow> segment,
                         episodic.GetSegment(segment_id));
  if (!segment) return NotFound("no segment " + std::string(segment_id));
  // Selected by sequence number, never by timestamp (spec 40 fix).
  MNEMO_ASSIGN_OR_RETURN(SessionId session, SessionId::Parse(segment->session_id));
  MNEMO_ASSIGN_OR_RETURN(
      std::vector<storage::TurnRow> rows,
      episodic.SessionTurns(segment->owner, session, segment->first_seq, segment->last_seq));
  std::vector<std::string> texts;
  std::vector<std::pair<std::string, std::string>> turns;
  for (const storage::TurnRow& r : rows) {
    if (r.content.empty()) continue;
    texts.push_back(r.content);
    turns.emplace_back(r.role, r.content);
  }
  Status recap_vector = Status::Ok();
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
    MNEMO_RETURN_IF_ERROR(episodic.PutSegment(*segment));
    // A remote embedder that cannot answer must not cost the events: its
    // error is reported once the rest is done.
    recap_vector = EmbedRecap(episodic, *segment, options.embedder);
  }
  // Evidence, not interpretation (spec 40 point 6): the turns themselves,
  // never the recap.
  // The user's slot triples follow the profile (slot_graph.h): the chat's
  // text gives them only while the profile is not kept.
  const bool slots_in_graph = options.events && options.profile;
  const std::string source = SegmentDocumentSource(*segment);
  const std::string slot_source = SlotStatementSource(segment->session_id, segment->id);
  if (options.documents) {
    std::string prose = SegmentProse(rows);
    if (!prose.empty()) {
      std::string computation = prose;
      MNEMO_RETURN_IF_ERROR(
          context::StoreDocument(
              documents, graph,
              {.owner = segment->owner,
               .source = source,
               .content = std::move(prose),
               .computation_text = std::move(computation),
               .now = now,
               .user_predicate_elsewhere = slots_in_graph ? &IsSlotPredicate : nullptr})
              .status());
    }
  }
  if (!options.events) return recap_vector;
  const std::optional<llm::Candidates> candidates = AskForCandidates(rows, options);
  std::vector<storage::EventRow> events;
  for (const storage::TurnRow& r : rows) {
    if (r.role != "user") continue;
    std::vector<Facet> facets = FacetsFromMessage(r.content, segment->id);
    std::vector<Event> found = ExtractEvents(r.content);
    if (candidates) {
      LlmFindings more = ValidateCandidates(*candidates, r.content, facets, found, segment->id);
      for (Facet& f : more.facets) facets.push_back(std::move(f));
      for (Event& e : more.events) found.push_back(std::move(e));
    }
    if (options.profile) {
      for (Facet& f : facets) {
        // A list slot's item joins the current list in storage, which
        // records the item alone so that erasing it takes it off the list.
        const bool joins = f.facet_type == kFacetContext && IsListSlot(f.key);
        MNEMO_ASSIGN_OR_RETURN(
            storage::FacetRow stored,
            episodic.MergeFacet({.owner = segment->owner,
                                 .facet_type = std::move(f.facet_type),
                                 .key = std::move(f.key),
                                 .value = std::move(f.value),
                                 .confidence = f.confidence,
                                 .evidence_count = 1,
                                 .segment_ids = std::move(f.segment_ids),
                                 .updated_at = now,
                                 // Supersession goes by when it was said.
                                 .valid_from = r.timestamp_ms != 0 ? r.timestamp_ms : now,
                                 .evidence = std::move(f.evidence),
                                 // Evidence is counted, and erased, per turn.
                                 .session_id = segment->session_id,
                                 .seq = r.seq,
                                 .joins = joins}));
        MNEMO_RETURN_IF_ERROR(SyncSlotTriple(graph, stored, slot_source, now));
      }
    }
    // What this message says is done closes the tasks stated before it.
    MNEMO_RETURN_IF_ERROR(CloseDoneTasks(episodic, segment->owner, r.content,
                                         r.timestamp_ms != 0 ? r.timestamp_ms : now, events));
    for (Event& e : found) {
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
  MNEMO_RETURN_IF_ERROR(episodic.AddEvents(events).status());
  return recap_vector;
}

}  // namespace mnemo::archivist
