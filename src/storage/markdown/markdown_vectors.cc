// The markdown entry store's vectors and reads by label: the index's, read
// after the folder check (Sync) so a hand edit is seen first.
#include <string>
#include <utility>

#include "storage/markdown/markdown_backend.h"

namespace mnemo::storage::markdown {

Status MarkdownBackend::PutVectors(std::string_view signature,
                                   std::span<const LabeledVector> vectors) {
  return index_.entries->PutVectors(signature, vectors);
}
Status MarkdownBackend::ForEachVector(std::string_view signature,
                                      const std::function<Status(const LabeledVector&)>& fn) {
  return index_.entries->ForEachVector(signature, fn);
}
Result<std::vector<LabeledVector>> MarkdownBackend::VectorsFor(std::string_view signature,
                                                               std::span<const Label> labels) {
  return index_.entries->VectorsFor(signature, labels);
}
Result<std::vector<MissingVector>> MarkdownBackend::MissingVectors(std::string_view signature,
                                                                   Label after_label, int limit) {
  MNEMO_RETURN_IF_ERROR(Sync());
  return index_.entries->MissingVectors(signature, after_label, limit);
}
Result<int64_t> MarkdownBackend::CountMissingVectors(std::string_view signature) {
  MNEMO_RETURN_IF_ERROR(Sync());
  return index_.entries->CountMissingVectors(signature);
}
Result<int64_t> MarkdownBackend::VectorWatermark(std::string_view signature) {
  MNEMO_RETURN_IF_ERROR(Sync());
  return index_.entries->VectorWatermark(signature);
}
Result<std::vector<VectorChange>> MarkdownBackend::VectorChangesSince(std::string_view signature,
                                                                      int64_t seq, int limit) {
  // A rebuilt index starts its change log again: a position past its end
  // was in the old one, whose labels are not these. The caller rebuilds, as
  // after a trimmed log.
  MNEMO_ASSIGN_OR_RETURN(int64_t newest, index_.entries->VectorWatermark(signature));
  if (seq > newest) {
    return NotFound("vector change " + std::to_string(seq) + " of " + std::string(signature) +
                    " is past the end of the index's log (" + std::to_string(newest) +
                    "): the index was rebuilt; rebuild from storage");
  }
  return index_.entries->VectorChangesSince(signature, seq, limit);
}
Result<int64_t> MarkdownBackend::CountVectors(std::string_view signature) {
  MNEMO_RETURN_IF_ERROR(Sync());
  return index_.entries->CountVectors(signature);
}
Result<std::vector<KeywordHit>> MarkdownBackend::FetchByLabels(
    std::span<const Label> labels, const EntryFilter& filter,
    const std::vector<std::string>& terms) {
  MNEMO_RETURN_IF_ERROR(Sync());
  return index_.entries->FetchByLabels(labels, filter, terms);
}
Result<std::vector<Label>> MarkdownBackend::AcceptedLabels(std::span<const Label> labels,
                                                           const EntryFilter& filter) {
  MNEMO_RETURN_IF_ERROR(Sync());
  return index_.entries->AcceptedLabels(labels, filter);
}
Result<std::vector<Label>> MarkdownBackend::MatchingLabels(const EntryFilter& filter, int limit) {
  MNEMO_RETURN_IF_ERROR(Sync());
  return index_.entries->MatchingLabels(filter, limit);
}
Result<std::vector<std::string>> MarkdownBackend::VectorSignatures() {
  return index_.entries->VectorSignatures();
}
Status MarkdownBackend::CompactEntryIndex() { return index_.entries->CompactEntryIndex(); }

}  // namespace mnemo::storage::markdown
