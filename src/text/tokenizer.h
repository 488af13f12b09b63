// The one text pipeline (spec 20) used for indexing and for queries, by every
// backend: NFKC case folding, ICU word segmentation, identifiers kept whole
// and split into parts, CJK character bigrams, Porter stemming for English.
//
// Thread-safety: all functions are safe to call from many threads (ICU
// iterators are cached per thread).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace mnemo::text {

struct TokenView {
  std::string_view text;  // normalised token; valid only during the callback
  int32_t start = 0;      // byte range in the input text
  int32_t end = 0;
  // Same position as the previous token (an alternative form: identifier
  // parts, CJK single characters). Not counted in document length.
  bool colocated = false;
};

using TokenSink = std::function<void(const TokenView&)>;

// Index side: every token of `text`. Invalid UTF-8 is treated as U+FFFD.
void Tokenize(std::string_view text, const TokenSink& sink);

// Convenience for tests and small inputs.
std::vector<std::string> TokenizeToStrings(std::string_view text);

// Number of non-colocated tokens: the document length BM25 uses.
int32_t DocumentLength(std::string_view text);

}  // namespace mnemo::text
