#include "archivist/turn_indexer.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

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

// Redacts `text` in place: a text without a secret (nearly every one) is
// left as it is, not copied.
void Redact(std::string& text, int& count) {
  if (!text::FindSecret(text)) return;
  int n = 0;
  text = text::RedactSecrets(text, &n);
  count += n;
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

Result<std::vector<ToolCall>> ToolCallsFromJson(std::string_view tool_calls_json) {
  std::vector<ToolCall> calls;
  if (tool_calls_json.empty()) return calls;
  const json parsed = json::parse(tool_calls_json, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_array()) return InvalidArgument("stored tool calls are not a JSON array");
  auto text = [](const json& call, const char* name) -> std::optional<std::string> {
    auto it = call.find(name);
    if (it == call.end() || !it->is_string()) return std::nullopt;
    return it->get<std::string>();
  };
  for (const json& c : parsed) {
    if (!c.is_object()) return InvalidArgument("a stored tool call is not a JSON object");
    ToolCall call{.name = text(c, "name").value_or(""), .output = text(c, "output").value_or("")};
    if (auto it = c.find("success"); it != c.end() && it->is_boolean()) call.success = *it;
    call.clean_output = text(c, "clean_output");
    calls.push_back(std::move(call));
  }
  return calls;
}

std::string AssistantSearchText(const context::TurnComputation& computation,
                                const std::string& lesson) {
  std::string text = computation.assistant;
  if (!lesson.empty()) {
    if (!text.empty()) text += "\n";
    text += lesson;
  }
  return text;
}

Result<std::string> RecomputeAssistantSearchText(const context::ToolRegistry& tools,
                                                 const storage::TurnRow& row,
                                                 std::vector<context::CleanerFailure>* failures) {
  MNEMO_ASSIGN_OR_RETURN(std::vector<ToolCall> calls, ToolCallsFromJson(row.tool_calls_json));
  context::TurnComputation computation = context::ComputeTurnText(tools, "", row.content, calls);
  if (failures != nullptr) *failures = std::move(computation.failures);
  return AssistantSearchText(computation, row.lesson);
}

int RedactTurn(Turn& turn) {
  int count = 0;
  Redact(turn.user_message, count);
  Redact(turn.assistant_response, count);
  for (ToolCall& c : turn.tool_calls) {
    Redact(c.output, count);
    if (c.clean_output) Redact(*c.clean_output, count);
    json args = json::parse(c.arguments_json, nullptr, /*allow_exceptions=*/false);
    if (args.is_discarded()) {
      Redact(c.arguments_json, count);
    } else {
      int n = 0;
      RedactJson(args, n);
      if (n > 0) c.arguments_json = args.dump(-1, ' ', false, json::error_handler_t::replace);
      count += n;
    }
  }
  return count;
}

ArchiveRow ArchiveRowOf(const storage::TurnRow& r) {
  return ArchiveRow{.owner = r.owner,
                    .session_id = r.session_id,
                    .seq = r.seq,
                    .timestamp_ms = r.timestamp_ms,
                    .role = r.role,
                    .cost_microdollars = r.cost_microdollars,
                    .lesson = r.lesson,
                    .tool_calls_json = r.tool_calls_json,
                    .content = r.content};
}

std::vector<ArchiveRow> ArchiveRowsOf(const IndexedTurn& turn) {
  return {ArchiveRowOf(turn.user), ArchiveRowOf(turn.assistant)};
}

context::TurnComputation TurnComputationOf(const Turn& turn, const context::ToolRegistry* tools) {
  static const context::ToolRegistry kNoTools;
  return context::ComputeTurnText(tools != nullptr ? *tools : kNoTools, turn.user_message,
                                  turn.assistant_response, turn.tool_calls);
}

Result<IndexedTurn> IndexTurn(storage::EpisodicStore& episodic, const std::string& owner,
                              Turn& turn, TimeMs timestamp, context::TurnComputation computation,
                              const TurnIndexOptions& options) {
  IndexedTurn out;
  out.computation = std::move(computation);
  const std::string lesson = LessonFor(turn);
  // The rows move down to the store's bind (EpisodicStore::RecordTurn); the
  // turn's user message moves into the user row, where the segment decision
  // reads it (the stored rows) and the caller after (IndexedTurn::user). Its
  // search text is its content (no second copy), so the computation's view
  // of the message is let go before the move.
  out.computation.user = {};
  std::vector<storage::TurnWrite> rows;
  rows.reserve(2);
  rows.push_back(storage::TurnWrite{.row = {.owner = owner,
                                            .session_id = turn.session_id,
                                            .role = "user",
                                            .content = std::move(turn.user_message),
                                            .timestamp_ms = timestamp,
                                            .cost_microdollars = 0,
                                            .agent_id = turn.agent_id},
                                    .search_text = std::nullopt});
  rows.push_back(storage::TurnWrite{.row = {.owner = owner,
                                            .session_id = turn.session_id,
                                            .role = "assistant",
                                            .content = turn.assistant_response,
                                            .lesson = lesson,
                                            .tool_calls_json = ToolCallsJson(turn),
                                            .timestamp_ms = timestamp,
                                            .cost_microdollars = turn.cost_microdollars,
                                            .agent_id = turn.agent_id},
                                    .search_text = AssistantSearchText(out.computation, lesson)});
  auto decide = [&](std::span<const storage::TurnRow> stored,
                    const storage::SegmentView& view) -> Result<storage::SegmentChange> {
    if (stored.size() != 2) return Internal("append turn: expected two rows");
    return DecideSegment(view, stored[0], stored[1], stored[0].content, options.turn_vector,
                         options.segments, out.segment);
  };
  std::optional<storage::TurnClaim> claim;
  if (options.claim != nullptr) claim = *options.claim;
  MNEMO_ASSIGN_OR_RETURN(storage::RecordedTurn recorded,
                         episodic.RecordTurn(claim, std::move(rows), decide));
  if (!recorded.stored) {
    out.earlier = std::move(recorded.claim);
    out.segment = SegmentStep();
    return out;
  }
  if (recorded.rows.size() != 2) return Internal("append turn: expected two rows");
  // Only the call whose close was applied finalises the segment.
  if (!recorded.segment.close_open) out.segment.closed_id.clear();
  out.user = std::move(recorded.rows[0]);
  out.assistant = std::move(recorded.rows[1]);
  return out;
}

}  // namespace mnemo::archivist
