// The Archivist's store (spec 40): episodic turns and their idempotency
// claims, segments with their recaps and recap vectors, events and profile
// facets (rows in storage/episodic.h and storage/turn_claims.h). Its
// conformance suite: tests/storage/episodic_conformance_test.cc.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mnemo/status.h"
#include "mnemo/types.h"
#include "storage/episodic.h"
#include "storage/turn_claims.h"
#include "storage/values.h"

namespace mnemo::storage {

class EpisodicStore {
 public:
  virtual ~EpisodicStore() = default;

  // --- Episodic turns.

  // Appends `rows`, all of one (owner, session), in one transaction, with
  // consecutive sequence numbers after the session's last: concurrent
  // appends (threads or processes) never share or skip a number. Returns the
  // rows with id and seq set, in order.
  virtual Result<std::vector<TurnRow>> AppendTurns(std::span<const TurnWrite> rows) = 0;
  // The rows of (owner, session) with from_seq <= seq <= to_seq, by seq.
  virtual Result<std::vector<TurnRow>> SessionTurns(std::string_view owner,
                                                    const SessionId& session_id, int64_t from_seq,
                                                    int64_t to_seq) = 0;
  // Best `limit` rows matching any term: score descending, then timestamp
  // descending, then id.
  virtual Result<std::vector<TurnHit>> SearchTurns(const TurnQuery& query) = 0;
  // Up to `limit` rows of every owner with id > after_id, by id (reindex).
  virtual Result<std::vector<TurnRow>> TurnsAfter(int64_t after_id, int limit) = 0;
  // Replaces the text the keyword index reads for row `id` (its stored
  // fields never change): `mnemo reindex` after a tool registry change.
  // kNotFound when there is no such row.
  virtual Status ReplaceTurnSearchText(int64_t id, std::string_view search_text) = 0;

  // Segments (SegmentRow). The session's open segment, if any.
  virtual Result<std::optional<SegmentRow>> OpenSegment(std::string_view owner,
                                                        const SessionId& session_id) = 0;
  // Inserts or replaces the segment with `s.id`. kConflict when the put would
  // make a closed segment open again, or a second open segment of its
  // (owner, session); kInvalidArgument for a blank id, owner or session, an
  // unknown status or recap_source.
  virtual Status PutSegment(const SegmentRow& s) = 0;
  // Open -> closed, atomically (threads and processes): true when this call
  // closed it; false when it was not open (already closed, or missing).
  virtual Result<bool> CloseSegment(std::string_view id, TimeMs closed_at) = 0;
  virtual Result<std::optional<SegmentRow>> GetSegment(std::string_view id) = 0;
  // Every owner's segments when `all`, else `owner`'s; of one session when
  // given. By started_at, then id.
  virtual Result<std::vector<SegmentRow>> Segments(bool all, std::string_view owner,
                                                   const std::optional<SessionId>& session_id) = 0;
  // Up to `limit` closed segments of any owner whose recap_source is
  // "extractive" and recap_attempts < max_attempts, by closed_at, then id.
  virtual Result<std::vector<SegmentRow>> SegmentsNeedingRecap(int limit, int64_t max_attempts) = 0;
  // Reads the segment state of (owner, session), lets `decide` choose a
  // change and applies it, all in one write transaction (SQLite: serialised
  // with other processes too), so concurrent turns of one session never lose
  // an extension or open two segments. The change obeys the rules of
  // CloseSegment and PutSegment; a callback error aborts with nothing
  // written. Returns the change applied.
  using SegmentDecision = std::function<Result<SegmentChange>(const SegmentView&)>;
  virtual Result<SegmentChange> StepSegment(std::string_view owner, const SessionId& session_id,
                                            const SegmentDecision& decide) = 0;

  // Events (EventRow). Adds `rows` in one transaction: a row with the (owner,
  // type, text) of a stored one, or of an earlier row of the batch, is
  // skipped. Returns how many were added. kConflict (nothing added) when a
  // row that is not skipped reuses an id; kInvalidArgument for a blank id,
  // owner or text, an unknown type, or a confidence outside [0, 1].
  virtual Result<int64_t> AddEvents(std::span<const EventRow> rows) = 0;
  // With terms: the best `limit` events matching any term of `text`, by score
  // descending, then created_at descending, then id. Without terms: the
  // newest `limit`, by created_at descending, then id (score 0). The type and
  // owner filters apply before the limit.
  virtual Result<std::vector<EventHit>> SearchEvents(const EventQuery& query) = 0;
  // Open -> closed at `closed_at` (> 0), once: true when this call closed
  // the event; false when it was closed already. kNotFound when there is no
  // event `id`; kInvalidArgument for closed_at <= 0.
  virtual Result<bool> CloseEvent(std::string_view id, TimeMs closed_at) = 0;

  // Profile facets (FacetRow). Folds one observation into the facet of its
  // (owner, facet_type, key) in one write transaction (SQLite: serialised
  // with other processes too). Absent: stored as observed, evidence_count 1.
  // Present: evidence_count + 1, the observation's segment ids appended
  // unless already present (order kept), value and confidence replaced only
  // when observation.confidence >= the stored confidence, updated_at =
  // observation.updated_at. Returns the facet as stored. kInvalidArgument for
  // a blank owner, facet_type or key, or a confidence outside [0, 1].
  virtual Result<FacetRow> MergeFacet(const FacetRow& observation) = 0;
  // Every owner's facets when `all`, else `owner`'s; by facet_type, key,
  // then owner.
  virtual Result<std::vector<FacetRow>> Facets(bool all, std::string_view owner) = 0;

  // --- Rules captured from a session (issue 42 item 18; RuleCapture). One
  // block, so parallel additions to this class merge apart from it.

  // Records that the rule was captured from the session; recording it
  // again changes nothing. kInvalidArgument for a blank owner, tool_name or
  // rule_id (the session is checked by its type). Erased with the session
  // (AdminStore::EraseSession) or the owner.
  virtual Status AddRuleCapture(const RuleCaptureWrite& capture) = 0;
  // Every capture of `owner`'s rules, by session_id, tool_name, rule_id.
  virtual Result<std::vector<RuleCapture>> RuleCaptures(std::string_view owner) = 0;

  // --- Idempotent turns and idle segments (issue 16 items 5 and 6;
  // turn_claims.h). One block, so parallel additions to this class merge
  // apart from it.

  // Claims `claim.key` and appends `rows` (none is allowed; else as
  // AppendTurns: one owner and session, the key's) in one write transaction,
  // serialised with every other writer (threads and processes). The claim
  // stores the first row's seq (-1 without rows), claimed_at and an empty
  // result. When the key is already claimed nothing is written and the
  // stored claim is returned with claimed = false. kInvalidArgument for a
  // blank owner or rows of another owner or session (the session and turn id
  // are checked by their types).
  virtual Result<TurnClaimOutcome> ClaimTurn(const TurnClaim& claim,
                                             std::span<const TurnWrite> rows) = 0;
  // Stores the result of a claimed turn unless one is stored already (the
  // first one is kept); returns whether this call stored it. kNotFound when
  // the key is not claimed.
  virtual Result<bool> FinishTurnClaim(const TurnKey& key, std::string_view result) = 0;
  // The claim of `key`, if any.
  virtual Result<std::optional<TurnClaim>> GetTurnClaim(const TurnKey& key) = 0;
  // A turn's episodic writes in one write transaction, serialised with
  // every other writer (issue 22: one transaction per memory.turn_complete):
  // appends `rows` (AppendTurns' rules, at least one row) under `claim` when
  // given (ClaimTurn's rules), then steps the segment of the rows' (owner,
  // session) as StepSegment does, `decide` seeing the rows as stored. When
  // the claim's key was claimed before, nothing is written, `decide` is not
  // called and the stored claim is returned with stored = false. Any error,
  // `decide`'s included, writes nothing: no row, claim or segment change.
  // The rows are taken by value and moved into the result (a turn's user
  // message is not copied again on its way to the bind).
  using TurnSegmentDecision =
      std::function<Result<SegmentChange>(std::span<const TurnRow> rows, const SegmentView&)>;
  virtual Result<RecordedTurn> RecordTurn(const std::optional<TurnClaim>& claim,
                                          std::vector<TurnWrite> rows,
                                          const TurnSegmentDecision& decide) = 0;
  // Up to `limit` open segments of every owner with last_turn_at < `before`,
  // by last_turn_at, then id: what learning.session_idle_close_secs closes.
  virtual Result<std::vector<SegmentRow>> IdleOpenSegments(TimeMs before, int limit) = 0;

  // --- Segment recaps (spec 40, "When a segment closes"). Every recap
  // PutSegment (or StepSegment) writes is indexed with it, in the same
  // transaction; a replaced recap replaces its index row.

  // Best `limit` closed segments whose recap matches any term: score
  // descending, then closed_at descending, then id. Open segments and empty
  // recaps are never returned. The owner and session filters apply before
  // the limit.
  virtual Result<std::vector<SegmentHit>> SearchSegments(const SegmentQuery& query) = 0;
  // Stores (replaces) the recap vector of `segment_id` for `signature` with
  // a new version, larger than every version written before (by any process).
  // kNotFound when the segment does not exist; kInvalidArgument for a blank
  // signature, an empty vector or a dimension other than that of the
  // signature's stored vectors.
  virtual Status PutSegmentVector(std::string_view segment_id, std::string_view signature,
                                  std::span<const float> vector) = 0;
  // Up to `limit` recap vectors of `signature` with version > after_version,
  // by version ascending (fewer than `limit`: caught up). A replaced vector
  // appears once, with its newest version.
  virtual Result<std::vector<SegmentVector>> SegmentVectorsSince(std::string_view signature,
                                                                 int64_t after_version,
                                                                 int limit) = 0;

  // --- Corrections (issue 44 section 3: every derived memory can be
  // corrected or deleted). One block, so parallel additions to this class
  // merge apart from it. A delete is the erasure of one row: the row and
  // its keyword index row go in one write transaction and nothing of its
  // text is left in the store (SQLite: the index rewritten, secure_delete
  // and the write-ahead log emptied, as AdminStore's erasures do).

  // The event `id`, if any.
  virtual Result<std::optional<EventRow>> GetEvent(std::string_view id) = 0;
  // Gives the stored event `row.id` the type, text and confidence of `row`
  // (its owner, session, segment and created_at are kept) and indexes the
  // new text in place of the old, in one write transaction. False when
  // there is no event `row.id`. kConflict when another event of the owner
  // has that (type, text); kInvalidArgument as AddEvents.
  virtual Result<bool> ReplaceEvent(const EventRow& row) = 0;
  // Deletes the event `id` with its index row; false when there is none.
  virtual Result<bool> DeleteEvent(std::string_view id) = 0;
  // Deletes the facet of (owner, facet_type, key) with its history and
  // every statement folded into it, so no later refold (an erasure's)
  // brings it back; false when there is none.
  virtual Result<bool> DeleteFacet(std::string_view owner, std::string_view facet_type,
                                   std::string_view key) = 0;
};

}  // namespace mnemo::storage
