#include "archivist/profile/clause_reader.h"

#include <algorithm>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "text/utf8.h"

// Word lists below are grammar (pronouns, auxiliaries, prepositions, time
// words, fillers); never values.

namespace mnemo::archivist::clauses {
bool In(std::string_view w, Words list) {
  return std::find(list.begin(), list.end(), w) != list.end();
}

bool In(std::string_view w, std::span<const std::string_view> list) {
  return std::find(list.begin(), list.end(), w) != list.end();
}

bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
namespace {
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAsciiByte(char c) { return static_cast<unsigned char>(c) < 0x80; }
}  // namespace

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (IsUpper(c)) c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// ’ ‘ ʼ -> ', every run of whitespace -> ' ', trimmed; case kept.
std::string Normalise(std::string_view text) {
  std::string out;
  bool space = false;
  for (size_t pos = 0; pos < text.size();) {
    const text::CodePoint c = text::DecodeAt(text, pos);
    if (text::IsWhiteSpace(c.cp)) {
      space = !out.empty();
    } else {
      if (space) out += ' ';
      space = false;
      if (c.cp == 0x2019 || c.cp == 0x2018 || c.cp == 0x02BC) {
        out += '\'';
      } else {
        out.append(text.substr(pos, c.len));
      }
    }
    pos += c.len;
  }
  return out;
}

// ---------------------------------------------------------------- clauses

constexpr std::string_view kEdgePunct = ".!?\"'()[]{}";

namespace {
void Tokenise(Clause* c) {
  size_t pos = 0;
  const std::string& t = c->text;
  while (pos < t.size()) {
    while (pos < t.size() && t[pos] == ' ') ++pos;
    size_t end = pos;
    while (end < t.size() && t[end] != ' ') ++end;
    std::string_view w(t.data() + pos, end - pos);
    while (!w.empty() && kEdgePunct.find(w.front()) != std::string_view::npos) w.remove_prefix(1);
    while (!w.empty() && kEdgePunct.find(w.back()) != std::string_view::npos) w.remove_suffix(1);
    // Adverbs that may sit inside a cue ("I work remotely for …", "I'm
    // also vegetarian") are left out of the words.
    const std::string low = Lower(w);
    if (!w.empty() && !In(low, {"just", "currently", "still", "remotely", "actually", "really",
                                "officially", "finally", "recently", "also"})) {
      c->words.emplace_back(w);
      c->lows.push_back(Lower(w));
    }
    pos = end;
  }
}
}  // namespace

namespace {
// Words that open a clause of their own after "and", "but", "so".
bool OpensSubject(std::string_view low) {
  return In(low, {"i", "i'm", "im", "i've", "i'd", "i'll", "we", "we're", "we've", "my", "he",
                  "she", "they", "he's", "she's", "they're"});
}
}  // namespace

std::vector<Clause> SplitClauses(std::string_view sentence) {
  std::vector<std::string> pieces;
  std::string current;
  auto flush = [&] {
    std::string_view v = current;
    while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
    while (!v.empty() && v.back() == ' ') v.remove_suffix(1);
    if (!v.empty()) pieces.emplace_back(v);
    current.clear();
  };
  for (size_t pos = 0; pos < sentence.size();) {
    const std::string_view rest = sentence.substr(pos);
    bool split = false;
    size_t skip = 0;
    for (std::string_view mark : {"，", "；", "：", "。", "！"}) {
      if (rest.starts_with(mark)) {
        split = true;
        skip = mark.size();
      }
    }
    if (!split && (rest[0] == ',' || rest[0] == ';' ||
                   (rest[0] == ':' && (rest.size() == 1 || rest[1] == ' ')))) {
      split = true;
      skip = 1;
    }
    if (!split && rest[0] == ' ') {
      // " and I …", " but we …", " so my …": a new subject, a new clause.
      for (std::string_view conj : {" and ", " but ", " so "}) {
        if (Lower(rest.substr(0, conj.size())) != conj) continue;
        std::string_view next = rest.substr(conj.size());
        next = next.substr(0, std::min(next.find(' '), next.size()));
        while (!next.empty() && !IsAsciiByte(next.back())) next.remove_suffix(1);
        while (!next.empty() && kEdgePunct.find(next.back()) != std::string_view::npos) {
          next.remove_suffix(1);
        }
        if (OpensSubject(Lower(next))) {
          split = true;
          skip = conj.size() - 1;  // keep "and" etc. at the start as a filler
        }
      }
    }
    if (split) {
      flush();
      pos += skip;
      continue;
    }
    current += sentence[pos];
    ++pos;
  }
  flush();
  std::vector<Clause> clauses;
  for (std::string& p : pieces) {
    Clause c;
    c.question = p.ends_with("?") || p.ends_with("？") || p.ends_with("吗") ||
                 p.ends_with("吗？") || p.ends_with("呢");
    c.text = std::move(p);
    Tokenise(&c);
    if (c.words.empty()) continue;
    c.first = clauses.empty();
    clauses.push_back(std::move(c));
  }
  return clauses;
}

// Whether `phrase` (lower-case words separated by single spaces) occurs at
// token `at` of `c`; returns the token after it.
std::optional<size_t> MatchAt(const Clause& c, size_t at, std::string_view phrase) {
  size_t i = at;
  while (!phrase.empty()) {
    const size_t sp = phrase.find(' ');
    const std::string_view word = phrase.substr(0, sp);
    if (i >= c.lows.size() || c.lows[i] != word) return std::nullopt;
    ++i;
    phrase = sp == std::string_view::npos ? std::string_view() : phrase.substr(sp + 1);
  }
  return i;
}

std::optional<Hit> Find(const Clause& c, std::string_view phrase, size_t from) {
  for (size_t i = from; i < c.lows.size(); ++i) {
    if (std::optional<size_t> after = MatchAt(c, i, phrase)) return Hit{i, *after};
  }
  return std::nullopt;
}

bool Has(const Clause& c, Words phrases) {
  for (std::string_view p : phrases) {
    if (Find(c, p)) return true;
  }
  return false;
}

bool HasText(const Clause& c, Words pieces) {
  for (std::string_view p : pieces) {
    if (c.text.find(p) != std::string::npos) return true;
  }
  return false;
}

// ------------------------------------------------------- fillers, subject

// Topic markers and fillers a clause may open with.
constexpr std::string_view kFillers[] = {"actually",
                                         "also",
                                         "and",
                                         "so",
                                         "but",
                                         "well",
                                         "oh",
                                         "ok",
                                         "okay",
                                         "hi",
                                         "hello",
                                         "hey",
                                         "yes",
                                         "yeah",
                                         "btw",
                                         "anyway",
                                         "now",
                                         "nowadays",
                                         "currently",
                                         "today",
                                         "haha",
                                         "lol",
                                         "plus",
                                         "update",
                                         "news",
                                         "then",
                                         "honestly",
                                         "basically",
                                         "by the way",
                                         "fun fact",
                                         "these days",
                                         "right now",
                                         "just so you know",
                                         "for the record",
                                         "fyi",
                                         "remember that",
                                         "note that",
                                         "i think",
                                         "i guess",
                                         "i believe"};

constexpr std::string_view kChineseFillers[] = {"其实",       "另外",     "还有", "对了",
                                                "顺便说一下", "换个话题", "现在", "目前",
                                                "而且",       "最近",     "那个"};

// Leading time phrases that may stand before the subject ("as of May
// I work at …", "since March we live in …").
constexpr std::string_view kTimeLeads[] = {"as of", "since",    "last", "this",
                                           "from",  "starting", "in"};

size_t SkipFillers(const Clause& c) {
  size_t i = 0;
  for (bool moved = true; moved && i < c.lows.size();) {
    moved = false;
    for (std::string_view f : kFillers) {
      if (std::optional<size_t> after = MatchAt(c, i, f)) {
        i = *after;
        moved = true;
        break;
      }
    }
  }
  for (std::string_view lead : kTimeLeads) {
    if (!MatchAt(c, i, lead)) continue;
    for (size_t j = i + 1; j < c.lows.size() && j < i + 6; ++j) {
      if (OpensSubject(c.lows[j])) return j;
    }
  }
  return i;
}

// What may follow "my" in a clause that is about the user ("my name is").
constexpr std::string_view kOwnNouns[] = {
    "name",      "name's",   "birthday", "timezone", "time",  "job",      "role",   "diet",
    "favourite", "favorite", "first",    "native",   "email", "pronouns", "mother", "home"};

namespace {
// Words that open a clause whose subject was left out ("works at …",
// "living in …", "so paleo"): the previous clause's subject holds.
bool IsPredicateStart(std::string_view low) {
  return In(low, {"work",      "works",   "working", "live",   "lives",      "living",
                  "based",     "moved",   "moving",  "born",   "originally", "allergic",
                  "fluent",    "speak",   "speaks",  "joined", "went",       "become",
                  "became",    "now",     "still",   "also",   "mostly",     "currently",
                  "reporting", "married", "have",    "has",    "eat",        "eats"});
}
}  // namespace

// The children of a kin word: "my brother", 我哥哥.
constexpr std::string_view kChineseOthers[] = {
    "哥哥",   "姐姐",   "弟弟", "妹妹", "妈妈", "爸爸", "父母", "朋友", "同事",
    "老婆",   "老公",   "妻子", "丈夫", "儿子", "女儿", "孩子", "老板", "经理",
    "男朋友", "女朋友", "家人", "室友", "邻居", "们的", "的"};

Subject SubjectOf(const Clause& c, size_t at, Subject previous) {
  if (at >= c.lows.size()) return previous == Subject::kNone ? Subject::kUser : previous;
  const std::string& w = c.lows[at];
  if (!IsAsciiByte(w[0])) {
    std::string_view t = c.text;
    for (std::string_view f : kChineseFillers) {
      if (t.starts_with(f)) t.remove_prefix(f.size());
    }
    if (t.starts_with("我们")) return Subject::kUser;
    if (t.starts_with("我")) {
      const std::string_view after = t.substr(std::string_view("我").size());
      if (after.starts_with("的名字") || after.starts_with("的生日") ||
          after.starts_with("的时区")) {
        return Subject::kUser;
      }
      for (std::string_view other : kChineseOthers) {
        if (after.starts_with(other)) return Subject::kOther;
      }
      return Subject::kUser;
    }
    for (std::string_view lead : {"在", "住", "搬", "是", "叫", "来自", "对", "会", "也"}) {
      if (t.starts_with(lead)) return previous == Subject::kNone ? Subject::kUser : previous;
    }
    return Subject::kOther;
  }
  if (In(w, {"i", "i'm", "im", "i've", "i'd", "i'll", "we", "we're", "we've", "we'd", "we'll", "me",
             "call"})) {
    return Subject::kUser;
  }
  if (w == "my" || w == "our") {
    if (at + 1 < c.lows.size() && In(c.lows[at + 1], kOwnNouns)) return Subject::kUser;
    return Subject::kOther;
  }
  if (IsPredicateStart(w)) return previous == Subject::kNone ? Subject::kUser : previous;
  if (In(w, kOwnNouns) && !c.first) return previous;
  // A later clause that opens in lower case with no subject of its own
  // ("…, strictly keto now"): the previous clause's subject.
  if (!c.first && !IsUpper(c.words[at][0]) &&
      !In(w, {"the",  "a",    "an",    "this", "that",   "these",   "those",  "there", "it",
              "it's", "he",   "she",   "they", "you",    "your",    "his",    "her",   "their",
              "its",  "what", "which", "who",  "that's", "there's", "thanks", "thank"})) {
    return previous == Subject::kNone ? Subject::kUser : previous;
  }
  return Subject::kOther;
}

// ------------------------------------------------------------- modality

bool IsQuestion(const Clause& c, size_t at) {
  if (c.question) return true;
  if (at >= c.lows.size()) return false;
  return In(c.lows[at],
            {"do",    "does",  "did",  "can",  "could", "would", "should", "will",  "is",
             "are",   "was",   "were", "what", "where", "who",   "when",   "why",   "how",
             "which", "shall", "may",  "have", "has",   "am",    "don't",  "isn't", "aren't"});
}

bool IsRequest(const Clause& c, size_t at) {
  if (Has(c, {"call me"})) return false;  // "Please call me Sam" names the user
  if (Has(c, {"please", "can you", "could you", "would you", "will you", "remind me",
              "don't forget", "let me know"})) {
    return true;
  }
  if (HasText(c, {"请", "帮我", "提醒我", "麻烦"})) return true;
  return at < c.lows.size() &&
         In(c.lows[at],
            {"remind", "tell", "show", "help", "let", "give", "send", "find", "book", "make",
             "check", "write", "set", "add", "remember", "note", "look", "search", "get"});
}

bool IsHypothetical(const Clause& c) {
  if (Has(c, {"if",          "i'd",          "we'd",     "would",       "could",
              "might",       "wish",         "imagine",  "suppose",     "someday",
              "one day",     "going to",     "gonna",    "will",        "i'll",
              "we'll",       "plan to",      "planning", "thinking of", "thinking about",
              "hope to",     "want to",      "wants to", "would like",  "dream of",
              "considering", "maybe someday"}) &&
      !Has(c, {"i'd rather", "i'd prefer", "we'd rather"})) {
    return true;
  }
  return HasText(c, {"如果", "要是", "假如", "将来", "打算", "想要", "计划", "可能会"});
}

// "… years ago" alone is no past: "I joined Globex two years ago" still
// holds. "I was …" is, unless it says what happened to the user then and
// still holds ("I was born on …", "I was laid off").
bool IsPast(const Clause& c) {
  if (Has(c,
          {"used to", "back in", "when i was", "previously", "formerly", "in the past", "as a kid",
           "as a child", "in college", "in high school", "at the time", "back then", "once upon",
           "before that", "at university", "in university", "when we were", "as a teenager"}) ||
      HasText(c, {"以前", "曾经", "小时候", "过去", "当年"})) {
    return true;
  }
  return Has(c, {"i was", "we were"}) && !Has(c, {"born", "laid off", "let go"});
}

bool IsNegated(const Clause& c) {
  for (const std::string& w : c.lows) {
    if (In(w, {"not", "never", "no", "nobody", "nothing"}) || w.ends_with("n't")) return true;
  }
  return HasText(c, {"不", "没", "别"});
}

bool EndsSomething(const Clause& c) {
  return Has(c, {"anymore", "any more", "no longer"}) || HasText(c, {"不再", "已经不"});
}

// --------------------------------------------------------------- values

// Words at which a value stops (prepositions, conjunctions, time words).
bool IsBoundary(std::string_view low) {
  return In(low,
            {"and",        "but",       "or",       "so",    "because",   "since",    "as",
             "with",       "near",      "at",       "in",    "on",        "for",      "from",
             "to",         "by",        "when",     "while", "who",       "which",    "that",
             "where",      "if",        "until",    "after", "before",    "last",     "this",
             "next",       "these",     "now",      "today", "yesterday", "tomorrow", "anymore",
             "originally", "too",       "already",  "again", "every",     "ago",      "then",
             "though",     "although",  "haha",     "lol",   "please",    "right",    "here",
             "there",      "currently", "nowadays", "is",    "was",       "are",      "thanks",
             "ever",       "hehe",      "still",    "all",   "remotely",  "mostly"});
}

bool IsArticle(std::string_view low) { return In(low, {"a", "an", "the"}); }

bool IsProperWord(std::string_view w) {
  if (w.empty()) return false;
  if (w == "I" || w.starts_with("I'")) return false;
  return IsUpper(w[0]) || IsDigit(w[0]) || !IsAsciiByte(w[0]);
}

std::string Join(const Clause& c, size_t begin, size_t end) {
  std::string out;
  for (size_t i = begin; i < end; ++i) {
    if (!out.empty()) out += ' ';
    out += c.words[i];
  }
  return out;
}

// A named thing at token `at`: capitalised words (joined by of/de/van …),
// or, when `lower_ok` (a sentence written without capitals), the words up
// to a boundary. "the" before it is dropped; "a", "an" name nothing.
Span ProperSpan(const Clause& c, size_t at, bool lower_ok, size_t max_words) {
  if (at + 1 < c.lows.size() && c.lows[at] == "the" && IsProperWord(c.words[at + 1])) ++at;
  size_t i = at;
  while (i < c.words.size() && i - at < max_words) {
    const std::string& w = c.words[i];
    const bool proper = IsProperWord(w) && !(lower_ok && IsBoundary(c.lows[i]));
    const bool connector = i > at &&
                           In(c.lows[i], {"of", "de", "da", "do", "del", "della", "van", "von",
                                          "der", "la", "le", "du", "&"}) &&
                           i + 1 < c.words.size() && IsProperWord(c.words[i + 1]);
    const bool plain = lower_ok && !IsBoundary(c.lows[i]) && !IsArticle(c.lows[i]);
    if (!proper && !connector && !plain) break;
    ++i;
  }
  return {Join(c, at, i), i};
}

// Names joined by "and", "&" ("Portuguese and English", "Ana and Leo").
Span ProperList(const Clause& c, size_t at, bool lower_ok) {
  Span first = ProperSpan(c, at, lower_ok, 3);
  if (first.value.empty()) return first;
  size_t end = first.end;
  while (end + 1 < c.words.size() && In(c.lows[end], {"and", "&", "or"})) {
    Span next = ProperSpan(c, end + 1, lower_ok, 3);
    if (next.value.empty()) break;
    end = next.end;
  }
  return {Join(c, at, end), end};
}

// Common words at token `at` up to a boundary (at most `max_words`),
// without a leading article; `lists` lets "and"/"or" join two items.
Span PhraseSpan(const Clause& c, size_t at, size_t max_words, bool lists) {
  while (at < c.lows.size() && (IsArticle(c.lows[at]) || c.lows[at] == "on")) ++at;
  size_t i = at;
  while (i < c.words.size() && i - at < max_words) {
    if (IsBoundary(c.lows[i]) &&
        !(lists && In(c.lows[i], {"and", "or"}) && i > at && i + 1 < c.words.size())) {
      break;
    }
    ++i;
  }
  return {Join(c, at, i), i};
}

// A Chinese value at byte `pos` of `text`: up to punctuation, a particle or
// a verb that closes it, at most 10 characters; "" for an indefinite one
// (一家医院).
std::string ChineseSpan(std::string_view text, size_t pos) {
  std::string_view rest = text.substr(pos);
  if (rest.starts_with("了")) rest.remove_prefix(std::string_view("了").size());
  for (std::string_view lead : {"一家", "一个", "一所", "一间", "一座", "某"}) {
    if (rest.starts_with(lead)) return "";
  }
  size_t end = 0;
  size_t chars = 0;
  while (end < rest.size() && chars < 10) {
    const std::string_view tail = rest.substr(end);
    bool stop = false;
    for (std::string_view s :
         {"，", "。", "！", "？",   "、",   "；",   "：",   ",",    ".",  "!",  "?",  " ", "的",
          "和", "跟", "与", "工作", "上班", "附近", "已经", "现在", "了", "吧", "呢", "啊"}) {
      if (tail.starts_with(s)) stop = true;
    }
    if (stop) break;
    const size_t len = text::DecodeAt(rest, end).len;
    if (len > 1) ++chars;  // "Asia/Shanghai" inside Chinese counts as written
    end += len;
  }
  return std::string(rest.substr(0, end));
}

}  // namespace mnemo::archivist::clauses
