#include "archivist/profile/slots.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "archivist/profile/clause_reader.h"
#include "archivist/profile/slot_cues.h"
#include "text/utf8.h"

// The slot table's cues are archivist/profile/slot_cues.h; how a sentence is read is
// archivist/profile/clause_reader.h.

namespace mnemo::archivist {
namespace {
using clauses::ChineseSpan;
using clauses::Clause;
using clauses::EndsSomething;
using clauses::Find;
using clauses::Has;
using clauses::HasText;
using clauses::Hit;
using clauses::In;
using clauses::IsArticle;
using clauses::IsBoundary;
using clauses::IsHypothetical;
using clauses::IsNegated;
using clauses::IsPast;
using clauses::IsProperWord;
using clauses::IsQuestion;
using clauses::IsRequest;
using clauses::IsUpper;
using clauses::Join;
using clauses::Lower;
using clauses::MatchAt;
using clauses::Normalise;
using clauses::PhraseSpan;
using clauses::ProperList;
using clauses::ProperSpan;
using clauses::SkipFillers;
using clauses::Span;
using clauses::SplitClauses;
using clauses::Subject;
using clauses::SubjectOf;
using clauses::Words;
using slot_cues::ChineseCue;
using slot_cues::Cue;
using slot_cues::Demonym;
using slot_cues::DemonymShape;
using slot_cues::IsChinesePlace;
using slot_cues::IsMoveCue;
using slot_cues::kChineseCues;
using slot_cues::kChineseDiets;
using slot_cues::kCues;
using slot_cues::kDiets;
using slot_cues::kNotRoles;
using slot_cues::kNumbers;
using slot_cues::kPetKinds;
using slot_cues::kRelations;
using slot_cues::kTimeWords;
using slot_cues::Relation;

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
        Span s = ProperSpan(c, hit->after, lower_ok_ && place);
        if (In(Lower(s.value), {"home", "town", "here", "there"})) s.value.clear();
        if (IsMoveCue(cue.phrase) && !s.value.empty()) {
          // "moved from X" names where the user lived, never where they live.
          if (cue.phrase.ends_with(" from") && !NextMove(c, s.end)) return;
          Moves(c, std::move(s));
          return;
        }
        value = std::move(s.value);
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
      // "I'm a Brazilian living in Lisbon", "I'm a British nurse": the
      // nationality is the origin, the rest (a noun, not "living") the role.
      size_t from = hit->after;
      while (from < c.lows.size() && IsArticle(c.lows[from])) ++from;
      if (from < c.words.size() && DemonymShape(c.words[from]) != Demonym::kNone) {
        Add(kSlotOrigin, c.words[from]);
        if (from + 1 >= c.lows.size() || c.lows[from + 1].ends_with("ing")) return;
        hit->after = from + 1;
        value = PhraseSpan(c, hit->after, 4).value;
        if (value.empty()) return;
      }
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

  // A chain of moves in one clause ("moved to Leeds and then to York",
  // "moved from Leeds to York"), and one continued by the next clause
  // ("…, then on to York"): each destination in order, so the last is the
  // current location and the earlier ones its history.
  void Moves(const Clause& c, Span first) {
    Add(kSlotLocation, std::move(first.value));
    size_t end = first.end;
    for (std::optional<Span> next = NextMove(c, end); next; next = NextMove(c, end)) {
      end = next->end;
      Add(kSlotLocation, std::move(next->value));
    }
    move_chain_ = index_;
    move_open_ = end == c.words.size();
  }

  // "and then to X", "then on to X", "to X" at token `at`: X.
  std::optional<Span> NextMove(const Clause& c, size_t at) const {
    size_t i = at;
    if (i < c.lows.size() && c.lows[i] == "and") ++i;
    while (i < c.lows.size() &&
           In(c.lows[i], {"then", "later", "finally", "eventually", "afterwards", "on"})) {
      ++i;
    }
    if (i >= c.lows.size() || c.lows[i] != "to") return std::nullopt;
    Span s = ProperSpan(c, i + 1, lower_ok_);
    if (s.value.empty() || In(Lower(s.value), {"home", "town", "here", "there"})) {
      return std::nullopt;
    }
    return s;
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
    if (move_open_ && move_chain_ + 1 == index_) {
      move_open_ = false;
      if (std::optional<Span> next = NextMove(c, at)) {
        Moves(c, std::move(*next));
        return;
      }
    }
    for (const Cue& cue : kCues) {
      if (!cue.possessive) Apply(c, cue);
    }
    for (const ChineseCue& cue : kChineseCues) {
      if (!cue.possessive) ApplyChinese(c, cue);
    }
    WorksAt(c);
    // "as a <role>" beside work ("I work at Initech as an analyst")
    if (Has(c, {"work", "works", "working", "joined", "job", "started", "employed", "hired"})) {
      for (std::string_view as : {"as a", "as an"}) {
        if (std::optional<Hit> hit = Find(c, as))
          Add(kSlotRole, PhraseSpan(c, hit->after, 4).value);
      }
    }
    // "I'm <Name>" in a greeting
    bool named = false;
    if (greeting_ && at + 1 < c.words.size() && In(c.lows[at], {"i'm", "im"}) &&
        DemonymShape(c.words[at + 1]) != Demonym::kStrong) {
      Span name = ProperSpan(c, at + 1, false, 3);
      named = !name.value.empty() && name.end == c.words.size();
      if (named) Add(kSlotName, name.value);
    }
    if (!named) Nationality(c, at);
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

  // 在X工作 / 上班: X is the employer (我在腾讯工作) unless it is a place
  // (IsChinesePlace: 我在北京工作, 我在家工作), which says where the user
  // works and fills no slot. In 在X的Y工作 the workplace is Y (我在上海的
  // 腾讯工作), and 一家… names none.
  void WorksAt(const Clause& c) {
    const size_t zai = c.text.find("在");
    if (zai == std::string::npos) return;
    const size_t value = zai + std::string_view("在").size();
    if (c.text.find("工作", value) == std::string::npos &&
        c.text.find("上班", value) == std::string::npos) {
      return;
    }
    std::string where = ChineseSpan(c.text, value);
    constexpr std::string_view kOf = "的";
    if (const size_t of = value + where.size();
        std::string_view(c.text).substr(of).starts_with(kOf)) {
      where = ChineseSpan(c.text, of + kOf.size());
    }
    if (!IsChinesePlace(where)) Add(kSlotEmployer, std::move(where));
  }

  // "I'm Dutch", "I am Brazilian", "we're Mexican": a nationality after
  // the copula, read as the origin. "I'm Brian Cox" (a capitalised word
  // follows) and "i'm dutch" (no capital to go by) name nothing.
  void Nationality(const Clause& c, size_t at) {
    size_t i = at;
    if (i < c.lows.size() && In(c.lows[i], {"i'm", "im", "we're"})) {
      ++i;
    } else if (i + 1 < c.lows.size() && In(c.lows[i], {"i", "we"}) &&
               In(c.lows[i + 1], {"am", "are"})) {
      i += 2;
    } else {
      return;
    }
    if (i < c.lows.size() && In(c.lows[i], {"originally", "half"})) ++i;
    size_t end = i;
    while (end < c.words.size() && end < i + 2 && DemonymShape(c.words[end]) != Demonym::kNone) {
      ++end;
    }
    if (end == i || (end < c.lows.size() && !IsBoundary(c.lows[end]))) return;
    Add(kSlotOrigin, Join(c, i, end));
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
    // "Dana is no longer my manager": the user's relation ends, whoever the
    // clause's subject is.
    for (std::optional<Hit> my = Find(c, "my"); my && my->begin > 0;
         my = Find(c, "my", my->after)) {
      if (!In(c.lows[my->begin - 1], {"longer", "not", "isn't"})) continue;
      for (const Relation& r : kRelations) {
        if (MatchAt(c, my->after, r.word)) End(r.slot);
      }
    }
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
  size_t move_chain_ = 0;   // the clause whose moves were read last
  bool move_open_ = false;  // … and they ran to its end
  SentenceSlots out_;
};

}  // namespace

bool IsSlotKey(std::string_view key) { return In(key, kSlotKeys); }

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
