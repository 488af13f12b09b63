#include "rules/tool_match.h"

#include <algorithm>
#include <tuple>
#include <unordered_set>
#include <utility>

#include "rules/tool_rule.h"
#include "text/pipeline/stemmer.h"
#include "text/utf8.h"

// Matching is ASCII case-insensitive; non-ASCII text (Chinese) is matched
// byte for byte, which is exact for valid UTF-8.

namespace mnemo::rules {
namespace {

char LowerAscii(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

std::string LowerAscii(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = LowerAscii(c);
  return out;
}

bool IsAsciiAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// The word boundary of tool names and alias words: anything but [a-z0-9_]
// (on lower-cased text).
bool IsWordByte(char c) { return IsAsciiAlnum(c) || c == '_'; }

bool StartsWithAt(std::string_view s, size_t pos, std::string_view prefix) {
  return pos <= s.size() && s.substr(pos).starts_with(prefix);
}

// `needle` (lower-case) occurs in `hay` (lower-case) with no [a-z0-9_] on
// either side.
bool ContainsWholeWord(std::string_view hay, std::string_view needle) {
  if (needle.empty()) return false;
  for (size_t at = hay.find(needle); at != std::string_view::npos; at = hay.find(needle, at + 1)) {
    const size_t end = at + needle.size();
    if ((at == 0 || !IsWordByte(hay[at - 1])) && (end == hay.size() || !IsWordByte(hay[end]))) {
      return true;
    }
  }
  return false;
}

constexpr std::string_view kAliasSuffixes[] = {"s", "es", "ed", "er", "ers", "ing"};

// An alias word in the lower-cased sentence: ASCII words at a word start,
// followed by a word end or an inflection ("emailing"); other scripts
// (Chinese has no spaces) as a substring.
bool ContainsAliasWord(std::string_view hay, std::string_view word) {
  if (word.empty()) return false;
  if (!text::IsAscii(word)) return hay.find(word) != std::string_view::npos;
  auto ends_word = [&](size_t end) { return end == hay.size() || !IsWordByte(hay[end]); };
  for (size_t at = hay.find(word); at != std::string_view::npos; at = hay.find(word, at + 1)) {
    if (at > 0 && IsWordByte(hay[at - 1])) continue;
    const size_t end = at + word.size();
    if (ends_word(end)) return true;
    for (std::string_view suffix : kAliasSuffixes) {
      if (StartsWithAt(hay, end, suffix) && ends_word(end + suffix.size())) return true;
    }
  }
  return false;
}

// Parts of a tool name that say nothing about the tool ("get_the_weather").
constexpr std::string_view kFunctionWords[] = {"an",  "the", "to",   "of",   "in",  "on",
                                               "for", "and", "or",   "by",   "at",  "is",
                                               "it",  "my",  "with", "from", "via", "as"};

bool IsFunctionWord(std::string_view w) {
  return std::find(std::begin(kFunctionWords), std::end(kFunctionWords), w) !=
         std::end(kFunctionWords);
}

// The words of a lower-cased tool name, split at anything but [a-z0-9] and
// non-ASCII bytes: ASCII words stemmed, others as they are.
std::vector<std::string> NameWords(std::string_view lowered) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < lowered.size()) {
    const auto is_part = [&](char c) { return IsAsciiAlnum(c) || (c & 0x80) != 0; };
    while (pos < lowered.size() && !is_part(lowered[pos])) ++pos;
    const size_t start = pos;
    while (pos < lowered.size() && is_part(lowered[pos])) ++pos;
    const std::string_view part = lowered.substr(start, pos - start);
    if (part.empty()) continue;
    const bool ascii = text::IsAscii(part);
    if (ascii && (part.size() < 2 || IsFunctionWord(part))) continue;
    if (ascii && part.find_first_not_of("0123456789") == std::string_view::npos) continue;
    std::string word = ascii ? text::Stem(part) : std::string(part);
    if (std::find(out.begin(), out.end(), word) == out.end()) out.push_back(std::move(word));
  }
  return out;
}

// The stemmed words of a lower-cased sentence that may equal one of the
// name words `heads` stand for: runs of [a-z0-9_], so "force-push" gives
// force and push while "mail_v2" stays one word (it names another tool, not
// `mail`). Stemming changes only a word's end, so a token can stem to a name
// word only when it starts with that word minus its last letter (`heads`);
// other tokens, and repeats, are not stemmed (this runs on every edict).
std::vector<std::string> SentenceWords(std::string_view lowered,
                                       const std::vector<std::string>& heads) {
  std::vector<std::string> out;
  std::vector<std::string_view> seen;
  size_t pos = 0;
  while (pos < lowered.size()) {
    while (pos < lowered.size() && !IsWordByte(lowered[pos])) ++pos;
    const size_t start = pos;
    while (pos < lowered.size() && IsWordByte(lowered[pos])) ++pos;
    if (pos == start) continue;
    const std::string_view token = lowered.substr(start, pos - start);
    const bool candidate = std::any_of(heads.begin(), heads.end(),
                                       [&](const std::string& h) { return token.starts_with(h); });
    if (!candidate || std::find(seen.begin(), seen.end(), token) != seen.end()) continue;
    seen.push_back(token);
    std::string stem = text::Stem(token);
    if (std::find(out.begin(), out.end(), stem) == out.end()) out.push_back(std::move(stem));
  }
  return out;
}

}  // namespace

const std::vector<Alias>& BuiltinAliases() {
  static const std::vector<Alias> kAliases = {
      {.words = {"email", "mail", "e-mail", "邮件"}, .tool_contains = {"mail"}},
      {.words = {"shell", "terminal", "bash", "命令", "终端"},
       .tool_contains = {"shell", "bash", "exec"}},
      {.words = {"browser", "web", "网页", "链接"}, .tool_contains = {"browser", "web", "http"}},
      {.words = {"slack", "dm"}, .tool_contains = {"slack"}},
      {.words = {"file", "files", "文件"}, .tool_contains = {"file"}},
      {.words = {"sms", "text", "短信"}, .tool_contains = {"sms"}},
  };
  return kAliases;
}

// One set of tools (the turn's, or every known one) indexed for matching.
class ToolMatcher::Index {
 public:
  Index(const std::vector<std::string>& tools, const std::vector<Alias>& aliases) {
    for (size_t i = 0; i < tools.size(); ++i) {
      if (tools[i].empty() || tools[i] == kAnyTool) continue;
      Tool tool{.index = i, .lowered = LowerAscii(tools[i]), .words = {}};
      tool.words = NameWords(tool.lowered);
      for (const std::string& w : tool.words) {
        if (!text::IsAscii(w)) continue;
        std::string head = w.substr(0, w.size() - 1);
        if (std::find(heads_.begin(), heads_.end(), head) == heads_.end()) {
          heads_.push_back(std::move(head));
        }
      }
      named_.push_back(std::move(tool));
    }
    for (const Alias& alias : aliases) {
      for (const std::string& word : alias.words) {
        if (word.empty()) continue;
        Word w{
            .lowered = LowerAscii(word), .code_points = text::CountCodePoints(word), .tools = {}};
        for (const Tool& tool : named_) {
          size_t needle_length = 0;
          for (const std::string& needle : alias.tool_contains) {
            if (!needle.empty() && needle.size() > needle_length &&
                tool.lowered.find(LowerAscii(needle)) != std::string::npos) {
              needle_length = needle.size();
            }
          }
          if (needle_length == 0) continue;
          w.tools.push_back({.names_word = tool.lowered.find(w.lowered) != std::string::npos,
                             .word_length = w.code_points,
                             .needle_length = needle_length,
                             .index = tool.index});
        }
        if (!w.tools.empty()) words_.push_back(std::move(w));
      }
    }
  }

  // Step 1: the index of the best-named tool, or npos.
  size_t Named(std::string_view lowered) const {
    if (named_.empty()) return std::string::npos;
    const std::vector<std::string> words = SentenceWords(lowered, heads_);
    size_t best = std::string::npos;
    std::tuple<bool, size_t, size_t> best_rank{};
    for (const Tool& tool : named_) {
      const bool whole = ContainsWholeWord(lowered, tool.lowered);
      size_t spoken = 0;
      for (const std::string& w : tool.words) {
        const bool ascii = text::IsAscii(w);
        if ((ascii && std::find(words.begin(), words.end(), w) != words.end()) ||
            (!ascii && lowered.find(w) != std::string_view::npos)) {
          ++spoken;
        }
      }
      if (!whole && spoken == 0) continue;
      const std::tuple<bool, size_t, size_t> rank{whole, spoken, tool.lowered.size()};
      if (best == std::string::npos || rank > best_rank) {
        best = tool.index;
        best_rank = rank;
      }
    }
    return best;
  }

  // Step 2: the index of the most specific alias candidate, or npos.
  size_t ByAlias(std::string_view lowered) const {
    const Candidate* best = nullptr;
    for (const Word& word : words_) {
      if (!ContainsAliasWord(lowered, word.lowered)) continue;
      for (const Candidate& candidate : word.tools) {
        const bool earlier_on_tie =
            best != nullptr && !best->BeatsRankOf(candidate) && candidate.index < best->index;
        if (best == nullptr || candidate.BeatsRankOf(*best) || earlier_on_tie) {
          best = &candidate;
        }
      }
    }
    return best == nullptr ? std::string::npos : best->index;
  }

  size_t distinct_tools() const { return named_.size(); }
  size_t first_tool() const { return named_.empty() ? std::string::npos : named_[0].index; }

 private:
  struct Tool {
    size_t index = 0;  // in the tool list
    std::string lowered;
    std::vector<std::string> words;  // NameWords
  };
  // "Most specific match wins": compared member by member, greater wins.
  struct Candidate {
    bool names_word = false;   // the tool name contains the spoken word
    size_t word_length = 0;    // code points of the spoken word
    size_t needle_length = 0;  // bytes of the matched tool_contains entry
    size_t index = 0;          // in the tool list; not part of the rank

    bool BeatsRankOf(const Candidate& o) const {
      return std::tie(names_word, word_length, needle_length) >
             std::tie(o.names_word, o.word_length, o.needle_length);
    }
  };
  struct Word {
    std::string lowered;
    size_t code_points = 0;
    std::vector<Candidate> tools;  // in tool order
  };

  std::vector<Tool> named_;
  std::vector<std::string> heads_;  // each ASCII name word minus its last letter
  std::vector<Word> words_;
};

ToolMatcher::ToolMatcher(ToolCandidates candidates, const std::vector<Alias>& aliases)
    : known_source_(std::move(candidates.known)), aliases_(aliases) {
  // Distinct, in run order: "only one tool ran" counts tools, not calls.
  for (std::string& tool : candidates.turn) {
    if (std::find(turn_.begin(), turn_.end(), tool) == turn_.end()) turn_.push_back(tool);
  }
  turn_index_ = std::make_unique<Index>(turn_, aliases_);
}

ToolMatcher::~ToolMatcher() = default;

bool ToolMatcher::SpeaksAnAlias(std::string_view lowered) const {
  for (const Alias& alias : aliases_) {
    for (const std::string& word : alias.words) {
      if (ContainsAliasWord(lowered, LowerAscii(word))) return true;
    }
  }
  return false;
}

std::string ToolMatcher::Match(std::string_view edict) {
  const std::string lowered = LowerAscii(edict);
  if (const size_t named = turn_index_->Named(lowered); named != std::string::npos) {
    return turn_[named];
  }
  if (const size_t aliased = turn_index_->ByAlias(lowered); aliased != std::string::npos) {
    return turn_[aliased];
  }
  if (known_source_ && SpeaksAnAlias(lowered)) {
    if (!known_index_) {
      known_ = known_source_();
      std::sort(known_.begin(), known_.end());
      known_.erase(std::unique(known_.begin(), known_.end()), known_.end());
      known_index_ = std::make_unique<Index>(known_, aliases_);
    }
    if (const size_t aliased = known_index_->ByAlias(lowered); aliased != std::string::npos) {
      return known_[aliased];
    }
  }
  if (turn_index_->distinct_tools() == 1) return turn_[turn_index_->first_tool()];
  return std::string(kAnyTool);
}

std::string MatchTool(std::string_view edict, const ToolCandidates& candidates,
                      const std::vector<Alias>& aliases) {
  return ToolMatcher(candidates, aliases).Match(edict);
}

}  // namespace mnemo::rules
