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

}  // namespace mnemo::storage
