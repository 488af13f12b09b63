// The context-window methods (spec 50): memory.context_append,
// memory.context_window and memory.context_prune.
#include <optional>

#include "base/time.h"
#include "core/formats/context_event_json.h"
#include "core/validation.h"
#include "transport/rpc/method_table.h"

namespace mnemo::transport {
namespace {

ParamSpec SessionParam() {
  return {.name = "session_id",
          .description = "The conversation's id.",
          .required = true,
          .max_bytes = kMaxKeyBytes};
}

Result<json> HandleContextAppend(const MethodContext& ctx, const json& p) {
  const bool has_event = p.contains("event");
  if (has_event == p.contains("event_json")) {
    return InvalidArgument(
        "give the event either as an object in \"event\" or as JSON text in \"event_json\"",
        "event");
  }
  // An object arrives already parsed: it is stored as its compact JSON.
  // JSON text is stored byte for byte.
  ContextAppendRequest req{
      .session_id = p.at("session_id"),
      .raw_json = has_event ? DumpJson(p.at("event")) : p.at("event_json").get<std::string>()};
  MNEMO_ASSIGN_OR_RETURN(ContextAppendResult r, ctx.engine.context().Append(ctx.principal, req));
  return json{{"session_id", r.session_id}, {"seq", r.seq}, {"chars", r.chars}};
}

Result<json> HandleContextWindow(const MethodContext& ctx, const json& p) {
  ContextWindowRequest req{.session_id = p.at("session_id"),
                           .query = p.at("query"),
                           .budget_chars = p.at("budget_chars").get<int64_t>(),
                           .protected_count = p.at("protected").get<int>()};
  MNEMO_ASSIGN_OR_RETURN(ContextWindow w, ctx.engine.context().Window(ctx.principal, req));
  json events = json::array();
  for (const ContextWindowEvent& e : w.events) {
    // Stored text is dumped into the response, which recurses: an event
    // stored too deep (by a version that did not check) is shown in its
    // canonical form instead.
    json event = JsonDepthWithin(e.raw_json)
                     ? json::parse(e.raw_json, nullptr, /*allow_exceptions=*/false)
                     : json(json::value_t::discarded);
    if (event.is_discarded()) event = ContextEventToJson(e.event);
    events.push_back({{"seq", e.seq},
                      {"event", std::move(event)},
                      {"text", e.text},
                      {"chars", e.chars},
                      {"protected", e.is_protected},
                      {"truncated", e.truncated},
                      {"score", e.score},
                      {"timestamp", internal::FormatRfc3339(e.timestamp)}});
  }
  return json{{"session_id", w.session_id},
              {"events", std::move(events)},
              {"used_chars", w.used_chars},
              {"budget_chars", req.budget_chars},
              {"total_events", w.total_events}};
}

std::string RenderContextWindow(const json&, const json& result) {
  std::string out;
  for (const json& e : result.at("events")) {
    if (!out.empty()) out += "\n\n";
    out += e.at("text").get<std::string>();
  }
  return out;
}

Result<json> HandleContextPrune(const MethodContext& ctx, const json& p) {
  MNEMO_ASSIGN_OR_RETURN(
      ContextPruneResult r,
      ctx.engine.context().Prune(ctx.principal, p.at("session_id").get<std::string>(),
                                 p.at("keep").get<int64_t>()));
  json documents = json::array();
  for (const ContextArchive& a : r.documents) {
    documents.push_back({{"id", a.document_id},
                         {"source", a.source},
                         {"first_seq", a.first_seq},
                         {"last_seq", a.last_seq},
                         {"created", a.created}});
  }
  return json{{"session_id", r.session_id},
              {"pruned", r.pruned},
              {"kept", r.kept},
              {"documents", std::move(documents)}};
}

MethodSpec ContextAppendSpec() {
  return {.name = "memory.context_append",
          .description =
              "Append one event (a turn) to a session's working context: {\"input\", "
              "\"response\", \"tool_results\": [{\"name\", \"output\", \"success\", "
              "\"clean_output\"?}], \"timestamp\"?}. Returns its sequence number.",
          .params = {SessionParam(),
                     {.name = "event",
                      .type = ParamType::kObject,
                      .description = "The event as an object (stored as its compact JSON)."},
                     {.name = "event_json",
                      .description = "Instead of event: the event as JSON text, stored byte "
                                     "for byte.",
                      .non_blank = true,
                      .max_bytes = 8 * kMaxContentBytes}},
          .result_schema = {{"type", "object"},
                            {"properties",
                             {{"session_id", {{"type", "string"}}},
                              {"seq", {{"type", "integer"}}},
                              {"chars", {{"type", "integer"}}}}}},
          .handler = HandleContextAppend};
}

MethodSpec ContextWindowSpec() {
  json event = {{"type", "object"},
                {"properties",
                 {{"seq", {{"type", "integer"}}},
                  {"event", {{"type", "object"}}},
                  {"text", {{"type", "string"}}},
                  {"chars", {{"type", "integer"}}},
                  {"protected", {{"type", "boolean"}}},
                  {"truncated", {{"type", "boolean"}}},
                  {"score", {{"type", "number"}}},
                  {"timestamp", {{"type", "string"}}}}}};
  return {.name = "memory.context_window",
          .read_only = true,
          .description =
              "The working context within a budget: the most recent (protected) events, newest "
              "first while they fit (the newest always, cut to the budget if needed), then the "
              "older events most relevant to the query; in time order. Each event's text is "
              "\"user: ...\", \"assistant: ...\" and \"[tool] name: output\" lines; the texts' "
              "code points never sum to more than budget_chars.",
          .params = {SessionParam(),
                     {.name = "query",
                      .description = "What the next turn is about (ranks the older events).",
                      .required = true,
                      .max_bytes = kMaxContentBytes},
                     {.name = "budget_chars",
                      .type = ParamType::kInteger,
                      .description = "The budget, in Unicode code points of the events' texts.",
                      .required = true,
                      .minimum = 1,
                      .maximum = kMaxWindowBudgetChars},
                     {.name = "protected",
                      .type = ParamType::kInteger,
                      .description = "How many of the most recent events are protected "
                                     "(0-1000, default 10).",
                      .default_value = 10,
                      .minimum = 0,
                      .maximum = kMaxProtectedEvents}},
          .result_schema = {{"type", "object"},
                            {"properties",
                             {{"session_id", {{"type", "string"}}},
                              {"events", {{"type", "array"}, {"items", std::move(event)}}},
                              {"used_chars", {{"type", "integer"}}},
                              {"budget_chars", {{"type", "integer"}}},
                              {"total_events", {{"type", "integer"}}}}}},
          .handler = HandleContextWindow,
          .render = RenderContextWindow};
}

MethodSpec ContextPruneSpec() {
  return {.name = "memory.context_prune",
          .description =
              "Remove all but the newest `keep` events from a session's working context. The "
              "removed events are archived as documents (source "
              "\"context:<session_id>#seq<a>-<b>\"), not lost.",
          .params = {SessionParam(),
                     {.name = "keep",
                      .type = ParamType::kInteger,
                      .description = "How many of the newest events stay.",
                      .required = true,
                      .minimum = 0}},
          .result_schema = {{"type", "object"},
                            {"properties",
                             {{"session_id", {{"type", "string"}}},
                              {"pruned", {{"type", "integer"}}},
                              {"kept", {{"type", "integer"}}},
                              {"documents", {{"type", "array"}}}}}},
          .handler = HandleContextPrune};
}

}  // namespace

void AddContextMethods(MethodTable& table) {
  table.Add(ContextAppendSpec());
  table.Add(ContextWindowSpec());
  table.Add(ContextPruneSpec());
}

}  // namespace mnemo::transport
