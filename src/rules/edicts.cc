#include "rules/edicts.h"

#include <cstdint>
#include <span>
#include <tuple>
#include <unordered_set>
#include <utility>

#include "rules/tool_rule.h"
#include "text/sentences.h"
#include "text/utf8.h"

// Everything here is a hand-written scanner over bytes: std::regex is far too
// slow for the capture path (it runs on every turn) and cannot be bounded on
// hostile input. Matching is ASCII case-insensitive; non-ASCII text (Chinese)
// is matched byte for byte, which is exact for valid UTF-8.

namespace mnemo::rules {
namespace {

using text::CodePoint;

CodePoint At(std::string_view s, size_t pos) { return text::DecodeAt(s, pos); }

bool IsSpace(int32_t cp) { return text::IsWhiteSpace(cp); }

bool IsAsciiTerminal(int32_t cp) { return cp == '.' || cp == '!' || cp == '?' || cp == ';'; }

// 。！？；
bool IsWideTerminal(int32_t cp) {
  return cp == 0x3002 || cp == 0xFF01 || cp == 0xFF1F || cp == 0xFF1B;
}

bool IsQuestionMark(int32_t cp) { return cp == '?' || cp == 0xFF1F; }

// Opening quotes, brackets and list bullets in front of a sentence.
bool IsLeadingMark(int32_t cp) {
  switch (cp) {
    case '"':
    case '\'':
    case '(':
    case '[':
    case '-':
    case '*':
    case '>':
    case '`':
    case 0x00AB:  // «
    case 0x2018:  // ‘
    case 0x201C:  // “
    case 0x2022:  // •
    case 0x300A:  // 《
    case 0x300C:  // 「
    case 0x300E:  // 『
    case 0x3010:  // 【
    case 0xFF08:  // （
      return true;
    default: return false;
  }
}

bool IsAsciiAlpha(int32_t cp) { return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z'); }
bool IsAsciiDigit(int32_t cp) { return cp >= '0' && cp <= '9'; }
char LowerAscii(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

std::string LowerAscii(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = LowerAscii(c);
  return out;
}

// Letters and digits of ASCII and every non-ASCII code point that is not
// whitespace or punctuation (CJK ideographs, accented letters).
bool IsWordStart(int32_t cp) {
  if (cp < 0) return false;
  if (cp < 0x80) return IsAsciiAlpha(cp) || IsAsciiDigit(cp);
  if (IsSpace(cp)) return false;
  const bool punctuation = cp < 0xC0 || (cp >= 0x2000 && cp <= 0x206F) ||
                           (cp >= 0x3000 && cp <= 0x303F) || (cp >= 0xFF00 && cp <= 0xFF0F) ||
                           (cp >= 0xFF1A && cp <= 0xFF20) || (cp >= 0xFF3B && cp <= 0xFF40) ||
                           (cp >= 0xFF5B && cp <= 0xFF65);
  return !punctuation;
}

// The word boundary of tool names and alias words: anything but [a-z0-9_]
// (on lower-cased text).
bool IsWordByte(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; }

std::string_view TrimSpace(std::string_view s) {
  size_t pos = 0;
  size_t begin = s.size();
  size_t end = 0;
  while (pos < s.size()) {
    const CodePoint c = At(s, pos);
    if (!IsSpace(c.cp)) {
      if (begin == s.size()) begin = pos;
      end = pos + c.len;
    }
    pos += c.len;
  }
  return begin < end ? s.substr(begin, end - begin) : std::string_view();
}

size_t SkipSpaces(std::string_view s, size_t pos) {
  while (pos < s.size()) {
    const CodePoint c = At(s, pos);
    if (!IsSpace(c.cp)) break;
    pos += c.len;
  }
  return pos;
}

// Spaces and Markdown emphasis ("**Never** use sudo") between words.
size_t SkipGap(std::string_view s, size_t pos) {
  while (pos < s.size()) {
    const CodePoint c = At(s, pos);
    if (!IsSpace(c.cp) && c.cp != '*') break;
    pos += c.len;
  }
  return pos;
}

bool StartsWithAt(std::string_view s, size_t pos, std::string_view prefix) {
  return pos <= s.size() && s.substr(pos).starts_with(prefix);
}

// `prefix` (lower-case ASCII) at `pos`, ASCII case-insensitively.
bool StartsWithNoCase(std::string_view s, size_t pos, std::string_view prefix) {
  if (pos > s.size() || s.size() - pos < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (LowerAscii(s[pos + i]) != prefix[i]) return false;
  }
  return true;
}

// Case-insensitive: `word` (lower-case ASCII) at `pos`, not followed by a
// letter, digit or apostrophe. Returns the end of the word or npos.
size_t MatchWord(std::string_view s, size_t pos, std::string_view word) {
  if (!StartsWithNoCase(s, pos, word)) return std::string_view::npos;
  const size_t end = pos + word.size();
  if (end < s.size()) {
    const char next = s[end];
    if (IsAsciiAlpha(next) || IsAsciiDigit(next) || next == '\'' || next == '_') {
      return std::string_view::npos;
    }
  }
  return end;
}

bool NextWordIs(std::string_view s, size_t pos, std::string_view word) {
  return MatchWord(s, pos, word) != std::string_view::npos;
}

// A word (anything that can start one) follows at `pos`.
bool WordFollows(std::string_view s, size_t pos) {
  return pos < s.size() && IsWordStart(At(s, pos).cp);
}

// After "never" or "don't": an optional "ever", also set off by commas
// ("never, ever email"). A comma alone is not skipped: "Don't, please." has
// nothing to forbid.
size_t SkipEver(std::string_view s, size_t pos) {
  pos = SkipGap(s, pos);
  size_t p = pos;
  while (p < s.size() && (s[p] == ',' || IsSpace(At(s, p).cp))) p += At(s, p).len;
  const size_t ever = MatchWord(s, p, "ever");
  if (ever == std::string_view::npos) return pos;
  p = ever;
  while (p < s.size() && (s[p] == ',' || s[p] == '*' || IsSpace(At(s, p).cp))) p += At(s, p).len;
  return p;
}

// ---------------------------------------------------------------------------
// Edict detection

// True when the sentence ends as a question: a question mark in the final
// run of punctuation, closers and spaces that no later full stop or semicolon
// overrides ("Don't you think?", "不要发吗？", "Really?!"; not "Don't email
// her (she asked why?).").
bool EndsAsQuestion(std::string_view s) {
  bool question = false;
  size_t pos = 0;
  while (pos < s.size()) {
    const CodePoint c = At(s, pos);
    if (IsQuestionMark(c.cp)) {
      question = true;
    } else if (c.cp == '!' || c.cp == 0xFF01 || text::IsSentenceCloser(c.cp) || IsSpace(c.cp)) {
      // "?!" is still a question.
    } else {
      question = false;
    }
    pos += c.len;
  }
  return question;
}

// List markers and opening quotes: "- ", "* ", "> ", "1. ", "2) ", "“".
size_t SkipLeadingMarks(std::string_view s, size_t pos) {
  for (;;) {
    const size_t start = pos;
    pos = SkipSpaces(s, pos);
    while (pos < s.size()) {
      const CodePoint c = At(s, pos);
      if (!IsLeadingMark(c.cp)) break;
      pos += c.len;
    }
    size_t digits = pos;
    while (digits < s.size() && IsAsciiDigit(s[digits])) ++digits;
    if (digits > pos && digits < s.size() && (s[digits] == '.' || s[digits] == ')') &&
        (digits + 1 == s.size() || IsSpace(At(s, digits + 1).cp))) {
      pos = digits + 1;
    }
    if (pos == start) return pos;
  }
}

constexpr std::string_view kEnglishOpeners[] = {"please", "pls",  "and",     "also", "so",
                                                "but",    "oh",   "ok",      "okay", "now",
                                                "again",  "just", "remember"};
// 请 please, 也 also, 还有/另外/并且/而且 and, 以后/今后 from now on, 记住
// remember; 千万/绝对/永远 intensify a following 不要/别 ("千万别", "永远别").
constexpr std::string_view kChineseOpeners[] = {"请",   "也",   "还有", "另外", "并且", "而且",
                                                "以后", "今后", "记住", "千万", "绝对", "永远"};

// After an opener: an optional comma or colon, then spaces.
size_t SkipOpenerPunctuation(std::string_view s, size_t pos) {
  pos = SkipSpaces(s, pos);
  if (pos < s.size()) {
    const int32_t cp = At(s, pos).cp;
    if (cp == ',' || cp == ':' || cp == 0xFF0C || cp == 0xFF1A || cp == 0x3001) {
      pos += At(s, pos).len;
    }
  }
  return SkipSpaces(s, pos);
}

// The position after an opener at `pos`, or `pos` when there is none.
size_t SkipOpener(std::string_view s, size_t pos) {
  if (pos >= s.size()) return pos;
  if (IsAsciiAlpha(s[pos])) {
    for (std::string_view opener : kEnglishOpeners) {
      const size_t end = MatchWord(s, pos, opener);
      if (end != std::string_view::npos) return SkipOpenerPunctuation(s, end);
    }
    return pos;
  }
  for (std::string_view opener : kChineseOpeners) {
    if (StartsWithAt(s, pos, opener)) return SkipOpenerPunctuation(s, pos + opener.size());
  }
  return pos;
}

// A vocative or lead-in at `pos`: 1-3 words, at most 40 code points, then a
// comma or colon ("hey bot,", "Claude，", "Note:"). Returns the position
// after it, or `pos` when there is none.
size_t SkipVocative(std::string_view s, size_t pos) {
  constexpr int kMaxWords = 3;
  constexpr int kMaxCodePoints = 40;
  int words = 0;
  int code_points = 0;
  bool in_word = false;
  size_t p = pos;
  while (p < s.size() && code_points <= kMaxCodePoints) {
    const CodePoint c = At(s, p);
    ++code_points;
    if (c.cp == ',' || c.cp == ':' || c.cp == 0xFF0C || c.cp == 0xFF1A) {
      if (words == 0) return pos;
      return SkipSpaces(s, p + c.len);
    }
    if (IsSpace(c.cp)) {
      in_word = false;
    } else if (IsAsciiTerminal(c.cp) || IsWideTerminal(c.cp)) {
      return pos;
    } else if (!in_word) {
      in_word = true;
      if (++words > kMaxWords) return pos;
    }
    p += c.len;
  }
  return pos;
}

// "never <word>": "never ever" and "never again" are skipped, "never mind"
// and a bare "Never." are not edicts.
bool IsNeverEdict(std::string_view s, size_t pos) {
  size_t p = MatchWord(s, pos, "never");
  if (p == std::string_view::npos) return false;
  p = SkipEver(s, p);
  const size_t again = MatchWord(s, p, "again");
  if (again != std::string_view::npos) p = SkipGap(s, again);
  return WordFollows(s, p) && !NextWordIs(s, p, "mind");
}

// The end of "don't" (any apostrophe), "dont" or "do not" at `pos`, or npos.
size_t MatchDont(std::string_view s, size_t pos) {
  size_t p = MatchWord(s, pos, "dont");
  if (p != std::string_view::npos) return p;
  const size_t do_end = MatchWord(s, pos, "do");
  if (do_end != std::string_view::npos) return MatchWord(s, SkipSpaces(s, do_end), "not");
  constexpr std::string_view kDon = "don";
  if (!StartsWithNoCase(s, pos, kDon)) return std::string_view::npos;
  // ' ’ ‘ ʼ
  for (std::string_view apostrophe : {"'", "\xE2\x80\x99", "\xE2\x80\x98", "\xCA\xBC"}) {
    const size_t after = pos + kDon.size();
    if (StartsWithAt(s, after, apostrophe)) return MatchWord(s, after + apostrophe.size(), "t");
  }
  return std::string_view::npos;
}

// "don't <word>" and its spellings; "don't worry", "don't mind" and "don't
// mention it" are idioms, not edicts.
bool IsDontEdict(std::string_view s, size_t pos) {
  size_t p = MatchDont(s, pos);
  if (p == std::string_view::npos) return false;
  p = SkipEver(s, p);
  if (NextWordIs(s, p, "worry") || NextWordIs(s, p, "mind")) return false;
  const size_t mention = MatchWord(s, p, "mention");
  if (mention != std::string_view::npos && NextWordIs(s, SkipSpaces(s, mention), "it")) {
    return false;
  }
  return WordFollows(s, p);
}

// "stop <verb>ing" with a verb of five letters or more ("stop being",
// "stop emailing"); "stop the server" and "stop it" are requests.
bool IsStopEdict(std::string_view s, size_t pos) {
  size_t p = MatchWord(s, pos, "stop");
  if (p == std::string_view::npos) return false;
  p = SkipGap(s, p);
  constexpr size_t kMinLetters = 5;
  size_t letters = 0;
  size_t end = p;
  while (end < s.size() && (IsAsciiAlpha(s[end]) || s[end] == '-')) {
    if (s[end] != '-') ++letters;
    ++end;
  }
  if (letters < kMinLetters) return false;
  if (end < s.size() && (IsAsciiDigit(s[end]) || s[end] == '_' || s[end] == '\'')) return false;
  return StartsWithNoCase(s, end - 3, "ing");
}

constexpr std::string_view kChineseHeads[] = {"永远不要", "请勿", "不要", "不许",
                                              "禁止",     "别",   "停止"};
// 别 meaning "other" (别人, 别的…) and other words that start with 别.
constexpr std::string_view kBieWords[] = {"人", "的", "处", "名", "墅", "针", "扭", "致", "称"};
// 停止 is an edict only when an action follows ("停止给Sarah发邮件");
// "停止服务器" is a request.
constexpr std::string_view kStopActions[] = {
    "给",   "向",   "对",   "跟",   "和",   "再",   "发",   "用",   "使用", "运行", "执行", "调用",
    "删除", "修改", "打开", "访问", "发送", "回复", "提交", "推送", "写",   "读",   "在"};

bool IsChineseEdict(std::string_view s, size_t pos) {
  for (std::string_view head : kChineseHeads) {
    if (!StartsWithAt(s, pos, head)) continue;
    const size_t after = pos + head.size();
    if (head == "不要" && StartsWithAt(s, after, "紧")) return false;
    if (head == "别") {
      for (std::string_view word : kBieWords) {
        if (StartsWithAt(s, after, word)) return false;
      }
    }
    const size_t p = SkipGap(s, after);
    if (head == "停止") {
      for (std::string_view action : kStopActions) {
        if (StartsWithAt(s, p, action)) return true;
      }
      return false;
    }
    return WordFollows(s, p);
  }
  return false;
}

bool IsEdictHead(std::string_view s, size_t pos) {
  if (pos >= s.size()) return false;
  if (IsAsciiAlpha(s[pos])) {
    return IsNeverEdict(s, pos) || IsDontEdict(s, pos) || IsStopEdict(s, pos);
  }
  return IsChineseEdict(s, pos);
}

// ---------------------------------------------------------------------------
// Tool matching

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

// MatchTool with the turn's tools and the alias table lower-cased once, so
// that a message of many sentences does not redo it per sentence.
class ToolMatcher {
 public:
  ToolMatcher(const std::vector<std::string>& tools, const std::vector<Alias>& aliases)
      : tools_(tools) {
    for (size_t i = 0; i < tools.size(); ++i) {
      if (tools[i].empty() || tools[i] == kAnyTool) continue;
      Tool tool{.index = i, .lowered = LowerAscii(tools[i]), .spaced = {}};
      tool.spaced = tool.lowered;
      for (char& c : tool.spaced) {
        if (c == '_' || c == '-') c = ' ';
      }
      if (tool.spaced == tool.lowered) tool.spaced.clear();
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

  std::string Match(std::string_view sentence) const {
    const std::string lowered = LowerAscii(sentence);
    if (const Tool* named = Named(lowered)) return tools_[named->index];
    if (const Candidate* aliased = ByAlias(lowered)) return tools_[aliased->index];
    for (const std::string& tool : tools_) {
      if (!tool.empty()) return tool;
    }
    return std::string(kAnyTool);
  }

 private:
  struct Tool {
    size_t index = 0;  // in tools_
    std::string lowered;
    std::string spaced;  // "send email" for send_email; empty when the same
  };
  // "Most specific match wins": compared member by member, greater wins.
  struct Candidate {
    bool names_word = false;   // the tool name contains the spoken word
    size_t word_length = 0;    // code points of the spoken word
    size_t needle_length = 0;  // bytes of the matched tool_contains entry
    size_t index = 0;          // in tools_; not part of the rank

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

  // Step 1: the longest tool name spoken in the sentence; the earliest on a tie.
  const Tool* Named(std::string_view lowered) const {
    const Tool* best = nullptr;
    for (const Tool& tool : named_) {
      if (best != nullptr && tool.lowered.size() <= best->lowered.size()) continue;
      if (ContainsWholeWord(lowered, tool.lowered) ||
          (!tool.spaced.empty() && ContainsWholeWord(lowered, tool.spaced))) {
        best = &tool;
      }
    }
    return best;
  }

  // Step 2: the most specific candidate of every alias word spoken.
  const Candidate* ByAlias(std::string_view lowered) const {
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
    return best;
  }

  const std::vector<std::string>& tools_;
  std::vector<Tool> named_;
  std::vector<Word> words_;
};

constexpr std::string_view kUnknownTool[] = {"unknown tool", "no such tool", "tool not found",
                                             "unknown function", "not a registered tool"};
constexpr std::string_view kTimeout[] = {"timed out", "timeout", "deadline exceeded", "etimedout"};
constexpr std::string_view kConnection[] = {
    "connection refused",     "connection reset",  "connection closed", "connection aborted",
    "could not connect",      "failed to connect", "econnrefused",      "econnreset",
    "network is unreachable", "host unreachable",  "name resolution",   "getaddrinfo"};
constexpr std::string_view kPermission[] = {
    "permission denied", "access denied", "forbidden", "unauthorized",
    "not permitted",     "eacces",        "eperm"};
constexpr std::string_view kNotFound[] = {"not found", "no such file", "does not exist", "enoent",
                                          "404"};
constexpr std::string_view kParse[] = {"parse error",  "failed to parse", "could not parse",
                                       "invalid json", "syntax error",    "unexpected token",
                                       "malformed"};

struct FailureClass {
  std::string_view name;
  std::span<const std::string_view> needles;
};

// In precedence order: "tool not found" is unknown_tool, not not_found.
constexpr FailureClass kFailureClasses[] = {
    {"unknown_tool", kUnknownTool},     {"timeout", kTimeout},    {"connection_error", kConnection},
    {"permission_denied", kPermission}, {"not_found", kNotFound}, {"parse_error", kParse},
};

}  // namespace

const std::vector<Alias>& BuiltinAliases() {
  static const std::vector<Alias> kAliases = {
      {.words = {"email", "mail", "e-mail", "邮件"}, .tool_contains = {"mail"}},
      {.words = {"shell", "terminal", "bash", "命令"}, .tool_contains = {"shell", "bash", "exec"}},
      {.words = {"browser", "web", "网页"}, .tool_contains = {"browser", "web", "http"}},
      {.words = {"slack", "dm"}, .tool_contains = {"slack"}},
      {.words = {"file", "文件"}, .tool_contains = {"file"}},
  };
  return kAliases;
}

std::vector<std::string> SplitSentences(std::string_view text) {
  // Edicts are often terse ("别用sudo。", "No."): every piece counts, and a
  // ';' separates two instructions.
  return text::SplitSentences(text);
}

bool IsEdict(std::string_view sentence) {
  const std::string_view s = TrimSpace(sentence);
  if (s.empty() || EndsAsQuestion(s)) return false;
  size_t pos = SkipLeadingMarks(s, 0);
  // Each round consumes an opener or a vocative, so this ends.
  while (pos < s.size()) {
    if (IsEdictHead(s, pos)) return true;
    size_t next = SkipOpener(s, pos);
    if (next == pos) next = SkipVocative(s, pos);
    if (next == pos) return false;
    pos = SkipLeadingMarks(s, next);  // "Claude, “never push.”"
  }
  return false;
}

std::string MatchTool(std::string_view sentence, const std::vector<std::string>& tools,
                      const std::vector<Alias>& aliases) {
  return ToolMatcher(tools, aliases).Match(sentence);
}

std::string EdictBody(std::string_view sentence) {
  std::string_view s = TrimSpace(sentence);
  // A list marker is layout, not the user's words: "- Never X" and "Never X"
  // are one rule, and the pinned block does not render "- - Never".
  for (std::string_view bullet : {"- ", "* ", "> ", "\xE2\x80\xA2 "}) {
    if (s.starts_with(bullet)) {
      s = TrimSpace(s.substr(bullet.size()));
      break;
    }
  }
  // "1) Never X" ("1. " never gets here: SplitSentences splits after it).
  size_t digits = 0;
  while (digits < s.size() && digits < 3 && IsAsciiDigit(s[digits])) ++digits;
  if (digits > 0 && s.substr(digits).starts_with(") ")) s = TrimSpace(s.substr(digits + 2));
  s = TrimSpace(s.substr(0, text::Utf8PrefixBytes(s, kMaxEdictChars)));
  // Rules end up in JSON and in the system prompt: no ill-formed bytes.
  return text::SanitizeUtf8(s);
}

std::vector<Edict> ExtractEdicts(std::string_view user_message,
                                 const std::vector<std::string>& tools,
                                 const std::vector<Alias>& aliases) {
  const ToolMatcher matcher(tools, aliases);
  std::vector<Edict> out;
  // Exact (tool, body) pairs first: a repeated sentence skips NormalizedBody,
  // which case-folds through ICU.
  std::unordered_set<std::string> seen_exact;
  std::unordered_set<std::string> seen;
  for (const std::string& sentence : SplitSentences(user_message)) {
    if (!IsEdict(sentence)) continue;
    Edict edict{.tool_name = matcher.Match(sentence), .body = EdictBody(sentence)};
    std::string key = edict.tool_name;
    key.push_back('\0');
    if (!seen_exact.insert(key + edict.body).second) continue;
    key += NormalizedBody(edict.body);
    if (seen.insert(std::move(key)).second) out.push_back(std::move(edict));
  }
  return out;
}

std::string ClassifyFailure(std::string_view output) {
  const std::string lowered = LowerAscii(output);
  for (const FailureClass& failure : kFailureClasses) {
    for (std::string_view needle : failure.needles) {
      if (lowered.find(needle) != std::string::npos) return std::string(failure.name);
    }
  }
  return "error";
}

}  // namespace mnemo::rules
