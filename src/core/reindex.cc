// `mnemo reindex` (spec 20, spec 50): the vector spaces rebuilt from
// storage, and everything derived from text through the tool registry
// (assistant rows' search text, documents' fields and triples) derived again.

#include <algorithm>
#include <tuple>

#include "archivist/turn_indexer.h"
#include "context/computation_text.h"
#include "context/documents.h"
#include "context/graph.h"
#include "core/engine_impl.h"

namespace mnemo {
namespace {

constexpr int kReindexPage = 256;

}  // namespace

Result<ReindexReport> Engine::Impl::Reindex(const Principal& who, const ProgressFn& progress) {
  MNEMO_RETURN_IF_ERROR(CheckEnabled());
  if (!IsAdmin(who)) return PermissionDenied("reindex needs the admin role");
  // Drop the in-process spaces and their files: they are rebuilt from storage.
  vectors->DropAll();
  MNEMO_ASSIGN_OR_RETURN(ReindexReport report, vectors->FillMissing(progress));
  MNEMO_ASSIGN_OR_RETURN(report.recaps_embedded, archivist->FillMissingRecapVectors());
  MNEMO_ASSIGN_OR_RETURN(std::shared_ptr<VectorSpace> space, vectors->EmbedderSpace());
  if (space != nullptr) report.indexed = static_cast<int64_t>(space->size());
  MNEMO_RETURN_IF_ERROR(ReindexDerivedText(report));
  return report;
}

Status Engine::Impl::ReindexDerivedText(ReindexReport& report) {
  MNEMO_ASSIGN_OR_RETURN(const context::ToolRegistry* registry, tools->Current());
  // Assistant rows: their search text is the only one a tool changes (a
  // user row's is its message).
  int64_t after = 0;
  for (;;) {
    MNEMO_ASSIGN_OR_RETURN(std::vector<storage::TurnRow> page,
                           stores.episodic->TurnsAfter(after, kReindexPage));
    if (page.empty()) break;
    after = page.back().id;
    for (const storage::TurnRow& row : page) {
      if (row.role != "assistant") continue;
      std::vector<context::CleanerFailure> failures;
      Result<std::string> text = archivist::RecomputeAssistantSearchText(*registry, row, &failures);
      if (!text.ok()) {
        logger->Log(LogLevel::kWarn, "turn " + std::to_string(row.id) +
                                         " keeps its index: " + text.status().message());
        continue;
      }
      MNEMO_RETURN_IF_ERROR(stores.episodic->ReplaceTurnSearchText(row.id, *text));
      ++report.turns_reindexed;
      report.cleaner_failures += static_cast<int64_t>(failures.size());
    }
  }
  // Documents: summary, tags and entities derived again, and their triples
  // extracted again (a line now from a no_memory tool must stop yielding
  // one). A document's old triples go first; the new ones are stored
  // afterwards in the documents' time order, so supersession replays as it
  // happened (older evidence never ends a newer fact: PlanTripleUpsert).
  struct Distilled {
    TimeMs at;
    std::string id;
    std::string owner;
    std::vector<context::ExtractedTriple> triples;
  };
  std::vector<Distilled> distilled;
  for (int64_t offset = 0;; offset += kReindexPage) {
    MNEMO_ASSIGN_OR_RETURN(
        std::vector<storage::DocumentRow> page,
        stores.documents->ListDocuments(std::nullopt, std::nullopt, kReindexPage, offset));
    if (page.empty()) break;
    for (const storage::DocumentRow& doc : page) {
      const std::string computation = context::DocumentComputationText(*registry, doc);
      MNEMO_ASSIGN_OR_RETURN(context::DocumentFields fields,
                             context::DeriveFields(*stores.documents, computation));
      MNEMO_RETURN_IF_ERROR(stores.documents->UpdateDocumentDerived(
          doc.id, computation, fields.summary, fields.tags, fields.entities, doc.updated_at));
      ++report.documents_reindexed;
      MNEMO_RETURN_IF_ERROR(stores.graph->DeleteTriplesFromSource(doc.id).status());
      std::vector<context::ExtractedTriple> triples = context::ExtractTriplesFromText(computation);
      if (!triples.empty()) {
        distilled.push_back({doc.created_at, doc.id, doc.owner, std::move(triples)});
      }
    }
  }
  std::sort(distilled.begin(), distilled.end(), [](const Distilled& a, const Distilled& b) {
    return std::tie(a.at, a.id) < std::tie(b.at, b.id);
  });
  for (const Distilled& d : distilled) {
    MNEMO_RETURN_IF_ERROR(
        context::StoreTriples(*stores.graph, d.owner, d.id, d.at, d.triples).status());
    report.triples_derived += static_cast<int64_t>(d.triples.size());
  }
  return Status::Ok();
}

}  // namespace mnemo
