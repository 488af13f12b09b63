#include "rules/edicts.h"

#include <cstdint>
#include <optional>
#include <span>
#include <unordered_set>
#include <utility>

#include "rules/tool_rule.h"
#include "text/sentences.h"
#include "text/trim.h"
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

// Words after which a comma or colon lead-in is a condition ("If the upload
// fails,", "when you deploy,", 如果…，): it may be longer than a vocative.
constexpr std::string_view kEnglishConditions[] = {
    "if",     "when",  "whenever", "once",       "before",    "after",      "while",
    "unless", "until", "in case",  "as soon as", "each time", "every time", "anytime"};
constexpr std::string_view kChineseConditions[] = {"如果", "要是", "假如", "万一",
                                                   "一旦", "每当", "每次", "当"};
// A lead-in that reports what someone else said ("She said,", "The docs
// say:") introduces their words, not the user's instruction, unless the user
// is the one speaking ("I told you:", "As I said,", 我说过，).
constexpr std::string_view kReportingWords[] = {"say",  "says",  "said",   "tell",  "tells",
                                                "told", "write", "writes", "wrote", "ask",
                                                "asks", "asked", "reads"};
constexpr std::string_view kFirstPerson[] = {"i", "i've", "i'm", "we", "we've", "me", "us"};
constexpr std::string_view kChineseReporting[] = {"说", "告诉", "写道", "讲"};

bool IsLeadInPunctuation(int32_t cp) {
  return cp == ',' || cp == ':' || cp == 0xFF0C || cp == 0xFF1A;
}

bool IsColon(int32_t cp) { return cp == ':' || cp == 0xFF1A; }

bool StartsWithAnyWord(std::string_view s, size_t pos, std::span<const std::string_view> words) {
  for (std::string_view w : words) {
    if (NextWordIs(s, pos, w)) return true;
  }
  return false;
}

// Whether the lead-in `phrase` reports someone else's words.
bool ReportsOthers(std::string_view phrase) {
  const std::string lowered = LowerAscii(phrase);
  bool reporting = false;
  bool first_person = false;
  size_t pos = 0;
  while (pos < lowered.size()) {
    while (pos < lowered.size() && !IsAsciiAlpha(lowered[pos]) && lowered[pos] != '\'') ++pos;
    const size_t start = pos;
    while (pos < lowered.size() && (IsAsciiAlpha(lowered[pos]) || lowered[pos] == '\'')) ++pos;
    const std::string_view word = std::string_view(lowered).substr(start, pos - start);
    if (word.empty()) break;
    for (std::string_view w : kReportingWords) reporting = reporting || word == w;
    for (std::string_view w : kFirstPerson) first_person = first_person || word == w;
  }
  for (std::string_view w : kChineseReporting) {
    reporting = reporting || phrase.find(w) != std::string_view::npos;
  }
  first_person = first_person || phrase.find("我") != std::string_view::npos;
  return reporting && !first_person;
}

// A vocative, lead-in or condition at `pos`, ended by a comma or colon:
// "hey bot,", "Claude，", "Note:" (1-3 words, at most 40 code points), "I said
// it before:" (a colon after at most 8 words), "If the upload fails," /
// 如果失败， (a condition of at most 12 words). Not one that reports others'
// words ("She said,"). Returns the position after it, or `pos`.
size_t SkipLeadIn(std::string_view s, size_t pos) {
  constexpr int kMaxVocativeWords = 3;
  constexpr int kMaxVocativeCodePoints = 40;
  constexpr int kMaxColonWords = 8;
  constexpr int kMaxConditionWords = 12;
  constexpr int kMaxCodePoints = 120;
  bool condition = StartsWithAnyWord(s, pos, kEnglishConditions);
  for (std::string_view w : kChineseConditions) condition = condition || StartsWithAt(s, pos, w);
  int words = 0;
  int code_points = 0;
  bool in_word = false;
  size_t p = pos;
  while (p < s.size() && code_points <= kMaxCodePoints) {
    const CodePoint c = At(s, p);
    ++code_points;
    if (IsLeadInPunctuation(c.cp)) {
      if (words == 0) return pos;
      const bool vocative = words <= kMaxVocativeWords && code_points <= kMaxVocativeCodePoints;
      const bool colon = IsColon(c.cp) && words <= kMaxColonWords;
      const bool conditional = condition && words <= kMaxConditionWords;
      if (!(vocative || colon || conditional)) return pos;
      if (ReportsOthers(s.substr(pos, p - pos))) return pos;
      return SkipSpaces(s, p + c.len);
    }
    if (IsSpace(c.cp)) {
      in_word = false;
    } else if (IsAsciiTerminal(c.cp) || IsWideTerminal(c.cp)) {
      return pos;
    } else if (!in_word) {
      in_word = true;
      if (++words > kMaxConditionWords) return pos;
    }
    p += c.len;
  }
  return pos;
}

// Reminders, reassurances and fillers that look like edicts: "don't
// forget …", "don't hesitate …", "don't worry …", "never mind", "never
// fear", "don't be sorry", "stop worrying".
constexpr std::string_view kFillerVerbs[] = {"forget", "hesitate", "worry",  "mind", "bother",
                                             "panic",  "fret",     "stress", "fear", "sweat"};
constexpr std::string_view kFillerAdjectives[] = {"afraid", "shy",     "sorry",   "silly",
                                                  "scared", "nervous", "ashamed", "sad"};
constexpr std::string_view kFillerGerunds[] = {"worrying", "stressing", "panicking", "fretting"};
// "Never will I…", "never is a long time": an auxiliary after "never" is no
// instruction.
constexpr std::string_view kAuxiliaries[] = {"will",  "would", "can",  "could", "should",
                                             "shall", "did",   "does", "was",   "were",
                                             "is",    "are",   "am",   "been"};

bool IsFiller(std::string_view s, size_t pos) {
  if (StartsWithAnyWord(s, pos, kFillerVerbs)) return true;
  if (const size_t be = MatchWord(s, pos, "be"); be != std::string_view::npos) {
    return StartsWithAnyWord(s, SkipSpaces(s, be), kFillerAdjectives);
  }
  for (std::string_view idiom : {"mention", "get"}) {
    const size_t end = MatchWord(s, pos, idiom);
    if (end == std::string_view::npos) continue;
    const size_t next = SkipSpaces(s, end);
    if (idiom == "mention" ? NextWordIs(s, next, "it") : NextWordIs(s, next, "me")) return true;
  }
  return false;
}

// "never <word>": "never ever" and "never again" are skipped; "never mind",
// "never fear", "never will" and a bare "Never." are not edicts.
bool IsNeverEdict(std::string_view s, size_t pos) {
  size_t p = MatchWord(s, pos, "never");
  if (p == std::string_view::npos) return false;
  p = SkipEver(s, p);
  const size_t again = MatchWord(s, p, "again");
  if (again != std::string_view::npos) p = SkipGap(s, again);
  return WordFollows(s, p) && !IsFiller(s, p) && !StartsWithAnyWord(s, p, kAuxiliaries);
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

// "don't <word>" and its spellings; not the fillers ("don't worry", "don't
// mention it") nor "don't you …" ("don't you think", "don't you want"),
// except "don't you dare …".
bool IsDontEdict(std::string_view s, size_t pos) {
  size_t p = MatchDont(s, pos);
  if (p == std::string_view::npos) return false;
  p = SkipEver(s, p);
  if (IsFiller(s, p)) return false;
  if (const size_t you = MatchWord(s, p, "you"); you != std::string_view::npos) {
    const size_t dare = MatchWord(s, SkipSpaces(s, you), "dare");
    return dare != std::string_view::npos && WordFollows(s, SkipGap(s, dare));
  }
  return WordFollows(s, p);
}

// "stop <verb>ing" with a verb of five letters or more ("stop being",
// "stop emailing"); "stop the server" and "stop it" are requests, "stop
// worrying" a reassurance.
bool IsStopEdict(std::string_view s, size_t pos) {
  size_t p = MatchWord(s, pos, "stop");
  if (p == std::string_view::npos) return false;
  p = SkipGap(s, p);
  if (StartsWithAnyWord(s, p, kFillerGerunds)) return false;
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

// "can you", "could you", "would you", "will you", each with an optional
// "please": before "stop <verb>ing" a polite form of it, even as a question
// ("Could you stop adding emojis?"). Returns the position after it, or `pos`.
size_t SkipPoliteAsk(std::string_view s, size_t pos) {
  for (std::string_view modal : {"can", "could", "would", "will"}) {
    const size_t end = MatchWord(s, pos, modal);
    if (end == std::string_view::npos) continue;
    const size_t you = MatchWord(s, SkipSpaces(s, end), "you");
    if (you == std::string_view::npos) return pos;
    size_t p = SkipSpaces(s, you);
    if (const size_t please = MatchWord(s, p, "please"); please != std::string_view::npos) {
      p = SkipOpenerPunctuation(s, please);
    }
    return p;
  }
  return pos;
}

constexpr std::string_view kChineseHeads[] = {"永远不要", "请勿", "不要", "不许",
                                              "禁止",     "别",   "停止"};
// 别 meaning "other" (别人, 别的…) and other words that start with 别.
constexpr std::string_view kBieWords[] = {"人", "的", "处", "名", "墅", "针", "扭", "致", "称"};
// Reminders and reassurances: 不要忘记, 别忘了, 别担心, 别着急, 不要紧, 别客气…
constexpr std::string_view kChineseFillers[] = {"忘", "担心", "着急", "紧",   "客气", "介意",
                                                "怕", "害怕", "紧张", "难过", "生气", "在意",
                                                "慌", "犹豫", "见外", "谢"};
// 停止 is an edict only when an action follows ("停止给Sarah发邮件");
// "停止服务器" is a request.
constexpr std::string_view kStopActions[] = {
    "给",   "向",   "对",   "跟",   "和",   "再",   "发",   "用",   "使用", "运行", "执行", "调用",
    "删除", "修改", "打开", "访问", "发送", "回复", "提交", "推送", "写",   "读",   "在"};

bool IsChineseFiller(std::string_view s, size_t p) {
  for (std::string_view word : kChineseFillers) {
    if (StartsWithAt(s, p, word)) return true;
  }
  // 别急 (but 别急着部署 is "don't rush to deploy").
  return StartsWithAt(s, p, "急") && !WordFollows(s, p + std::string_view("急").size());
}

bool IsChineseEdict(std::string_view s, size_t pos) {
  for (std::string_view head : kChineseHeads) {
    if (!StartsWithAt(s, pos, head)) continue;
    const size_t after = pos + head.size();
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
    return WordFollows(s, p) && !IsChineseFiller(s, p);
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

// Openers, vocatives, lead-ins and conditions are skipped at most this many
// times: enough for "Oh, and please, hey bot, if it fails, also never…",
// and it bounds the work per clause start on hostile input.
constexpr int kMaxIntroParts = 8;

// The position after the introduction at `pos` (list markers, openers,
// vocatives, lead-ins, conditions): at an edict head or polite ask when there
// is one, else where the skipping stopped.
size_t SkipIntro(std::string_view s, size_t pos) {
  pos = SkipLeadingMarks(s, pos);
  for (int part = 0; part < kMaxIntroParts && pos < s.size(); ++part) {
    if (IsEdictHead(s, pos) || SkipPoliteAsk(s, pos) != pos) break;
    size_t next = SkipOpener(s, pos);
    if (next == pos) next = SkipLeadIn(s, pos);
    if (next == pos) break;
    pos = SkipLeadingMarks(s, next);  // "Claude, “never push.”"
  }
  return pos;
}

// Whether an edict begins at `pos` (after its introduction). A question is
// an edict only in the polite form "could you stop <verb>ing?".
bool EdictStartsAt(std::string_view s, size_t pos, bool question) {
  pos = SkipIntro(s, pos);
  if (const size_t asked = SkipPoliteAsk(s, pos); asked != pos) return IsStopEdict(s, asked);
  return !question && IsEdictHead(s, pos);
}

// ---------------------------------------------------------------------------
// Clauses

struct Joiner {
  size_t at = 0;       // where the joiner starts (the comma, or the word)
  size_t next = 0;     // where the following clause starts
  bool comma = false;  // ", and", "，", "并且": a clause boundary of its own
};

// The joiner at `pos`, if any: ", and" / ",and also" (comma, "and"), " and "
// (without a comma: see SplitClauses), "，", "并且", "而且".
std::optional<Joiner> JoinerAt(std::string_view s, size_t pos) {
  const char c = s[pos];
  if (c == ',') {
    const size_t and_end = MatchWord(s, SkipSpaces(s, pos + 1), "and");
    if (and_end == std::string_view::npos) return std::nullopt;
    return Joiner{.at = pos, .next = SkipSpaces(s, and_end), .comma = true};
  }
  if (c == ' ' || c == '\t') {
    const size_t and_end = MatchWord(s, SkipSpaces(s, pos), "and");
    if (and_end == std::string_view::npos) return std::nullopt;
    return Joiner{.at = pos, .next = SkipSpaces(s, and_end), .comma = false};
  }
  for (std::string_view wide : {"\xEF\xBC\x8C", "并且", "而且"}) {  // "，"
    if (StartsWithAt(s, pos, wide)) {
      return Joiner{.at = pos, .next = SkipSpaces(s, pos + wide.size()), .comma = true};
    }
  }
  return std::nullopt;
}

// `s` trimmed, and without a trailing comma (the clause boundary).
std::string_view TrimClause(std::string_view s) {
  s = text::TrimWhiteSpace(s);
  for (std::string_view comma : {",", "\xEF\xBC\x8C"}) {
    if (s.ends_with(comma)) s = text::TrimWhiteSpace(s.substr(0, s.size() - comma.size()));
  }
  return s;
}

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

std::vector<std::string> SplitSentences(std::string_view text) {
  // Edicts are often terse ("别用sudo。", "No."): every piece counts, and a
  // ';' separates two instructions.
  return text::SplitSentences(text);
}

std::vector<std::string_view> SplitClauses(std::string_view sentence) {
  const std::string_view s = text::TrimWhiteSpace(sentence);
  std::vector<std::string_view> out;
  size_t start = 0;
  size_t pos = 0;
  while (pos < s.size()) {
    const std::optional<Joiner> joiner = JoinerAt(s, pos);
    if (!joiner || joiner->next >= s.size()) {
      pos += At(s, pos).len;
      continue;
    }
    // A clause of its own only where an edict begins, and after more than
    // an introduction: "如果失败，不要重试" and "Never share my address,
    // phone, and email" stay whole.
    const std::string_view before = TrimClause(s.substr(start, joiner->at - start));
    bool split = !before.empty() && EdictStartsAt(s, joiner->next, /*question=*/false) &&
                 SkipIntro(s, start) < joiner->at;
    // " and " without a comma joins two edicts, not a statement and an
    // elided one ("I don't drink and don't smoke").
    if (split && !joiner->comma) split = IsEdict(before);
    if (split) {
      out.push_back(before);
      start = joiner->next;
      pos = joiner->next;
    } else {
      pos += At(s, pos).len;
    }
  }
  const std::string_view last = TrimClause(s.substr(start));
  if (!last.empty()) out.push_back(last);
  return out;
}

bool IsEdict(std::string_view clause) {
  const std::string_view s = text::TrimWhiteSpace(clause);
  if (s.empty()) return false;
  return EdictStartsAt(s, 0, EndsAsQuestion(s));
}

std::string EdictBody(std::string_view sentence) {
  std::string_view s = text::TrimWhiteSpace(sentence);
  // A list marker is layout, not the user's words: "- Never X" and "Never X"
  // are one rule, and the pinned block does not render "- - Never".
  for (std::string_view bullet : {"- ", "* ", "> ", "\xE2\x80\xA2 "}) {
    if (s.starts_with(bullet)) {
      s = text::TrimWhiteSpace(s.substr(bullet.size()));
      break;
    }
  }
  // "1) Never X" ("1. " never gets here: SplitSentences splits after it).
  size_t digits = 0;
  while (digits < s.size() && digits < 3 && IsAsciiDigit(s[digits])) ++digits;
  if (digits > 0 && s.substr(digits).starts_with(") "))
    s = text::TrimWhiteSpace(s.substr(digits + 2));
  s = text::TrimWhiteSpace(s.substr(0, text::Utf8PrefixBytes(s, kMaxEdictChars)));
  // Rules end up in JSON and in the system prompt: no ill-formed bytes.
  return text::SanitizeUtf8(s);
}

std::vector<Edict> ExtractEdicts(std::string_view user_message, const ToolCandidates& tools,
                                 const std::vector<Alias>& aliases) {
  ToolMatcher matcher(tools, aliases);
  std::vector<Edict> out;
  // Exact (tool, body) pairs first: a repeated sentence skips NormalizedBody,
  // which case-folds through ICU.
  std::unordered_set<std::string> seen_exact;
  std::unordered_set<std::string> seen;
  for (const std::string& sentence : SplitSentences(user_message)) {
    for (std::string_view clause : SplitClauses(sentence)) {
      if (!IsEdict(clause)) continue;
      Edict edict{.tool_name = matcher.Match(clause), .body = EdictBody(clause)};
      std::string key = edict.tool_name;
      key.push_back('\0');
      if (!seen_exact.insert(key + edict.body).second) continue;
      key += NormalizedBody(edict.body);
      if (seen.insert(std::move(key)).second) out.push_back(std::move(edict));
    }
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
