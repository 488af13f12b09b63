// Episodic rows of the Archivist (spec 40): every turn through
// memory.turn_complete becomes a user row and an assistant row, ordered by a
// sequence number per (owner, session) that the store assigns, never by
// timestamp. Their keyword index reads the computation text (spec 50), not
// the stored content. Turns are grouped into segments; a closed segment
// gives events and profile facets.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mnemo/types.h"
#include "storage/values.h"

namespace mnemo::storage {

struct TurnRow {
  int64_t id = 0;  // assigned by the store, > 0, never reused while open
  std::string owner = "local";
  std::string session_id;
  int64_t seq = 0;              // assigned by the store: 0, 1, 2, ... per (owner, session)
  std::string role;             // "user" | "assistant"
  std::string content;          // as stored (redacted by the caller when configured)
  std::string lesson;           // assistant rows: "Tools that failed in this turn: a, b"
  std::string tool_calls_json;  // assistant rows: the calls, raw ("" when none)
  TimeMs timestamp_ms = 0;
  int64_t cost_microdollars = 0;
  std::string agent_id;
};

struct TurnWrite {
  TurnRow row;  // id and seq are assigned
  // What the keyword index reads (the computation text); nullopt: the row's
  // content, without a second copy of it (a user row's). Stored as NULL
  // whenever it equals the content (StoredSearchText, storage/rules).
  std::optional<std::string> search_text;

  // The text the index reads: search_text, else the content of `stored`,
  // this write's row where it now is (stores move or copy `row` out before
  // inserting it; pass `row` itself while it is still here).
  std::string_view SearchText(const TurnRow& stored) const {
    return search_text ? std::string_view(*search_text) : std::string_view(stored.content);
  }
};

struct TurnQuery {
  std::vector<std::string> terms;       // from text::QueryTerms
  std::optional<SessionId> session_id;  // parsed (storage/values.h); nullopt: every session
  // Whose rows: every owner's when `all`, else `owner` only (episodic rows are
  // private to the principal that produced them).
  bool all = true;
  std::string owner;
  int limit = 20;
  // timestamp_ms in [since, until); agent_id equal to `agent_id`.
  std::optional<TimeMs> since;
  std::optional<TimeMs> until;
  std::optional<std::string> agent_id;
};

struct TurnHit {
  TurnRow row;
  double score = 0;  // normalised BM25 in [0, 1], the formula of entries (spec 20)
  // How many of the query's (distinct) terms the turn's index text holds:
  // the ranking's coverage (core/search/turn_ranking.h).
  int64_t matched_terms = 0;
};

// A segment: a run of one session's turns on one topic. A session has at
// most one open segment; a segment goes from open to closed once. Ids are
// UUIDs assigned by the caller.
struct SegmentRow {
  std::string id;
  std::string owner = "local";
  std::string session_id;
  std::string status = "open";  // "open" | "closed"
  int64_t first_seq = 0;        // first turn row of the segment (inclusive)
  int64_t last_seq = 0;         // last turn row so far (inclusive)
  int64_t turn_count = 0;
  TimeMs started_at = 0;
  TimeMs last_turn_at = 0;
  TimeMs closed_at = 0;
  std::vector<float> centroid;  // running mean of the turn vectors (empty: none)
  std::string recap;
  std::string recap_source;    // "" | "llm" | "extractive"
  int64_t recap_attempts = 0;  // LLM re-summarise attempts made
};

// What EpisodicStore::StepSegment shows its callback: the session's open segment
// and the first turn seq that no segment of the session covers yet (0 for a
// session without segments).
struct SegmentView {
  std::optional<SegmentRow> open;
  int64_t next_seq = 0;
};

// What the callback decides: close the open segment at `closed_at`, and/or
// store `put` (the open segment extended, or a new open segment).
struct SegmentChange {
  bool close_open = false;
  TimeMs closed_at = 0;
  std::optional<SegmentRow> put;
};

// Keyword search over the recaps of closed segments (EpisodicStore::SearchSegments).
struct SegmentQuery {
  std::vector<std::string> terms;         // from text::QueryTerms
  std::optional<std::string> owner;       // whose segments; nullopt: every owner's
  std::optional<std::string> session_id;  // nullopt: every session
  int limit = 20;
};

struct SegmentHit {
  SegmentRow row;
  double score = 0;  // as TurnHit::score
};

// A segment's recap vector of one embedder signature (spec 40, "When a
// segment closes", point 3). `version` orders every write of any signature:
// a reader that remembers the largest version it has seen reads only what
// was written (or replaced) after it, by this or another process.
struct SegmentVector {
  std::string segment_id;
  std::string owner;
  std::string session_id;
  int64_t version = 0;
  std::vector<float> vector;
};

// An event extracted from a closed segment's user messages. Events are
// unique per (owner, type, text).
struct EventRow {
  std::string id;  // UUID assigned by the caller
  std::string owner = "local";
  std::string session_id;
  std::string segment_id;
  // "decision" | "commitment" | "reminder" | "preference" | "fact"
  std::string type;
  std::string text;
  double confidence = 0;  // in [0, 1]
  TimeMs created_at = 0;
  // When the user said it was done (a commitment or a reminder, spec 40
  // §4); 0 while it is open. Set once, by EpisodicStore::CloseEvent.
  TimeMs closed_at = 0;
};

struct EventQuery {
  std::optional<std::string> type;
  // From text::QueryTerms; empty: every event, newest first.
  std::vector<std::string> terms;
  // Whose events: every owner's when `all`, else `owner` only.
  bool all = true;
  std::string owner;
  int limit = 20;
};

struct EventHit {
  EventRow row;
  double score = 0;  // as TurnHit::score; 0 without terms
};

// An earlier value of a facet's slot (spec 40 §5): what it was, how sure,
// the sentence that stated it ("" when stated directly) and when it held,
// [valid_from, valid_to). A value that never became current (it did not
// supersede a surer one) has valid_to == valid_from.
struct FacetValue {
  std::string value;
  double confidence = 0;
  std::string evidence;
  TimeMs valid_from = 0;
  TimeMs valid_to = 0;
};

// One statement folded into a facet (spec 40 §5): what a turn of a session
// said (its session, segment and the user row's seq) or what was stated
// directly (memory.profile_put: no session, seq 0), with the sentence. A
// facet's evidence is counted per statement, and a turn counts once per
// value however often it repeats it. Erasure takes away the statements of
// the erased sessions and folds the rest again (FacetAfterErasure,
// erasure_rules.h), so the facet is what it would be had those sessions
// never been.
struct FacetStatement {
  std::string session_id;  // "" for a direct statement
  std::string segment_id;  // "" for a direct statement
  int64_t seq = 0;         // the user row's sequence number; 0 for a direct statement
  std::string value;
  double confidence = 0;
  std::string evidence;   // the sentence ("" when stated directly)
  TimeMs at = 0;          // when it was said
  TimeMs updated_at = 0;  // when it was merged
  // The statement names one item of a list (a facet that holds several
  // things at once): its value is that item alone, and the facet's value is
  // the join of the items folded in since it last ended (JoinFacetItem,
  // episodic_rules.h), so an erased item leaves the list.
  bool joins = false;
};

// A profile facet, unique per (owner, facet_type, key): a slot with a current
// value and the history of earlier ones.
struct FacetRow {
  std::string owner = "local";
  std::string facet_type;
  std::string key;
  std::string value;
  double confidence = 0;  // in [0, 1]
  int64_t evidence_count = 1;
  std::vector<std::string> segment_ids;  // segments that gave evidence, first seen first
  TimeMs updated_at = 0;
  // When the current value was first stated (an observation: when it was said).
  TimeMs valid_from = 0;
  std::string evidence;             // the sentence of the current value ("" when stated directly)
  std::vector<FacetValue> history;  // earlier values, oldest first
  // Every statement folded in, in merge order; nullopt for a facet stored
  // before they were recorded (schema v15; or imported from an export
  // without them), whose evidence is known by segment only.
  std::optional<std::vector<FacetStatement>> statements;
  // An observation given to MergeFacet only (never stored as such): the
  // turn that said it, its session and the user row's seq; "" and 0 for a
  // direct statement.
  std::string session_id;
  int64_t seq = 0;
  // An observation given to MergeFacet only: its value is one item that
  // joins the current value instead of replacing it (a list slot; the
  // caller says which facets are lists, storage knows no slot table).
  bool joins = false;
};

// A tool rule captured from a turn of a session (spec 30, capture; issue
// 42): its text is that session's user's words, so erasing the session
// erases the rule unless another session of the owner gave it too.
struct RuleCapture {
  std::string owner;
  std::string session_id;
  std::string tool_name;  // the rule's tool, normalised ("*": unscoped)
  std::string rule_id;
};

// A rule capture to record (EpisodicStore::AddRuleCapture): the session
// comes parsed (storage/values.h), so the store checks it no further.
struct RuleCaptureWrite {
  std::string owner;
  SessionId session_id;
  std::string tool_name;  // the rule's tool, normalised ("*": unscoped)
  std::string rule_id;
};

}  // namespace mnemo::storage
