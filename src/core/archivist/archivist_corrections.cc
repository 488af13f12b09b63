// Corrections of what the Archivist derived (issue 44 section 3): a profile
// facet or an event, corrected or deleted by the person it is about.
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "archivist/profile/profile.h"
#include "archivist/profile/slot_graph.h"
#include "archivist/segments.h"
#include "core/access.h"
#include "core/archivist/archivist_options.h"
#include "core/archivist/public_episodic.h"
#include "core/audit_record.h"
#include "core/validation.h"
#include "mnemo/limits.h"
#include "storage/rules/graph_rules.h"
#include "storage/values.h"

namespace mnemo {
namespace {

// A correction is the person's own word on the slot: it supersedes any
// value however sure (storage::internal::Supersedes), and a later hedged or
// ordinary statement does not replace it; a change the user states ("I
// moved to ...") still does. Folded as a statement, so a refold after an
// erasure keeps it.
constexpr double kCorrectedConfidence = 1.0;

Status FacetNotFound(const FacetAddress& at) {
  return NotFound("No profile facet found for facet_type \"" + at.facet_type + "\" and key \"" +
                  at.key + "\": memory.profile lists the facets");
}

Status EventNotFound(std::string_view id) {
  return NotFound("No event found with id: " + std::string(id) +
                  " (memory.events lists the events and their ids)");
}

Status ValidateFacetAddress(const FacetAddress& at) {
  MNEMO_RETURN_IF_ERROR(ValidateCategory(at.facet_type, "facet_type"));
  MNEMO_RETURN_IF_ERROR(ValidateKey(at.key, "key"));
  if (at.owner) MNEMO_RETURN_IF_ERROR(PrincipalId::Parse(*at.owner, "owner").status());
  return Status::Ok();
}

}  // namespace

Result<ProfileFacet> Archivist::ProfileCorrect(const Principal& who, const FacetAddress& at,
                                               std::string_view value) {
  MNEMO_RETURN_IF_ERROR(ValidateFacetAddress(at));
  MNEMO_RETURN_IF_ERROR(ValidateFacetValue(value, "value"));
  MNEMO_RETURN_IF_ERROR(CheckSecret(options_->secrets, value, "value"));
  const std::string owner = OwnerAddressed(who, options_->acl_enabled, at.owner);
  MNEMO_ASSIGN_OR_RETURN(std::vector<storage::FacetRow> facets,
                         episodic_.Facets(/*all=*/false, owner));
  auto stored = std::find_if(facets.begin(), facets.end(), [&](const storage::FacetRow& f) {
    return f.facet_type == at.facet_type && f.key == at.key;
  });
  if (stored == facets.end()) return FacetNotFound(at);
  const TimeMs now = clock_->NowMs();
  MNEMO_ASSIGN_OR_RETURN(storage::FacetRow r,
                         episodic_.MergeFacet({.owner = owner,
                                               .facet_type = at.facet_type,
                                               .key = at.key,
                                               .value = std::string(value),
                                               .confidence = kCorrectedConfidence,
                                               .evidence_count = 1,
                                               .updated_at = now,
                                               .valid_from = now}));
  // The graph follows (archivist/profile/slot_graph.h): the wrong value's triple
  // goes, the corrected one is current.
  if (stored->facet_type == archivist::kFacetContext &&
      storage::internal::TripleTermKey(stored->value) != storage::internal::TripleTermKey(value)) {
    const std::string wrong[] = {stored->value};
    MNEMO_RETURN_IF_ERROR(archivist::DeleteSlotTriples(graph_, owner, at.key, wrong));
  }
  MNEMO_RETURN_IF_ERROR(archivist::SyncSlotTriple(graph_, r, archivist::kStatedSlotSource, now));
  return ToProfileFacet(std::move(r));
}

Status Archivist::ProfileDelete(const Principal& who, const FacetAddress& at) {
  MNEMO_RETURN_IF_ERROR(ValidateFacetAddress(at));
  // A segment being finalised could fold the facet in again right after.
  Flush();
  const std::string owner = OwnerAddressed(who, options_->acl_enabled, at.owner);
  MNEMO_ASSIGN_OR_RETURN(std::vector<storage::FacetRow> facets,
                         episodic_.Facets(/*all=*/false, owner));
  auto stored = std::find_if(facets.begin(), facets.end(), [&](const storage::FacetRow& f) {
    return f.facet_type == at.facet_type && f.key == at.key;
  });
  MNEMO_ASSIGN_OR_RETURN(bool deleted, episodic_.DeleteFacet(owner, at.facet_type, at.key));
  if (!deleted) return FacetNotFound(at);
  if (stored == facets.end() || stored->facet_type != archivist::kFacetContext) {
    return Status::Ok();
  }
  // Every value the facet held goes from the graph too (archivist/profile/slot_graph.h).
  std::vector<std::string> values;
  if (!stored->value.empty()) values.push_back(stored->value);
  for (const storage::FacetValue& v : stored->history) values.push_back(v.value);
  return archivist::DeleteSlotTriples(graph_, owner, at.key, values);
}

Status Archivist::FollowSessionErasure(const std::string& owner, std::string_view session_id) {
  MNEMO_ASSIGN_OR_RETURN(std::vector<storage::FacetRow> facets,
                         episodic_.Facets(/*all=*/false, owner));
  return archivist::FollowErasure(
      graph_, facets, owner, archivist::SessionDocumentSourcePrefix(session_id), clock_->NowMs());
}

Result<EventInfo> Archivist::EventCorrect(const Principal& who, const EventCorrection& req) {
  internal::AuditRecord audit(audit_, who, "memory.event_correct");
  return audit.End([&]() -> Result<EventInfo> {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->memory_enabled));
    MNEMO_RETURN_IF_ERROR(ValidateKey(req.id, "id"));
    if (!req.type && !req.text) {
      return InvalidArgument("an event correction needs a new text, a new type or both", "text");
    }
    if (req.text) {
      MNEMO_RETURN_IF_ERROR(
          ValidateText(*req.text, "text", kMaxContentBytes, /*allow_empty=*/false));
      MNEMO_RETURN_IF_ERROR(CheckSecret(options_->secrets, *req.text, "text"));
    }
    MNEMO_ASSIGN_OR_RETURN(std::optional<storage::EventRow> stored, episodic_.GetEvent(req.id));
    if (!stored || !MayChange(who, options_->acl_enabled, stored->owner)) {
      return EventNotFound(req.id);
    }
    storage::EventRow row = *stored;
    if (req.type) row.type = *req.type;
    if (req.text) row.text = *req.text;
    // The type's names are storage's to check (ValidateEvents): one list.
    MNEMO_ASSIGN_OR_RETURN(bool replaced, episodic_.ReplaceEvent(row));
    if (!replaced) return EventNotFound(req.id);
    return EventInfo{.id = std::move(row.id),
                     .session_id = std::move(row.session_id),
                     .segment_id = std::move(row.segment_id),
                     .type = std::move(row.type),
                     .text = std::move(row.text),
                     .confidence = row.confidence,
                     .created_at = row.created_at};
  }());
}

Status Archivist::EventDelete(const Principal& who, std::string_view id) {
  internal::AuditRecord audit(audit_, who, "memory.event_delete");
  return audit.End([&]() -> Status {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->memory_enabled));
    MNEMO_RETURN_IF_ERROR(ValidateKey(id, "id"));
    MNEMO_ASSIGN_OR_RETURN(std::optional<storage::EventRow> stored, episodic_.GetEvent(id));
    if (!stored || !MayChange(who, options_->acl_enabled, stored->owner)) return EventNotFound(id);
    MNEMO_ASSIGN_OR_RETURN(bool deleted, episodic_.DeleteEvent(id));
    if (!deleted) return EventNotFound(id);
    return Status::Ok();
  }());
}

}  // namespace mnemo
