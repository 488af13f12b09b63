// The Archivist's methods (spec 40): episodic search, a session's turns and
// the MEMORY.md / SKILL.md writer.
#include <optional>

#include "base/time.h"
#include "core/validation.h"
#include "transport/method_table.h"
#include "transport/rule_wire.h"

namespace mnemo::transport {
namespace {

ParamSpec SessionParam(bool required) {
  return {.name = "session_id",
          .description = required ? "The conversation's id." : "Only this conversation.",
          .required = required,
          .non_blank = true,
          .max_bytes = kMaxKeyBytes};
}

Result<json> HandleEpisodicSearch(const MethodContext& ctx, const json& p) {
  EpisodicQuery q{.query = p.at("query"), .limit = p.at("limit").get<int>()};
  if (p.contains("session_id")) q.session_id = p.at("session_id").get<std::string>();
  MNEMO_ASSIGN_OR_RETURN(std::vector<EpisodicHit> hits,
                         ctx.engine.EpisodicSearch(ctx.principal, q));
  json results = json::array();
  for (const EpisodicHit& h : hits) {
    json row = EpisodicTurnToJson(h.turn);
    row["score"] = h.score;
    row["snippet"] = h.snippet;
    results.push_back(std::move(row));
  }
  return json{{"results", std::move(results)}};
}

std::string RenderEpisodicSearch(const json& params, const json& result) {
  const json& hits = result.at("results");
  if (hits.empty()) return "No turns found for: " + params.at("query").get<std::string>();
  std::string out;
  for (const json& h : hits) {
    if (!out.empty()) out += "\n";
    out += "- [" + h.at("session_id").get<std::string>() + "#" +
           std::to_string(h.at("seq").get<int64_t>()) + " " + h.at("role").get<std::string>() +
           "] " + h.at("snippet").get<std::string>();
  }
  return out;
}

Result<json> HandleSessionTurns(const MethodContext& ctx, const json& p) {
  MNEMO_ASSIGN_OR_RETURN(
      std::vector<EpisodicTurn> turns,
      ctx.engine.SessionTurns(ctx.principal, p.at("session_id").get<std::string>()));
  json rows = json::array();
  for (const EpisodicTurn& t : turns) rows.push_back(EpisodicTurnToJson(t));
  return json{{"session_id", p.at("session_id")}, {"turns", std::move(rows)}};
}

Result<json> HandleUpdateMemoryMd(const MethodContext& ctx, const json& p) {
  MemoryMdRequest req{.file = p.at("file"), .action = p.at("action"), .content = p.at("content")};
  if (p.contains("section_title")) req.section_title = p.at("section_title").get<std::string>();
  MNEMO_ASSIGN_OR_RETURN(MemoryMdReport r, ctx.engine.UpdateMemoryMd(ctx.principal, req));
  return json{{"file", r.file}, {"bytes", r.bytes}, {"section_created", r.section_created}};
}

std::string RenderUpdateMemoryMd(const json& params, const json& result) {
  return "Updated " + result.at("file").get<std::string>() + " (" +
         params.at("action").get<std::string>() + ").";
}

MethodSpec EpisodicSearchSpec() {
  return {.name = "memory.episodic_search",
          .description =
              "Search past conversation turns (what the user and the assistant said, "
              "and what tools returned).",
          .params = {{.name = "query",
                      .description = "What to look for, in plain words.",
                      .required = true,
                      .max_bytes = kMaxContentBytes},
                     SessionParam(false),
                     {.name = "limit",
                      .type = ParamType::kInteger,
                      .description = "Maximum number of turns (1-100, default 20).",
                      .default_value = 20,
                      .minimum = 1,
                      .maximum = 100,
                      .aliases = {"max_results"}}},
          .result_schema = {{"type", "object"},
                            {"properties",
                             {{"results", {{"type", "array"}, {"items", EpisodicTurnSchema()}}}}}},
          .handler = HandleEpisodicSearch,
          .render = RenderEpisodicSearch,
          .tool_name = "episodic_search"};
}

MethodSpec SessionTurnsSpec() {
  return {.name = "memory.session_turns",
          .description = "Every stored turn row of one conversation, in order.",
          .params = {SessionParam(true)},
          .result_schema = {{"type", "object"},
                            {"properties",
                             {{"session_id", {{"type", "string"}}},
                              {"turns", {{"type", "array"}, {"items", EpisodicTurnSchema()}}}}}},
          .handler = HandleSessionTurns};
}

MethodSpec UpdateMemoryMdSpec() {
  return {.name = "memory.update_memory_md",
          .description =
              "Append to, or replace a section of, the workspace's MEMORY.md or "
              "SKILL.md (the knowledge files a harness loads).",
          .params = {{.name = "file",
                      .description = "MEMORY.md or SKILL.md.",
                      .required = true,
                      .max_bytes = 256},
                     {.name = "action",
                      .description = "append (default) or replace_section.",
                      .default_value = "append",
                      .allowed = {"append", "replace_section"}},
                     {.name = "section_title",
                      .description = "replace_section: the section's title, without \"## \".",
                      .max_bytes = 256},
                     {.name = "content",
                      .description = "The text to write.",
                      .required = true,
                      .max_bytes = kMaxContentBytes}},
          .result_schema = {{"type", "object"},
                            {"properties",
                             {{"file", {{"type", "string"}}},
                              {"bytes", {{"type", "integer"}}},
                              {"section_created", {{"type", "boolean"}}}}}},
          .handler = HandleUpdateMemoryMd,
          .render = RenderUpdateMemoryMd,
          .tool_name = "update_memory_md"};
}

}  // namespace

void AddEpisodicMethods(MethodTable& table) {
  table.Add(EpisodicSearchSpec());
  table.Add(SessionTurnsSpec());
  table.Add(UpdateMemoryMdSpec());
}

}  // namespace mnemo::transport
