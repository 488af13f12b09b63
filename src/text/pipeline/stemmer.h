// English stemming: Snowball's English (Porter2) stemmer from libstemmer,
// the maintained successor of Porter's 1980 algorithm ("deploy", "deploys",
// "deploying" and "deployment" all stem to "deploy"; Porter gave "deploi"
// for the first). Changing it changes every stored keyword index: bump
// text::kTextVersion (tokenizer.h).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace mnemo::text {

// Words longer than this are returned unchanged (as FTS5 does).
inline constexpr size_t kMaxStemmableLength = 64;

// Stems `word` in place and returns its new length (<= len). Only words of
// 3..kMaxStemmableLength lower-case ASCII letters are stemmed; anything else
// is left as is.
size_t StemInPlace(char* word, size_t len);

// Convenience: the stem of `word` under the same rules.
std::string Stem(std::string_view word);

// True when `s` is 1..kMaxStemmableLength lower-case ASCII letters.
bool IsStemmable(std::string_view s);

}  // namespace mnemo::text
