// The graph's extraction side (spec 50, "Graph"): rule-based
// subject–predicate–object triples from computation-text lines, English and
// Chinese, and storing them with provenance. Pure functions apart from
// StoreTriples; thread-safe.
//
// How a line is read:
//  - A line may start with a speaker: "user:", "assistant:" (segment
//    documents, spec 40) or "[tool] <name>:" (context documents). Lines
//    without one continue the previous line's speaker; the first one's is
//    unknown, read like the user's (doc_put text).
//  - First person ("I", "my", 我) is the user: subject "user" (kUserSubject).
//    In an assistant's or a tool's line it is not, so first-person sentences
//    there give nothing; third-person facts ("Alice lives in Paris") count
//    from every speaker.
//  - Lines are split into sentences (text::SplitSentences) and sentences
//    into clauses (at , ; : and 、，；：, and before "and", "but",
//    "because", 但是, 因为, 所以, 而且); each clause gives at most one
//    triple: the earliest verb phrase of the tables below that yields a
//    valid subject and object. Clauses longer than 512 bytes are skipped
//    (a fact is short; this keeps extraction linear in the text).
//  - Questions (a sentence ending in ? or ？, or a Chinese clause ending in
//    吗) and negated clauses ("not", "never", "no longer", 不, 没) give
//    nothing. Pronoun subjects other than I/我 ("it", "they", 他, 这) are
//    unresolvable and give nothing.
//  - Leading hedges and fillers ("I think", "maybe", "by the way", 我觉得,
//    可能, 其实) are skipped; leading articles (a, an, the) and Chinese
//    measure words (一个, 一名, …) are dropped from objects; objects end at
//    a clause break and before "because", "since", "for", "from", "in",
//    "at", "with", "last", "yesterday", … (English) or at the end of a
//    Latin run inside Chinese ("我用 Python 写代码" → Python).
//
// English (after "I'm" → "I am", "I've" → "I have"; matched case-blind):
//   X lives in / is living in / moved to / relocated to Y   lives_in
//     (I live in, I am living in, I moved to, I am based in …)
//   X works at / works for / is working at Y                 works_at
//   X uses / is using Y                                      uses
//   X prefers Y                                              prefers
//   X likes / loves / enjoys Y                               likes
//   X comes from / is from Y                                 comes_from
//   I am called Y                                            name
//   I joined Y                                               works_at
//   I have a / an Y                                          has
//   I hate / dislike Y                                       dislikes
//   my <noun> is Y  → (user, <noun>, Y): "my timezone is CET" → timezone,
//     "my name is Ana" → name ("time zone" = timezone)
//   X is Y, I am a/an Y                                      is
// Chinese (substrings; X = 我 is the user):
//   X住在Y, X搬到(了)Y, X搬去(了)Y                           lives_in
//   X在Y工作, X在Y上班                                       works_at
//   X使用Y, X用Y                                             uses
//   X更喜欢Y, X偏好Y                                         prefers
//   X喜欢Y                                                   likes
//   X来自Y                                                   comes_from
//   我叫Y, 我的名字是Y                                       name
//   我的时区是Y                                              timezone
//   X是Y                                                     is
// Confidence: kTriplePlainConfidence, or kTripleHedgedConfidence when the
// sentence holds a hedge of spec 40 ("i think", "maybe", "probably", "not
// sure", 我觉得, 可能, 也许, 好像).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mnemo/status.h"
#include "mnemo/types.h"
#include "storage/graph_store.h"

namespace mnemo::context {

inline constexpr std::string_view kUserSubject = "user";
inline constexpr double kTriplePlainConfidence = 0.6;
inline constexpr double kTripleHedgedConfidence = 0.4;

// Predicates with one value at a time: a new object supersedes the current
// one (its valid_to is set; it stays as history). They include the
// profile's single-valued slots under the names the graph gives them; the
// user's triples of those come from the profile, not from a chat's text
// (archivist/profile/slot_graph.h), so that profile and graph never disagree.
inline constexpr std::string_view kSingleValuedPredicates[] = {
    "lives_in", "works_at", "timezone",   "name",     "age",     "birthday", "role",
    "email",    "manager",  "boss",       "employer", "partner", "wife",     "husband",
    "spouse",   "diet",     "comes_from", "location", "origin",
};
// Whether `predicate` (normalised, storage::internal::NormalizePredicate)
// is one of kSingleValuedPredicates.
bool IsSingleValued(std::string_view predicate);

// One line of computation text. `may_produce_triples` is false for a line
// that comes from a no_memory tool's output (spec 50): it never produces a
// triple (it still sets the speaker when it starts with one).
struct ComputationLine {
  std::string_view text;
  bool may_produce_triples = true;
};

struct ExtractedTriple {
  std::string subject;
  std::string predicate;  // normalised
  std::string object;
  double confidence = 0;
  std::string sentence;  // the sentence as written, trimmed
};

// The triples of `lines`, in the order of their sentences; a triple found
// twice (same subject, predicate and object up to ASCII case) is kept once,
// at its first place, with the larger confidence.
std::vector<ExtractedTriple> ExtractTriples(std::span<const ComputationLine> lines);
// ExtractTriples of every line of `computation_text` (which already leaves
// out no_memory output).
std::vector<ExtractedTriple> ExtractTriplesFromText(std::string_view computation_text);

// Upserts `triples` in order (later statements supersede earlier ones of a
// single-valued predicate) for `owner`, valid from `now`, with `source` as
// provenance. Returns how many were created (the others were refreshed).
Result<int64_t> StoreTriples(storage::GraphStore& graph, std::string_view owner,
                             std::string_view source, TimeMs now,
                             std::span<const ExtractedTriple> triples);

}  // namespace mnemo::context
