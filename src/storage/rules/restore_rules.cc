#include <map>
#include <string>

#include "storage/entry_store.h"
#include "storage/restore.h"
#include "storage/rules/context_event_rules.h"
#include "storage/rules/document_rules.h"
#include "storage/rules/episodic_rules.h"

namespace mnemo::storage {
namespace {

Status Named(const Status& s, std::string_view kind, size_t at) {
  if (s.ok()) return s;
  return InvalidArgument(std::string(kind) + " " + std::to_string(at + 1) + ": " + s.message());
}

bool ConfidenceOk(double c) { return c >= 0.0 && c <= 1.0; }  // NaN fails

}  // namespace

Status ValidateRestoreBatch(const RestoreBatch& batch) {
  for (size_t i = 0; i < batch.entries.size(); ++i) {
    const EntryWrite& w = batch.entries[i];
    if (w.owner.empty() || w.ns.empty() || w.key.empty()) {
      return Named(InvalidArgument("owner, namespace and key must not be empty"), "entry", i);
    }
  }
  std::map<std::string, size_t, std::less<>> dims;
  for (size_t i = 0; i < batch.vectors.size(); ++i) {
    const RestoreVector& v = batch.vectors[i];
    Status s = Status::Ok();
    if (v.entry >= batch.entries.size()) {
      s = InvalidArgument("names an entry the batch does not hold");
    } else if (v.signature.empty() || v.vector.empty()) {
      s = InvalidArgument("signature and vector must not be empty");
    } else if (auto [it, fresh] = dims.emplace(v.signature, v.vector.size());
               !fresh && it->second != v.vector.size()) {
      s = InvalidArgument("dimension " + std::to_string(v.vector.size()) + " of " + v.signature +
                          " differs from the batch's " + std::to_string(it->second));
    }
    MNEMO_RETURN_IF_ERROR(Named(s, "vector", i));
  }
  for (size_t i = 0; i < batch.turns.size(); ++i) {
    MNEMO_RETURN_IF_ERROR(
        Named(internal::ValidateTurnWrites(std::span(&batch.turns[i], 1)), "turn", i));
    if (batch.turns[i].row.seq < 0) {
      return Named(InvalidArgument("seq must not be negative"), "turn", i);
    }
  }
  for (size_t i = 0; i < batch.segments.size(); ++i) {
    MNEMO_RETURN_IF_ERROR(Named(internal::ValidateSegment(batch.segments[i]), "segment", i));
  }
  MNEMO_RETURN_IF_ERROR(Named(internal::ValidateEvents(batch.events), "events", 0));
  for (size_t i = 0; i < batch.facets.size(); ++i) {
    MNEMO_RETURN_IF_ERROR(Named(internal::ValidateFacet(batch.facets[i]), "facet", i));
  }
  for (size_t i = 0; i < batch.documents.size(); ++i) {
    MNEMO_RETURN_IF_ERROR(Named(internal::ValidateDocument(batch.documents[i]), "document", i));
    if (batch.documents[i].id.empty()) {
      return Named(InvalidArgument("id must not be empty"), "document", i);
    }
  }
  for (size_t i = 0; i < batch.context_events.size(); ++i) {
    MNEMO_RETURN_IF_ERROR(
        Named(internal::ValidateContextEvent(batch.context_events[i]), "context event", i));
    if (batch.context_events[i].seq < 0) {
      return Named(InvalidArgument("seq must not be negative"), "context event", i);
    }
  }
  for (size_t i = 0; i < batch.triples.size(); ++i) {
    const TripleRow& t = batch.triples[i];
    Status s = Status::Ok();
    if (t.id.empty() || t.owner.empty() || t.subject.empty() || t.predicate.empty() ||
        t.object.empty()) {
      s = InvalidArgument("id, owner, subject, predicate and object must not be empty");
    } else if (!ConfidenceOk(t.confidence)) {
      s = InvalidArgument("confidence must be between 0 and 1");
    } else if (t.valid_to != 0 && t.valid_to < t.valid_from) {
      s = InvalidArgument("valid_to must not be before valid_from");
    }
    MNEMO_RETURN_IF_ERROR(Named(s, "triple", i));
  }
  return Status::Ok();
}

Result<RestoreReport> RestoreRows(const RestoreBatch& batch, RestoreTarget& target) {
  RestoreReport report;
  std::vector<Label> labels;
  MNEMO_ASSIGN_OR_RETURN(report.entries_created, target.WriteEntries(batch.entries, labels));
  std::map<std::string, std::vector<LabeledVector>, std::less<>> by_signature;
  for (const RestoreVector& v : batch.vectors) {
    by_signature[v.signature].push_back({labels[v.entry], v.vector});
  }
  for (const auto& [signature, vectors] : by_signature) {
    MNEMO_RETURN_IF_ERROR(target.PutVectors(signature, vectors));
  }
  // Writes `row` unless `stored` says its identity is taken; counts a skip.
  const auto restore = [&](const auto& row, auto has, auto insert,
                           int64_t* kind_skipped = nullptr) -> Status {
    MNEMO_ASSIGN_OR_RETURN(bool stored, (target.*has)(row));
    if (!stored) return (target.*insert)(row);
    ++report.skipped;
    if (kind_skipped != nullptr) ++*kind_skipped;
    return Status::Ok();
  };
  for (const TurnWrite& w : batch.turns) {
    MNEMO_ASSIGN_OR_RETURN(bool stored, target.HasTurn(w.row));
    if (stored) {
      ++report.skipped;
      continue;
    }
    MNEMO_RETURN_IF_ERROR(target.InsertTurn(w));
  }
  for (const SegmentRow& row : batch.segments) {
    MNEMO_RETURN_IF_ERROR(restore(row, &RestoreTarget::HasSegment, &RestoreTarget::InsertSegment));
  }
  for (const EventRow& row : batch.events) {
    MNEMO_RETURN_IF_ERROR(restore(row, &RestoreTarget::HasEvent, &RestoreTarget::InsertEvent));
  }
  for (const FacetRow& row : batch.facets) {
    MNEMO_RETURN_IF_ERROR(restore(row, &RestoreTarget::HasFacet, &RestoreTarget::InsertFacet));
  }
  for (const DocumentRow& given : batch.documents) {
    DocumentRow row = given;
    row.content_hash = internal::ContentHash(row.content);
    MNEMO_RETURN_IF_ERROR(restore(row, &RestoreTarget::HasDocument, &RestoreTarget::InsertDocument,
                                  &report.documents_skipped));
  }
  for (const ContextEventRow& row : batch.context_events) {
    MNEMO_RETURN_IF_ERROR(
        restore(row, &RestoreTarget::HasContextEvent, &RestoreTarget::InsertContextEvent));
  }
  for (const TripleRow& row : batch.triples) {
    MNEMO_RETURN_IF_ERROR(restore(row, &RestoreTarget::HasTriple, &RestoreTarget::InsertTriple,
                                  &report.triples_skipped));
  }
  return report;
}

}  // namespace mnemo::storage
