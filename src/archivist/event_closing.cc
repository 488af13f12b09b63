#include "archivist/event_closing.h"

#include <algorithm>
#include <cstddef>
#include <set>
#include <span>
#include <utility>

#include "archivist/profile/clause_reader.h"
#include "text/pipeline/stemmer.h"
#include "text/pipeline/stopwords.h"

// Word lists below are grammar (auxiliaries, markers of intent, irregular
// verbs, time words); never the things a task is about.

namespace mnemo::archivist {
namespace {

using clauses::In;

// Irregular English verbs: past and participle forms -> the lemma.
constexpr std::pair<std::string_view, std::string_view> kIrregular[] = {
    {"sent", "send"},
    {"paid", "pay"},
    {"wrote", "write"},
    {"written", "write"},
    {"bought", "buy"},
    {"made", "make"},
    {"took", "take"},
    {"taken", "take"},
    {"got", "get"},
    {"gotten", "get"},
    {"gave", "give"},
    {"given", "give"},
    {"did", "do"},
    {"done", "do"},
    {"told", "tell"},
    {"met", "meet"},
    {"left", "leave"},
    {"brought", "bring"},
    {"found", "find"},
    {"spoke", "speak"},
    {"spoken", "speak"},
    {"sold", "sell"},
    {"built", "build"},
    {"ran", "run"},
    {"drove", "drive"},
    {"driven", "drive"},
    {"ate", "eat"},
    {"eaten", "eat"},
    {"kept", "keep"},
    {"began", "begin"},
    {"begun", "begin"},
    {"won", "win"},
    {"threw", "throw"},
    {"thrown", "throw"},
    {"caught", "catch"},
    {"taught", "teach"},
    {"went", "go"},
    {"gone", "go"},
    {"came", "come"},
    {"saw", "see"},
    {"seen", "see"},
    {"knew", "know"},
    {"drew", "draw"},
    {"drawn", "draw"},
    {"chose", "choose"},
    {"chosen", "choose"},
    {"forgot", "forget"},
    {"forgotten", "forget"},
    {"held", "hold"},
    {"lent", "lend"},
    {"lost", "lose"},
    {"spent", "spend"},
    {"rode", "ride"},
    {"ridden", "ride"},
    {"rang", "ring"},
    {"rung", "ring"},
    {"fed", "feed"},
    {"led", "lead"},
    {"dealt", "deal"},
    {"laid", "lay"},
    {"sought", "seek"},
    {"wore", "wear"},
    {"worn", "wear"},
    {"withdrew", "withdraw"},
    {"withdrawn", "withdraw"},
    {"read", "read"},
    {"put", "put"},
    {"set", "set"},
    {"shut", "shut"},
    {"cut", "cut"},
    {"hung", "hang"},
    {"stuck", "stick"},
    {"swept", "sweep"},
    {"understood", "understand"},
    {"flew", "fly"},
    {"flown", "fly"},
    {"grew", "grow"},
    {"grown", "grow"},
    {"broke", "break"},
    {"broken", "break"},
    {"froze", "freeze"},
    {"frozen", "freeze"},
    {"hid", "hide"},
    {"hidden", "hide"},
    {"slept", "sleep"},
    {"swam", "swim"},
    {"woke", "wake"},
    {"woken", "wake"},
    {"thought", "think"},
    {"said", "say"},
    {"heard", "hear"},
};

// Verbs whose past says a task was missed, put off, only begun or only
// meant: they close nothing.
constexpr std::string_view kNotDone[] = {
    "forget", "miss", "fail",   "start",   "begin", "postpone", "delay",  "need",   "want",
    "plan",   "try",  "hope",   "decide",  "use",   "intend",   "mean",   "think",  "say",
    "hear",   "wish", "expect", "promise", "agree", "remember", "remind", "cancel", "reschedule",
};

// Verbs that only say something is finished: they close a task of any verb.
constexpr std::string_view kCompletion[] = {"do", "finish", "complete", "wrap"};

// Words that carry no object: pronouns the task refers back with, and time.
constexpr std::string_view kPronouns[] = {"it",    "that",  "this",       "them",
                                          "those", "these", "everything", "one"};
constexpr std::string_view kTimeWords[] = {
    "today",     "tomorrow", "tonight", "yesterday", "monday",   "tuesday", "wednesday", "thursday",
    "friday",    "saturday", "sunday",  "week",      "weekend",  "month",   "year",      "morning",
    "afternoon", "evening",  "night",   "noon",      "midnight", "next",    "last",      "end",
    "eod",       "asap",     "soon",    "later",     "earlier",  "early",   "now",       "already",
    "finally",   "first",    "time",    "deadline",  "due",      "o'clock", "am",        "pm",
    "minutes",   "hours",    "days",    "weeks",     "months",   "ago",
};

// Where a task's object ends.
constexpr std::string_view kObjectEnds[] = {"so",     "because", "but",    "while",   "since",
                                            "unless", "if",      "though", "although"};

// Marker of intent or obligation, its words separated by single spaces;
// `verb` false: it names no verb ("don't forget the milk").
struct Marker {
  std::string_view phrase;
  bool verb = true;
};
constexpr Marker kMarkers[] = {
    {"need to"},
    {"needs to"},
    {"have to"},
    {"has to"},
    {"got to"},
    {"gotta"},
    {"must"},
    {"should"},
    {"will"},
    {"i'll"},
    {"we'll"},
    {"going to"},
    {"gonna"},
    {"plan to"},
    {"planning to"},
    {"promise to"},
    {"promised to"},
    {"commit to"},
    {"remind me to"},
    {"remember to"},
    {"forget to"},
    {"supposed to"},
    {"intend to"},
    {"want to"},
    {"remind me about", false},
    {"remind me of", false},
    {"forget", false},
};

// Words between a marker and its verb.
constexpr std::string_view kBeforeVerb[] = {
    "also",    "still",    "definitely", "really", "finally", "probably",   "first",
    "quickly", "actually", "just",       "be",     "surely",  "absolutely", "totally"};
// Words after a marker that say it is no task ("I'll be in Berlin").
constexpr std::string_view kNoTask[] = {"in",   "at",    "on",   "the", "a",    "an",    "there",
                                        "here", "back",  "home", "out", "away", "able",  "free",
                                        "busy", "late",  "fine", "ok",  "okay", "right", "sure",
                                        "not",  "never", "you",  "he",  "she",  "they",  "it"};

// Between the user and a past verb ("I have already sent").
constexpr std::string_view kAuxiliaries[] = {"have",    "had",        "already", "successfully",
                                             "totally", "completely", "now",     "officially"};

std::optional<std::string> Irregular(std::string_view w) {
  for (const auto& [past, lemma] : kIrregular) {
    if (past == w) return std::string(lemma);
  }
  return std::nullopt;
}

// The lemma of a verb in the past ("submitted" -> "submitted", which
// stems like "submit"; "sent" -> "send"); nullopt when `w` is not one.
std::optional<std::string> PastLemma(std::string_view w) {
  if (std::optional<std::string> irregular = Irregular(w)) return irregular;
  // "-eed" words are mostly present ("need", "proceed").
  if (w.size() > 4 && w.ends_with("ed") && !w.ends_with("eed")) return std::string(w);
  return std::nullopt;
}

bool IsStem(std::string_view stem, std::span<const std::string_view> lemmas) {
  return std::any_of(lemmas.begin(), lemmas.end(),
                     [&](std::string_view l) { return text::Stem(l) == stem; });
}

std::string Strip(std::string_view w) {
  constexpr std::string_view kEdge = ".,;:!?\"'()[]{}";
  while (!w.empty() && kEdge.find(w.front()) != std::string_view::npos) w.remove_prefix(1);
  while (!w.empty() && kEdge.find(w.back()) != std::string_view::npos) w.remove_suffix(1);
  std::string low = clauses::Lower(w);
  if (low.ends_with("'s")) low.resize(low.size() - 2);
  return low;
}

// The words of `sentence`, lower-cased, without edge punctuation.
std::vector<std::string> Words(std::string_view sentence) {
  const std::string norm = clauses::Normalise(sentence);
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < norm.size()) {
    size_t end = norm.find(' ', pos);
    if (end == std::string::npos) end = norm.size();
    std::string w = Strip(std::string_view(norm).substr(pos, end - pos));
    if (!w.empty()) out.push_back(std::move(w));
    pos = end + 1;
  }
  return out;
}

// The objects after `from` into `task`, up to an object end.
void ReadObjects(std::span<const std::string> words, size_t from, Task& task) {
  bool first = true;
  for (size_t i = from; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (In(w, kObjectEnds)) break;
    if (first && In(w, kPronouns)) task.pronoun = true;
    first = false;
    if (In(w, kPronouns) || In(w, kTimeWords) || text::IsStopWord(w)) continue;
    std::string stem = text::Stem(w);
    if (text::IsStopWord(stem)) continue;
    if (std::find(task.objects.begin(), task.objects.end(), stem) == task.objects.end()) {
      task.objects.push_back(std::move(stem));
    }
  }
}

// How many words marker `m` has when it starts at word `at`; 0 when it
// does not.
size_t MarkerAt(std::span<const std::string> words, size_t at, const Marker& m) {
  std::string_view rest = m.phrase;
  size_t i = at;
  while (!rest.empty()) {
    const size_t space = rest.find(' ');
    const std::string_view w = rest.substr(0, space);
    if (i >= words.size() || words[i] != w) return 0;
    ++i;
    rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
  }
  return i - at;
}

bool Negation(std::string_view w) { return w == "not" || w == "never" || w.ends_with("n't"); }

// A done statement of one clause, if it states one.
std::optional<Task> DoneIn(const clauses::Clause& c) {
  const size_t at = clauses::SkipFillers(c);
  if (at >= c.lows.size()) return std::nullopt;
  if (clauses::IsQuestion(c, at) || clauses::IsHypothetical(c) || clauses::IsNegated(c)) {
    return std::nullopt;
  }
  const std::vector<std::string> words = [&] {
    std::vector<std::string> out;
    for (size_t i = at; i < c.lows.size(); ++i) out.push_back(Strip(c.lows[i]));
    return out;
  }();
  size_t i = 0;
  const bool user = In(words[0], {"i", "we", "i've", "we've", "i'd", "we'd"});
  if (user) ++i;
  while (i < words.size() && In(words[i], kAuxiliaries)) ++i;
  if (i < words.size() && (user || i == 0)) {
    if (std::optional<std::string> lemma = PastLemma(words[i])) {
      if (i + 1 < words.size() && words[i + 1] == "to") return std::nullopt;
      Task task;
      task.verb = text::Stem(*lemma);
      if (IsStem(task.verb, kNotDone)) return std::nullopt;
      task.completion = IsStem(task.verb, kCompletion);
      ReadObjects(words, i + 1, task);
      return task;
    }
  }
  if (user) return std::nullopt;
  // A thing and its state: "the Q4 budget is submitted", "slides are done".
  for (size_t k = 1; k + 1 < words.size(); ++k) {
    if (!In(words[k], {"is", "was", "are", "were", "been"})) continue;
    size_t v = k + 1;
    while (v < words.size() && In(words[v], {"all", "now", "already", "officially", "finally"})) {
      ++v;
    }
    if (v >= words.size()) return std::nullopt;
    std::optional<std::string> lemma = words[v] == "finished" || words[v] == "complete"
                                           ? std::optional<std::string>("finish")
                                           : PastLemma(words[v]);
    if (!lemma) return std::nullopt;
    Task task;
    task.verb = text::Stem(*lemma);
    if (IsStem(task.verb, kNotDone)) return std::nullopt;
    task.completion = IsStem(task.verb, kCompletion);
    const size_t end = In(words[k], {"been"}) && k > 0 ? k - 1 : k;
    ReadObjects(std::span<const std::string>(words).first(end), 0, task);
    // "It's done" names nothing to close.
    if (task.objects.empty()) return std::nullopt;
    task.pronoun = false;
    return task;
  }
  return std::nullopt;
}

}  // namespace

std::optional<Task> TaskOf(std::string_view sentence) {
  const std::vector<std::string> words = Words(sentence);
  for (size_t at = 0; at < words.size(); ++at) {
    for (const Marker& m : kMarkers) {
      const size_t length = MarkerAt(words, at, m);
      if (length == 0) continue;
      const bool reminder = m.phrase.starts_with("forget");
      // "I will not …", "I never have to …"; but "don't forget" is a reminder.
      if (!reminder && at > 0 && Negation(words[at - 1])) return std::nullopt;
      size_t i = at + length;
      Task task;
      if (m.verb) {
        while (i < words.size() && In(words[i], kBeforeVerb)) ++i;
        if (i >= words.size() || In(words[i], kNoTask) || Negation(words[i])) return std::nullopt;
        task.verb = text::Stem(words[i]);
        ++i;
      }
      ReadObjects(words, i, task);
      task.pronoun = false;
      return task;
    }
  }
  return std::nullopt;
}

std::vector<Task> DoneStatements(std::string_view sentence) {
  std::vector<Task> out;
  for (const clauses::Clause& c : clauses::SplitClauses(clauses::Normalise(sentence))) {
    if (std::optional<Task> t = DoneIn(c)) out.push_back(std::move(*t));
  }
  return out;
}

bool Closes(const Task& done, const Task& task) {
  if (done.pronoun && done.objects.empty()) {
    return !done.completion && !task.verb.empty() && done.verb == task.verb;
  }
  if (!done.completion && !task.verb.empty() && done.verb != task.verb) return false;
  const std::set<std::string> theirs(task.objects.begin(), task.objects.end());
  size_t overlap = 0;
  for (const std::string& o : done.objects) overlap += theirs.contains(o) ? 1 : 0;
  const size_t shorter = std::min(done.objects.size(), theirs.size());
  if (shorter == 0) return false;
  return overlap >= std::max<size_t>(1, (shorter + 1) / 2);
}

}  // namespace mnemo::archivist
