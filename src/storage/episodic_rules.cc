#include "storage/episodic_rules.h"

#include <algorithm>
#include <string>

namespace mnemo::storage::internal {
namespace {

bool IsConfidence(double c) { return c >= 0 && c <= 1; }  // false for NaN

}  // namespace

Status ValidateTurnWrites(std::span<const TurnWrite> rows) {
  for (const TurnWrite& w : rows) {
    const TurnRow& r = w.row;
    if (r.owner.empty()) return InvalidArgument("owner must not be empty", "owner");
    if (r.session_id.empty()) return InvalidArgument("session_id must not be empty", "session_id");
    if (r.owner != rows[0].row.owner || r.session_id != rows[0].row.session_id) {
      return InvalidArgument("one append holds the rows of one owner and session", "session_id");
    }
    if (r.role != "user" && r.role != "assistant") {
      return InvalidArgument("role must be user or assistant", "role");
    }
  }
  return Status::Ok();
}

Status ValidateTurnKey(const TurnKey& key) {
  if (key.owner.empty()) return InvalidArgument("owner must not be empty", "owner");
  if (key.session_id.empty()) return InvalidArgument("session_id must not be empty", "session_id");
  if (key.turn_id.empty() || key.turn_id.size() > kMaxTurnIdBytes) {
    return InvalidArgument(
        "turn_id is " + std::to_string(key.turn_id.size()) + " bytes long: use 1 to 128 bytes",
        "turn_id");
  }
  return Status::Ok();
}

Status ValidateTurnClaim(const TurnClaim& claim, std::span<const TurnWrite> rows) {
  MNEMO_RETURN_IF_ERROR(ValidateTurnKey(claim.key));
  MNEMO_RETURN_IF_ERROR(ValidateTurnWrites(rows));
  if (!rows.empty() &&
      (rows[0].row.owner != claim.key.owner || rows[0].row.session_id != claim.key.session_id)) {
    return InvalidArgument("a claimed turn's rows belong to the claim's owner and session",
                           "session_id");
  }
  return Status::Ok();
}

Status ValidateSegment(const SegmentRow& s) {
  if (s.id.empty()) return InvalidArgument("segment id must not be empty", "id");
  if (s.owner.empty()) return InvalidArgument("owner must not be empty", "owner");
  if (s.session_id.empty()) return InvalidArgument("session_id must not be empty", "session_id");
  if (s.status != "open" && s.status != "closed") {
    return InvalidArgument("segment status \"" + s.status + "\" is invalid: use open or closed",
                           "status");
  }
  if (!s.recap_source.empty() && s.recap_source != "llm" && s.recap_source != "extractive") {
    return InvalidArgument(
        "recap_source \"" + s.recap_source + "\" is invalid: use llm, extractive or nothing",
        "recap_source");
  }
  return Status::Ok();
}

Status CheckSegmentPut(const SegmentRow& s, std::optional<std::string_view> stored_status,
                       std::optional<std::string_view> open_id) {
  if (s.status != "open") return Status::Ok();
  if (stored_status == "closed") {
    return Conflict("segment " + s.id + " is closed: a segment goes from open to closed once");
  }
  if (open_id && *open_id != s.id) {
    return Conflict("session " + s.session_id + " already has an open segment (" +
                    std::string(*open_id) + "): close it first");
  }
  return Status::Ok();
}

Status ValidateEvents(std::span<const EventRow> rows) {
  for (const EventRow& e : rows) {
    if (e.id.empty()) return InvalidArgument("event id must not be empty", "id");
    if (e.owner.empty()) return InvalidArgument("owner must not be empty", "owner");
    if (e.text.empty()) return InvalidArgument("event text must not be empty", "text");
    if (e.type != "decision" && e.type != "commitment" && e.type != "preference" &&
        e.type != "fact") {
      return InvalidArgument(
          "event type \"" + e.type + "\" is invalid: use decision, commitment, preference or fact",
          "type");
    }
    if (!IsConfidence(e.confidence)) {
      return InvalidArgument("event confidence must be in [0, 1]", "confidence");
    }
  }
  return Status::Ok();
}

Status ValidateFacet(const FacetRow& observation) {
  if (observation.owner.empty()) return InvalidArgument("owner must not be empty", "owner");
  if (observation.facet_type.empty()) {
    return InvalidArgument("facet_type must not be empty", "facet_type");
  }
  if (observation.key.empty()) return InvalidArgument("facet key must not be empty", "key");
  if (!IsConfidence(observation.confidence)) {
    return InvalidArgument("facet confidence must be in [0, 1]", "confidence");
  }
  return Status::Ok();
}

FacetRow MergeFacetRow(const std::optional<FacetRow>& stored, const FacetRow& observation) {
  FacetRow out = stored.value_or(observation);
  if (stored) {
    out.evidence_count += 1;
    if (observation.confidence >= stored->confidence) {
      out.value = observation.value;
      out.confidence = observation.confidence;
    }
  } else {
    out.evidence_count = 1;
    out.segment_ids.clear();
  }
  for (const std::string& id : observation.segment_ids) {
    if (std::find(out.segment_ids.begin(), out.segment_ids.end(), id) == out.segment_ids.end()) {
      out.segment_ids.push_back(id);
    }
  }
  out.updated_at = observation.updated_at;
  return out;
}

}  // namespace mnemo::storage::internal
