#include "context/computation_text.h"

#include <memory>

#include "text/strip.h"

namespace mnemo::context {
namespace {

void Append(std::string& text, std::string_view part) {
  if (part.empty()) return;
  if (!text.empty()) text += '\n';
  text += part;
}

}  // namespace

std::string TurnComputation::Joined() const {
  std::string out(user);
  Append(out, assistant);
  return out;
}

TurnComputation ComputeTurnText(const ToolRegistry& tools, std::string_view user_message,
                                std::string_view assistant_response,
                                std::span<const ToolCall> calls) {
  TurnComputation out{.user = user_message, .assistant = std::string(assistant_response)};
  for (size_t i = 0; i < calls.size(); ++i) {
    const ToolCall& call = calls[i];
    const std::shared_ptr<const ToolSpec> spec = tools.Find(call.name);
    if (spec != nullptr && spec->no_memory) continue;
    if (call.clean_output && !text::IsBlank(*call.clean_output)) {
      Append(out.assistant, *call.clean_output);
      continue;
    }
    if (spec == nullptr) {
      Append(out.assistant, call.output);
      continue;
    }
    text::CleanedOutput cleaned = CleanToolOutput(*spec, call.output);
    if (cleaned.failed) {
      out.failures.push_back(
          {.call_index = i, .tool = call.name, .reason = std::move(cleaned.reason)});
    }
    Append(out.assistant, cleaned.text);
  }
  return out;
}

std::string DocumentComputationText(const ToolRegistry& /*tools*/,
                                    const storage::DocumentRow& doc) {
  return doc.search_text.empty() ? doc.content : doc.search_text;
}

}  // namespace mnemo::context
