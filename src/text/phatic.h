// Phatic sentences: what people say to keep a conversation going rather
// than to tell something — greetings, thanks, goodbyes, "how are you",
// "no problem" (issue 18 section 4: a segment's summary began "Hi! How are
// you doing today? Hello! …" and its tags were "bye", "great", "thanks").
// Summaries and tags are made of what a text is about, so they skip them.
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "text/sentences.h"

namespace mnemo::text {

// True when every word of `sentence` is a stop word (stopwords.h) or one of
// the conversation's own words (hello, thanks, bye, welcome, great, okay,
// morning, cheers, …; 你好, 谢谢, 再见; مرحبا, شكرا, …), compared in the
// index's form (folded, stemmed), and it has at least one word. Any other
// word — a name, a place, a number — makes it a sentence that says
// something: "Thanks, the Lisbon flight is booked" is not phatic.
bool IsPhaticSentence(std::string_view sentence);

// The sentences of `text` (SplitSentences with `options`) that are not
// phatic, joined by " "; `text` itself when every sentence is phatic or
// there is none.
std::string WithoutPhaticSentences(std::string_view text, const SentenceOptions& options = {});

}  // namespace mnemo::text
