// Document tags (spec 50): the top keywords of a text by TF-IDF against the
// store, in the token space of search (tokenizer.h, query.h), so a tag typed
// as a query finds the documents it was taken from. Pure function apart from
// `df`; thread-safe when `df` is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace mnemo::text {

// The number of stored documents that contain the index token `token` (a
// token as Tokenize emits it: folded, Porter2-stemmed English words; CJK
// character bigrams). Never called when n_docs is 0.
using DocFreqFn = std::function<int64_t(std::string_view token)>;

// The at most `k` best keywords of `text`, best first.
//
// Candidates, from one pass of the text pipeline (segmenter.h):
//  - words (ICU word segments): folded like the index; English possessives
//    ("Sarah's", "Sarah’s") lose the "'s"; counted by their index token (the
//    Porter2 stem: "deploys" and "deploying" are one keyword);
//  - identifiers (deploy.py, send_email, /srv/app, a@b.com): each
//    alphanumeric part is a word ("deploy", "py"), never the whole
//    identifier, so no tag holds punctuation (entities.h reports the whole
//    identifiers, paths and addresses);
//  - CJK runs: ICU's words, stop words removed, with the dictionary's
//    over-splitting undone: a lone single character joins the word right
//    before it (数据|库 -> 数据库), or the word right after it when there is
//    none before (库|数据 -> 库数据); a run of 2-4 single characters is one
//    word (优|化 -> 优化, 阿|特|拉|斯 -> 阿特拉斯); a single character that
//    joins nothing is dropped like a 1-letter Latin word (mostly particles,
//    measure words or pieces of a word: alone it says little about a topic),
//    and so are longer runs of single characters (text the dictionary did
//    not know, no word boundaries to trust).
// Dropped: stop words (stopwords.h, unstemmed or stemmed), tokens of fewer
// than 2 code points, tokens that start with a digit (numbers and
// measurements: "2024", "3" of "3.14", "16gb"; "v2" and "q3" stay), tokens
// holding punctuation or symbols ("o'clock"), and the words of JSON object
// keys (a double-quoted string of at most 128 bytes on one line after '{' or
// ',' and before ':', as in {"path":"/srv/app"}): keys label values rather
// than say what a text is about.
//
// Score: tf * idf, tf the number of occurrences, idf = ln((n_docs + 1) /
// (df + 1)) + 1 with df clamped to [0, n_docs]; the document frequency of a
// CJK word of 3 or more characters is the smallest df of its character
// bigrams (the index holds bigrams, and a document holding the word holds
// all of them). With n_docs <= 0 (or an empty `df`) the score is tf alone
// and `df` is never called. Otherwise `df` is called once per token of a
// candidate (one, or a CJK word's bigrams), and not at all for candidates
// whose tf cannot reach the k-th best score whatever their df.
//
// Ties: score descending, then the keyword ascending (bytewise). The
// keyword returned is the display form: the folded, unstemmed word of its
// first occurrence ("deploying", "sarah", "数据库"). Distinct keywords only.
// Never fails; invalid UTF-8 bytes act as separators.
std::vector<std::string> TopKeywords(std::string_view text, size_t k, const DocFreqFn& df,
                                     int64_t n_docs);

}  // namespace mnemo::text
