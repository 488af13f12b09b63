// The one sentence splitter of the codebase. Edict capture (spec 30,
// rules/edicts.h) and events and recaps (spec 40, archivist/events.h) use it
// with different options. Pure function; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mnemo::text {

struct SentenceOptions {
  // ';' and '；' end a sentence like '.' and '。'.
  bool split_on_semicolon = true;
  // A single '.' after a common abbreviation ("e.g.", "i.e.", "etc.", "Mr.",
  // "Mrs.", "Ms.", "Dr.", "vs.", "St.", any letter case) or a capital
  // initial ("J. Smith") does not end a sentence.
  bool keep_abbreviations = true;
  // ASCII terminators also end a sentence right before a non-ASCII character
  // ("好.我", "tea.我喜欢"); otherwise only before whitespace or the end.
  bool split_before_non_ascii = false;
  // A piece whose text without its closing punctuation, trimmed, is shorter
  // than this many bytes is dropped ("Hello." has 5); empty pieces are
  // always dropped.
  size_t min_bytes = 0;
};

// Sentences of `text`, in order, each trimmed of whitespace (Unicode
// White_Space) and keeping its closing punctuation as written. A sentence
// ends:
//  - at a line break (LF, VT, FF, CR, NEL, U+2028, U+2029), which belongs to
//    no sentence;
//  - after 。！？ (and ；), together with the whole run of further
//    terminators and closing quotes, brackets or "…" right after it
//    ("好的！」", "《书》。");
//  - after . ! ? (and ;) and that run ("Really?!", "done.\""), but only when
//    what follows is whitespace or the end of the text (or, with
//    split_before_non_ascii, a non-ASCII character): e-mail addresses
//    ("sarah@example.com"), URLs ("https://x.io/a.b?c=1"), file names
//    ("report.pdf"), decimals ("3.14") and versions ("v1.2.3") stay whole.
// Never fails; ill-formed UTF-8 bytes are ordinary non-ASCII characters and
// are copied through unchanged.
std::vector<std::string> SplitSentences(std::string_view text, const SentenceOptions& options = {});

// Closing quotes and brackets (" ' ) ] } » ’ ” 》 」 』 】 ）) and the ellipsis
// "…": after a terminator they stay with the sentence they close.
bool IsSentenceCloser(int32_t cp);

}  // namespace mnemo::text
