// Slot and event candidates from an LLM (issue 44 §4): the request that asks
// an OpenAI-compatible chat model what the user said about themselves, and
// the reading of its JSON answer. This file checks only the answer's shape;
// what a candidate may become (a known slot, the user's own present
// statement) is decided by the archivist (archivist/profile/llm_candidates.h), with
// the same slot table and clause reader as the deterministic path.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "llm/chat_client.h"
#include "mnemo/status.h"

namespace mnemo::llm {

struct SlotCandidate {
  std::string slot;      // a slot key, or "preference"
  std::string about;     // a preference: what it is about ("coffee")
  std::string value;     // "Berlin", "black"
  std::string sentence;  // the user's sentence it was read from, as written
};

struct EventCandidate {
  std::string type;  // decision, commitment, reminder, preference or fact
  std::string sentence;
};

struct Candidates {
  std::vector<SlotCandidate> slots;
  std::vector<EventCandidate> events;
};

// Tokens the model may answer with.
inline constexpr int64_t kCandidatesMaxTokens = 1024;

// The request: a system message naming `slot_keys`, "preference" and the
// event types, the rules (only the user's own, current statements; not
// other people's, hypotheticals, the past, questions, requests or small
// talk; each sentence quoted exactly) and the JSON shape
//   {"slots": [{"slot", "about", "value", "sentence"}],
//    "events": [{"type", "sentence"}]};
// and a user message with the user's messages, one "User: <text>" line each.
std::vector<ChatMessage> CandidatesPrompt(std::span<const std::string> user_messages,
                                          std::span<const std::string_view> slot_keys);

// The candidates of an answer: a JSON object (optionally inside a ``` or
// ```json fence) whose "slots" and "events" are arrays (either may be
// absent) of objects with string members as above ("about" optional).
// kInvalidArgument naming what is wrong for anything else: not JSON, not an
// object, a member of the wrong type, an item without "sentence".
Result<Candidates> ParseCandidates(std::string_view answer);

}  // namespace mnemo::llm
