#include "mnemo/documents.h"

#include <algorithm>
#include <exception>
#include <utility>

#include <nlohmann/json.hpp>

#include "base/json_limits.h"
#include "context/documents.h"
#include "core/audit_record.h"
#include "core/services/documents_options.h"
#include "core/validation.h"
#include "storage/document_store.h"
#include "storage/graph_store.h"
#include "storage/values.h"
#include "text/pipeline/query.h"
#include "text/snippet.h"
#include "text/strip.h"

namespace mnemo {
namespace {

// A recall hit shows the document's summary, else its beginning.
constexpr size_t kRecallPreviewChars = 600;

Status ValidateMeta(std::string_view meta, int64_t max_bytes) {
  if (meta.empty()) return Status::Ok();
  MNEMO_RETURN_IF_ERROR(internal::CheckJsonLimits(meta, "meta", max_bytes));
  // JSON as a data format: the meta is stored as given, only its shape is
  // checked here.
  try {
    const nlohmann::json parsed = nlohmann::json::parse(meta);
    if (parsed.is_object()) return Status::Ok();
  } catch (const std::exception&) {
    return InvalidArgument("meta must be a JSON object, e.g. {\"origin\": \"wiki\"}: not JSON",
                           "meta");
  }
  return InvalidArgument("meta must be a JSON object, e.g. {\"origin\": \"wiki\"}", "meta");
}

Status ValidateSource(std::string_view source) {
  if (source.size() > kMaxSourceBytes) {
    return InvalidArgument("source is " + std::to_string(source.size()) + " bytes long: at most " +
                               std::to_string(kMaxSourceBytes) + " bytes are allowed",
                           "source");
  }
  if (!source.empty()) MNEMO_RETURN_IF_ERROR(ValidateContent(source, "source"));
  return Status::Ok();
}

Status ValidateDocumentId(std::string_view id) {
  if (text::IsBlank(id)) {
    return InvalidArgument("id must not be blank", "id");
  }
  return Status::Ok();
}

Document ToPublic(storage::DocumentRow r, bool with_content) {
  Document d{.id = std::move(r.id),
             .owner = std::move(r.owner),
             .source = std::move(r.source),
             .meta = std::move(r.meta),
             .summary = std::move(r.summary),
             .tags = std::move(r.tags),
             .content_hash = std::move(r.content_hash),
             .access_count = r.access_count,
             .created_at = r.created_at,
             .updated_at = r.updated_at};
  if (with_content) d.content = std::move(r.content);
  for (const std::string& e : r.entities) {
    auto [kind, text] = context::DecodeEntity(e);
    d.entities.push_back({.kind = std::string(kind), .text = std::string(text)});
  }
  return d;
}

}  // namespace

internal::DocumentsOptions internal::DocumentsOptionsOf(const Config& config,
                                                        AccessCountFailureFn on_count_failure,
                                                        const embed::SoftMatcher* soft) {
  return {.enabled = config.memory.enabled,
          .acl_enabled = config.memory.acl_enabled,
          .max_meta_bytes = config.server.max_body_bytes,
          .secrets = config.security.secrets,
          .min_relevance_score = config.search.min_relevance_score,
          .on_count_failure = std::move(on_count_failure),
          .soft = soft};
}

Documents::Documents(storage::DocumentStore& documents, storage::GraphStore& graph,
                     internal::AuditLog* audit, std::shared_ptr<Clock> clock,
                     internal::DocumentsOptions options)
    : documents_(documents),
      graph_(graph),
      audit_(audit),
      clock_(std::move(clock)),
      options_(std::make_unique<const internal::DocumentsOptions>(std::move(options))) {}

Documents::~Documents() = default;

Result<std::vector<storage::DocumentHit>> Documents::Rank(std::string_view query,
                                                          const std::vector<std::string>& terms,
                                                          std::optional<std::string> owner,
                                                          int limit, std::vector<double>* keyword) {
  std::optional<embed::SoftMatcher::Query> prepared;
  if (options_->soft != nullptr) prepared = options_->soft->Prepare(query);
  const bool soft = prepared && !prepared->words.empty();
  // Candidates as for entries (spec 20: N >= 4k per side).
  MNEMO_ASSIGN_OR_RETURN(
      std::vector<storage::DocumentHit> hits,
      documents_.SearchDocuments({.terms = terms,
                                  .owner = std::move(owner),
                                  .limit = soft ? std::max(4 * limit, 40) : limit}));
  std::vector<std::pair<storage::DocumentHit, double>> ranked;  // (hit, exact keyword score)
  ranked.reserve(hits.size());
  for (storage::DocumentHit& h : hits) {
    const double exact = h.score;
    if (soft) {
      const std::string& text = h.row.search_text.empty() ? h.row.content : h.row.search_text;
      h.score = embed::SoftMatcher::WithSoft(h.score, options_->soft->Score(*prepared, text));
    }
    ranked.emplace_back(std::move(h), exact);
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.first.score > b.first.score; });
  if (ranked.size() > static_cast<size_t>(limit)) ranked.resize(static_cast<size_t>(limit));
  hits.clear();
  if (keyword != nullptr) keyword->clear();
  for (auto& [hit, exact] : ranked) {
    hits.push_back(std::move(hit));
    if (keyword != nullptr) keyword->push_back(exact);
  }
  return hits;
}

std::optional<std::string> Documents::Owner(const Principal& who) const {
  if (!options_->acl_enabled) return std::nullopt;
  return who.name;
}

Result<DocumentPutResult> Documents::Put(const Principal& who, const DocumentPutRequest& req) {
  internal::AuditRecord audit(audit_, who, "memory.doc_put");
  return audit.End([&]() -> Result<DocumentPutResult> {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->enabled));
    MNEMO_RETURN_IF_ERROR(ValidateContent(req.content, "content"));
    MNEMO_RETURN_IF_ERROR(ValidateSource(req.source));
    MNEMO_RETURN_IF_ERROR(ValidateMeta(req.meta, options_->max_meta_bytes));
    MNEMO_RETURN_IF_ERROR(CheckSecret(options_->secrets, req.content, "content"));
    MNEMO_ASSIGN_OR_RETURN(storage::DocumentPut put,
                           context::StoreDocument(documents_, graph_,
                                                  {.owner = who.name,
                                                   .source = req.source,
                                                   .meta = req.meta,
                                                   .content = req.content,
                                                   .computation_text = req.content,
                                                   .now = clock_->NowMs()}));
    return DocumentPutResult{.id = std::move(put.row.id), .created = put.created};
  }());
}

Result<Document> Documents::Get(const Principal& who, std::string_view id) {
  internal::AuditRecord audit(audit_, who, "memory.doc_get");
  return audit.End([&]() -> Result<Document> {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->enabled));
    MNEMO_RETURN_IF_ERROR(ValidateDocumentId(id));
    const std::optional<std::string> owner = Owner(who);
    // Another principal's document is checked before its access is counted,
    // so reading it leaves no trace.
    if (owner) {
      MNEMO_ASSIGN_OR_RETURN(std::optional<storage::DocumentRow> peek,
                             documents_.GetDocument(id, /*count_access=*/false));
      if (!peek || peek->owner != *owner) return NotFound("no document " + std::string(id));
    }
    Result<std::optional<storage::DocumentRow>> row =
        documents_.GetDocument(id, /*count_access=*/true);
    if (!row.ok()) {
      // The count is best effort: the document is read without it.
      if (options_->on_count_failure) options_->on_count_failure(row.status());
      row = documents_.GetDocument(id, /*count_access=*/false);
    }
    MNEMO_RETURN_IF_ERROR(row.status());
    if (!*row) return NotFound("no document " + std::string(id));
    return ToPublic(std::move(**row), /*with_content=*/true);
  }());
}

Result<std::vector<DocumentSearchHit>> Documents::Search(const Principal& who,
                                                         const DocumentSearchRequest& req) {
  internal::AuditRecord audit(audit_, who, "memory.doc_search");
  return audit.End([&]() -> Result<std::vector<DocumentSearchHit>> {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->enabled));
    MNEMO_ASSIGN_OR_RETURN(const Query query, Query::Parse(req.query));
    MNEMO_RETURN_IF_ERROR(ValidateMaxResults(req.max_results));
    const std::vector<std::string> terms = text::QueryTerms(query.view());
    MNEMO_ASSIGN_OR_RETURN(std::vector<storage::DocumentHit> hits,
                           Rank(query.view(), terms, Owner(who), req.max_results));
    std::vector<DocumentSearchHit> out;
    out.reserve(hits.size());
    for (storage::DocumentHit& h : hits) {
      DocumentSearchHit hit{.score = h.score};
      hit.snippet = text::MakeSnippet(h.row.content, terms);
      hit.document = ToPublic(std::move(h.row), /*with_content=*/false);
      out.push_back(std::move(hit));
    }
    return out;
  }());
}

Result<DocumentList> Documents::List(const Principal& who, const DocumentListRequest& req) {
  internal::AuditRecord audit(audit_, who, "memory.doc_list");
  return audit.End([&]() -> Result<DocumentList> {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->enabled));
    if (req.limit < 1 || req.limit > kMaxPageSize) {
      return InvalidArgument("limit must be between 1 and " + std::to_string(kMaxPageSize),
                             "limit");
    }
    if (req.offset < 0) return InvalidArgument("offset must be >= 0", "offset");
    if (req.source) MNEMO_RETURN_IF_ERROR(ValidateSource(*req.source));
    // One more than asked tells whether there is a next page.
    MNEMO_ASSIGN_OR_RETURN(
        std::vector<storage::DocumentRow> rows,
        documents_.ListDocuments(Owner(who), req.source, req.limit + 1, req.offset));
    DocumentList out;
    if (rows.size() > static_cast<size_t>(req.limit)) {
      rows.resize(static_cast<size_t>(req.limit));
      out.next_offset = req.offset + req.limit;
    }
    out.documents.reserve(rows.size());
    for (storage::DocumentRow& r : rows) {
      out.documents.push_back(ToPublic(std::move(r), /*with_content=*/false));
    }
    return out;
  }());
}

Result<bool> Documents::Delete(const Principal& who, std::string_view id) {
  internal::AuditRecord audit(audit_, who, "memory.doc_delete");
  return audit.End([&]() -> Result<bool> {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->enabled));
    MNEMO_RETURN_IF_ERROR(ValidateDocumentId(id));
    if (const std::optional<std::string> owner = Owner(who)) {
      MNEMO_ASSIGN_OR_RETURN(std::optional<storage::DocumentRow> row,
                             documents_.GetDocument(id, /*count_access=*/false));
      if (!row || row->owner != *owner) return false;
    }
    return documents_.DeleteDocument(id);
  }());
}

Result<std::vector<RecallHit>> Documents::Hits(const std::vector<std::string>& terms, int limit) {
  // By keywords alone (no query text, no soft matching): with soft matching
  // recall's documents took places its turns' passages held, LoCoMo dev
  // memory_recall 0.780 -> 0.778 (context_build, which gives documents a
  // room of their own, keeps it: 0.786 either way).
  std::vector<double> keyword;
  MNEMO_ASSIGN_OR_RETURN(std::vector<storage::DocumentHit> hits,
                         Rank({}, terms, std::nullopt, limit, &keyword));
  std::vector<RecallHit> out;
  for (size_t i = 0; i < hits.size(); ++i) {
    storage::DocumentHit& h = hits[i];
    if (keyword[i] < options_->min_relevance_score) continue;
    std::string preview = !h.row.summary.empty()
                              ? std::move(h.row.summary)
                              : text::MakeSnippet(h.row.content, terms, kRecallPreviewChars);
    out.push_back({.source = "document",
                   .id = std::move(h.row.id),
                   .key = std::move(h.row.source),
                   .content = std::move(preview),
                   .score = h.score});
  }
  return out;
}

}  // namespace mnemo
