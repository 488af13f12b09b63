// MarkdownBackend methods that pass through: vectors and reads by label go
// to the index (reads by label after the folder check, so a hand edit is
// seen), everything that is not an entry to the data backend.
#include <string>
#include <utility>

#include "storage/markdown/markdown_backend.h"

namespace mnemo::storage::markdown {

Status MarkdownBackend::PutVectors(std::string_view signature,
                                   std::span<const LabeledVector> vectors) {
  return index_->PutVectors(signature, vectors);
}

Status MarkdownBackend::ForEachVector(std::string_view signature,
                                      const std::function<Status(const LabeledVector&)>& fn) {
  return index_->ForEachVector(signature, fn);
}

Result<std::vector<LabeledVector>> MarkdownBackend::VectorsFor(std::string_view signature,
                                                               std::span<const Label> labels) {
  return index_->VectorsFor(signature, labels);
}

Result<std::vector<MissingVector>> MarkdownBackend::MissingVectors(std::string_view signature,
                                                                   Label after_label, int limit) {
  MNEMO_RETURN_IF_ERROR(Sync());
  return index_->MissingVectors(signature, after_label, limit);
}

Result<int64_t> MarkdownBackend::CountMissingVectors(std::string_view signature) {
  MNEMO_RETURN_IF_ERROR(Sync());
  return index_->CountMissingVectors(signature);
}

Result<int64_t> MarkdownBackend::VectorWatermark(std::string_view signature) {
  MNEMO_RETURN_IF_ERROR(Sync());
  return index_->VectorWatermark(signature);
}

Result<std::vector<VectorChange>> MarkdownBackend::VectorChangesSince(std::string_view signature,
                                                                      int64_t seq, int limit) {
  // A rebuilt index starts its change log again: a position past its end
  // was in the old one, whose labels are not these. The caller rebuilds, as
  // after a trimmed log.
  MNEMO_ASSIGN_OR_RETURN(int64_t newest, index_->VectorWatermark(signature));
  if (seq > newest) {
    return NotFound("vector change " + std::to_string(seq) + " of " + std::string(signature) +
                    " is past the end of the index's log (" + std::to_string(newest) +
                    "): the index was rebuilt; rebuild from storage");
  }
  return index_->VectorChangesSince(signature, seq, limit);
}

Result<int64_t> MarkdownBackend::CountVectors(std::string_view signature) {
  MNEMO_RETURN_IF_ERROR(Sync());
  return index_->CountVectors(signature);
}

Result<std::vector<KeywordHit>> MarkdownBackend::FetchByLabels(
    std::span<const Label> labels, const EntryFilter& filter,
    const std::vector<std::string>& terms) {
  MNEMO_RETURN_IF_ERROR(Sync());
  return index_->FetchByLabels(labels, filter, terms);
}

Result<int64_t> MarkdownBackend::CountMatching(const EntryFilter& filter) {
  MNEMO_RETURN_IF_ERROR(Sync());
  return index_->CountMatching(filter);
}

Result<std::vector<Label>> MarkdownBackend::MatchingLabels(const EntryFilter& filter, int limit) {
  MNEMO_RETURN_IF_ERROR(Sync());
  return index_->MatchingLabels(filter, limit);
}

Result<std::vector<TurnRow>> MarkdownBackend::AppendTurns(std::span<const TurnWrite> rows) {
  return data().AppendTurns(rows);
}

Result<TurnClaimOutcome> MarkdownBackend::ClaimTurn(const TurnClaim& claim,
                                                    std::span<const TurnWrite> rows) {
  return data().ClaimTurn(claim, rows);
}

Result<bool> MarkdownBackend::FinishTurnClaim(const TurnKey& key, std::string_view result) {
  return data().FinishTurnClaim(key, result);
}

Result<std::optional<TurnClaim>> MarkdownBackend::GetTurnClaim(const TurnKey& key) {
  return data().GetTurnClaim(key);
}

Result<std::vector<SegmentRow>> MarkdownBackend::IdleOpenSegments(TimeMs before, int limit) {
  return data().IdleOpenSegments(before, limit);
}

Result<std::vector<TurnRow>> MarkdownBackend::SessionTurns(std::string_view owner,
                                                           std::string_view session_id,
                                                           int64_t from_seq, int64_t to_seq) {
  return data().SessionTurns(owner, session_id, from_seq, to_seq);
}

Result<std::vector<TurnHit>> MarkdownBackend::SearchTurns(const TurnQuery& query) {
  return data().SearchTurns(query);
}

Result<std::vector<TurnRow>> MarkdownBackend::TurnsAfter(int64_t after_id, int limit) {
  return data().TurnsAfter(after_id, limit);
}

Status MarkdownBackend::ReplaceTurnSearchText(int64_t id, std::string_view search_text) {
  return data().ReplaceTurnSearchText(id, search_text);
}

Result<std::optional<SegmentRow>> MarkdownBackend::OpenSegment(std::string_view owner,
                                                               std::string_view session_id) {
  return data().OpenSegment(owner, session_id);
}

Status MarkdownBackend::PutSegment(const SegmentRow& s) { return data().PutSegment(s); }

Result<bool> MarkdownBackend::CloseSegment(std::string_view id, TimeMs closed_at) {
  return data().CloseSegment(id, closed_at);
}

Result<std::optional<SegmentRow>> MarkdownBackend::GetSegment(std::string_view id) {
  return data().GetSegment(id);
}

Result<std::vector<SegmentRow>> MarkdownBackend::Segments(
    bool all, std::string_view owner, std::optional<std::string_view> session_id) {
  return data().Segments(all, owner, session_id);
}

Result<std::vector<SegmentRow>> MarkdownBackend::SegmentsNeedingRecap(int limit,
                                                                      int64_t max_attempts) {
  return data().SegmentsNeedingRecap(limit, max_attempts);
}

Result<SegmentChange> MarkdownBackend::StepSegment(std::string_view owner,
                                                   std::string_view session_id,
                                                   const SegmentDecision& decide) {
  return data().StepSegment(owner, session_id, decide);
}

Result<int64_t> MarkdownBackend::AddEvents(std::span<const EventRow> rows) {
  return data().AddEvents(rows);
}

Result<std::vector<EventHit>> MarkdownBackend::SearchEvents(const EventQuery& query) {
  return data().SearchEvents(query);
}

Result<FacetRow> MarkdownBackend::MergeFacet(const FacetRow& observation) {
  return data().MergeFacet(observation);
}

Result<std::vector<FacetRow>> MarkdownBackend::Facets(bool all, std::string_view owner) {
  return data().Facets(all, owner);
}

Result<std::vector<SegmentHit>> MarkdownBackend::SearchSegments(const SegmentQuery& query) {
  return data().SearchSegments(query);
}

Status MarkdownBackend::PutSegmentVector(std::string_view segment_id, std::string_view signature,
                                         std::span<const float> vector) {
  return data().PutSegmentVector(segment_id, signature, vector);
}

Result<std::vector<SegmentVector>> MarkdownBackend::SegmentVectorsSince(std::string_view signature,
                                                                        int64_t after_version,
                                                                        int limit) {
  return data().SegmentVectorsSince(signature, after_version, limit);
}

Result<DocumentPut> MarkdownBackend::PutDocument(const DocumentRow& row) {
  return data().PutDocument(row);
}

Result<std::optional<DocumentRow>> MarkdownBackend::GetDocument(std::string_view id,
                                                                bool count_access) {
  return data().GetDocument(id, count_access);
}

Result<std::vector<DocumentHit>> MarkdownBackend::SearchDocuments(const DocumentQuery& query) {
  return data().SearchDocuments(query);
}

Result<std::vector<DocumentRow>> MarkdownBackend::ListDocuments(
    std::optional<std::string> owner, std::optional<std::string> source_prefix, int limit,
    int64_t offset) {
  return data().ListDocuments(std::move(owner), std::move(source_prefix), limit, offset);
}

Result<bool> MarkdownBackend::DeleteDocument(std::string_view id) {
  return data().DeleteDocument(id);
}

Result<int64_t> MarkdownBackend::CountDocuments(std::optional<std::string> owner) {
  return data().CountDocuments(std::move(owner));
}

Result<std::vector<int64_t>> MarkdownBackend::DocumentFrequencies(
    std::span<const std::string> terms) {
  return data().DocumentFrequencies(terms);
}

Status MarkdownBackend::UpdateDocumentDerived(std::string_view id, std::string_view search_text,
                                              std::string_view summary,
                                              std::span<const std::string> tags,
                                              std::span<const std::string> entities,
                                              TimeMs updated_at) {
  return data().UpdateDocumentDerived(id, search_text, summary, tags, entities, updated_at);
}

Result<ContextEventRow> MarkdownBackend::AppendContextEvent(const ContextEventRow& row) {
  return data().AppendContextEvent(row);
}

Result<std::vector<ContextEventRow>> MarkdownBackend::ContextEvents(std::string_view owner,
                                                                    std::string_view session_id) {
  return data().ContextEvents(owner, session_id);
}

Result<std::vector<ContextEventHit>> MarkdownBackend::SearchContextEvents(
    const ContextEventQuery& query) {
  return data().SearchContextEvents(query);
}

Result<int64_t> MarkdownBackend::DeleteContextEventsUpTo(std::string_view owner,
                                                         std::string_view session_id,
                                                         int64_t up_to_seq) {
  return data().DeleteContextEventsUpTo(owner, session_id, up_to_seq);
}

Result<int64_t> MarkdownBackend::DeleteContextEventsByIds(std::span<const int64_t> ids) {
  return data().DeleteContextEventsByIds(ids);
}

Result<TripleUpsert> MarkdownBackend::UpsertTriple(const TripleRow& row, bool single_valued) {
  return data().UpsertTriple(row, single_valued);
}

Result<std::vector<TripleRow>> MarkdownBackend::QueryTriples(const TripleQuery& query) {
  return data().QueryTriples(query);
}

Result<int64_t> MarkdownBackend::DeleteTriplesFromSource(std::string_view source) {
  return data().DeleteTriplesFromSource(source);
}

Result<std::vector<ContextEventRow>> MarkdownBackend::ContextEventsAfter(int64_t after_id,
                                                                         int limit) {
  return data().ContextEventsAfter(after_id, limit);
}

Result<std::vector<std::string>> MarkdownBackend::VectorSignatures() {
  return index_->VectorSignatures();
}

Result<ErasureCounts> MarkdownBackend::EraseSession(const SessionErasure& what) {
  return data().EraseSession(what);
}

Status MarkdownBackend::CompactEntryIndex() { return index_->CompactEntryIndex(); }

}  // namespace mnemo::storage::markdown
