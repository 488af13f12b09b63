#include "archivist/turn_indexer.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "text/secrets.h"

namespace mnemo::archivist {
namespace {

using nlohmann::json;

// Redacts every string inside a JSON value (so quotes and structure survive).
void RedactJson(json& j, int& count) {
  if (j.is_string()) {
    int n = 0;
    std::string redacted = text::RedactSecrets(j.get_ref<const std::string&>(), &n);
    if (n > 0) {
      j = std::move(redacted);
      count += n;
    }
  } else if (j.is_array() || j.is_object()) {
    for (json& child : j) RedactJson(child, count);
  }
}

std::string Redact(const std::string& text, int& count) {
  int n = 0;
  std::string out = text::RedactSecrets(text, &n);
  count += n;
  return out;
}

}  // namespace

std::string LessonFor(const Turn& turn) {
  std::vector<std::string> failed;
  for (const ToolCall& c : turn.tool_calls) {
    if (!c.success && std::find(failed.begin(), failed.end(), c.name) == failed.end()) {
      failed.push_back(c.name);
    }
  }
  if (failed.empty()) return "";
  std::string out = "Tools that failed in this turn: ";
  for (size_t i = 0; i < failed.size(); ++i) out += (i > 0 ? ", " : "") + failed[i];
  return out;
}

std::string ToolCallsJson(const Turn& turn) {
  if (turn.tool_calls.empty()) return "";
  json calls = json::array();
  for (const ToolCall& c : turn.tool_calls) {
    json args = json::parse(c.arguments_json, nullptr, /*allow_exceptions=*/false);
    if (args.is_discarded()) args = c.arguments_json;  // kept as text when not JSON
    json call = {{"name", c.name},
                 {"arguments", std::move(args)},
                 {"success", c.success},
                 {"output", c.output},
                 {"duration_ms", c.duration_ms}};
    if (c.clean_output) call["clean_output"] = *c.clean_output;
    calls.push_back(std::move(call));
  }
  return calls.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string AssistantSearchText(const Turn& turn, const std::string& lesson) {
  std::string text = turn.assistant_response;
  auto add = [&](const std::string& part) {
    if (part.empty()) return;
    if (!text.empty()) text += "\n";
    text += part;
  };
  add(lesson);
  for (const ToolCall& c : turn.tool_calls) add(c.clean_output ? *c.clean_output : c.output);
  return text;
}

int RedactTurn(Turn& turn) {
  int count = 0;
  turn.user_message = Redact(turn.user_message, count);
  turn.assistant_response = Redact(turn.assistant_response, count);
  for (ToolCall& c : turn.tool_calls) {
    c.output = Redact(c.output, count);
    if (c.clean_output) c.clean_output = Redact(*c.clean_output, count);
    json args = json::parse(c.arguments_json, nullptr, /*allow_exceptions=*/false);
    if (args.is_discarded()) {
      c.arguments_json = Redact(c.arguments_json, count);
    } else {
      int n = 0;
      RedactJson(args, n);
      if (n > 0) c.arguments_json = args.dump(-1, ' ', false, json::error_handler_t::replace);
      count += n;
    }
  }
  return count;
}

std::vector<ArchiveRow> ArchiveRowsOf(const IndexedTurn& turn) {
  std::vector<ArchiveRow> rows;
  for (const storage::TurnRow* r : {&turn.user, &turn.assistant}) {
    rows.push_back(ArchiveRow{.session_id = r->session_id,
                              .seq = r->seq,
                              .timestamp_ms = r->timestamp_ms,
                              .role = r->role,
                              .cost_microdollars = r->cost_microdollars,
                              .lesson = r->lesson,
                              .tool_calls_json = r->tool_calls_json,
                              .content = r->content});
  }
  return rows;
}

Result<IndexedTurn> IndexTurn(storage::Backend& backend, const std::string& owner, Turn turn,
                              TimeMs timestamp, const TurnIndexOptions& options) {
  IndexedTurn out;
  if (options.redact) out.redactions = RedactTurn(turn);
  const std::string lesson = LessonFor(turn);
  storage::TurnWrite user{.row = {.owner = owner,
                                  .session_id = turn.session_id,
                                  .role = "user",
                                  .content = turn.user_message,
                                  .timestamp_ms = timestamp,
                                  .cost_microdollars = 0,
                                  .agent_id = turn.agent_id},
                          .search_text = turn.user_message};
  storage::TurnWrite assistant{.row = {.owner = owner,
                                       .session_id = turn.session_id,
                                       .role = "assistant",
                                       .content = turn.assistant_response,
                                       .lesson = lesson,
                                       .tool_calls_json = ToolCallsJson(turn),
                                       .timestamp_ms = timestamp,
                                       .cost_microdollars = turn.cost_microdollars,
                                       .agent_id = turn.agent_id},
                               .search_text = AssistantSearchText(turn, lesson)};
  const storage::TurnWrite rows[] = {user, assistant};
  MNEMO_ASSIGN_OR_RETURN(std::vector<storage::TurnRow> stored, backend.AppendTurns(rows));
  if (stored.size() != 2) return Internal("append turn: expected two rows");
  out.user = std::move(stored[0]);
  out.assistant = std::move(stored[1]);
  return out;
}

}  // namespace mnemo::archivist
