// Test helper: "query matches text" = every QueryTerms(q) term is one of
// Tokenize(text)'s tokens (what an AND over the index terms would find).
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "text/pipeline/query.h"
#include "text/pipeline/tokenizer.h"

namespace mnemo::text::testing {

// A token that outlives the tokenizer's callback, for comparing token lists.
struct OwnedToken {
  std::string text;
  int32_t start = 0;
  int32_t end = 0;
  bool colocated = false;

  OwnedToken() = default;
  explicit OwnedToken(const TokenView& t)
      : text(t.text), start(t.start), end(t.end), colocated(t.colocated) {}
  bool operator==(const OwnedToken&) const = default;
};

inline bool QueryMatchesText(std::string_view query, std::string_view text) {
  const std::vector<std::string> terms = QueryTerms(query);
  const std::vector<std::string> tokens = TokenizeToStrings(text);
  if (terms.empty()) return false;
  return std::all_of(terms.begin(), terms.end(), [&](const std::string& t) {
    return std::find(tokens.begin(), tokens.end(), t) != tokens.end();
  });
}

}  // namespace mnemo::text::testing
