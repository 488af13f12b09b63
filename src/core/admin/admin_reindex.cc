// The administration service's `mnemo reindex` (spec 20, spec 50;
// core/admin/admin_options.h): the vector spaces rebuilt from
// storage, and everything derived from text through the tool registry
// (assistant rows' search text, documents' fields) derived again; the
// documents' stored triples are kept, not extracted again.

#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "archivist/turn_indexer.h"
#include "context/computation_text.h"
#include "context/documents.h"
#include "context/graph.h"
#include "core/access.h"
#include "core/admin/admin_options.h"
#include "core/audit_log.h"
#include "core/validation.h"

namespace mnemo {
namespace {

constexpr int kReindexPage = 256;
constexpr int kEveryTriple = std::numeric_limits<int>::max();

}  // namespace

internal::AdminOptions internal::AdminOptionsOf(const Config& config,
                                                const std::string& workspace) {
  return {.enabled = config.memory.enabled,
          .acl_enabled = config.memory.acl_enabled,
          .embedding_provider = config.embedding.provider,
          .audit_enabled = config.security.audit.enabled,
          .secrets = config.security.secrets,
          .max_body_bytes = config.server.max_body_bytes,
          .workspace = workspace,
          .memory_path = config.memory.path,
          .audit_path = internal::AuditLogPath(config, workspace)};
}

Result<ReindexReport> Admin::Reindex(const Principal& who, const ProgressFn& progress) {
  MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->enabled));
  if (!IsAdmin(who, options_->acl_enabled)) return PermissionDenied("reindex needs the admin role");
  // Drop the in-process spaces and their files: they are rebuilt from storage.
  vectors_.DropAll();
  MNEMO_ASSIGN_OR_RETURN(ReindexReport report, vectors_.FillMissing(progress));
  MNEMO_ASSIGN_OR_RETURN(report.recaps_embedded, archivist_.FillMissingRecapVectors());
  MNEMO_ASSIGN_OR_RETURN(std::shared_ptr<VectorSpace> space, vectors_.EmbedderSpace());
  if (space != nullptr) report.indexed = static_cast<int64_t>(space->size());
  MNEMO_RETURN_IF_ERROR(ReindexDerivedText(report));
  return report;
}

Status Admin::ReindexDerivedText(ReindexReport& report) {
  MNEMO_ASSIGN_OR_RETURN(const context::ToolRegistry* registry, tools_.Current());
  // Assistant rows: their search text is the only one a tool changes (a
  // user row's is its message).
  int64_t after = 0;
  for (;;) {
    MNEMO_ASSIGN_OR_RETURN(std::vector<storage::TurnRow> page,
                           stores_.episodic->TurnsAfter(after, kReindexPage));
    if (page.empty()) break;
    after = page.back().id;
    for (const storage::TurnRow& row : page) {
      if (row.role != "assistant") continue;
      std::vector<context::CleanerFailure> failures;
      Result<std::string> text = archivist::RecomputeAssistantSearchText(*registry, row, &failures);
      if (!text.ok()) {
        logger_->Log(LogLevel::kWarn, "turn " + std::to_string(row.id) +
                                          " keeps its index: " + text.status().message());
        continue;
      }
      MNEMO_RETURN_IF_ERROR(stores_.episodic->ReplaceTurnSearchText(row.id, *text));
      ++report.turns_reindexed;
      report.cleaner_failures += static_cast<int64_t>(failures.size());
    }
  }
  // Documents: summary, tags and entities derived again. Their triples are
  // not extracted again (docs/storage.md, "Reindex"): the stored ones are
  // what the user may have deleted or corrected (issue 44 section 3), so
  // they stay as they are, except those whose sentence no longer yields any
  // triple from the document's computation text (a sentence this version's
  // extraction rules no longer read as a fact), which go.
  MNEMO_ASSIGN_OR_RETURN(
      std::vector<storage::TripleRow> stored,
      stores_.graph->QueryTriples({.include_history = true, .limit = kEveryTriple}));
  std::map<std::string, std::vector<const storage::TripleRow*>> distilled;
  for (const storage::TripleRow& t : stored) {
    // A stated triple (no sentence) is the caller's word, not the text's.
    if (!t.sentence.empty()) distilled[t.source].push_back(&t);
  }
  for (int64_t offset = 0;; offset += kReindexPage) {
    MNEMO_ASSIGN_OR_RETURN(
        std::vector<storage::DocumentRow> page,
        stores_.documents->ListDocuments(std::nullopt, std::nullopt, kReindexPage, offset));
    if (page.empty()) break;
    for (const storage::DocumentRow& doc : page) {
      const std::string computation = context::DocumentComputationText(*registry, doc);
      MNEMO_ASSIGN_OR_RETURN(context::DocumentFields fields,
                             context::DeriveFields(*stores_.documents, computation));
      MNEMO_RETURN_IF_ERROR(stores_.documents->UpdateDocumentDerived(
          doc.id, computation, fields.summary, fields.tags, fields.entities, doc.updated_at));
      ++report.documents_reindexed;
      auto of_doc = distilled.find(doc.id);
      if (of_doc == distilled.end()) continue;
      std::set<std::string> sentences;
      for (context::ExtractedTriple& t : context::ExtractTriplesFromText(computation)) {
        sentences.insert(std::move(t.sentence));
      }
      for (const storage::TripleRow* t : of_doc->second) {
        if (sentences.contains(t->sentence)) {
          ++report.triples_derived;
          continue;
        }
        MNEMO_ASSIGN_OR_RETURN(bool deleted, stores_.graph->DeleteTriple(t->id));
        if (deleted) {
          logger_->Log(LogLevel::kInfo, "triple " + t->id + " of document " + doc.id +
                                            " dropped: its sentence no longer yields a triple");
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace mnemo
