#include "archivist/events.h"

#include <cstdint>
#include <optional>
#include <span>
#include <unordered_set>
#include <utility>

#include "text/phatic.h"
#include "text/pipeline/tokenizer.h"
#include "text/sentences.h"
#include "text/utf8.h"

// Hand-written scanners instead of std::regex: topic markers run on every
// turn (spec 40 targets p50 <= 2 ms per turn) and all of this must stay
// linear on hostile input.

namespace mnemo::archivist {
namespace {

using text::CodePoint;

CodePoint At(std::string_view s, size_t pos) { return text::DecodeAt(s, pos); }

bool IsSpace(int32_t cp) { return text::IsWhiteSpace(cp); }

// ’ ‘ ʼ
bool IsApostropheVariant(int32_t cp) { return cp == 0x2019 || cp == 0x2018 || cp == 0x02BC; }

bool IsWordByte(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; }

// One row of the pattern table: `lead` (a phrase, see ContainsPhrase), and
// when `then` is set, `then` somewhere after it in the same sentence.
struct Pattern {
  std::string_view lead;
  std::string_view then;
};

struct EventPatterns {
  std::string_view type;
  std::span<const Pattern> patterns;
};

// Spec 40's table, English then Chinese, in folded form.
constexpr Pattern kDecision[] = {
    {"let's go with"}, {"i've decided"},    {"i decided"},  {"we decided"},
    {"we agreed"},     {"the decision is"}, {"going with"}, {"we'll use"},
    {"i'll use"},      {"chosen to"},       {"i choose"},   {"we choose"},
    {"我决定"},        {"我们决定"},        {"决定用"},     {"就用"},
    {"我选择"},        {"我们选择"},        {"定了"},
};

constexpr Pattern kReminder[] = {
    {"remind me"}, {"don't forget"}, {"do not forget"}, {"dont forget"}, {"remember to"},
    {"别忘了"},    {"别忘记"},       {"不要忘记"},      {"不要忘了"},    {"提醒我"},
};

constexpr Pattern kCommitment[] = {
    {"by monday"},
    {"by tuesday"},
    {"by wednesday"},
    {"by thursday"},
    {"by friday"},
    {"by saturday"},
    {"by sunday"},
    {"by tomorrow"},
    {"by next week"},
    {"by end of"},
    {"deadline is"},
    {"due date"},
    {"i will"},
    {"i'll do"},
    {"i promise"},
    {"i commit"},
    {"we need to finish"},
    {"scheduled for"},
    {"plan to"},
    {"planning to"},
    {"我会"},
    {"我保证"},
    {"截止"},
    {"之前完成"},
    {"计划"},
    {"打算"},
    {"下周前"},
};

constexpr Pattern kPreference[] = {
    {"i prefer"}, {"i like"},      {"i love"},       {"i hate"},    {"i dislike"}, {"i always"},
    {"i never"},  {"my favorite"}, {"my favourite"}, {"i usually"}, {"i tend to"}, {"i'm used to"},
    {"我喜欢"},   {"我更喜欢"},    {"我爱"},         {"我讨厌"},    {"我不喜欢"},  {"我习惯"},
    {"我总是"},   {"我从不"},      {"我偏好"},
};

constexpr Pattern kFact[] = {
    {"i'm based in"}, {"i live in"},    {"i work at"},  {"i work for"},    {"my name is"},
    {"i'm a"},        {"i am a"},       {"my role is"}, {"i've been"},     {"i'm from"},
    {"my timezone"},  {"my time zone"}, {"i moved to"}, {"i've moved to"}, {"i joined"},
    {"call me"},      {"i have a"},     {"i have an"},  {"my dog"},        {"my cat"},
    {"我搬到"},       {"我叫"},         {"我的名字是"}, {"我住在"},        {"我在", "工作"},
    {"我是一名"},     {"我来自"},       {"我的时区"},   {"我养"},          {"我有一只"},
    {"我有一条"},     {"我的狗"},       {"我的猫"},
};

constexpr EventPatterns kTable[] = {
    {.type = kEventDecision, .patterns = kDecision},
    {.type = kEventReminder, .patterns = kReminder},
    {.type = kEventCommitment, .patterns = kCommitment},
    {.type = kEventPreference, .patterns = kPreference},
    {.type = kEventFact, .patterns = kFact},
};

constexpr std::string_view kHedges[] = {
    "i think", "maybe", "probably", "not sure", "我觉得", "可能", "也许", "好像",
};

// Where `phrase` occurs in `folded` as ContainsPhrase finds it; npos when
// it does not.
size_t FindPhrase(std::string_view folded, std::string_view phrase) {
  if (phrase.empty()) return std::string_view::npos;
  const bool check_before = IsWordByte(phrase.front());
  const bool check_after = IsWordByte(phrase.back());
  size_t pos = folded.find(phrase);
  while (pos != std::string_view::npos) {
    const size_t end = pos + phrase.size();
    const bool starts_word = !check_before || pos == 0 || !IsWordByte(folded[pos - 1]);
    const bool ends_word = !check_after || end == folded.size() || !IsWordByte(folded[end]);
    if (starts_word && ends_word) return pos;
    pos = folded.find(phrase, pos + 1);
  }
  return std::string_view::npos;
}

// The sentence without the pattern's words: what else it says; nullopt when
// the pattern does not match.
std::optional<std::string> Match(std::string_view folded, const Pattern& pattern) {
  const size_t lead = FindPhrase(folded, pattern.lead);
  if (lead == std::string_view::npos) return std::nullopt;
  std::string rest(folded.substr(0, lead));
  rest += ' ';
  if (pattern.then.empty()) {
    rest += folded.substr(lead + pattern.lead.size());
    return rest;
  }
  // Only ever a Chinese row (我在…工作): plain substrings, and the first
  // occurrence of the lead leaves the most room for what must follow it.
  const size_t then = folded.find(pattern.then, lead + pattern.lead.size());
  if (then == std::string_view::npos) return std::nullopt;
  rest += folded.substr(lead + pattern.lead.size(), then - lead - pattern.lead.size());
  rest += ' ';
  rest += folded.substr(then + pattern.then.size());
  return rest;
}

}  // namespace

bool IsHedged(std::string_view folded) {
  for (std::string_view hedge : kHedges) {
    if (ContainsPhrase(folded, hedge)) return true;
  }
  return false;
}

std::string FoldForMatch(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool in_space = false;
  size_t pos = 0;
  while (pos < text.size()) {
    const CodePoint c = At(text, pos);
    if (IsSpace(c.cp)) {
      if (!in_space) out += ' ';
      in_space = true;
    } else if (c.cp >= 'A' && c.cp <= 'Z') {
      out += static_cast<char>(c.cp - 'A' + 'a');
    } else if (IsApostropheVariant(c.cp)) {
      out += '\'';
    } else {
      out.append(text.substr(pos, c.len));
    }
    if (!IsSpace(c.cp)) in_space = false;
    pos += c.len;
  }
  return out;
}

bool ContainsPhrase(std::string_view folded, std::string_view phrase) {
  return FindPhrase(folded, phrase) != std::string_view::npos;
}

bool SaysSomething(std::string_view text) {
  return text::DocumentLength(text) > 0 && !text::IsPhaticSentence(text);
}

bool IsClosableEvent(std::string_view type) {
  return type == kEventCommitment || type == kEventReminder;
}

std::vector<std::string> EventSentences(std::string_view text) {
  return text::SplitSentences(text, kEventSentenceOptions);
}

std::vector<Event> ExtractEvents(std::string_view user_message) {
  std::vector<Event> events;
  std::unordered_set<std::string> seen;
  for (std::string& sentence : EventSentences(user_message)) {
    if (seen.contains(sentence)) continue;
    const std::string folded = FoldForMatch(sentence);
    for (const EventPatterns& row : kTable) {
      std::optional<std::string> rest;
      for (const Pattern& pattern : row.patterns) {
        rest = Match(folded, pattern);
        if (rest) break;
      }
      if (!rest) continue;
      // A reaction gives no event of any type.
      if (!SaysSomething(*rest)) break;
      seen.insert(sentence);
      const double confidence = IsHedged(folded) ? kHedgedConfidence : kPlainConfidence;
      events.push_back(
          {.type = std::string(row.type), .text = std::move(sentence), .confidence = confidence});
      break;
    }
  }
  return events;
}

}  // namespace mnemo::archivist
