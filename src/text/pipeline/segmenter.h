// Segmentation, the first half of the text pipeline (normalizer.h is the
// second). Internal to src/text; tokenizer.cc and query.cc are its visitors.
//
// One pass over the ORIGINAL text reports, in text order:
//  - identifiers: maximal runs of ASCII [A-Za-z0-9] joined by _ . / - @ : + # ~
//    with at least one joiner between alphanumerics; trailing joiners and
//    leading joiners are trimmed except one leading '/' (paths). Runs glued
//    to a non-CJK non-ASCII letter ("naïve_bayes") and runs longer than
//    kMaxIdentifierBytes are not identifiers; ICU words cover them.
//  - CJK runs: maximal runs of Han, Hiragana or Katakana code points
//    (not Hangul, not Thai), with ICU's word boundaries inside the run.
//  - words: ICU word-break segments whose rule status is a letter, number,
//    kana or ideograph (spaces, punctuation and symbols are dropped), with
//    the parts covered by identifiers and CJK runs cut away.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mnemo::text {

inline constexpr int32_t kMaxIdentifierBytes = 128;

struct ByteSpan {
  int32_t start = 0;
  int32_t end = 0;
};

class SegmentVisitor {
 public:
  virtual ~SegmentVisitor() = default;
  // A word [start, end) of the text.
  virtual void OnWord(int32_t start, int32_t end) = 0;
  // An identifier [start, end): ASCII only.
  virtual void OnIdentifier(int32_t start, int32_t end) = 0;
  // A CJK run. `cp_offsets` holds the byte offset of each code point of the
  // run followed by the run's end (n + 1 entries for n code points).
  // `word_bounds` holds ICU's word boundaries in the run, first = run start,
  // last = run end, strictly increasing. Both are valid during the call.
  virtual void OnCjkRun(std::span<const int32_t> cp_offsets,
                        std::span<const int32_t> word_bounds) = 0;
  // Polled between segments; true stops the walk.
  virtual bool Done() const { return false; }
  // False: OnCjkRun's word_bounds hold only the run's start and end, and
  // ICU's dictionary segmentation of CJK runs (most of the cost of Chinese
  // text) is skipped; everything else is reported as with true.
  virtual bool WantsCjkWords() const { return true; }
};

// Returns text ready for WalkSegments: `text` itself when it is valid UTF-8
// of at most INT32_MAX bytes, else a copy in *storage with every ill-formed
// byte replaced by a space (byte offsets are preserved, the bytes act as
// separators) and cut to INT32_MAX bytes at a code point boundary.
std::string_view PrepareText(std::string_view text, std::string* storage);

// Walks prepared text (see PrepareText) and reports its segments in order.
// Thread-safe; re-entrant (a visitor may itself tokenize other text).
void WalkSegments(std::string_view text, SegmentVisitor& visitor);

// ICU's root word-break rules (ICU 72: UAX #29 with '@' a letter and ':' not
// MidLetter) on ASCII text, without the break iterator: the segment of ASCII `text`
// starting at `pos` ends at the returned offset, and *is_word says whether
// ICU gives it a word rule status (a letter or number, or '_' joined to one
// or to another '_'). WalkSegments uses it for ASCII text, where it is many
// times faster than ICU; the segmenter test proves the two equal.
int32_t NextAsciiSegment(std::string_view text, int32_t pos, bool* is_word);

// Identifier spans of `text` (ASCII scan only), appended to *out in order.
void FindIdentifiers(std::string_view text, std::vector<ByteSpan>* out);

// Han, Hiragana or Katakana (including iteration and prolonged sound marks
// and the half-width forms).
bool IsCjk(int32_t cp);

// Whether `s` is exactly one CJK code point (IsCjk): what a CJK run's
// colocated single-character tokens are, and the only term that can equal
// one.
bool IsCjkCharacter(std::string_view s);

}  // namespace mnemo::text
