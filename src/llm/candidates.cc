#include "llm/candidates.h"

#include <utility>

#include <nlohmann/json.hpp>

namespace mnemo::llm {
namespace {

using Json = nlohmann::json;

// The JSON inside a Markdown code fence, if the model wrapped it in one.
std::string_view Unfenced(std::string_view answer) {
  constexpr std::string_view kFence = "```";
  const size_t open = answer.find(kFence);
  if (open == std::string_view::npos) return answer;
  const size_t line = answer.find('\n', open);
  const size_t close = answer.rfind(kFence);
  if (line == std::string_view::npos || close <= line) return answer;
  return answer.substr(line + 1, close - line - 1);
}

// Member `name` of `item` into `out`; false when present but not a string.
bool Text(const Json& item, const char* name, std::string& out) {
  const auto it = item.find(name);
  if (it == item.end() || it->is_null()) return true;
  if (!it->is_string()) return false;
  out = it->get<std::string>();
  return true;
}

Status Invalid(const std::string& what) {
  return InvalidArgument("the LLM's candidates are not of the expected shape: " + what);
}

}  // namespace

std::vector<ChatMessage> CandidatesPrompt(std::span<const std::string> user_messages,
                                          std::span<const std::string_view> slot_keys) {
  std::string slots;
  for (std::string_view k : slot_keys) {
    if (!slots.empty()) slots += ", ";
    slots += k;
  }
  std::string system =
      "You read what a user told an AI assistant and list what the user states about "
      "themselves. Answer with one JSON object and nothing else:\n"
      "{\"slots\": [{\"slot\": ..., \"about\": ..., \"value\": ..., \"sentence\": ...}], "
      "\"events\": [{\"type\": ..., \"sentence\": ...}]}\n"
      "- slot is one of: " +
      slots +
      ", or \"preference\" (then \"about\" is what the preference is about, e.g. coffee, and "
      "\"value\" what is preferred, e.g. black).\n"
      "- value is the stated thing only (\"Berlin\", not the sentence).\n"
      "- events: type is decision, commitment, reminder, preference or fact.\n"
      "- sentence is the user's sentence, quoted exactly as written.\n"
      "- Only the user's own, current statements: never another person's facts (\"my brother "
      "lives in Madrid\"), hypotheticals (\"if I lived in Paris\"), the past (\"I used to live "
      "in Rome\"), questions, requests to the assistant or small talk.\n"
      "- Nothing to list: {\"slots\": [], \"events\": []}.";
  std::string transcript;
  for (const std::string& m : user_messages) {
    if (!transcript.empty()) transcript += '\n';
    transcript += "User: ";
    transcript += m;
  }
  return {{.role = "system", .content = std::move(system)},
          {.role = "user", .content = std::move(transcript)}};
}

Result<Candidates> ParseCandidates(std::string_view answer) {
  const Json j = Json::parse(Unfenced(answer), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Invalid("the answer is not JSON");
  if (!j.is_object()) return Invalid("the answer is not a JSON object");
  Candidates out;
  for (const char* list : {"slots", "events"}) {
    const auto it = j.find(list);
    if (it == j.end() || it->is_null()) continue;
    if (!it->is_array()) return Invalid(std::string("\"") + list + "\" is not an array");
    for (const Json& item : *it) {
      if (!item.is_object())
        return Invalid(std::string("an item of \"") + list + "\" is not an object");
      std::string sentence;
      if (!Text(item, "sentence", sentence) || sentence.empty()) {
        return Invalid(std::string("an item of \"") + list + "\" has no \"sentence\" text");
      }
      if (std::string_view(list) == "slots") {
        SlotCandidate c{.sentence = std::move(sentence)};
        if (!Text(item, "slot", c.slot) || !Text(item, "about", c.about) ||
            !Text(item, "value", c.value)) {
          return Invalid("a slot's \"slot\", \"about\" and \"value\" must be text");
        }
        out.slots.push_back(std::move(c));
      } else {
        EventCandidate c{.sentence = std::move(sentence)};
        if (!Text(item, "type", c.type)) return Invalid("an event's \"type\" must be text");
        out.events.push_back(std::move(c));
      }
    }
  }
  return out;
}

}  // namespace mnemo::llm
