// The query sanitiser's core (spec 20): any user text becomes plain index
// tokens of the one pipeline (tokenizer.h). No operator, quote, parenthesis
// or keyword of any query language survives: the result is only tokens, so
// a backend that quotes each term cannot get a syntax error.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace mnemo::text {

// At most this many terms are returned; the walk stops once it has this many
// non-stop terms, so a 100 KB query costs about as much as a short one.
inline constexpr size_t kMaxQueryTerms = 64;
// Of a query (up to kMaxContentBytes, include/mnemo/limits.h), searches read
// the first this many bytes, cut at a code point: not a limit of the API.
inline constexpr size_t kMaxQueryReadBytes = 16 * 1024;

// The part of `query` a search reads: its first kMaxQueryReadBytes bytes,
// cut at a code point boundary; a view into `query`. Every side of a search
// (keyword terms, query vector, soft matching) reads this text, so they
// never read different texts.
std::string_view QueryText(std::string_view query);

// Distinct index tokens of QueryText(query), in first-occurrence order:
//  - words: as the index normalises them (folded, Porter2-stemmed), so
//    "emails" gives "email";
//  - identifiers: the whole identifier and every part ("deploy.py" ->
//    "deploy.py", "deploi", "py");
//  - CJK runs: segmented into ICU words; stop words are dropped; each
//    stretch of adjacent remaining words gives its character bigrams, a
//    1-character stretch the character itself ("服务器上的" -> 服务|器|上|的
//    -> "服务", "务器"; "发邮件" -> "发邮", "邮件"). Every such term is a token
//    of any text that contains the stretch (tokenizer.h);
//  - Arabic words with an article/prefix (ال بال وال كال فال لل) give only
//    the rest after it ("الكلمات" -> "كلمات"), a form the index emits for
//    every prefixed variant of the word (tokenizer.h).
// Stop words (stopwords.h) are dropped when at least one other term remains;
// identifier parts are never treated as stop words. Empty when the query has
// no token at all. Never fails; invalid UTF-8 bytes act as separators.
//
// Backends must use these strings as index terms verbatim: running them
// through the tokenizer again is not an identity (stemming is not
// idempotent, identifiers would split again).
std::vector<std::string> QueryTerms(std::string_view query);

}  // namespace mnemo::text
