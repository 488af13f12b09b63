// How the profile's slot reader (archivist/profile/slots.h) reads one sentence:
// clauses, their words, who they are about, their modality and the value
// spans after a cue. Private to the archivist; the grammar is described in
// slots.h and docs/archivist.md ("How a sentence is read").
#pragma once

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mnemo::archivist::clauses {

using Words = std::initializer_list<std::string_view>;

bool In(std::string_view w, Words list);
bool In(std::string_view w, std::span<const std::string_view> list);
bool IsUpper(char c);
std::string Lower(std::string_view s);  // ASCII letters only

// ’ ‘ ʼ -> ', every run of whitespace -> ' ', trimmed; case kept.
std::string Normalise(std::string_view text);

struct Clause {
  std::string text;                // as written (normalised)
  std::vector<std::string> words;  // tokens without edge punctuation, as written
  std::vector<std::string> lows;   // the same, lower-cased
  bool question = false;           // ends with ? or ？ (or 吗)
  bool first = false;              // the sentence's first clause
};

// The clauses of one normalised sentence, in order (docs/archivist.md, "Clauses").
std::vector<Clause> SplitClauses(std::string_view sentence);

// Whether `phrase` (lower-case words separated by single spaces) occurs at
// token `at` of `c`; returns the token after it.
std::optional<size_t> MatchAt(const Clause& c, size_t at, std::string_view phrase);

struct Hit {
  size_t begin = 0;
  size_t after = 0;
};

std::optional<Hit> Find(const Clause& c, std::string_view phrase, size_t from = 0);
bool Has(const Clause& c, Words phrases);
bool HasText(const Clause& c, Words pieces);

// The token after the fillers and leading time phrases a clause opens with.
size_t SkipFillers(const Clause& c);

enum class Subject { kUser, kOther, kNone };

// Who clause `c` (from token `at`) is about; `previous` is the last clause's
// answer, kept by a clause without a subject of its own.
Subject SubjectOf(const Clause& c, size_t at, Subject previous);

bool IsQuestion(const Clause& c, size_t at);
bool IsRequest(const Clause& c, size_t at);
bool IsHypothetical(const Clause& c);
bool IsPast(const Clause& c);
bool IsNegated(const Clause& c);
bool EndsSomething(const Clause& c);

// Words at which a value stops (prepositions, conjunctions, time words).
bool IsBoundary(std::string_view low);
bool IsArticle(std::string_view low);
bool IsProperWord(std::string_view w);
// Words [begin, end) of `c` joined by single spaces.
std::string Join(const Clause& c, size_t begin, size_t end);

struct Span {
  std::string value;
  size_t end = 0;  // the token after it
};

// A named thing at token `at`: capitalised words (joined by of/de/van …),
// or, when `lower_ok` (a sentence written without capitals), the words up
// to a boundary. "the" before it is dropped; "a", "an" name nothing.
Span ProperSpan(const Clause& c, size_t at, bool lower_ok, size_t max_words = 5);
// Names joined by "and", "&" ("Portuguese and English", "Ana and Leo").
Span ProperList(const Clause& c, size_t at, bool lower_ok);
// Common words at token `at` up to a boundary (at most `max_words`),
// without a leading article; `lists` lets "and"/"or" join two items.
Span PhraseSpan(const Clause& c, size_t at, size_t max_words, bool lists = false);
// A Chinese value at byte `pos` of `text`: up to punctuation, a particle or
// a verb that closes it, at most 10 characters; "" for an indefinite one.
std::string ChineseSpan(std::string_view text, size_t pos);

}  // namespace mnemo::archivist::clauses
