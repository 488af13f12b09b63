// Backend-independent rules of the episodic contract (episodic_store.h), shared by
// every backend.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mnemo/status.h"
#include "storage/episodic.h"
#include "storage/turn_claims.h"

namespace mnemo::storage::internal {

// An append must name one (owner, session): non-empty, and the same for
// every row; roles are "user" or "assistant" (kInvalidArgument otherwise).
Status ValidateTurnWrites(std::span<const TurnWrite> rows);

// A turn key needs an owner (kInvalidArgument otherwise); its session and
// turn id are checked by their types.
Status ValidateTurnKey(const TurnKey& key);
// ValidateTurnKey and ValidateTurnWrites, and every row of the key's owner
// and session.
Status ValidateTurnClaim(const TurnClaim& claim, std::span<const TurnWrite> rows);
// RecordTurn's arguments: at least one row, ValidateTurnWrites, and
// ValidateTurnClaim with a claim.
Status ValidateRecordedTurn(const std::optional<TurnClaim>& claim, std::span<const TurnWrite> rows);

// The search text a turn row stores: none (NULL in its search_text column)
// when it equals the row's content, which then stands for it, so the text is
// kept once (docs/storage.md, turns). Every reader takes
// COALESCE(search_text, content); the SQL updates store NULLIF(text, content).
std::optional<std::string_view> StoredSearchText(const TurnRow& row, std::string_view search_text);

// Whether `row` passes `query`'s time window and agent (not its terms,
// owner or session): the in-memory backend's filter, and what a caller
// adding rows beside SearchTurns' (neighbouring turns) checks.
bool TurnInWindow(const TurnQuery& query, const TurnRow& row);

// A segment must have an id, owner and session, a status of "open" or
// "closed" and a recap_source of "", "llm" or "extractive".
Status ValidateSegment(const SegmentRow& s);

// Whether `s` may replace what is stored (kConflict otherwise):
// `stored_status` is the status of the stored row with `s.id` (none when
// new), `open_id` the id of the open segment of (s.owner, s.session_id)
// (none when it has none). A closed segment never becomes open again, and a
// session has at most one open segment.
Status CheckSegmentPut(const SegmentRow& s, std::optional<std::string_view> stored_status,
                       std::optional<std::string_view> open_id);

// Events need an id, owner and text, a type of decision, commitment,
// preference or fact, and a confidence in [0, 1].
Status ValidateEvents(std::span<const EventRow> rows);

// A rule capture needs a non-blank owner, tool_name and rule_id (its
// session_id is parsed).
Status ValidateRuleCapture(const RuleCaptureWrite& capture);

// A facet observation needs an owner, facet_type and key, and a confidence
// in [0, 1].
Status ValidateFacet(const FacetRow& observation);

// The value of a list facet after `item` is stated while `current` holds:
// `item` when `current` is empty, `current` when it already names the item
// (ASCII case-blind; the item's name is what comes before " (", as in
// "Mochi (cat)"), else "<current>, <item>". One rule for the merge and for
// the refold after an erasure, so the list is always the join of the items
// of its live statements, in order, without repeats.
std::string JoinFacetItem(std::string_view current, std::string_view item);

// The facet stored after folding `observation` into `stored` (episodic_store.h,
// MergeFacet; spec 40 §5). The observation's time is its valid_from (its
// updated_at when 0).
//  - Absent: stored as observed, evidence_count 1, no history.
//  - The same value (whitespace collapsed, ASCII case-blind): evidence_count
//    + 1; value, confidence and evidence taken from the observation when its
//    confidence >= the stored one.
//  - A different value that Supersedes (supersession.h) the current one:
//    the current value moves to the history, valid until the observation's
//    time; the observation's value, confidence, evidence and valid_from
//    become current with evidence_count 1 (a correction is no confirmation).
//  - A different value that does not: kept in the history, never current
//    (valid_to = valid_from; up to the current value's start when older).
// In every case the observation's segment ids are appended unless present
// (they are every segment that spoke about the slot), its FacetStatement
// is appended to the statements (unless the stored facet predates them)
// and updated_at is the observation's; the history stays ordered by
// valid_from. A turn counts once per value: an observation whose session
// (not "") and seq already stated the same value leaves `stored` as it is.
FacetRow MergeFacetRow(const std::optional<FacetRow>& stored, const FacetRow& observation);

// The facet `statements` make, folded in order by MergeFacetRow from
// nothing (owner, facet_type and key from `facet`); nullopt when there are
// none. MergeFacetRow(RefoldFacet(f, s), o) == RefoldFacet(f, s + {o}).
std::optional<FacetRow> RefoldFacet(const FacetRow& facet,
                                    const std::vector<FacetStatement>& statements);

// The stored form of FacetRow::statements: a JSON array of strings, eight
// per statement (session_id, segment_id, seq, value, confidence as decimal
// text, evidence, at, updated_at), then, when some statement joins, one
// more: "joins:" and a '0' or '1' per statement. nullopt when `text` is not
// such an array.
std::string EncodeFacetStatements(const std::vector<FacetStatement>& statements);
std::optional<std::vector<FacetStatement>> DecodeFacetStatements(std::string_view text);

// The stored form of FacetRow::history: a JSON array of strings, five per
// value (value, confidence as decimal text, evidence, valid_from, valid_to),
// written by EncodeTags (sqlite/rows/tags_json.h). nullopt when `text` is not
// such an array.
std::string EncodeFacetHistory(const std::vector<FacetValue>& history);
std::optional<std::vector<FacetValue>> DecodeFacetHistory(std::string_view text);

}  // namespace mnemo::storage::internal
