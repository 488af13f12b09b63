#include "core/admin/admin_import_checks.h"

#include <map>
#include <utility>

#include <nlohmann/json.hpp>

#include "base/sha256.h"

#include "core/services/tool_specs.h"
#include "core/validation.h"
#include "rules/tool_rule.h"
#include "storage/document_store.h"
#include "storage/entry_store.h"
#include "storage/episodic_store.h"
#include "storage/values.h"

namespace mnemo::internal {
namespace {

// A row's owner: the rule of every principal's name (PrincipalId).
Status Owner(const std::string& owner) { return PrincipalId::Parse(owner, "owner").status(); }

// An id, a session's or an agent's: like a key (1-256 bytes of text), or
// nothing when `optional`.
Status Id(std::string_view id, std::string_view field, bool optional = false) {
  if (optional && id.empty()) return Status::Ok();
  return ValidateKey(id, field);
}

Status Confidence(double c, std::string_view field = "confidence") {
  if (!(c >= 0 && c <= 1)) {
    return InvalidArgument(std::string(field) + " must be between 0 and 1", std::string(field));
  }
  return Status::Ok();
}

// Text that may be empty, at most 1 MiB (turns, lessons, recaps, evidence).
Status LongText(std::string_view value, std::string_view field) {
  return ValidateText(value, field, kMaxContentBytes, /*allow_empty=*/true);
}

Status JsonText(std::string_view text, std::string_view field, bool array) {
  if (text.empty()) return Status::Ok();
  MNEMO_RETURN_IF_ERROR(LongText(text, field));
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || (array ? !j.is_array() : !j.is_object())) {
    return InvalidArgument(std::string(field) + " must be the text of a JSON " +
                               (array ? "array (the turn's tool calls)" : "object"),
                           std::string(field));
  }
  return Status::Ok();
}

}  // namespace

std::string DerivedId(std::string_view seed) {
  std::string hex = Sha256Hex(seed).substr(0, 32);
  hex[12] = '8';
  hex[16] = "89ab"[hex[16] % 4];
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" +
         hex.substr(16, 4) + "-" + hex.substr(20, 12);
}

Status OwnIds(storage::Stores& stores, const std::string& me, storage::RestoreBatch& batch) {
  for (storage::EntryWrite& w : batch.entries) w.id.reset();
  std::map<std::string, std::string, std::less<>> renamed;  // segment ids
  for (storage::SegmentRow& s : batch.segments) {
    MNEMO_ASSIGN_OR_RETURN(std::optional<storage::SegmentRow> stored,
                           stores.episodic->GetSegment(s.id));
    if (!stored || stored->owner == me) continue;
    std::string id = DerivedId("segment\n" + me + "\n" + s.id);
    renamed.emplace(std::exchange(s.id, id), std::move(id));
  }
  auto follow = [&renamed](std::string& segment_id) {
    if (auto it = renamed.find(segment_id); it != renamed.end()) segment_id = it->second;
  };
  for (storage::EventRow& e : batch.events) {
    follow(e.segment_id);
    e.id = DerivedId("event\n" + me + "\n" + e.id);
  }
  for (storage::FacetRow& f : batch.facets) {
    for (std::string& id : f.segment_ids) follow(id);
  }
  for (storage::DocumentRow& d : batch.documents) {
    MNEMO_ASSIGN_OR_RETURN(std::optional<storage::DocumentRow> stored,
                           stores.documents->GetDocument(d.id, /*count_access=*/false));
    if (stored && stored->owner != me) d.id = DerivedId("document\n" + me + "\n" + d.id);
  }
  for (storage::TripleRow& t : batch.triples) {
    t.id = DerivedId("triple\n" + me + "\n" + t.id);
  }
  return Status::Ok();
}

Status AdmitImportedEntry(const Principal& who, bool admin, Entry& e) {
  if (!admin) e.owner = who.name;
  if (e.ns.starts_with("tool-") && e.key.starts_with("rule/")) {
    std::optional<ToolRule> rule = rules::RuleFromEntry(e);
    if (!rule) {
      return InvalidArgument(
          "key \"" + e.key + "\" in namespace " + e.ns +
              " is a tool rule, and this entry is none: a rule has a valid tool name, a "
              "category of critical, high or normal and a tag source:user_explicit, "
              "source:post_turn or source:programmatic, as memory.tool_rule_put writes it",
          "key");
    }
    MNEMO_RETURN_IF_ERROR(ValidateRuleId(rule->id));
    MNEMO_RETURN_IF_ERROR(ValidateRuleText(rule->rule));
    MNEMO_RETURN_IF_ERROR(ValidateRuleTags(rule->tags));
  }
  if (storage::IsSystemNamespace(e.ns) && e.visibility == Visibility::kPublic) {
    return InvalidArgument("visibility: namespace " + e.ns +
                               " holds the engine's own rows (tool rules, statistics, "
                               "registrations), private to their owner: leave visibility out",
                           "visibility");
  }
  if (e.ns == storage::kToolRegistryNamespace) {
    if (!admin) {
      return PermissionDenied(
          "namespace tool_registry holds the tool declarations: only an admin imports them "
          "(register a tool with memory.tool_register)");
    }
    if (e.owner != kToolRegistryOwner) {
      return InvalidArgument(
          "owner: a tool declaration belongs to \"" + std::string(kToolRegistryOwner) + "\"",
          "owner");
    }
  }
  return Status::Ok();
}

Status ValidateTurnRecord(const storage::TurnRow& r) {
  MNEMO_RETURN_IF_ERROR(Owner(r.owner));
  MNEMO_RETURN_IF_ERROR(Id(r.session_id, "session_id"));
  MNEMO_RETURN_IF_ERROR(ValidateSeq(r.seq, "seq"));
  MNEMO_RETURN_IF_ERROR(LongText(r.content, "content"));
  MNEMO_RETURN_IF_ERROR(LongText(r.lesson, "lesson"));
  MNEMO_RETURN_IF_ERROR(JsonText(r.tool_calls_json, "tool_calls", /*array=*/true));
  MNEMO_RETURN_IF_ERROR(ValidateTimeMs(r.timestamp_ms, "timestamp_ms"));
  MNEMO_RETURN_IF_ERROR(ValidateCount(r.cost_microdollars, "cost_microdollars"));
  return Id(r.agent_id, "agent_id", /*optional=*/true);
}

Status ValidateSegmentRecord(const storage::SegmentRow& r) {
  MNEMO_RETURN_IF_ERROR(Owner(r.owner));
  MNEMO_RETURN_IF_ERROR(Id(r.id, "id"));
  MNEMO_RETURN_IF_ERROR(Id(r.session_id, "session_id"));
  MNEMO_RETURN_IF_ERROR(ValidateSeq(r.first_seq, "first_seq"));
  MNEMO_RETURN_IF_ERROR(ValidateSeq(r.last_seq, "last_seq"));
  if (r.first_seq > r.last_seq) {
    return InvalidArgument("first_seq " + std::to_string(r.first_seq) + " is after last_seq " +
                               std::to_string(r.last_seq),
                           "first_seq");
  }
  MNEMO_RETURN_IF_ERROR(ValidateCount(r.turn_count, "turn_count"));
  MNEMO_RETURN_IF_ERROR(ValidateTimeMs(r.started_at, "started_at"));
  MNEMO_RETURN_IF_ERROR(ValidateTimeMs(r.last_turn_at, "last_turn_at"));
  MNEMO_RETURN_IF_ERROR(ValidateTimeMs(r.closed_at, "closed_at"));
  MNEMO_RETURN_IF_ERROR(LongText(r.recap, "recap"));
  return ValidateCount(r.recap_attempts, "recap_attempts");
}

Status ValidateEventRecord(const storage::EventRow& r) {
  MNEMO_RETURN_IF_ERROR(Owner(r.owner));
  MNEMO_RETURN_IF_ERROR(Id(r.id, "id"));
  MNEMO_RETURN_IF_ERROR(Id(r.session_id, "session_id", /*optional=*/true));
  MNEMO_RETURN_IF_ERROR(Id(r.segment_id, "segment_id", /*optional=*/true));
  MNEMO_RETURN_IF_ERROR(ValidateContent(r.text, "text"));
  MNEMO_RETURN_IF_ERROR(Confidence(r.confidence));
  MNEMO_RETURN_IF_ERROR(ValidateTimeMs(r.closed_at, "closed_at"));
  return ValidateTimeMs(r.created_at, "created_at");
}

Status ValidateFacetRecord(const storage::FacetRow& r) {
  MNEMO_RETURN_IF_ERROR(Owner(r.owner));
  MNEMO_RETURN_IF_ERROR(ValidateCategory(r.facet_type, "facet_type"));
  MNEMO_RETURN_IF_ERROR(ValidateKey(r.key, "key"));
  MNEMO_RETURN_IF_ERROR(ValidateFacetValue(r.value, "value"));
  MNEMO_RETURN_IF_ERROR(Confidence(r.confidence));
  MNEMO_RETURN_IF_ERROR(ValidateCount(r.evidence_count, "evidence_count"));
  for (const std::string& id : r.segment_ids) MNEMO_RETURN_IF_ERROR(Id(id, "segment_ids"));
  MNEMO_RETURN_IF_ERROR(ValidateTimeMs(r.updated_at, "updated_at"));
  MNEMO_RETURN_IF_ERROR(ValidateTimeMs(r.valid_from, "valid_from"));
  MNEMO_RETURN_IF_ERROR(LongText(r.evidence, "evidence"));
  for (const storage::FacetValue& v : r.history) {
    MNEMO_RETURN_IF_ERROR(ValidateFacetValue(v.value, "history"));
    MNEMO_RETURN_IF_ERROR(Confidence(v.confidence, "history"));
    MNEMO_RETURN_IF_ERROR(LongText(v.evidence, "history"));
    MNEMO_RETURN_IF_ERROR(ValidateTimeMs(v.valid_from, "history"));
    MNEMO_RETURN_IF_ERROR(ValidateTimeMs(v.valid_to, "history"));
  }
  return Status::Ok();
}

Status ValidateDocumentRecord(const storage::DocumentRow& r) {
  MNEMO_RETURN_IF_ERROR(Owner(r.owner));
  MNEMO_RETURN_IF_ERROR(Id(r.id, "id"));
  MNEMO_RETURN_IF_ERROR(ValidateText(r.source, "source", kMaxSourceBytes, /*allow_empty=*/true));
  MNEMO_RETURN_IF_ERROR(JsonText(r.meta, "meta", /*array=*/false));
  MNEMO_RETURN_IF_ERROR(ValidateContent(r.content, "content"));
  MNEMO_RETURN_IF_ERROR(LongText(r.summary, "summary"));
  MNEMO_RETURN_IF_ERROR(ValidateCount(r.access_count, "access_count"));
  MNEMO_RETURN_IF_ERROR(ValidateTimeMs(r.created_at, "created_at"));
  return ValidateTimeMs(r.updated_at, "updated_at");
}

Status ValidateContextEventRecord(const storage::ContextEventRow& r) {
  MNEMO_RETURN_IF_ERROR(Owner(r.owner));
  MNEMO_RETURN_IF_ERROR(Id(r.session_id, "session_id"));
  MNEMO_RETURN_IF_ERROR(ValidateSeq(r.seq, "seq"));
  MNEMO_RETURN_IF_ERROR(ValidateTimeMs(r.timestamp_ms, "timestamp_ms"));
  return ValidateTimeMs(r.created_at, "created_at");
}

Status ValidateTripleRecord(const storage::TripleRow& r) {
  MNEMO_RETURN_IF_ERROR(Owner(r.owner));
  MNEMO_RETURN_IF_ERROR(Id(r.id, "id"));
  MNEMO_RETURN_IF_ERROR(ValidateGraphTerm(r.subject, "subject"));
  MNEMO_RETURN_IF_ERROR(ValidateGraphTerm(r.predicate, "predicate"));
  MNEMO_RETURN_IF_ERROR(ValidateGraphTerm(r.object, "object"));
  MNEMO_RETURN_IF_ERROR(Confidence(r.confidence));
  MNEMO_RETURN_IF_ERROR(ValidateGraphTerm(r.source, "source", /*allow_empty=*/true));
  MNEMO_RETURN_IF_ERROR(LongText(r.sentence, "sentence"));
  MNEMO_RETURN_IF_ERROR(ValidateTimeMs(r.valid_from, "valid_from"));
  MNEMO_RETURN_IF_ERROR(ValidateTimeMs(r.valid_to, "valid_to"));
  return ValidateTimeMs(r.created_at, "created_at");
}

}  // namespace mnemo::internal
