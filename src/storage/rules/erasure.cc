#include "storage/rules/erasure_rules.h"

#include <algorithm>
#include <utility>

#include "storage/rules/episodic_rules.h"
#include "text/strip.h"

namespace mnemo::storage::internal {
Status ValidateErasure(std::string_view owner) {
  if (text::IsBlank(owner)) return InvalidArgument("an erasure needs a non-blank owner", "owner");
  return Status::Ok();
}

std::optional<FacetRow> FacetAfterErasure(const FacetRow& facet,
                                          std::optional<std::string_view> session_id,
                                          const std::set<std::string>& erased_segments,
                                          bool* changed) {
  *changed = false;
  if (facet.statements) {
    std::vector<FacetStatement> kept;
    for (const FacetStatement& s : *facet.statements) {
      const bool erased = (session_id && !s.session_id.empty() && s.session_id == *session_id) ||
                          (!s.segment_id.empty() && erased_segments.contains(s.segment_id));
      if (erased) {
        *changed = true;
      } else {
        kept.push_back(s);
      }
    }
    if (!*changed) return facet;
    return RefoldFacet(facet, kept);
  }
  FacetRow out = facet;
  out.segment_ids.clear();
  int64_t removed = 0;
  for (const std::string& id : facet.segment_ids) {
    if (erased_segments.contains(id)) {
      ++removed;
    } else {
      out.segment_ids.push_back(id);
    }
  }
  if (removed == 0) return out;
  *changed = true;
  // The sentence and the history may quote the erased segments, and which
  // segment said what is not recorded: they go with them.
  out.evidence.clear();
  out.history.clear();
  if (out.segment_ids.empty()) return std::nullopt;
  // Segments left still speak for the slot, even when the count was of a
  // newer value (a superseding value restarts it at 1).
  out.evidence_count = std::max<int64_t>(facet.evidence_count - removed, 1);
  return out;
}

}  // namespace mnemo::storage::internal
