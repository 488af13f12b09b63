// Word normalisation, the per-token half of the text pipeline (the other half
// is segmentation, segmenter.h). Internal to src/text.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace mnemo::text {

// Longer folded words are cut to this many bytes (at a code point boundary),
// so that a pathological 100 KB "word" costs one bounded token.
inline constexpr size_t kMaxTokenBytes = 256;

// Folds one segment of valid UTF-8 into *out (replacing its contents):
// ASCII is lower-cased; anything else goes through ICU's NFKC_Casefold
// (full-width forms, ligatures, ß -> ss, default ignorables removed), and
// Arabic is cleaned (see CleanArabic). No stemming. *out may end up empty.
void FoldWord(std::string_view word, std::string* out);

// Whether NFKC_Casefold leaves `word` as it is because every code point of it
// is a CJK ideograph (U+3400..U+4DBF, U+4E00..U+9FFF) or a kana letter
// (U+3041..U+3096, U+30A1..U+30FA): each maps to itself and nothing before it
// combines with it (the normalizer test asks ICU for every one). FoldWord
// copies such words instead of normalising them: CJK bigrams are most of the
// words of Chinese and Japanese text.
bool IsFoldInertCjk(std::string_view word);

// FoldWord followed by Porter2 stemming when the folded word is lower-case
// ASCII letters only. This is the index form of a word.
void NormalizeWord(std::string_view word, std::string* out);

// Stems *token in place when it is stemmable (stemmer.h).
void StemToken(std::string* token);

// Arabic cleanup, in place on folded text: removes harakat (U+064B..U+065F,
// U+0670) and tatweel (U+0640), maps alef with hamza/madda (U+0622, U+0623,
// U+0625) to bare alef U+0627.
void CleanArabic(std::string* s);

// True when `s` holds a code point in U+0600..U+06FF.
bool ContainsArabic(std::string_view s);

// The Arabic article rule, on a cleaned word. Prefixes: ال, بال, وال, كال,
// فال, لل. Returns the byte length of the prefix when `word` starts with one
// and at least 2 code points remain, else 0. *with_article is set when the
// prefix is longer than ال itself (بال, وال, كال, فال, لل), i.e. when
// "ال" + rest is also a meaningful form of the word.
size_t ArabicPrefixLength(std::string_view word, bool* with_article);

// "ال" in UTF-8.
inline constexpr std::string_view kArabicArticle = "\xD8\xA7\xD9\x84";

}  // namespace mnemo::text
