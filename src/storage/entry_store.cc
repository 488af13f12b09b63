#include "storage/entry_store.h"

namespace mnemo::storage {

bool IsSystemNamespace(std::string_view ns) {
  return ns.starts_with("tool-") || ns == "tool_effectiveness" || ns == kToolRegistryNamespace;
}

Result<std::vector<Label>> EntryStore::AcceptedLabels(std::span<const Label> labels,
                                                      const EntryFilter& filter) {
  MNEMO_ASSIGN_OR_RETURN(std::vector<KeywordHit> hits, FetchByLabels(labels, filter, {}));
  std::vector<Label> out;
  out.reserve(hits.size());
  for (const KeywordHit& h : hits) out.push_back(h.label);
  return out;
}

Result<FetchedCandidates> EntryStore::FetchWithVectors(
    std::span<const Label> labels, const EntryFilter& filter, const std::vector<std::string>& terms,
    std::string_view signature, std::span<const Label> vector_labels, bool with_watermark) {
  FetchedCandidates out;
  if (with_watermark) {
    MNEMO_ASSIGN_OR_RETURN(out.watermark, VectorWatermark(signature));
  }
  if (!labels.empty()) {
    MNEMO_ASSIGN_OR_RETURN(out.hits, FetchByLabels(labels, filter, terms));
  }
  if (!vector_labels.empty()) {
    MNEMO_ASSIGN_OR_RETURN(out.vectors, VectorsFor(signature, vector_labels));
  }
  return out;
}

}  // namespace mnemo::storage
