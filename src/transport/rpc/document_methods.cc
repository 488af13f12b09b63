// The document methods (spec 50): memory.doc_put, doc_get, doc_search,
// doc_list and doc_delete.
#include <optional>

#include "base/time.h"
#include "core/validation.h"
#include "transport/rpc/method_table.h"

namespace mnemo::transport {
namespace {

ParamSpec IdParam() {
  return {.name = "id",
          .description = "The document's id.",
          .required = true,
          .max_bytes = kMaxKeyBytes};
}

// Every field but the content (doc_get adds it).
json DocumentToJson(const Document& d) {
  json entities = json::array();
  for (const DocumentEntity& e : d.entities) {
    entities.push_back({{"kind", e.kind}, {"text", e.text}});
  }
  json meta = json::object();
  // Stored meta nested deeper than a request body may nest (written by a
  // version that did not check) is not dumped: dumping recurses.
  if (!d.meta.empty() && JsonDepthWithin(d.meta)) {
    meta = json::parse(d.meta, nullptr, /*allow_exceptions=*/false);
    if (meta.is_discarded()) meta = json::object();
  }
  return {{"id", d.id},
          {"owner", d.owner},
          {"source", d.source},
          {"meta", std::move(meta)},
          {"summary", d.summary},
          {"tags", d.tags},
          {"entities", std::move(entities)},
          {"content_hash", d.content_hash},
          {"access_count", d.access_count},
          {"created_at", internal::FormatRfc3339(d.created_at)},
          {"updated_at", internal::FormatRfc3339(d.updated_at)}};
}

json DocumentSchema(bool with_content) {
  const json string_type = {{"type", "string"}};
  const json entity = {{"type", "object"},
                       {"properties", {{"kind", string_type}, {"text", string_type}}}};
  json properties = {{"id", {{"type", "string"}}},
                     {"owner", {{"type", "string"}}},
                     {"source", {{"type", "string"}}},
                     {"meta", {{"type", "object"}}},
                     {"summary", {{"type", "string"}}},
                     {"tags", {{"type", "array"}, {"items", {{"type", "string"}}}}},
                     {"entities", {{"type", "array"}, {"items", entity}}},
                     {"content_hash", {{"type", "string"}}},
                     {"access_count", {{"type", "integer"}}},
                     {"created_at", {{"type", "string"}}},
                     {"updated_at", {{"type", "string"}}}};
  if (with_content) properties["content"] = {{"type", "string"}};
  return {{"type", "object"}, {"properties", std::move(properties)}};
}

Result<json> HandleDocPut(const MethodContext& ctx, const json& p) {
  DocumentPutRequest req{.content = p.at("content")};
  if (p.contains("source")) req.source = p.at("source").get<std::string>();
  if (p.contains("meta")) req.meta = DumpJson(p.at("meta"));
  MNEMO_ASSIGN_OR_RETURN(DocumentPutResult r, ctx.engine.documents().Put(ctx.principal, req));
  return json{{"id", r.id}, {"created", r.created}};
}

std::string RenderDocPut(const json&, const json& result) {
  return (result.at("created").get<bool>() ? "Stored document " : "Already stored as document ") +
         result.at("id").get<std::string>() + ".";
}

Result<json> HandleDocGet(const MethodContext& ctx, const json& p) {
  MNEMO_ASSIGN_OR_RETURN(Document d,
                         ctx.engine.documents().Get(ctx.principal, p.at("id").get<std::string>()));
  json out = DocumentToJson(d);
  out["content"] = d.content;
  return out;
}

Result<json> HandleDocSearch(const MethodContext& ctx, const json& p) {
  MNEMO_ASSIGN_OR_RETURN(
      std::vector<DocumentSearchHit> hits,
      ctx.engine.documents().Search(
          ctx.principal, {.query = p.at("query"), .max_results = p.at("max_results").get<int>()}));
  json results = json::array();
  for (const DocumentSearchHit& h : hits) {
    json row = DocumentToJson(h.document);
    row["score"] = h.score;
    row["snippet"] = h.snippet;
    results.push_back(std::move(row));
  }
  return json{{"results", std::move(results)}};
}

std::string RenderDocSearch(const json& params, const json& result) {
  const json& hits = result.at("results");
  if (hits.empty()) return "No documents found for: " + params.at("query").get<std::string>();
  std::string out;
  for (const json& h : hits) {
    if (!out.empty()) out += "\n";
    out += "- [" + h.at("id").get<std::string>() + "] " + h.at("snippet").get<std::string>();
  }
  return out;
}

Result<json> HandleDocList(const MethodContext& ctx, const json& p) {
  DocumentListRequest req{.limit = p.at("limit").get<int>(),
                          .offset = p.at("offset").get<int64_t>()};
  if (p.contains("source")) req.source = p.at("source").get<std::string>();
  MNEMO_ASSIGN_OR_RETURN(DocumentList list, ctx.engine.documents().List(ctx.principal, req));
  json docs = json::array();
  for (const Document& d : list.documents) docs.push_back(DocumentToJson(d));
  return json{{"documents", std::move(docs)},
              {"next_offset", list.next_offset ? json(*list.next_offset) : json()}};
}

Result<json> HandleDocDelete(const MethodContext& ctx, const json& p) {
  MNEMO_ASSIGN_OR_RETURN(
      bool deleted, ctx.engine.documents().Delete(ctx.principal, p.at("id").get<std::string>()));
  return json{{"deleted", deleted}};
}

MethodSpec DocPutSpec() {
  return {.name = "memory.doc_put",
          .description =
              "Store a document (kept byte for byte; summary, tags and entities are derived "
              "from it). The same content is stored once: created is false and the id is the "
              "existing document's.",
          .params = {{.name = "content",
                      .description = "The document's text (at most 1 MiB).",
                      .required = true,
                      .max_bytes = kMaxContentBytes},
                     {.name = "source",
                      .description = "Where it comes from (a URL, a path, a session; at most "
                                     "1024 bytes).",
                      .max_bytes = kMaxSourceBytes},
                     {.name = "meta",
                      .type = ParamType::kObject,
                      .description = "Any JSON object kept with the document."}},
          .result_schema = {{"type", "object"},
                            {"properties",
                             {{"id", {{"type", "string"}}}, {"created", {{"type", "boolean"}}}}}},
          .handler = HandleDocPut,
          .render = RenderDocPut};
}

MethodSpec DocGetSpec() {
  return {.name = "memory.doc_get",
          .read_only = true,
          .description = "A document with its content and derived fields (counts an access).",
          .params = {IdParam()},
          .result_schema = DocumentSchema(/*with_content=*/true),
          .handler = HandleDocGet};
}

MethodSpec DocSearchSpec() {
  json hit = DocumentSchema(/*with_content=*/false);
  hit["properties"]["score"] = {{"type", "number"}};
  hit["properties"]["snippet"] = {{"type", "string"}};
  return {.name = "memory.doc_search",
          .read_only = true,
          .description =
              "Search documents (archived context, closed conversation segments, stored "
              "documents) by keywords; best first.",
          .params = {{.name = "query",
                      .description = "What to look for, in plain words.",
                      .required = true,
                      .max_bytes = kMaxContentBytes},
                     {.name = "max_results",
                      .type = ParamType::kInteger,
                      .description = "Maximum number of results (1-100, default 20).",
                      .default_value = 20,
                      .minimum = 1,
                      .maximum = kMaxResults,
                      .aliases = {"limit"}}},
          .result_schema = {{"type", "object"},
                            {"properties", {{"results", {{"type", "array"}, {"items", hit}}}}}},
          .handler = HandleDocSearch,
          .render = RenderDocSearch};
}

MethodSpec DocListSpec() {
  return {.name = "memory.doc_list",
          .read_only = true,
          .description = "List documents page by page, newest first (without their content).",
          .params = {{.name = "source",
                      .description = "Only documents whose source starts with this.",
                      .max_bytes = kMaxSourceBytes},
                     {.name = "limit",
                      .type = ParamType::kInteger,
                      .description = "Page size (1-1000, default 50).",
                      .default_value = 50,
                      .minimum = 1,
                      .maximum = kMaxPageSize},
                     {.name = "offset",
                      .type = ParamType::kInteger,
                      .description = "Documents to skip (default 0); pass next_offset.",
                      .default_value = 0,
                      .minimum = 0}},
          .result_schema = {{"type", "object"},
                            {"properties",
                             {{"documents", {{"type", "array"}, {"items", DocumentSchema(false)}}},
                              {"next_offset", {{"type", {"integer", "null"}}}}}}},
          .handler = HandleDocList};
}

MethodSpec DocDeleteSpec() {
  return {
      .name = "memory.doc_delete",
      .description = "Delete a document.",
      .params = {IdParam()},
      .result_schema = {{"type", "object"}, {"properties", {{"deleted", {{"type", "boolean"}}}}}},
      .handler = HandleDocDelete};
}

}  // namespace

void AddDocumentMethods(MethodTable& table) {
  table.Add(DocPutSpec());
  table.Add(DocGetSpec());
  table.Add(DocSearchSpec());
  table.Add(DocListSpec());
  table.Add(DocDeleteSpec());
}

}  // namespace mnemo::transport
