#include "storage/erasure_rules.h"

#include <algorithm>
#include <utility>

#include "text/strip.h"

namespace mnemo::storage::internal {
Status ValidateErasure(std::string_view owner, std::optional<std::string_view> session_id) {
  if (text::IsBlank(owner)) return InvalidArgument("an erasure needs a non-blank owner", "owner");
  if (session_id && text::IsBlank(*session_id)) {
    return InvalidArgument("a session erasure needs a non-blank session_id", "session_id");
  }
  return Status::Ok();
}

std::optional<FacetRow> FacetWithoutSegments(const FacetRow& facet,
                                             const std::set<std::string>& erased, bool* changed) {
  FacetRow out = facet;
  out.segment_ids.clear();
  int64_t removed = 0;
  for (const std::string& id : facet.segment_ids) {
    if (erased.contains(id)) {
      ++removed;
    } else {
      out.segment_ids.push_back(id);
    }
  }
  *changed = removed > 0;
  if (removed == 0) return out;
  out.evidence_count = facet.evidence_count - removed;
  // The history may quote the erased segments' sentences, and which value
  // came from which segment is not recorded: it goes with them.
  out.history.clear();
  // Segments left still speak for the slot, even when the count was of a
  // newer value (a superseding value restarts it at 1).
  if (!out.segment_ids.empty()) out.evidence_count = std::max<int64_t>(out.evidence_count, 1);
  // Evidence left without a segment is a stated facet (memory.profile_put):
  // it stays; a facet with neither goes.
  if (out.evidence_count <= 0) return std::nullopt;
  return out;
}

}  // namespace mnemo::storage::internal
