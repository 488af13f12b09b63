#include "context/graph_extract.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <span>

#include "base/strings.h"
#include "context/graph.h"
#include "storage/rules/graph_rules.h"
#include "text/utf8.h"

// Hand-written scanners instead of std::regex, like the event patterns of
// spec 40: linear on hostile input and cheap enough to run on every document.

namespace mnemo::context::internal {
namespace {

// kAddressee: said to the agent about the speaker, with no subject of its
// own or only a polite one ("call me Sam", "you can call me Sam").
enum class Who { kFirst, kThird, kAny, kAddressee };

// One verb phrase. English phrases are matched case-blind at word
// boundaries, after a non-empty subject; Chinese ones as substrings. With
// `closing` (在…工作) the object lies between the phrase and `closing`.
struct Rule {
  std::string_view phrase;
  std::string_view predicate;
  Who who = Who::kAny;
  std::string_view closing;
};

constexpr std::string_view kIs = "is";

constexpr Rule kEnglishRules[] = {
    {"live in", "lives_in", Who::kFirst},
    {"am living in", "lives_in", Who::kFirst},
    {"am based in", "lives_in", Who::kFirst},
    {"lives in", "lives_in", Who::kThird},
    {"is living in", "lives_in", Who::kThird},
    {"moved to", "lives_in", Who::kAny},
    {"have moved to", "lives_in", Who::kFirst},
    {"relocated to", "lives_in", Who::kAny},
    {"work at", "works_at", Who::kFirst},
    {"work for", "works_at", Who::kFirst},
    {"am working at", "works_at", Who::kFirst},
    {"am working for", "works_at", Who::kFirst},
    {"works at", "works_at", Who::kThird},
    {"works for", "works_at", Who::kThird},
    {"is working at", "works_at", Who::kThird},
    {"is working for", "works_at", Who::kThird},
    {"use", "uses", Who::kFirst},
    {"am using", "uses", Who::kFirst},
    {"uses", "uses", Who::kThird},
    {"is using", "uses", Who::kThird},
    {"prefer", "prefers", Who::kFirst},
    {"prefers", "prefers", Who::kThird},
    {"like", "likes", Who::kFirst},
    {"love", "likes", Who::kFirst},
    {"enjoy", "likes", Who::kFirst},
    {"likes", "likes", Who::kThird},
    {"loves", "likes", Who::kThird},
    {"enjoys", "likes", Who::kThird},
    {"am from", "comes_from", Who::kFirst},
    {"come from", "comes_from", Who::kFirst},
    {"is from", "comes_from", Who::kThird},
    {"comes from", "comes_from", Who::kThird},
    {"am called", "name", Who::kFirst},
    {"call me", "name", Who::kAddressee},
    {"joined", "works_at", Who::kFirst},
    {"have a", "has", Who::kFirst},
    {"have an", "has", Who::kFirst},
    {"hate", "dislikes", Who::kFirst},
    {"dislike", "dislikes", Who::kFirst},
    {"am a", kIs, Who::kFirst},
    {"am an", kIs, Who::kFirst},
    {"is", kIs, Who::kThird},
};

constexpr Rule kChineseRules[] = {
    {"住在", "lives_in"},
    {"搬到了", "lives_in"},
    {"搬到", "lives_in"},
    {"搬去了", "lives_in"},
    {"搬去", "lives_in"},
    {"在", "works_at", Who::kAny, "工作"},
    {"在", "works_at", Who::kAny, "上班"},
    {"使用", "uses"},
    {"用", "uses"},
    {"更喜欢", "prefers"},
    {"偏好", "prefers"},
    {"喜欢", "likes"},
    {"来自", "comes_from"},
    {"叫", "name", Who::kFirst},
    {"养了", "has", Who::kFirst},
    {"养", "has", Who::kFirst},
    {"有一只", "has", Who::kFirst},
    {"有一条", "has", Who::kFirst},
    {"是", kIs},
};

// Leading words that do not belong to a clause's subject, longest first
// where one is a prefix of another.
constexpr std::string_view kEnglishFillers[] = {
    "i am not sure if",
    "i am not sure whether",
    "i am not sure",
    "not sure if",
    "not sure",
    "i think that",
    "i think",
    "i believe that",
    "i believe",
    "i guess",
    "i suppose",
    "i heard that",
    "i heard",
    "by the way",
    "maybe",
    "probably",
    "perhaps",
    "actually",
    "apparently",
    "honestly",
    "basically",
    "also",
    "and",
    "but",
    "so",
    "well",
    "oh",
    "ok",
    "okay",
    "btw",
    "anyway",
    "then",
    "now",
    "because",
    "since",
    "although",
    "though",
    "while",
    "yes",
    "yeah",
    "that",
    "fyi",
    "note",
    "remember",
};

constexpr std::string_view kChineseFillers[] = {
    "我觉得", "我认为", "我想", "可能", "也许", "好像", "其实", "另外", "而且",
    "然后",   "所以",   "但是", "不过", "因为", "听说", "据说", "大概", "应该",
    "并且",   "那么",   "对了", "嗯",   "哦",   "现在", "目前",
};

// Adverbs between a subject and its verb: "I also use", "我现在住在".
constexpr std::string_view kEnglishAdverbs[] = {
    "also",     "really", "still",  "now",     "mostly",  "usually", "currently",
    "actually", "just",   "always", "already", "finally", "really",  "recently",
    "often",    "then",   "too",    "mainly",  "happily",
};

constexpr std::string_view kChineseAdverbs[] = {
    "现在", "目前", "已经", "一直", "平时", "经常", "通常", "总是", "主要", "一般", "每天", "常常",
    "仍然", "依然", "真的", "非常", "特别", "比较", "最",   "很",   "也",   "还",   "都",   "就",
};

// Subjects that cannot be resolved (or are no subject at all).
constexpr std::string_view kEnglishBlockedWords[] = {
    "i",      "me",     "you",      "he",        "she",     "it",         "we",       "they",
    "him",    "her",    "us",       "them",      "this",    "that",       "these",    "those",
    "there",  "here",   "what",     "which",     "who",     "whom",       "whose",    "where",
    "when",   "why",    "how",      "something", "someone", "everything", "everyone", "nothing",
    "nobody", "anyone", "anything", "each",      "every",   "all",        "some",     "any",
    "my",     "your",   "his",      "our",       "their",   "its",        "not",      "never",
    "no",     "if",     "whether",  "do",        "does",    "did",        "can",      "could",
    "would",  "should", "will",     "to",        "one",     "problem",    "issue",    "question",
    "answer", "thing",  "point",    "idea",      "reason",  "plan",       "goal",
};

// Objects that say nothing by themselves.
constexpr std::string_view kEnglishEmptyObjects[] = {
    "it",    "that", "this",  "them", "him",   "her",  "me",   "you",  "us",    "here",
    "there", "so",   "very",  "too",  "fine",  "ok",   "okay", "good", "great", "right",
    "sure",  "true", "false", "done", "ready", "back", "what", "one",  "ones",  "all",
};

// The first word of an object that makes it no object ("is not", "is going").
constexpr std::string_view kEnglishBadObjectStarts[] = {
    "not",   "no",     "never", "n't",  "is",      "are",   "was",    "were",  "be",    "been",
    "am",    "has",    "have",  "had",  "do",      "does",  "did",    "will",  "would", "can",
    "could", "should", "that",  "what", "because", "going", "gonna",  "about", "very",  "so",
    "too",   "really", "quite", "just", "also",    "still", "always", "like",  "if",    "when",
};

// Words before which an English object ends.
constexpr std::string_view kEnglishObjectEnds[] = {
    "because", "since",  "for",      "from",      "in",        "at",      "on",       "with",
    "as",      "to",     "when",     "where",     "which",     "who",     "while",    "until",
    "after",   "before", "during",   "last",      "yesterday", "today",   "tomorrow", "recently",
    "now",     "these",  "this",     "every",     "each",      "but",     "so",       "and",
    "or",      "then",   "ago",      "over",      "than",      "instead", "rather",   "too",
    "anymore", "again",  "nowadays", "currently",
};

constexpr std::string_view kArticles[] = {"the", "a", "an"};

constexpr std::string_view kChineseBlocked[] = {
    "我", "你", "他",   "她",   "它", "这", "那", "谁", "什么", "哪",
    "咱", "您", "大家", "有人", "不", "没", "别", "未", "吗",
};

// 是 and 用 are also parts of words (但是, 可是; 有用, 用户): the characters
// that make them so, before and after.
constexpr std::string_view kNotIsBefore[] = {
    "但", "可", "于", "总", "只", "还", "要", "若", "凡", "或", "就", "正", "算", "而",
    "真", "像", "硬", "倒", "便", "乃", "即", "却", "又", "老", "本", "实", "确", "自",
    "得", "该", "应", "会", "不", "说", "光", "全", "特", "尤", "否", "别",
};
constexpr std::string_view kNotUseBefore[] = {
    "使", "有", "作", "费", "应", "不", "常", "通", "采", "利", "信", "专", "实", "可", "引", "适",
    "运", "享", "备", "试", "功", "效", "没", "好", "能", "要", "会", "只", "来", "再", "别", "日",
    "公", "家", "军", "商", "民", "食", "占", "挪", "借", "滥", "沿", "套", "聘", "录", "启", "起",
    "调", "重", "雇", "任", "耐", "中", "服", "选", "共", "惯", "够", "管", "耗", "续", "征", "妙",
    "急", "受", "动", "活", "合", "善", "误", "混", "兼", "无", "在", "试", "自", "两", "多", "通",
};
constexpr std::string_view kNotUseAfter[] = {
    "户", "途", "法", "处", "品", "意", "来", "于", "力", "量", "心", "词",
    "语", "例", "作", "以", "得", "过", "到", "具", "料", "场", "人", "地",
    "餐", "药", "钱", "功", "兵", "劲", "尽", "完", "光", "上", "不", "着",
};

constexpr std::string_view kChineseMeasures[] = {
    "一名", "一个", "一位", "一家", "一款", "一种", "一只", "一条",
    "一匹", "一门", "个",   "名",   "位",   "只",   "条",
};
constexpr std::string_view kChineseObjectEnds[] = {"因为", "但是", "所以", "而且", "的时候"};
constexpr std::string_view kChineseTrailingParticles[] = {"了", "呢", "吧", "啊", "呀",
                                                          "啦", "嘛", "哦", "的"};

constexpr std::string_view kHedges[] = {"i think", "maybe", "probably", "not sure",
                                        "我觉得",  "可能",  "也许",     "好像"};

// Words of `my <noun> is` and `我的<noun>是` with a predicate of their own.
struct Alias {
  std::string_view noun;
  std::string_view predicate;
};
constexpr Alias kNounAliases[] = {
    {"time zone", "timezone"}, {"timezone", "timezone"}, {"name", "name"}, {"full name", "name"},
    {"时区", "timezone"},      {"名字", "name"},         {"姓名", "name"}, {"年龄", "age"},
    {"生日", "birthday"},      {"邮箱", "email"},        {"职位", "role"}, {"e-mail", "email"},
};

// Clause breaks inside a sentence.
constexpr std::string_view kClauseMarks[] = {",", ";", "，", "；", "：", "、", "(", "（", "—"};
constexpr std::string_view kEnglishClauseWords[] = {"and",      "but",   "because",
                                                    "although", "while", "whereas"};
constexpr std::string_view kChineseClauseWords[] = {"但是", "因为", "所以", "而且",
                                                    "不过", "并且", "然后"};

bool IsSpace(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
bool IsWordByte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '\'';
}
char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

std::string LowerAscii(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), Lower);
  return out;
}

using mnemo::internal::Trim;  // ASCII whitespace, as IsSpace

bool Contains(std::span<const std::string_view> list, std::string_view word) {
  return std::find(list.begin(), list.end(), word) != list.end();
}

// Whether `lower` has `phrase` at `pos` bounded by non-word bytes.
bool WordAt(std::string_view lower, size_t pos, std::string_view phrase) {
  if (lower.substr(pos, phrase.size()) != phrase) return false;
  const size_t end = pos + phrase.size();
  return (pos == 0 || !IsWordByte(lower[pos - 1])) &&
         (end == lower.size() || !IsWordByte(lower[end]));
}

bool ContainsWord(std::string_view lower, std::string_view phrase) {
  for (size_t pos = lower.find(phrase); pos != std::string_view::npos;
       pos = lower.find(phrase, pos + 1)) {
    if (WordAt(lower, pos, phrase)) return true;
  }
  return false;
}

bool HasCjk(std::string_view s) {
  for (size_t pos = 0; pos < s.size();) {
    if (static_cast<unsigned char>(s[pos]) < 0x80) {
      ++pos;
      continue;
    }
    int32_t cp = -1;
    pos += static_cast<size_t>(text::DecodeUtf8(s, pos, &cp));
    if ((cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF)) return true;
  }
  return false;
}

std::vector<std::string_view> Words(std::string_view s) {
  std::vector<std::string_view> words;
  size_t pos = 0;
  while (pos < s.size()) {
    while (pos < s.size() && s[pos] == ' ') ++pos;
    const size_t start = pos;
    while (pos < s.size() && s[pos] != ' ') ++pos;
    if (pos > start) words.push_back(s.substr(start, pos - start));
  }
  return words;
}

// Removes leading phrases of `list` (whole words when English) while any
// matches; `s` and `lower` are cut alike.
void StripLeading(std::string_view& s, std::string_view& lower,
                  std::span<const std::string_view> list, bool words) {
  for (bool again = true; again;) {
    again = false;
    for (std::string_view p : list) {
      if (lower.substr(0, p.size()) != p) continue;
      if (words && p.size() < lower.size() && IsWordByte(lower[p.size()])) continue;
      s = s.substr(p.size());
      lower = lower.substr(p.size());
      while (!s.empty() && (IsSpace(s.front()) || s.front() == ',')) {
        s.remove_prefix(1);
        lower.remove_prefix(1);
      }
      again = !s.empty();
      break;
    }
  }
}

void StripTrailing(std::string_view& s, std::string_view& lower,
                   std::span<const std::string_view> list, bool words) {
  for (bool again = true; again;) {
    again = false;
    for (std::string_view p : list) {
      if (lower.size() <= p.size() || !lower.ends_with(p)) continue;
      const size_t start = lower.size() - p.size();
      if (words && lower[start - 1] != ' ') continue;
      s = Trim(s.substr(0, start));
      lower = Trim(lower.substr(0, start));
      again = !s.empty();
      break;
    }
  }
}

// Cuts trailing terminators and closing quotes or brackets.
std::string_view StripClosing(std::string_view s) {
  static constexpr std::string_view kClosers[] = {".",  "!",  "?",  "\"", "'", ")", "]",
                                                  "…",  "。", "！", "？", "”", "’", "」",
                                                  "』", "）", "》", "~",  "～"};
  for (bool again = true; again;) {
    again = false;
    s = Trim(s);
    for (std::string_view c : kClosers) {
      if (s.ends_with(c)) {
        s.remove_suffix(c.size());
        again = true;
      }
    }
  }
  return s;
}

// The English subject of a third-person fact, or "" when it is none.
std::string EnglishSubject(std::string_view subject) {
  std::string lower = LowerAscii(subject);
  std::string_view s = subject;
  std::string_view l = lower;
  StripLeading(s, l, kArticles, true);
  const std::vector<std::string_view> words = Words(l);
  if (words.empty() || words.size() > 4) return "";
  for (std::string_view w : words) {
    if (Contains(kEnglishBlockedWords, w) || w.ends_with("n't")) return "";
    for (const Rule& r : kEnglishRules) {
      if (w == r.phrase) return "";
    }
  }
  if (std::none_of(s.begin(), s.end(),
                   [](char c) { return IsWordByte(c) || static_cast<unsigned char>(c) >= 0x80; }))
    return "";
  return std::string(s);
}

// The English object after a verb phrase, or "" when it is none.
std::string EnglishObject(std::string_view object, bool is_rule) {
  object = StripClosing(object);
  std::string lower = LowerAscii(object);
  std::string_view o = object;
  std::string_view l = lower;
  // "like to swim", "is the capital": what follows is the object.
  static constexpr std::string_view kLeading[] = {"to", "the", "a", "an"};
  StripLeading(o, l, kLeading, true);
  const std::vector<std::string_view> words = Words(l);
  if (words.empty()) return "";
  if (Contains(kEnglishBadObjectStarts, words[0]) || words[0].ends_with("n't")) return "";
  if (is_rule && words[0].size() > 4 && words[0].ends_with("ing")) return "";
  // Ends before the first end word after the first word.
  size_t end = l.size();
  for (size_t pos = l.find(' '); pos != std::string_view::npos; pos = l.find(' ', pos + 1)) {
    const std::string_view rest = l.substr(pos + 1);
    const size_t next = rest.find(' ');
    if (Contains(kEnglishObjectEnds, rest.substr(0, next))) {
      end = pos;
      break;
    }
  }
  o = StripClosing(o.substr(0, end));
  l = StripClosing(l.substr(0, end));
  const std::vector<std::string_view> kept = Words(l);
  if (kept.empty() || kept.size() > 6) return "";
  if (kept.size() == 1 && Contains(kEnglishEmptyObjects, kept[0])) return "";
  return std::string(o);
}

// The Chinese object after a verb phrase, or "" when it is none.
std::string ChineseObject(std::string_view object) {
  object = StripClosing(object);
  if (object.ends_with("吗")) return "";  // a question
  std::string_view l = object;
  static constexpr std::string_view kLeading[] = {"了"};
  StripLeading(object, l, kLeading, false);
  StripLeading(object, l, kChineseMeasures, false);
  object = Trim(object);
  if (object.empty()) return "";
  if (static_cast<unsigned char>(object.front()) < 0x80) {
    // A Latin name inside Chinese: "我用 Python 写代码".
    size_t end = 0;
    while (end < object.size() && static_cast<unsigned char>(object[end]) < 0x80) ++end;
    object = StripClosing(object.substr(0, end));
    return object.empty() ? "" : EnglishObject(object, false);
  }
  for (std::string_view w : kChineseObjectEnds) {
    if (size_t at = object.find(w); at != std::string_view::npos && at > 0) {
      object = object.substr(0, at);
    }
  }
  l = object;
  StripTrailing(object, l, kChineseTrailingParticles, false);
  object = StripClosing(object);
  if (object.empty() || text::CountCodePoints(object) > 20) return "";
  for (std::string_view bad : {"不", "没"}) {
    if (object.starts_with(bad)) return "";
  }
  if (Contains(kChineseBlocked, object)) return "";
  return std::string(object);
}

// The predicate of `my <noun> is` / `我的<noun>是`.
std::string NounPredicate(std::string_view noun) {
  const std::string lower = LowerAscii(noun);
  for (const Alias& a : kNounAliases) {
    if (lower == a.noun) return std::string(a.predicate);
  }
  return storage::internal::NormalizePredicate(noun);
}

struct Candidate {
  size_t pos = 0;
  const Rule* rule = nullptr;
};

bool FirstPersonAllowed(Speaker speaker) {
  return speaker == Speaker::kUnknown || speaker == Speaker::kUser;
}

std::optional<ClauseTriple> TryEnglish(std::string_view clause, std::string_view lower,
                                       const Candidate& c, Speaker speaker) {
  const Rule& rule = *c.rule;
  std::string_view subject = Trim(clause.substr(0, c.pos));
  std::string_view subject_lower = Trim(lower.substr(0, c.pos));
  StripTrailing(subject, subject_lower, kEnglishAdverbs, true);
  const bool is_rule = rule.predicate == kIs;
  std::string object = EnglishObject(clause.substr(c.pos + rule.phrase.size()), is_rule);
  if (object.empty()) return std::nullopt;
  if (rule.who == Who::kAddressee) {
    static constexpr std::string_view kPolite[] = {
        "",         "please", "just", "you can", "you may", "please just", "you can just",
        "everyone", "people"};
    if (!Contains(kPolite, subject_lower) || !FirstPersonAllowed(speaker)) return std::nullopt;
    return ClauseTriple{std::string(kUserSubject), std::string(rule.predicate), std::move(object)};
  }
  if (subject_lower == "i") {
    if (rule.who == Who::kThird || !FirstPersonAllowed(speaker)) return std::nullopt;
    return ClauseTriple{std::string(kUserSubject), std::string(rule.predicate), std::move(object)};
  }
  if (rule.who == Who::kFirst) return std::nullopt;
  if (subject_lower.starts_with("my ")) {
    // "my timezone is CET": a property of the user.
    if (!is_rule || !FirstPersonAllowed(speaker)) return std::nullopt;
    const std::string_view noun = Trim(subject.substr(3));
    const std::vector<std::string_view> words = Words(noun);
    if (words.empty() || words.size() > 3) return std::nullopt;
    for (std::string_view w : Words(Trim(subject_lower.substr(3)))) {
      if (Contains(kEnglishBlockedWords, w)) return std::nullopt;
    }
    return ClauseTriple{std::string(kUserSubject), NounPredicate(noun), std::move(object)};
  }
  std::string s = EnglishSubject(subject);
  if (s.empty()) return std::nullopt;
  return ClauseTriple{std::move(s), std::string(rule.predicate), std::move(object)};
}

bool EndsWithAny(std::string_view s, std::span<const std::string_view> list) {
  return std::any_of(list.begin(), list.end(), [&](std::string_view w) { return s.ends_with(w); });
}

std::optional<ClauseTriple> TryChinese(std::string_view clause, const Candidate& c,
                                       Speaker speaker) {
  const Rule& rule = *c.rule;
  std::string_view subject = Trim(clause.substr(0, c.pos));
  std::string_view rest = clause.substr(c.pos + rule.phrase.size());
  if (rule.phrase == "是" && EndsWithAny(subject, kNotIsBefore)) return std::nullopt;
  if (rule.phrase == "用" &&
      (EndsWithAny(subject, kNotUseBefore) ||
       std::any_of(std::begin(kNotUseAfter), std::end(kNotUseAfter),
                   [&](std::string_view w) { return rest.starts_with(w); }))) {
    return std::nullopt;
  }
  if (!rule.closing.empty()) {
    const size_t end = rest.find(rule.closing);
    if (end == std::string_view::npos || end == 0) return std::nullopt;
    rest = rest.substr(0, end);
  }
  std::string_view l = subject;
  StripTrailing(subject, l, kChineseAdverbs, false);
  std::string object = ChineseObject(rest);
  if (object.empty()) return std::nullopt;
  if (subject == "我") {
    if (!FirstPersonAllowed(speaker)) return std::nullopt;
    return ClauseTriple{std::string(kUserSubject), std::string(rule.predicate), std::move(object)};
  }
  if (subject.starts_with("我的")) {
    // 我的<noun>是 X: a property; 我的<noun>叫 X: its name ("我的猫叫咪咪").
    const std::string_view noun = Trim(subject.substr(std::string_view("我的").size()));
    const bool naming = rule.predicate == "name";
    if ((rule.predicate != kIs && !naming) || !FirstPersonAllowed(speaker) || noun.empty() ||
        text::CountCodePoints(noun) > 6) {
      return std::nullopt;
    }
    for (std::string_view bad : kChineseBlocked) {
      if (noun.find(bad) != std::string_view::npos) return std::nullopt;
    }
    std::string predicate = naming ? std::string(noun) + "'s_name" : NounPredicate(noun);
    return ClauseTriple{std::string(kUserSubject), std::move(predicate), std::move(object)};
  }
  if (rule.who == Who::kFirst) return std::nullopt;
  if (subject.empty() || text::CountCodePoints(subject) > 12) return std::nullopt;
  if (!HasCjk(subject)) {
    std::string s = EnglishSubject(subject);
    if (s.empty()) return std::nullopt;
    return ClauseTriple{std::move(s), std::string(rule.predicate), std::move(object)};
  }
  for (std::string_view bad : kChineseBlocked) {
    if (subject.find(bad) != std::string_view::npos) return std::nullopt;
  }
  return ClauseTriple{std::string(subject), std::string(rule.predicate), std::move(object)};
}

// Every place of a rule's phrase in the clause, earliest first, the longer
// phrase first at one place.
std::vector<Candidate> Candidates(std::string_view lower, std::span<const Rule> rules,
                                  bool english) {
  std::vector<Candidate> out;
  for (const Rule& r : rules) {
    for (size_t pos = lower.find(r.phrase); pos != std::string_view::npos;
         pos = lower.find(r.phrase, pos + 1)) {
      if (pos == 0) continue;  // no subject
      if (english && (lower[pos - 1] != ' ' || !WordAt(lower, pos, r.phrase))) continue;
      out.push_back({.pos = pos, .rule = &r});
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const Candidate& a, const Candidate& b) {
    if (a.pos != b.pos) return a.pos < b.pos;
    return a.rule->phrase.size() > b.rule->phrase.size();
  });
  return out;
}

}  // namespace

std::string NormalizeSentence(std::string_view sentence) {
  std::string out;
  out.reserve(sentence.size());
  bool pending_space = false;
  for (size_t pos = 0; pos < sentence.size();) {
    const char c = sentence[pos];
    if (IsSpace(c)) {
      pending_space = !out.empty();
      ++pos;
      continue;
    }
    if (pending_space) out += ' ';
    pending_space = false;
    int32_t cp = static_cast<unsigned char>(c);
    size_t len = 1;
    if (cp >= 0x80) len = static_cast<size_t>(text::DecodeUtf8(sentence, pos, &cp));
    if (cp == 0x2019 || cp == 0x2018 || cp == 0x02BC) {
      out += '\'';
    } else {
      out.append(sentence.substr(pos, len));
    }
    pos += len;
  }
  // "I'm" -> "I am", "I've" -> "I have", keeping the case of the I.
  std::string expanded;
  expanded.reserve(out.size() + 8);
  const std::string lower = LowerAscii(out);
  for (size_t pos = 0; pos < out.size();) {
    if (WordAt(lower, pos, "i'm")) {
      expanded += out[pos];
      expanded += " am";
      pos += 3;
    } else if (WordAt(lower, pos, "i've")) {
      expanded += out[pos];
      expanded += " have";
      pos += 4;
    } else {
      expanded += out[pos++];
    }
  }
  return expanded;
}

bool IsQuestion(std::string_view sentence) {
  std::string_view s = Trim(sentence);
  static constexpr std::string_view kClosers[] = {"\"", "'", ")", "]", "”", "’", "」", "』", "）"};
  for (bool again = true; again;) {
    again = false;
    for (std::string_view c : kClosers) {
      if (s.ends_with(c)) {
        s = Trim(s.substr(0, s.size() - c.size()));
        again = true;
      }
    }
  }
  return s.ends_with("?") || s.ends_with("？");
}

bool IsHedged(std::string_view sentence) {
  const std::string lower = LowerAscii(sentence);
  for (std::string_view h : kHedges) {
    if (static_cast<unsigned char>(h.front()) >= 0x80 ? lower.find(h) != std::string::npos
                                                      : ContainsWord(lower, h)) {
      return true;
    }
  }
  return false;
}

std::vector<std::string> SplitClauses(std::string_view sentence) {
  const std::string lower = LowerAscii(sentence);
  std::vector<std::pair<size_t, size_t>> breaks;  // [from, to) of each break
  for (std::string_view m : kClauseMarks) {
    for (size_t pos = lower.find(m); pos != std::string::npos; pos = lower.find(m, pos + 1)) {
      // "1,000" and "10:30" stay whole.
      const bool digits = m == "," && pos > 0 && pos + 1 < lower.size() &&
                          std::isdigit(static_cast<unsigned char>(lower[pos - 1])) != 0 &&
                          std::isdigit(static_cast<unsigned char>(lower[pos + 1])) != 0;
      if (!digits) breaks.emplace_back(pos, pos + m.size());
    }
  }
  // Conjunctions start the next clause (and are stripped there as fillers).
  for (std::string_view w : kEnglishClauseWords) {
    for (size_t pos = lower.find(w); pos != std::string::npos; pos = lower.find(w, pos + 1)) {
      if (pos > 0 && lower[pos - 1] == ' ' && WordAt(lower, pos, w)) breaks.emplace_back(pos, pos);
    }
  }
  for (std::string_view w : kChineseClauseWords) {
    for (size_t pos = lower.find(w); pos != std::string::npos; pos = lower.find(w, pos + 1)) {
      if (pos > 0) breaks.emplace_back(pos, pos);
    }
  }
  std::sort(breaks.begin(), breaks.end());
  std::vector<std::string> out;
  size_t start = 0;
  for (const auto& [from, to] : breaks) {
    if (from < start) continue;
    if (std::string_view piece = Trim(sentence.substr(start, from - start)); !piece.empty()) {
      out.emplace_back(piece);
    }
    start = to;
  }
  if (std::string_view piece = Trim(sentence.substr(start)); !piece.empty())
    out.emplace_back(piece);
  return out;
}

std::optional<ClauseTriple> ExtractClause(std::string_view clause, Speaker speaker) {
  // A fact is a short clause; longer ones are skipped unread, which keeps
  // the candidate scan (quadratic in the clause) cheap on hostile input.
  if (clause.size() > kMaxClauseBytes) return std::nullopt;
  const std::string lowered = LowerAscii(clause);
  std::string_view c = Trim(clause);
  std::string_view l = Trim(lowered);
  StripLeading(c, l, kEnglishFillers, true);
  StripLeading(c, l, kChineseFillers, false);
  StripLeading(c, l, kEnglishFillers, true);
  if (c.empty()) return std::nullopt;
  const bool cjk = HasCjk(c);
  if (cjk) {
    for (const Candidate& cand : Candidates(l, kChineseRules, false)) {
      if (auto t = TryChinese(c, cand, speaker)) return t;
    }
  }
  for (const Candidate& cand : Candidates(l, kEnglishRules, true)) {
    if (auto t = TryEnglish(c, l, cand, speaker)) return t;
  }
  return std::nullopt;
}

}  // namespace mnemo::context::internal
