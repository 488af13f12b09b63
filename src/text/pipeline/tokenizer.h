// The one text pipeline (spec 20) used for indexing and for queries, by every
// backend: NFKC case folding, ICU word segmentation, identifiers kept whole
// and split into parts, CJK character bigrams, Snowball's Porter2 stemming
// for English (stemmer.h).
//
// Tokens, in text order (segmenter.h defines the segments):
//  - word: NFKC_Casefold (ASCII: lower-case); Arabic cleaned (harakat and
//    tatweel removed, أ إ آ -> ا); stemmed when it is ASCII letters
//    only; cut to 256 bytes.
//  - Arabic rule: a word starting with ال, بال, وال, كال, فال or لل with at
//    least 2 letters after the prefix is emitted as written, then the rest R
//    (colocated), then, for the prefixes other than ال, "ال"+R (colocated).
//    بالكلمات -> بالكلمات, كلمات, الكلمات; المفتاحية -> المفتاحية, مفتاحية.
//    The query side (query.h) uses only R for such words, so a query word
//    with or without the article meets the text word with any of them.
//  - identifier (deploy.py, send_email, /etc/passwd, a@b.com, 3.14): the
//    whole identifier lower-cased and NOT stemmed, then each alphanumeric
//    part normalised like a word (colocated). deploy.py -> deploy.py, deploy, py.
//  - CJK run: its character bigrams (a 1-character run: the character), and
//    after the bigram that starts at it, each single-character ICU word of
//    the run (colocated; the last character's after the last bigram).
//    Multi-character ICU words are not emitted: bigrams make a 2-character
//    query match whatever way the segmenter split the longer text.
//  - everything else (Hangul, Thai, Cyrillic, ...): ICU words.
//
// Invalid UTF-8 never fails: ill-formed bytes act as separators (as U+FFFD
// would). Inputs above INT32_MAX bytes are cut there.
//
// Thread-safety: all functions are safe to call from many threads (ICU
// iterators are cached per thread).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace mnemo::text {

// The version of what Tokenize emits. Stored keyword indexes keep the tokens
// of the version that indexed them, so any change to the output (stemmer,
// folding, segmentation, the Arabic rule) must bump it: each store records
// the version its index was built with and rebuilds the index when it
// differs (docs/storage.md, "Keyword index version"). The hash embedder's
// own version (embed/hash_embedder.h) follows the same rule.
//   1: Porter (1980), hand transcribed.   2: Snowball's Porter2.
inline constexpr int64_t kTextVersion = 2;

struct TokenView {
  std::string_view text;  // normalised token; valid only during the callback
  int32_t start = 0;      // byte range in the input text
  int32_t end = 0;
  // Same position as the previous token (an alternative form: identifier
  // parts, CJK single characters). Not counted in document length.
  bool colocated = false;
};

using TokenSink = std::function<void(const TokenView&)>;

// kSkip leaves out the colocated single-character tokens of CJK runs (a
// one-character run still gives its character) and with them ICU's
// dictionary segmentation, most of the cost of Chinese text; every other
// token is the same. For callers that only compare tokens with terms none of
// which is one CJK character (snippet.h). The index always uses kEmit.
enum class CjkSingles { kEmit, kSkip };

// For callers that only look for tokens equal to one of a few terms (snippet.h):
// which ASCII words may become one. An ASCII word becomes a token that starts with
// its first letter lower-cased and is no longer than the word: folding lower-cases
// it, and stemming only removes or replaces an ending (Snowball's English stemmer
// keeps a word's first letter, exceptions included: "dying" -> "die"). A word no
// term could come from need not be folded or stemmed (stemming is most of the cost
// of tokenizing English).
//
// Likewise for CJK bigrams that fold to themselves (IsFoldInertCjk, most of
// Chinese and Japanese text): one becomes a term only if it is one, so one
// whose first code point starts no term is neither folded nor compared.
class TermGate {
 public:
  explicit TermGate(const std::vector<std::string>& terms);
  // Whether the word (ASCII bytes only) may become one of the terms.
  bool MayBecomeTerm(std::string_view ascii_word) const {
    const auto first = static_cast<unsigned char>(ascii_word.front());
    const uint32_t shortest = shortest_[first >= 'A' && first <= 'Z' ? first + ('a' - 'A') : first];
    return shortest != 0 && shortest <= ascii_word.size();
  }
  // Whether a term starts with the three-byte code point at the start of
  // `cjk` (at least 3 bytes).
  bool MayStartTerm(std::string_view cjk) const {
    const uint32_t key = CjkKey(cjk);
    return ((cjk_first_[key / 64] >> (key % 64)) & 1) != 0;
  }

 private:
  static uint32_t CjkKey(std::string_view s) {
    const uint32_t b0 = static_cast<unsigned char>(s[0]) & 0x0Fu;
    const uint32_t b1 = static_cast<unsigned char>(s[1]) & 0x3Fu;
    const uint32_t b2 = static_cast<unsigned char>(s[2]) & 0x3Fu;
    return ((b1 << 6) | b2) ^ (b0 << 8);
  }

  // The length of the shortest term that starts with each byte (0: none).
  std::array<uint32_t, 256> shortest_{};
  // Bits of CjkKey of the first code point of the terms starting with three
  // bytes (a key may stand for more than one code point).
  std::array<uint64_t, 64> cjk_first_{};
};

// Index side: every token of `text`. Invalid UTF-8 is treated as U+FFFD.
// Tokens are never empty; the first token is never colocated.
// With a `gate`, the tokens of the ASCII words (and identifiers, and their parts)
// it rules out are left out; every other token, and each token's colocated flag,
// is as without it.
void Tokenize(std::string_view text, const TokenSink& sink, CjkSingles singles = CjkSingles::kEmit,
              const TermGate* gate = nullptr);

// Convenience for tests and small inputs.
std::vector<std::string> TokenizeToStrings(std::string_view text);

// Number of non-colocated tokens: the document length BM25 uses.
int32_t DocumentLength(std::string_view text);

}  // namespace mnemo::text
