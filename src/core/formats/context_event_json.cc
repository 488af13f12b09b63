#include "core/formats/context_event_json.h"

#include <exception>

#include "base/time.h"
#include "core/validation.h"
#include "text/strip.h"
#include "text/utf8.h"

namespace mnemo {
namespace {

using nlohmann::json;

Status CheckText(const std::string& text, const std::string& field) {
  if (text.size() > kMaxContentBytes) {
    return InvalidArgument(field + " is longer than 1 MiB", field);
  }
  if (!text::IsValidUtf8(text)) return InvalidArgument(field + " is not valid UTF-8", field);
  return Status::Ok();
}

// The string member `name` of `j` ("" when absent or null).
Result<std::string> Text(const json& j, const char* name, const std::string& field) {
  auto it = j.find(name);
  if (it == j.end() || it->is_null()) return std::string();
  if (!it->is_string()) return InvalidArgument(field + " must be a string", field);
  std::string text = it->get<std::string>();
  MNEMO_RETURN_IF_ERROR(CheckText(text, field));
  return text;
}

Result<ContextToolResult> ToolResultFromJson(const json& j, const std::string& field) {
  if (!j.is_object()) {
    return InvalidArgument(field + " must be an object {\"name\", \"output\", \"success\"}", field);
  }
  ContextToolResult out;
  MNEMO_ASSIGN_OR_RETURN(out.name, Text(j, "name", field + ".name"));
  if (text::IsBlank(out.name)) {
    return InvalidArgument(field + ".name must name the tool", field + ".name");
  }
  if (out.name.size() > kMaxKeyBytes) {
    return InvalidArgument(field + ".name is longer than 256 bytes", field + ".name");
  }
  MNEMO_ASSIGN_OR_RETURN(out.output, Text(j, "output", field + ".output"));
  if (auto it = j.find("success"); it != j.end() && !it->is_null()) {
    if (!it->is_boolean()) {
      return InvalidArgument(field + ".success must be true or false", field + ".success");
    }
    out.success = it->get<bool>();
  }
  if (auto it = j.find("clean_output"); it != j.end() && !it->is_null()) {
    MNEMO_ASSIGN_OR_RETURN(std::string clean, Text(j, "clean_output", field + ".clean_output"));
    out.clean_output = std::move(clean);
  }
  return out;
}

}  // namespace

Result<ContextEvent> ContextEventFromJson(const json& j) {
  if (!j.is_object()) {
    return InvalidArgument(
        "event must be an object {\"input\", \"response\", \"tool_results\", \"timestamp\"}",
        "event");
  }
  ContextEvent e;
  MNEMO_ASSIGN_OR_RETURN(e.input, Text(j, "input", "event.input"));
  MNEMO_ASSIGN_OR_RETURN(e.response, Text(j, "response", "event.response"));
  if (auto it = j.find("tool_results"); it != j.end() && !it->is_null()) {
    if (!it->is_array()) {
      return InvalidArgument("event.tool_results must be an array", "event.tool_results");
    }
    for (size_t i = 0; i < it->size(); ++i) {
      MNEMO_ASSIGN_OR_RETURN(
          ContextToolResult r,
          ToolResultFromJson((*it)[i], "event.tool_results[" + std::to_string(i) + "]"));
      e.tool_results.push_back(std::move(r));
    }
  }
  if (auto it = j.find("timestamp"); it != j.end() && !it->is_null()) {
    if (it->is_number_integer()) {
      e.timestamp = it->get<int64_t>();
    } else if (it->is_string()) {
      std::optional<TimeMs> ts = internal::ParseRfc3339(it->get<std::string>());
      if (!ts) {
        return InvalidArgument(
            "event.timestamp must be an RFC3339 time such as 2026-11-29T10:00:00Z or "
            "milliseconds since the epoch",
            "event.timestamp");
      }
      e.timestamp = *ts;
    } else {
      return InvalidArgument("event.timestamp must be RFC3339 text or an integer",
                             "event.timestamp");
    }
  }
  if (e.input.empty() && e.response.empty() && e.tool_results.empty()) {
    return InvalidArgument("event needs an input, a response or a tool result", "event");
  }
  return e;
}

Result<ContextEvent> ParseContextEvent(std::string_view json_text) {
  json j;
  try {
    j = json::parse(json_text);
  } catch (const std::exception&) {
    return InvalidArgument("event is not valid JSON", "event");
  }
  return ContextEventFromJson(j);
}

json ContextEventToJson(const ContextEvent& e) {
  json tools = json::array();
  for (const ContextToolResult& t : e.tool_results) {
    json r = {{"name", t.name}, {"output", t.output}, {"success", t.success}};
    if (t.clean_output) r["clean_output"] = *t.clean_output;
    tools.push_back(std::move(r));
  }
  json out = {{"input", e.input}, {"response", e.response}, {"tool_results", std::move(tools)}};
  if (e.timestamp) out["timestamp"] = internal::FormatRfc3339(*e.timestamp);
  return out;
}

}  // namespace mnemo
