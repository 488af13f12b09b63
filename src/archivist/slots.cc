#include "archivist/slots.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "text/utf8.h"

// Word lists below are grammar (pronouns, auxiliaries, prepositions, time
// words) and the slot table's cues; never values.

namespace mnemo::archivist {
namespace {

using Words = std::initializer_list<std::string_view>;

bool In(std::string_view w, Words list) {
  return std::find(list.begin(), list.end(), w) != list.end();
}

bool In(std::string_view w, std::span<const std::string_view> list) {
  return std::find(list.begin(), list.end(), w) != list.end();
}

bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAsciiByte(char c) { return static_cast<unsigned char>(c) < 0x80; }

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

struct Clause {
  std::string text;                // as written (normalised)
  std::vector<std::string> words;  // tokens without edge punctuation, as written
  std::vector<std::string> lows;   // the same, lower-cased
  bool question = false;           // ends with ? or ？ (or 吗)
  bool first = false;              // the sentence's first clause
};

constexpr std::string_view kEdgePunct = ".!?\"'()[]{}";

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

// Words that open a clause of their own after "and", "but", "so".
bool OpensSubject(std::string_view low) {
  return In(low, {"i", "i'm", "im", "i've", "i'd", "i'll", "we", "we're", "we've", "my", "he",
                  "she", "they", "he's", "she's", "they're"});
}

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

struct Hit {
  size_t begin = 0;
  size_t after = 0;
};

std::optional<Hit> Find(const Clause& c, std::string_view phrase, size_t from = 0) {
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

enum class Subject { kUser, kOther, kNone };

// What may follow "my" in a clause that is about the user ("my name is").
constexpr std::string_view kOwnNouns[] = {
    "name",      "name's",   "birthday", "timezone", "time",  "job",      "role",   "diet",
    "favourite", "favorite", "first",    "native",   "email", "pronouns", "mother", "home"};

// Words that open a clause whose subject was left out ("works at …",
// "living in …", "so paleo"): the previous clause's subject holds.
bool IsPredicateStart(std::string_view low) {
  return In(low, {"work",      "works",   "working", "live",   "lives",      "living",
                  "based",     "moved",   "moving",  "born",   "originally", "allergic",
                  "fluent",    "speak",   "speaks",  "joined", "went",       "become",
                  "became",    "now",     "still",   "also",   "mostly",     "currently",
                  "reporting", "married", "have",    "has",    "eat",        "eats"});
}

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
  return In(
      low,
      {"and",       "but",      "or",        "so",         "because", "since",   "as",     "with",
       "near",      "at",       "in",        "on",         "for",     "from",    "to",     "by",
       "when",      "while",    "who",       "which",      "that",    "where",   "if",     "until",
       "after",     "before",   "last",      "this",       "next",    "these",   "now",    "today",
       "yesterday", "tomorrow", "anymore",   "originally", "too",     "already", "again",  "every",
       "ago",       "then",     "though",    "although",   "haha",    "lol",     "please", "right",
       "here",      "there",    "currently", "nowadays",   "these",   "since",   "is",     "was",
       "are",       "and",      "thanks",    "ever",       "though",  "hehe",    "still",  "for",
       "all",       "remotely", "mostly"});
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

struct Span {
  std::string value;
  size_t end = 0;  // the token after it
};

// A named thing at token `at`: capitalised words (joined by of/de/van …),
// or, when `lower_ok` (a sentence written without capitals), the words up
// to a boundary. "the" before it is dropped; "a", "an" name nothing.
Span ProperSpan(const Clause& c, size_t at, bool lower_ok, size_t max_words = 5) {
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
Span PhraseSpan(const Clause& c, size_t at, size_t max_words, bool lists = false) {
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

// ---------------------------------------------------------- the tables

struct Cue {
  std::string_view phrase;  // lower-case words
  std::string_view slot;
  enum Kind { kProper, kProperList, kPhrase, kPhraseList } kind;
  bool possessive = false;  // the user's whoever the clause's subject is
};

constexpr Cue kCues[] = {
    // name
    {"my name is", kSlotName, Cue::kProper, true},
    {"my name's", kSlotName, Cue::kProper, true},
    {"call me", kSlotName, Cue::kProper, true},
    {"everyone calls me", kSlotName, Cue::kProper, true},
    {"people call me", kSlotName, Cue::kProper, true},
    {"friends call me", kSlotName, Cue::kProper, true},
    {"i go by", kSlotName, Cue::kProper},
    // location
    {"live in", kSlotLocation, Cue::kProper},
    {"living in", kSlotLocation, Cue::kProper},
    {"based in", kSlotLocation, Cue::kProper},
    {"moved to", kSlotLocation, Cue::kProper},
    {"relocated to", kSlotLocation, Cue::kProper},
    {"reside in", kSlotLocation, Cue::kProper},
    {"settled in", kSlotLocation, Cue::kProper},
    // origin
    {"i'm from", kSlotOrigin, Cue::kProper},
    {"i am from", kSlotOrigin, Cue::kProper},
    {"we're from", kSlotOrigin, Cue::kProper},
    {"originally from", kSlotOrigin, Cue::kProper},
    {"come from", kSlotOrigin, Cue::kProper},
    {"grew up in", kSlotOrigin, Cue::kProper},
    // employer
    {"work at", kSlotEmployer, Cue::kProper},
    {"work for", kSlotEmployer, Cue::kProper},
    {"working at", kSlotEmployer, Cue::kProper},
    {"working for", kSlotEmployer, Cue::kProper},
    {"joined", kSlotEmployer, Cue::kProper},
    {"employed by", kSlotEmployer, Cue::kProper},
    {"employed at", kSlotEmployer, Cue::kProper},
    {"started at", kSlotEmployer, Cue::kProper},
    {"job at", kSlotEmployer, Cue::kProper},
    {"job with", kSlotEmployer, Cue::kProper},
    // role
    {"i'm a", kSlotRole, Cue::kPhrase},
    {"i'm an", kSlotRole, Cue::kPhrase},
    {"i am a", kSlotRole, Cue::kPhrase},
    {"i am an", kSlotRole, Cue::kPhrase},
    {"work as", kSlotRole, Cue::kPhrase},
    {"working as", kSlotRole, Cue::kPhrase},
    {"my role is", kSlotRole, Cue::kPhrase, true},
    {"my job title is", kSlotRole, Cue::kPhrase, true},
    // manager
    {"report to", kSlotManager, Cue::kProper},
    {"reporting to", kSlotManager, Cue::kProper},
    // partner
    {"married to", kSlotPartner, Cue::kProper},
    // birthday
    {"my birthday is", kSlotBirthday, Cue::kPhrase, true},
    {"my birthday's", kSlotBirthday, Cue::kPhrase, true},
    {"born on", kSlotBirthday, Cue::kPhrase},
    // timezone
    {"my timezone is", kSlotTimezone, Cue::kPhrase, true},
    {"my time zone is", kSlotTimezone, Cue::kPhrase, true},
    {"my timezone's", kSlotTimezone, Cue::kPhrase, true},
    // language
    {"i speak", kSlotLanguage, Cue::kProperList},
    {"we speak", kSlotLanguage, Cue::kProperList},
    {"fluent in", kSlotLanguage, Cue::kProperList},
    {"my native language is", kSlotLanguage, Cue::kProperList, true},
    {"my first language is", kSlotLanguage, Cue::kProperList, true},
    {"my mother tongue is", kSlotLanguage, Cue::kProperList, true},
    // allergy
    {"allergic to", kSlotAllergy, Cue::kPhraseList},
    {"an allergy to", kSlotAllergy, Cue::kPhraseList},
};

// Chinese cues: the value follows the cue ("我叫王芳").
struct ChineseCue {
  std::string_view cue;
  std::string_view slot;
  bool possessive = false;
};
constexpr ChineseCue kChineseCues[] = {
    {"我叫", kSlotName},
    {"我的名字是", kSlotName, true},
    {"叫我", kSlotName, true},
    {"住在", kSlotLocation},
    {"搬到", kSlotLocation},
    {"定居在", kSlotLocation},
    {"来自", kSlotOrigin},
    {"我是一名", kSlotRole},
    {"担任", kSlotRole},
    {"我的经理是", kSlotManager, true},
    {"我的老板是", kSlotManager, true},
    {"我的上司是", kSlotManager, true},
    {"我的生日是", kSlotBirthday, true},
    {"我的时区是", kSlotTimezone, true},
    {"我会说", kSlotLanguage},
    {"我讲", kSlotLanguage},
    {"我老婆", kSlotPartner, true},
    {"我妻子", kSlotPartner, true},
    {"我丈夫", kSlotPartner, true},
    {"我老公", kSlotPartner, true},
    {"我的猫叫", kSlotPet, true},
    {"我的狗叫", kSlotPet, true},
};

// The user's people and animals: "my <word> <Name>", "<Name> is my <word>".
struct Relation {
  std::string_view word;
  std::string_view slot;
};
constexpr Relation kRelations[] = {
    {"manager", kSlotManager},   {"boss", kSlotManager},         {"supervisor", kSlotManager},
    {"team lead", kSlotManager}, {"line manager", kSlotManager}, {"partner", kSlotPartner},
    {"wife", kSlotPartner},      {"husband", kSlotPartner},      {"girlfriend", kSlotPartner},
    {"boyfriend", kSlotPartner}, {"fiancé", kSlotPartner},       {"fiancée", kSlotPartner},
    {"fiance", kSlotPartner},    {"fiancee", kSlotPartner},      {"spouse", kSlotPartner},
    {"son", kSlotChildren},      {"daughter", kSlotChildren},    {"kids", kSlotChildren},
    {"children", kSlotChildren}, {"sons", kSlotChildren},        {"daughters", kSlotChildren},
};

constexpr std::string_view kPetKinds[] = {
    "dog",      "cat",       "puppy",    "kitten",  "parrot", "hamster", "rabbit",   "bunny",
    "turtle",   "horse",     "pony",     "snake",   "lizard", "ferret",  "goldfish", "budgie",
    "tortoise", "retriever", "labrador", "terrier", "poodle", "beagle",  "spaniel",  "collie"};

constexpr std::string_view kDiets[] = {"vegetarian",  "vegan",        "pescatarian", "pescetarian",
                                       "flexitarian", "keto",         "paleo",       "gluten-free",
                                       "dairy-free",  "lactose-free", "halal",       "kosher",
                                       "plant-based", "carnivore"};
constexpr std::string_view kChineseDiets[] = {"素食", "吃素", "纯素", "清真"};

// Capitalised words that name a time, not a person ("Since Monday Ann is …").
constexpr std::string_view kTimeWords[] = {
    "monday",  "tuesday",   "wednesday", "thursday", "friday",   "saturday", "sunday",
    "january", "february",  "march",     "april",    "may",      "june",     "july",
    "august",  "september", "october",   "november", "december", "today",    "yesterday"};

constexpr std::string_view kNumbers[] = {"one", "two", "three", "four", "five", "six", "a",
                                         "an",  "2",   "3",     "4",    "5",    "1"};

// Role words that describe a state, not a job ("I'm a bit tired").
constexpr std::string_view kNotRoles[] = {
    "bit",   "little", "lot",      "big",   "huge",   "fan",    "total",   "bad",
    "good",  "great",  "real",     "quick", "fast",   "slow",   "morning", "night",
    "very",  "pretty", "cat",      "dog",   "people", "person", "fool",    "mess",
    "wreck", "sucker", "creature", "new",   "first",  "last",   "few"};

// ---------------------------------------------------------- extraction

// What one sentence may state at most (a hostile sentence repeating "my
// wife Ann" stays cheap).
constexpr size_t kMaxStatements = 32;

class Reader {
 public:
  Reader(std::vector<Clause> clauses, bool lower_ok, bool greeting)
      : clauses_(std::move(clauses)), lower_ok_(lower_ok), greeting_(greeting) {}

  SentenceSlots Read() {
    Subject previous = Subject::kNone;
    for (size_t k = 0; k < clauses_.size(); ++k) {
      if (consumed_[k]) continue;
      index_ = k;
      const Clause& c = clauses_[k];
      const size_t at = SkipFillers(c);
      const Subject subject = SubjectOf(c, at, previous);
      previous = subject;
      if (IsQuestion(c, at) || IsRequest(c, at) || IsHypothetical(c) || IsPast(c)) continue;
      const bool user = subject == Subject::kUser;
      if (IsNegated(c)) {
        if (EndsSomething(c)) {
          Ends(c, user);
        } else if (user) {
          Dislikes(c, at);
        }
        continue;
      }
      if (user) out_.own = true;
      Possessive(c);
      if (user) Own(c, at);
    }
    // A slot ended and set again in the same sentence keeps the new value.
    std::vector<SlotStatement> kept;
    for (size_t i = 0; i < out_.statements.size(); ++i) {
      const SlotStatement& s = out_.statements[i];
      bool dropped = false;
      for (size_t j = 0; j < out_.statements.size(); ++j) {
        const SlotStatement& o = out_.statements[j];
        if (s.key != o.key || s.preference != o.preference) continue;
        if (s.value.empty() && j > i && !o.value.empty()) dropped = true;
        if (j < i && o.value == s.value) dropped = true;  // said twice
      }
      if (!dropped) kept.push_back(s);
    }
    out_.statements = std::move(kept);
    return std::move(out_);
  }

 private:
  void Add(std::string_view key, std::string value, bool preference = false) {
    while (!value.empty() && (value.back() == '.' || value.back() == ' ')) value.pop_back();
    if (value.empty() || out_.statements.size() >= kMaxStatements) return;
    out_.statements.push_back(
        {.preference = preference, .key = std::string(key), .value = std::move(value)});
  }
  void End(std::string_view key) {
    if (out_.statements.size() >= kMaxStatements) return;
    out_.statements.push_back({.key = std::string(key), .value = ""});
  }

  // The next clause when it only continues a list ("I have two kids, Ana
  // and Leo"): its text, and it is read no further.
  std::string ListContinuation() {
    std::string out;
    for (size_t k = index_ + 1; k < clauses_.size(); ++k) {
      const Clause& n = clauses_[k];
      Span names = ProperList(n, 0, false);
      if (names.value.empty() || names.end != n.words.size()) break;
      consumed_[k] = true;
      if (!out.empty()) out += ", ";
      out += names.value;
    }
    return out;
  }

  // "my <relation> <Name>", "my <relation> is <Name>", "<Name> is my
  // <relation>", a pet's name, the user's Chinese relations, "my favourite
  // X is Y": the user's, whoever the subject is.
  void Possessive(const Clause& c) {
    for (size_t i = 0; i + 1 < c.lows.size(); ++i) {
      if (c.lows[i] != "my" && c.lows[i] != "our") continue;
      size_t j = i + 1;
      if (In(c.lows[j], {"new", "current"})) ++j;
      for (const Relation& r : kRelations) {
        std::optional<size_t> after = MatchAt(c, j, r.word);
        size_t v = 0;
        if (after) {
          v = *after;
        } else if (j < c.lows.size() && c.lows[j] == std::string(r.word) + "'s" &&
                   MatchAt(c, j + 1, "name is")) {
          v = j + 3;  // my partner's name is Robin
        } else {
          continue;
        }
        // my son is named Ezra, my wife is called Ana, my boss is Kim
        while (v < c.lows.size() && In(c.lows[v], {"is", "named", "called", "now"})) ++v;
        Span name = r.slot == kSlotChildren ? ProperList(c, v, false) : ProperSpan(c, v, false, 3);
        if (!name.value.empty()) Add(r.slot, name.value);
      }
      // my cat Tom, my dog's name is Rex, my dog is called Rex
      if (j < c.lows.size()) {
        std::string_view kind = c.lows[j];
        if (kind.ends_with("'s")) kind.remove_suffix(2);
        if (In(kind, kPetKinds)) Pet(c, j);
      }
      // my favourite X is Y
      if (j < c.lows.size() && In(c.lows[j], {"favourite", "favorite"})) {
        if (std::optional<Hit> is = Find(c, "is", j + 1)) {
          const std::string about = Lower(Join(c, j + 1, is->begin));
          Span what = PhraseSpan(c, is->after, 6);
          if (!about.empty() && !what.value.empty()) Add(about, what.value, true);
        }
      }
    }
    // <Name> is my (new) <relation>
    for (std::optional<Hit> is = Find(c, "is my"); is; is = Find(c, "is my", is->after)) {
      size_t j = is->after;
      if (j < c.lows.size() && In(c.lows[j], {"new", "current"})) ++j;
      for (const Relation& r : kRelations) {
        if (!MatchAt(c, j, r.word)) continue;
        size_t b = is->begin;
        while (b > 0 && is->begin - b < 3 && IsProperWord(c.words[b - 1]) &&
               !In(c.lows[b - 1], kTimeWords)) {
          --b;
        }
        if (b < is->begin) Add(r.slot, Join(c, b, is->begin));
      }
    }
    for (const Cue& cue : kCues) {
      if (cue.possessive) Apply(c, cue);
    }
    for (const ChineseCue& cue : kChineseCues) {
      if (cue.possessive) ApplyChinese(c, cue);
    }
  }

  void Pet(const Clause& c, size_t kind) {
    std::string k = c.lows[kind];
    if (k.ends_with("'s")) k.resize(k.size() - 2);
    size_t v = kind + 1;
    if (MatchAt(c, v, "name is")) v += 2;
    if (v < c.lows.size() && In(c.lows[v], {"is", "named", "called"})) ++v;
    if (v < c.lows.size() && In(c.lows[v], {"named", "called"})) ++v;
    Span name = ProperSpan(c, v, false, 2);
    if (!name.value.empty()) Add(kSlotPet, name.value + " (" + k + ")");
  }

  void Apply(const Clause& c, const Cue& cue) {
    std::optional<Hit> hit = Find(c, cue.phrase);
    if (!hit) return;
    std::string value;
    switch (cue.kind) {
      case Cue::kProper: {
        // Lower-case places only: "i work at home", "i joined yoga" name nothing.
        const bool place = cue.slot == kSlotLocation || cue.slot == kSlotOrigin;
        value = ProperSpan(c, hit->after, lower_ok_ && place).value;
        if (In(Lower(value), {"home", "town", "here", "there"})) value.clear();
        break;
      }
      case Cue::kProperList: {
        size_t from = hit->after;  // "I speak a little French"
        while (from < c.lows.size() &&
               In(c.lows[from], {"a", "little", "bit", "of", "some", "basic", "good", "decent"})) {
          ++from;
        }
        Span s = ProperList(c, from, lower_ok_);
        value = s.value;
        if (!value.empty() && s.end == c.words.size()) {
          if (std::string more = ListContinuation(); !more.empty()) value += ", " + more;
        }
        break;
      }
      case Cue::kPhrase: value = PhraseSpan(c, hit->after, 4).value; break;
      case Cue::kPhraseList: value = PhraseSpan(c, hit->after, 6, true).value; break;
    }
    if (value.empty()) return;
    if (cue.slot == kSlotRole) {
      const std::string first = Lower(value.substr(0, value.find(' ')));
      if (In(first, kNotRoles) || In(first, kDiets)) return;
      // "a clerk at Deloitte": the employer when it is named
      const Span role = PhraseSpan(c, hit->after, 4);
      if (role.end + 1 < c.lows.size() && In(c.lows[role.end], {"at", "for", "with"})) {
        Add(kSlotEmployer, ProperSpan(c, role.end + 1, false).value);
      }
    }
    Add(cue.slot, std::move(value));
  }

  void ApplyChinese(const Clause& c, const ChineseCue& cue) {
    const size_t at = c.text.find(cue.cue);
    if (at == std::string::npos) return;
    size_t value = at + cue.cue.size();
    for (std::string_view verb : {"叫", "是"}) {
      if (std::string_view(c.text).substr(value).starts_with(verb)) value += verb.size();
    }
    Add(cue.slot, ChineseSpan(c.text, value));
  }

  // What a clause whose subject is the user says.
  void Own(const Clause& c, size_t at) {
    for (const Cue& cue : kCues) {
      if (!cue.possessive) Apply(c, cue);
    }
    for (const ChineseCue& cue : kChineseCues) {
      if (!cue.possessive) ApplyChinese(c, cue);
    }
    // 在<place>工作 / 上班
    if (const size_t zai = c.text.find("在"); zai != std::string::npos) {
      const size_t value = zai + std::string_view("在").size();
      if (c.text.find("工作", value) != std::string::npos ||
          c.text.find("上班", value) != std::string::npos) {
        Add(kSlotEmployer, ChineseSpan(c.text, value));
      }
    }
    // "as a <role>" beside work ("I work at Initech as an analyst")
    if (Has(c, {"work", "works", "working", "joined", "job", "started", "employed", "hired"})) {
      for (std::string_view as : {"as a", "as an"}) {
        if (std::optional<Hit> hit = Find(c, as))
          Add(kSlotRole, PhraseSpan(c, hit->after, 4).value);
      }
    }
    // "I'm <Name>" in a greeting
    if (greeting_ && at + 1 < c.words.size() && In(c.lows[at], {"i'm", "im"})) {
      Span name = ProperSpan(c, at + 1, false, 3);
      if (!name.value.empty() && name.end == c.words.size()) Add(kSlotName, name.value);
    }
    // "I'm in <place> now"
    if (Has(c, {"now", "these days", "currently", "at the moment"})) {
      for (std::string_view in : {"i'm in", "i am in", "we're in", "we are in"}) {
        if (std::optional<Hit> hit = Find(c, in)) {
          Add(kSlotLocation, ProperSpan(c, hit->after, lower_ok_).value);
        }
      }
    }
    // the end of a job: left, quit, laid off
    if (Has(c, {"laid off", "let go"})) End(kSlotEmployer);
    for (std::string_view verb : {"left", "quit", "resigned from"}) {
      if (std::optional<Hit> hit = Find(c, verb)) {
        size_t v = hit->after;
        if (MatchAt(c, v, "my job at")) v += 3;
        Span from = ProperSpan(c, v, false, 4);
        const bool elsewhere = from.end < c.lows.size() && In(c.lows[from.end], {"for", "to"});
        if (!from.value.empty() && !elsewhere) End(kSlotEmployer);
      }
    }
    Diet(c);
    Children(c);
    Pets(c);
    Allergy(c);
    Preferences(c, at);
  }

  // A diet word said of the user ("I'm vegan", "went keto in May", "a
  // vegan diet"), not one that describes a thing ("a vegan dinner").
  void Diet(const Clause& c) {
    for (size_t i = 0; i < c.lows.size(); ++i) {
      if (!In(c.lows[i], kDiets)) continue;
      const bool attributive = i + 1 < c.lows.size() && !IsBoundary(c.lows[i + 1]) &&
                               !In(c.lows[i + 1], {"diet", "person", "eater"});
      if (!attributive) Add(kSlotDiet, c.lows[i]);
    }
    for (std::string_view w : kChineseDiets) {
      if (c.text.find(w) != std::string::npos) Add(kSlotDiet, std::string(w));
    }
  }

  // "I have two kids", "we have a daughter, Ana"
  void Children(const Clause& c) {
    std::optional<Hit> have = Find(c, "have");
    if (!have || have->after + 1 >= c.lows.size()) return;
    const size_t n = have->after;
    if (!In(c.lows[n], kNumbers)) return;
    for (const Relation& r : kRelations) {
      if (r.slot != kSlotChildren || !MatchAt(c, n + 1, r.word)) continue;
      std::string names;
      size_t v = n + 2;
      if (v < c.lows.size() && In(c.lows[v], {"named", "called"})) ++v;
      names = ProperList(c, v, false).value;
      if (names.empty() && n + 2 == c.words.size()) names = ListContinuation();
      Add(kSlotChildren, names.empty() ? Join(c, n, n + 2) : names);
      return;
    }
  }

  // "a cat called Tom", "have a dog named Rex", "adopted a puppy"
  void Pets(const Clause& c) {
    for (size_t i = 0; i + 1 < c.lows.size(); ++i) {
      if (!In(c.lows[i], {"a", "an", "our"})) continue;
      size_t k = i + 1;
      while (k < c.lows.size() && k < i + 3 && !In(c.lows[k], kPetKinds)) ++k;
      if (k >= c.lows.size() || !In(c.lows[k], kPetKinds)) continue;
      if (k + 1 < c.lows.size() && In(c.lows[k + 1], {"called", "named"})) Pet(c, k);
    }
  }

  // "I have a peanut allergy"
  void Allergy(const Clause& c) {
    std::optional<Hit> hit = Find(c, "allergy");
    if (hit && hit->begin > 0 && !IsArticle(c.lows[hit->begin - 1]) &&
        !In(c.lows[hit->begin - 1], {"an", "my", "no", "food"})) {
      Add(kSlotAllergy, c.words[hit->begin - 1]);
    }
    if (const size_t at = c.text.find("对"); at != std::string::npos) {
      const size_t end = c.text.find("过敏", at);
      if (end != std::string::npos) {
        const size_t from = at + std::string_view("对").size();
        Add(kSlotAllergy, c.text.substr(from, end - from));
      }
    }
  }

  void Preferences(const Clause& c, size_t at) {
    // I drink my coffee black, I take my tea with milk
    for (size_t i = at; i + 3 < c.lows.size() && i < at + 3; ++i) {
      if (!In(c.lows[i], {"drink", "take", "have", "eat", "like", "prefer", "love", "want"}) ||
          c.lows[i + 1] != "my") {
        continue;
      }
      Span rest = PhraseSpan(c, i + 3, 5);
      if (In(c.lows[i + 3], {"with", "without", "in", "on"})) {
        rest = {Join(c, i + 3, std::min(c.words.size(), i + 8)), 0};
      }
      if (!rest.value.empty() && !In(c.lows[i + 3], {"to", "for", "and", "out", "up", "over"})) {
        Add(c.lows[i + 2], rest.value, true);
        return;
      }
    }
    // a habit with its time: "I usually cycle to work on Tuesdays"
    for (size_t i = at; i < c.lows.size() && i < at + 3; ++i) {
      if (!In(c.lows[i],
              {"usually", "always", "often", "normally", "generally", "mostly", "typically"})) {
        continue;
      }
      for (size_t t = i + 2; t + 1 < c.lows.size(); ++t) {
        const std::string& when = c.lows[t + 1];
        const bool day = In(when, {"mondays", "tuesdays", "wednesdays", "thursdays", "fridays",
                                   "saturdays", "sundays", "weekends", "weekdays"});
        const bool part = t + 2 < c.lows.size() && c.lows[t] == "in" && when == "the" &&
                          In(c.lows[t + 2], {"mornings", "evenings", "afternoons", "morning",
                                             "evening", "afternoon"});
        if (!(c.lows[t] == "on" && day) && !part &&
            !(c.lows[t] == "at" && In(when, {"night", "weekends"}))) {
          continue;
        }
        Add(part ? c.lows[t + 2] : when, Join(c, i + 1, t), true);
        return;
      }
      return;
    }
    struct Verb {
      std::string_view phrase;
      std::string_view says;  // "" for a dislike
    };
    constexpr Verb kVerbs[] = {
        {"prefer", "prefers"}, {"like", "likes"},        {"love", "loves"},
        {"enjoy", "enjoys"},   {"'d rather", "prefers"}, {"hate", ""},
        {"dislike", ""},       {"can't stand", ""},      {"detest", ""},
    };
    for (const Verb& verb : kVerbs) {
      size_t after = 0;
      if (std::optional<size_t> a = MatchAt(c, at + 1, verb.phrase)) {
        after = *a;
      } else if (std::optional<size_t> b = MatchAt(c, at + 2, verb.phrase);
                 b && In(c.lows[at + 1], {"really", "just", "also", "definitely", "much",
                                          "actually", "always", "generally", "usually"})) {
        after = *b;
      } else {
        continue;
      }
      if (at >= c.lows.size() || !In(c.lows[at], {"i", "we", "i'd", "we'd"})) return;
      size_t begin = after;
      while (begin < c.lows.size() && (IsArticle(c.lows[begin]) || c.lows[begin] == "my" ||
                                       c.lows[begin] == "to" || c.lows[begin] == "it")) {
        ++begin;
      }
      size_t end = begin;
      while (end < c.lows.size() && end - begin < 8 &&
             !In(c.lows[end], {"when", "because", "since", "if", "but", "so", "though", "unless",
                               "while", "than", "and"})) {
        ++end;
      }
      // "I love you guys", "I hate it when …": about no thing.
      if (end == begin || In(c.lows[begin], {"you", "it", "him", "her", "them", "this", "that",
                                             "everyone", "everything", "everybody"})) {
        return;
      }
      size_t prep = end;
      for (size_t i = begin + 1; i < end; ++i) {
        if (In(c.lows[i], {"in", "as", "with", "over", "before", "after", "at", "on", "for",
                           "during", "without", "from"})) {
          prep = i;
          break;
        }
      }
      const std::string about = Lower(Join(c, begin, prep));
      if (verb.says.empty()) {
        Add(about, "dislikes " + Join(c, begin, end), true);
      } else if (prep == end) {
        Add(about, std::string(verb.says), true);
      } else if (c.lows[prep] == "over") {
        Add(about, "preferred " + Join(c, prep, end), true);
      } else if (verb.says == "prefers" && In(c.lows[prep], {"in", "as"}) &&
                 !(prep + 1 < end && In(c.lows[prep + 1], {"every", "all", "each", "most", "my",
                                                           "our", "this", "that", "these"}))) {
        // the form preferred: "reports in Markdown", "invoices as PDF files"
        const size_t from = prep + 1 < end && IsArticle(c.lows[prep + 1]) ? prep + 2 : prep + 1;
        Add(about, Join(c, from, end), true);
      } else {
        Add(about, Join(c, prep, end), true);
      }
      return;
    }
    // 我喜欢X, 我更喜欢X, 我不喜欢X (negated clauses never get here), 我讨厌X
    for (std::string_view cue : {"我更喜欢", "我喜欢", "我爱", "我偏好"}) {
      if (const size_t p = c.text.find(cue); p != std::string::npos) {
        const std::string what = ChineseSpan(c.text, p + cue.size());
        Add(what, std::string(cue.substr(std::string_view("我").size())), true);
        return;
      }
    }
    if (const size_t p = c.text.find("我讨厌"); p != std::string::npos) {
      const std::string what = ChineseSpan(c.text, p + std::string_view("我讨厌").size());
      if (!what.empty()) Add(what, "讨厌" + what, true);
    }
  }

  // A dislike said with a negation: "I can't stand X", "I don't like X",
  // 我不喜欢X.
  void Dislikes(const Clause& c, size_t at) {
    if (at >= c.lows.size() || !In(c.lows[at], {"i", "we"})) {
      for (std::string_view cue : {"我不喜欢", "我不爱"}) {
        if (const size_t p = c.text.find(cue); p != std::string::npos) {
          const std::string what = ChineseSpan(c.text, p + cue.size());
          if (!what.empty()) Add(what, "不喜欢" + what, true);
        }
      }
      return;
    }
    for (std::string_view verb : {"can't stand", "cannot stand", "don't like", "do not like",
                                  "don't enjoy", "really don't like", "don't really like"}) {
      std::optional<size_t> after = MatchAt(c, at + 1, verb);
      if (!after) continue;
      size_t begin = *after;
      while (begin < c.lows.size() && (IsArticle(c.lows[begin]) || c.lows[begin] == "my")) ++begin;
      size_t end = begin;
      while (end < c.lows.size() && end - begin < 8 &&
             !In(c.lows[end], {"when", "because", "since", "if", "but", "so", "though", "unless",
                               "while", "than", "and"})) {
        ++end;
      }
      size_t prep = end;
      for (size_t i = begin + 1; i < end; ++i) {
        if (In(c.lows[i], {"in", "with", "before", "after", "at", "on", "for", "during"})) {
          prep = i;
          break;
        }
      }
      if (prep > begin) Add(Lower(Join(c, begin, prep)), "dislikes " + Join(c, begin, end), true);
      return;
    }
  }

  // A negated clause that ends something ("I'm not vegan anymore", "I no
  // longer work at Acme", 我不再吃素): the slots it names end.
  void Ends(const Clause& c, bool user) {
    if (!user) return;
    for (const Cue& cue : kCues) {
      if (Find(c, cue.phrase)) End(cue.slot);
    }
    for (const ChineseCue& cue : kChineseCues) {
      if (c.text.find(cue.cue) != std::string::npos) End(cue.slot);
    }
    for (const std::string& w : c.lows) {
      if (In(w, kDiets)) End(kSlotDiet);
    }
    for (std::string_view w : kChineseDiets) {
      if (c.text.find(w) != std::string::npos) End(kSlotDiet);
    }
    for (const Relation& r : kRelations) {
      if (Find(c, r.word) && Has(c, {"my"})) End(r.slot);
    }
    if (Has(c, {"work", "working", "employed"}) || HasText(c, {"工作", "上班"})) {
      End(kSlotEmployer);
    }
    if (Has(c, {"live", "living", "based"})) End(kSlotLocation);
  }

  std::vector<Clause> clauses_;
  std::vector<bool> consumed_ = std::vector<bool>(clauses_.size(), false);
  bool lower_ok_;
  bool greeting_;
  size_t index_ = 0;
  SentenceSlots out_;
};

}  // namespace

bool IsSlotKey(std::string_view key) {
  return In(key, {kSlotName, kSlotLocation, kSlotOrigin, kSlotEmployer, kSlotRole, kSlotManager,
                  kSlotPartner, kSlotChildren, kSlotPet, kSlotDiet, kSlotAllergy, kSlotBirthday,
                  kSlotTimezone, kSlotLanguage});
}

bool IsListSlot(std::string_view key) {
  return In(key, {kSlotPet, kSlotChildren, kSlotLanguage, kSlotAllergy});
}

SentenceSlots ExtractSlots(std::string_view sentence, bool greeting) {
  const std::string text = Normalise(sentence);
  std::vector<Clause> clauses = SplitClauses(text);
  // Written without capitals: none but the sentence's first word and "I".
  bool has_capital = false;
  for (const Clause& c : clauses) {
    for (size_t i = c.first ? 1 : 0; i < c.words.size(); ++i) {
      has_capital = has_capital ||
                    (IsUpper(c.words[i][0]) && c.lows[i] != "i" && !c.lows[i].starts_with("i'"));
    }
  }
  if (!clauses.empty() && !clauses[0].lows.empty() &&
      In(clauses[0].lows[0], {"hi", "hello", "hey", "hiya"})) {
    greeting = true;
  }
  Reader reader(std::move(clauses), !has_capital, greeting);
  return reader.Read();
}

}  // namespace mnemo::archivist
