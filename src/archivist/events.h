// Events (spec 40, segment close step 4): decisions, commitments, preferences
// and facts that a user states, found by a fixed pattern table in each
// sentence of the segment's user messages; and the sentence splitting and
// phrase matching that topic markers (topics.h) and recaps (recap.h) reuse.
// Pure functions; no storage. Thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "text/sentences.h"

namespace mnemo::archivist {

// `text` prepared for phrase matching: ASCII lower-cased, the typographic
// apostrophes ’ ‘ and ʼ (U+2019, U+2018, U+02BC) turned into ', and every run
// of whitespace (Unicode White_Space, line breaks included) turned into one
// ' '. Other bytes are copied unchanged, so Chinese stays byte for byte.
std::string FoldForMatch(std::string_view text);

// Whether `phrase` occurs in `folded` (a FoldForMatch result). `phrase` is
// written in folded form. When its first (last) byte is a word character
// ([a-z0-9_]) the byte before (after) the occurrence must not be one, so
// "i like" is found in "so i like it" but not in "hi liked"; a phrase with
// non-ASCII edges ("换个话题") is a plain substring, and so is the end of
// "anyway," (nothing is required after the comma). Non-ASCII bytes count as
// word boundaries, so English phrases are found inside Chinese text.
bool ContainsPhrase(std::string_view folded, std::string_view phrase);

// Event types, in precedence order. A reminder ("don't forget the milk",
// "remind me to call Ana") is something the user wants kept in mind; like a
// commitment it stays open until the user says it is done
// (archivist/event_closing.h).
inline constexpr std::string_view kEventDecision = "decision";
inline constexpr std::string_view kEventReminder = "reminder";
inline constexpr std::string_view kEventCommitment = "commitment";
inline constexpr std::string_view kEventPreference = "preference";
inline constexpr std::string_view kEventFact = "fact";

// Confidence of a pattern match, plain or hedged ("I think", 可能).
inline constexpr double kPlainConfidence = 0.6;
inline constexpr double kHedgedConfidence = 0.4;

// Pieces shorter than this many bytes (after trimming) are not sentences.
inline constexpr size_t kMinSentenceBytes = 6;

// Sentences of `text`, in order, each trimmed of whitespace and keeping its
// closing punctuation as written: text::SplitSentences (text/sentences.h)
// without ';' and abbreviations, splitting before non-ASCII, with
// kMinSentenceBytes. A sentence ends:
//  - at a line break (which belongs to no sentence);
//  - after 。！？ (full-width), together with any further terminators and
//    closing quotes or brackets right after it ("好的！」");
//  - after . ! ? and any further terminators and closers ("Really?!",
//    "done.\""), but only when what follows is whitespace, the end of the
//    text or a non-ASCII character: "a@b.com", "https://x.io/a?b=1" and
//    "3.14" stay whole, "好.我" splits.
// A piece is skipped when, trimmed and without its closing punctuation, it
// is shorter than kMinSentenceBytes bytes ("Hello.", "Sure!", "嗯。"), as if
// the punctuation had been cut away. Abbreviations are not special: "e.g.
// tea is fine" gives "e.g." (skipped) and "tea is fine".
// The splitter settings of EventSentences.
inline constexpr text::SentenceOptions kEventSentenceOptions{.split_on_semicolon = false,
                                                             .keep_abbreviations = false,
                                                             .split_before_non_ascii = true,
                                                             .min_bytes = kMinSentenceBytes};
std::vector<std::string> EventSentences(std::string_view text);

// Whether events of `type` are tasks that close (commitment, reminder).
bool IsClosableEvent(std::string_view type);

struct Event {
  std::string
      type;  // kEventDecision, kEventReminder, kEventCommitment, kEventPreference, kEventFact
  std::string text;  // the sentence as written, trimmed
  double confidence = 0;
};

// The events of one user message: at most one per sentence (EventSentences),
// in sentence order; a sentence that occurs more than once (byte for byte)
// gives one event. A sentence's type is the first of decision > reminder >
// commitment > preference > fact whose pattern table (spec 40; reminders:
// "remind me", "don't forget", "remember to", 别忘了, 提醒我 …) it matches:
//  - English patterns on FoldForMatch text (topics.h: case-folded, I’m =
//    i'm) as phrases at word boundaries; "by friday … by sunday" stands for
//    "by monday" … "by sunday";
//  - Chinese patterns as substrings; "我在…工作" is 我在 followed, anywhere
//    later in the sentence, by 工作.
// Small talk and reactions are never events: a sentence whose words, the
// matched pattern's aside, are all stop words or the conversation's own
// words (text/phatic.h: "haha", "thanks", "wow", "that", "it") says nothing
// of its own ("I love it!", "I will, thanks", "haha I like that").
// Confidence is kHedgedConfidence when the sentence also holds a hedge
// ("i think", "maybe", "probably", "not sure", 我觉得, 可能, 也许, 好像),
// else kPlainConfidence.
std::vector<Event> ExtractEvents(std::string_view user_message);

// Whether `text` says something: it has a word, and not only stop words
// and the words of small talk (text/phatic.h).
bool SaysSomething(std::string_view text);

// Whether `folded` (a FoldForMatch result) holds one of the hedges above.
bool IsHedged(std::string_view folded);

}  // namespace mnemo::archivist
