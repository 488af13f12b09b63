// mnemo::Knowledge (mnemo/knowledge.h): the graph of spec 50 (stated facts
// and the triples distilled from documents) and the profile, which the
// Archivist folds (spec 40).
#include "mnemo/knowledge.h"

#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "context/graph.h"
#include "core/access.h"
#include "core/archivist/archivist_options.h"
#include "core/audit_record.h"
#include "core/services/knowledge_options.h"
#include "core/validation.h"
#include "storage/graph_store.h"
#include "storage/rules/graph_rules.h"

namespace mnemo {
namespace {

// Stated facts weigh like facts stated through memory.profile_put (spec 40).
constexpr double kStatedConfidence = 0.9;

Triple ToPublic(storage::TripleRow r) {
  return Triple{.id = std::move(r.id),
                .subject = std::move(r.subject),
                .predicate = std::move(r.predicate),
                .object = std::move(r.object),
                .confidence = r.confidence,
                .source = std::move(r.source),
                .sentence = std::move(r.sentence),
                .valid_from = r.valid_from,
                .valid_to = r.valid_to,
                .created_at = r.created_at,
                .owner = std::move(r.owner)};
}

}  // namespace

internal::KnowledgeOptions internal::KnowledgeOptionsOf(const Config& config) {
  return {.enabled = config.memory.enabled,
          .acl_enabled = config.memory.acl_enabled,
          .secrets = config.security.secrets};
}

Knowledge::Knowledge(storage::GraphStore& graph, Archivist& archivist, internal::AuditLog* audit,
                     std::shared_ptr<Clock> clock, internal::KnowledgeOptions options)
    : graph_(graph),
      archivist_(archivist),
      audit_(audit),
      clock_(std::move(clock)),
      options_(std::make_unique<const internal::KnowledgeOptions>(std::move(options))) {}

Knowledge::~Knowledge() = default;

// The profile is the Archivist's: it folds the facets from what it
// observes and what is stated here.
Result<std::vector<ProfileFacet>> Knowledge::Profile(const Principal& who,
                                                     const ProfileRequest& req) {
  internal::AuditRecord audit(audit_, who, "memory.profile");
  return audit.End([&]() -> Result<std::vector<ProfileFacet>> {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->enabled));
    return archivist_.Profile(who, req);
  }());
}

Result<ProfileFacet> Knowledge::ProfilePut(const Principal& who, std::string_view facet_type,
                                           std::string_view key, std::string_view value) {
  internal::AuditRecord audit(audit_, who, "memory.profile_put", {.key = key});
  return audit.End([&]() -> Result<ProfileFacet> {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->enabled));
    return archivist_.ProfilePut(who, facet_type, key, value);
  }());
}

Result<std::string> Knowledge::ProfileRender(const Principal& who) {
  internal::AuditRecord audit(audit_, who, "memory.profile_render");
  return audit.End([&]() -> Result<std::string> {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->enabled));
    return archivist_.ProfileRender(who);
  }());
}

Result<ProfileFacet> Knowledge::ProfileCorrect(const Principal& who, const FacetAddress& at,
                                               std::string_view value) {
  internal::AuditRecord audit(audit_, who, "memory.profile_correct", {.key = at.key});
  return audit.End([&]() -> Result<ProfileFacet> {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->enabled));
    return archivist_.ProfileCorrect(who, at, value);
  }());
}

Status Knowledge::ProfileDelete(const Principal& who, const FacetAddress& at) {
  internal::AuditRecord audit(audit_, who, "memory.profile_delete", {.key = at.key});
  return audit.End([&]() -> Status {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->enabled));
    return archivist_.ProfileDelete(who, at);
  }());
}

Result<GraphUpsertResult> Knowledge::GraphUpsert(const Principal& who,
                                                 const GraphUpsertRequest& req) {
  internal::AuditRecord audit(audit_, who, "memory.graph_upsert");
  return audit.End([&]() -> Result<GraphUpsertResult> {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->enabled));
    MNEMO_RETURN_IF_ERROR(ValidateGraphTerm(req.subject, "subject"));
    MNEMO_RETURN_IF_ERROR(ValidateGraphTerm(req.predicate, "predicate"));
    MNEMO_RETURN_IF_ERROR(ValidateGraphTerm(req.object, "object"));
    MNEMO_RETURN_IF_ERROR(ValidateGraphTerm(req.source, "source", /*allow_empty=*/true));
    const double confidence = req.confidence.value_or(kStatedConfidence);
    if (!std::isfinite(confidence) || confidence < 0.0 || confidence > 1.0) {
      return InvalidArgument("confidence must be a number between 0 and 1", "confidence");
    }
    MNEMO_RETURN_IF_ERROR(CheckSecret(options_->secrets, req.subject, "subject"));
    MNEMO_RETURN_IF_ERROR(CheckSecret(options_->secrets, req.object, "object"));
    const TimeMs now = clock_->NowMs();
    storage::TripleRow row{.owner = who.name,
                           .subject = req.subject,
                           .predicate = req.predicate,
                           .object = req.object,
                           .confidence = confidence,
                           .source = req.source,
                           .valid_from = now,
                           .created_at = now};
    // Whether the predicate is single-valued is decided on its stored form.
    const bool single =
        context::IsSingleValued(storage::internal::NormalizePredicate(req.predicate));
    MNEMO_ASSIGN_OR_RETURN(storage::TripleUpsert u, graph_.UpsertTriple(row, single));
    return GraphUpsertResult{.triple = ToPublic(std::move(u.row)),
                             .created = u.created,
                             .superseded = std::move(u.superseded)};
  }());
}

Result<std::vector<Triple>> Knowledge::GraphQuery(const Principal& who,
                                                  const GraphQueryRequest& req) {
  internal::AuditRecord audit(audit_, who, "memory.graph_query");
  return audit.End([&]() -> Result<std::vector<Triple>> {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->enabled));
    if (req.subject) MNEMO_RETURN_IF_ERROR(ValidateGraphTerm(*req.subject, "subject"));
    if (req.predicate) MNEMO_RETURN_IF_ERROR(ValidateGraphTerm(*req.predicate, "predicate"));
    if (req.object) MNEMO_RETURN_IF_ERROR(ValidateGraphTerm(*req.object, "object"));
    if (req.limit < 1 || req.limit > kMaxPageSize) {
      return InvalidArgument("limit must be between 1 and " + std::to_string(kMaxPageSize),
                             "limit");
    }
    storage::TripleQuery query{.subject = req.subject,
                               .predicate = req.predicate,
                               .object = req.object,
                               .include_history = req.include_history,
                               .limit = req.limit,
                               .as_of = req.as_of};
    // Scoped like episodic rows: everyone's while ACL is off.
    if (options_->acl_enabled) query.owner = who.name;
    MNEMO_ASSIGN_OR_RETURN(std::vector<storage::TripleRow> rows, graph_.QueryTriples(query));
    std::vector<Triple> out;
    out.reserve(rows.size());
    for (storage::TripleRow& r : rows) out.push_back(ToPublic(std::move(r)));
    return out;
  }());
}

namespace {

Status TripleNotFound(std::string_view id) {
  return NotFound("No triple found with id: " + std::string(id) +
                  " (memory.graph_query lists the triples and their ids)");
}

}  // namespace

// Correct restates a current triple: the wrong one is deleted (it was never
// true, so it leaves no history) and the corrected fact upserted as
// GraphUpsert does, with the old one's source, sentence and owner, and its
// confidence unless given. A past triple (valid_to set) can be deleted, not
// corrected.
Result<GraphUpsertResult> Knowledge::GraphCorrect(const Principal& who,
                                                  const GraphCorrection& req) {
  internal::AuditRecord audit(audit_, who, "memory.graph_correct");
  return audit.End([&]() -> Result<GraphUpsertResult> {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->enabled));
    MNEMO_RETURN_IF_ERROR(ValidateKey(req.id, "id"));
    if (!req.subject && !req.predicate && !req.object && !req.confidence) {
      return InvalidArgument(
          "a triple correction needs at least one of subject, predicate, object and confidence",
          "object");
    }
    MNEMO_ASSIGN_OR_RETURN(std::optional<storage::TripleRow> stored, graph_.GetTriple(req.id));
    if (!stored || !MayChange(who, options_->acl_enabled, stored->owner)) {
      return TripleNotFound(req.id);
    }
    if (stored->valid_to != 0) {
      return InvalidArgument("triple " + req.id +
                                 " is history (superseded): only a current triple can be "
                                 "corrected; delete it with memory.graph_delete",
                             "id");
    }
    storage::TripleRow row{.owner = stored->owner,  // an admin's correction leaves it theirs
                           .subject = req.subject.value_or(stored->subject),
                           .predicate = req.predicate.value_or(stored->predicate),
                           .object = req.object.value_or(stored->object),
                           .confidence = req.confidence.value_or(stored->confidence),
                           .source = stored->source,
                           .sentence = stored->sentence};
    // Checked before anything is deleted, so a refused correction changes nothing.
    MNEMO_RETURN_IF_ERROR(ValidateGraphTerm(row.subject, "subject"));
    MNEMO_RETURN_IF_ERROR(ValidateGraphTerm(row.predicate, "predicate"));
    MNEMO_RETURN_IF_ERROR(ValidateGraphTerm(row.object, "object"));
    if (!std::isfinite(row.confidence) || row.confidence < 0.0 || row.confidence > 1.0) {
      return InvalidArgument("confidence must be a number between 0 and 1", "confidence");
    }
    MNEMO_RETURN_IF_ERROR(CheckSecret(options_->secrets, row.subject, "subject"));
    MNEMO_RETURN_IF_ERROR(CheckSecret(options_->secrets, row.object, "object"));
    MNEMO_RETURN_IF_ERROR(storage::internal::NewTripleRow(row).status());
    MNEMO_ASSIGN_OR_RETURN(bool deleted, graph_.DeleteTriple(req.id));
    if (!deleted) return TripleNotFound(req.id);
    row.valid_from = clock_->NowMs();
    row.created_at = row.valid_from;
    const bool single =
        context::IsSingleValued(storage::internal::NormalizePredicate(row.predicate));
    MNEMO_ASSIGN_OR_RETURN(storage::TripleUpsert u, graph_.UpsertTriple(row, single));
    return GraphUpsertResult{.triple = ToPublic(std::move(u.row)),
                             .created = u.created,
                             .superseded = std::move(u.superseded)};
  }());
}

Status Knowledge::GraphDelete(const Principal& who, std::string_view id) {
  internal::AuditRecord audit(audit_, who, "memory.graph_delete");
  return audit.End([&]() -> Status {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->enabled));
    MNEMO_RETURN_IF_ERROR(ValidateKey(id, "id"));
    MNEMO_ASSIGN_OR_RETURN(std::optional<storage::TripleRow> stored, graph_.GetTriple(id));
    if (!stored || !MayChange(who, options_->acl_enabled, stored->owner)) return TripleNotFound(id);
    MNEMO_ASSIGN_OR_RETURN(bool deleted, graph_.DeleteTriple(id));
    if (!deleted) return TripleNotFound(id);
    return Status::Ok();
  }());
}

}  // namespace mnemo
