// The graph's methods (spec 50, "Graph"): stating a fact and querying the
// triples, current or with their history.
#include <string>

#include "base/time.h"
#include "transport/rpc/method_table.h"

namespace mnemo::transport {
namespace {

json TripleToJson(const Triple& t) {
  return {{"id", t.id},
          {"subject", t.subject},
          {"predicate", t.predicate},
          {"object", t.object},
          {"confidence", t.confidence},
          {"source", t.source},
          {"sentence", t.sentence},
          {"valid_from", internal::FormatRfc3339(t.valid_from)},
          {"valid_to", t.valid_to > 0 ? json(internal::FormatRfc3339(t.valid_to)) : json()},
          {"current", t.valid_to == 0},
          {"created_at", internal::FormatRfc3339(t.created_at)},
          {"owner", t.owner}};
}

json TripleSchema() {
  return {{"type", "object"},
          {"properties",
           {{"id", {{"type", "string"}}},
            {"subject", {{"type", "string"}}},
            {"predicate", {{"type", "string"}}},
            {"object", {{"type", "string"}}},
            {"confidence", {{"type", "number"}}},
            {"source", {{"type", "string"}}},
            {"sentence", {{"type", "string"}}},
            {"valid_from", {{"type", "string"}}},
            {"valid_to", {{"type", {"string", "null"}}}},
            {"current", {{"type", "boolean"}}},
            {"created_at", {{"type", "string"}}},
            {"owner", {{"type", "string"}}}}}};
}

ParamSpec TermParam(std::string name, std::string description, bool required) {
  return {.name = std::move(name),
          .description = std::move(description),
          .required = required,
          .non_blank = true,
          .max_bytes = kMaxGraphTermBytes};
}

Result<json> HandleGraphUpsert(const MethodContext& ctx, const json& p) {
  GraphUpsertRequest req{
      .subject = p.at("subject"), .predicate = p.at("predicate"), .object = p.at("object")};
  if (p.contains("confidence")) req.confidence = p.at("confidence").get<double>();
  if (p.contains("source")) req.source = p.at("source").get<std::string>();
  MNEMO_ASSIGN_OR_RETURN(GraphUpsertResult r,
                         ctx.engine.knowledge().GraphUpsert(ctx.principal, req));
  json out = TripleToJson(r.triple);
  out["created"] = r.created;
  out["superseded"] = r.superseded;
  return out;
}

std::string RenderGraphUpsert(const json&, const json& result) {
  std::string out = result.at("subject").get<std::string>() + " " +
                    result.at("predicate").get<std::string>() + " " +
                    result.at("object").get<std::string>() +
                    (result.at("created").get<bool>() ? " (stored" : " (refreshed");
  const size_t ended = result.at("superseded").size();
  if (ended > 0) out += "; replaces " + std::to_string(ended) + " earlier";
  return out + ").";
}

Result<json> HandleGraphQuery(const MethodContext& ctx, const json& p) {
  GraphQueryRequest req{.include_history = p.at("include_history").get<bool>(),
                        .limit = p.at("limit").get<int>()};
  if (p.contains("subject")) req.subject = p.at("subject").get<std::string>();
  if (p.contains("predicate")) req.predicate = p.at("predicate").get<std::string>();
  if (p.contains("object")) req.object = p.at("object").get<std::string>();
  MNEMO_ASSIGN_OR_RETURN(req.as_of, TimeOf(p, "as_of"));
  MNEMO_ASSIGN_OR_RETURN(std::vector<Triple> triples,
                         ctx.engine.knowledge().GraphQuery(ctx.principal, req));
  json out = json::array();
  for (const Triple& t : triples) out.push_back(TripleToJson(t));
  return json{{"triples", std::move(out)}};
}

std::string RenderGraphQuery(const json&, const json& result) {
  const json& triples = result.at("triples");
  if (triples.empty()) return "No triples found.";
  std::string out;
  for (const json& t : triples) {
    if (!out.empty()) out += "\n";
    out += "- " + t.at("subject").get<std::string>() + " " + t.at("predicate").get<std::string>() +
           " " + t.at("object").get<std::string>();
    if (!t.at("current").get<bool>()) {
      out += " (until " + t.at("valid_to").get<std::string>() + ")";
    }
  }
  return out;
}

MethodSpec GraphUpsertSpec() {
  json result = TripleSchema();
  result["properties"]["created"] = {{"type", "boolean"}};
  result["properties"]["superseded"] = {{"type", "array"}, {"items", {{"type", "string"}}}};
  return {.name = "memory.graph_upsert",
          .description =
              "State a subject-predicate-object fact (\"user\", \"lives in\", \"Lisbon\"). The "
              "predicate is normalised (lives_in). An identical current fact is refreshed; for "
              "single-valued predicates (lives_in, works_at, timezone, name, ...) the subject's "
              "earlier fact is kept as history with valid_to set.",
          .params = {TermParam("subject", "Who or what the fact is about.", true),
                     TermParam("predicate", "The relation, e.g. \"lives in\" or \"uses\".", true),
                     TermParam("object", "The value.", true),
                     {.name = "confidence",
                      .type = ParamType::kNumber,
                      .description = "0 to 1 (default 0.9, a stated fact).",
                      .minimum = 0,
                      .maximum = 1},
                     {.name = "source",
                      .description = "Where the fact comes from (provenance).",
                      .max_bytes = kMaxGraphTermBytes}},
          .result_schema = std::move(result),
          .handler = HandleGraphUpsert,
          .render = RenderGraphUpsert};
}

MethodSpec GraphQuerySpec() {
  return {.name = "memory.graph_query",
          .read_only = true,
          .description =
              "Facts (subject-predicate-object triples) matching every filter given: subject and "
              "object compare case-insensitively, the predicate after normalisation. Current "
              "facts only, unless include_history.",
          .params = {TermParam("subject", "Only facts about this subject.", false),
                     TermParam("predicate", "Only this relation.", false),
                     TermParam("object", "Only facts with this value.", false),
                     {.name = "include_history",
                      .type = ParamType::kBoolean,
                      .description = "Also facts superseded by newer ones (default false).",
                      .default_value = false},
                     {.name = "limit",
                      .type = ParamType::kInteger,
                      .description = "Maximum number of triples (1-1000, default 100).",
                      .default_value = 100,
                      .minimum = 1,
                      .maximum = kMaxPageSize},
                     AsOfParam()},
          .result_schema = {{"type", "object"},
                            {"properties",
                             {{"triples", {{"type", "array"}, {"items", TripleSchema()}}}}}},
          .handler = HandleGraphQuery,
          .render = RenderGraphQuery};
}

// --- Corrections (issue 44 section 3). Not tools: correcting memory is the
// person's decision.

ParamSpec TripleIdParam() {
  return {.name = "id",
          .description = "The triple's id, as memory.graph_query lists it.",
          .required = true,
          .non_blank = true,
          .max_bytes = kMaxKeyBytes};
}

Result<json> HandleGraphCorrect(const MethodContext& ctx, const json& p) {
  GraphCorrection req{.id = p.at("id")};
  if (p.contains("subject")) req.subject = p.at("subject").get<std::string>();
  if (p.contains("predicate")) req.predicate = p.at("predicate").get<std::string>();
  if (p.contains("object")) req.object = p.at("object").get<std::string>();
  if (p.contains("confidence")) req.confidence = p.at("confidence").get<double>();
  MNEMO_ASSIGN_OR_RETURN(GraphUpsertResult r,
                         ctx.engine.knowledge().GraphCorrect(ctx.principal, req));
  json out = TripleToJson(r.triple);
  out["created"] = r.created;
  out["superseded"] = r.superseded;
  out["replaces"] = req.id;
  return out;
}

Result<json> HandleGraphDelete(const MethodContext& ctx, const json& p) {
  MNEMO_RETURN_IF_ERROR(
      ctx.engine.knowledge().GraphDelete(ctx.principal, p.at("id").get<std::string>()));
  return json{{"deleted", true}, {"id", p.at("id")}};
}

MethodSpec GraphCorrectSpec() {
  json result = TripleSchema();
  result["properties"]["created"] = {{"type", "boolean"}};
  result["properties"]["superseded"] = {{"type", "array"}, {"items", {{"type", "string"}}}};
  result["properties"]["replaces"] = {{"type", "string"}};
  return {.name = "memory.graph_correct",
          .description =
              "Correct a current fact: the wrong triple is deleted (it leaves no history) and the "
              "corrected one stored as memory.graph_upsert stores a fact, with the old one's "
              "source. Give the parts that change; a past (superseded) triple can only be "
              "deleted.",
          .params = {TripleIdParam(),
                     TermParam("subject", "The right subject.", false),
                     TermParam("predicate", "The right relation.", false),
                     TermParam("object", "The right value.", false),
                     {.name = "confidence",
                      .type = ParamType::kNumber,
                      .description = "0 to 1 (default: the triple's own).",
                      .minimum = 0,
                      .maximum = 1}},
          .result_schema = std::move(result),
          .handler = HandleGraphCorrect};
}

MethodSpec GraphDeleteSpec() {
  return {.name = "memory.graph_delete",
          .description =
              "Delete a triple (current or past): it leaves memory.graph_query and the export. A "
              "triple it had superseded stays history.",
          .params = {TripleIdParam()},
          .result_schema = {{"type", "object"},
                            {"properties",
                             {{"deleted", {{"type", "boolean"}}}, {"id", {{"type", "string"}}}}}},
          .handler = HandleGraphDelete};
}

}  // namespace

void AddGraphMethods(MethodTable& table) {
  table.Add(GraphUpsertSpec());
  table.Add(GraphQuerySpec());
  table.Add(GraphCorrectSpec());
  table.Add(GraphDeleteSpec());
}

}  // namespace mnemo::transport
