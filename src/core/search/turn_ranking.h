// Conversation-aware ranking of episodic turns (spec 20, "Turns in their
// conversation"). A turn is rarely understandable alone: the question is in
// one turn and the answer in the next ("Where did you go?" / "Lisbon, with
// my sister"). So a turn's score takes in the keyword scores of its
// neighbours in the same session, at a lower weight:
//
//   score(t) = 1 - (1 - s(t)) · Π_{n ∈ N(t)} (1 - w(n) · s(n))
//
// where s(t) = k(t) · c(t): k the normalised BM25 keyword score of spec 20
// (0 for a turn that matches no query term) and c the turn's coverage, the
// share of the query's terms it holds (TurnHit::matched_terms, plus the
// terms naming the day, month or year it was said on), so a turn
// that says more of what was asked ranks above one that repeats its rarest
// word; N(t) are the turns at most kNeighbourSpan sequence numbers away in
// t's session, and w(n) = kAnswerWeight for the turn just before t when it
// asks a question (t is its answer, whatever words the answer uses),
// kNeighbourWeight otherwise. The noisy-or keeps the score in [0, 1], equal
// to s(t) for a turn whose neighbours do not match, and monotone in every
// input. Candidates are the best keyword matches plus the neighbours of the
// best of them, so a reply that names no query word can rank through the
// question it answers. The formula uses only what every episodic's
// SearchTurns and SessionTurns return, so every episodic ranks alike.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/search/search_query.h"
#include "embed/soft_match.h"
#include "mnemo/status.h"
#include "storage/episodic_store.h"

namespace mnemo::context {
class ToolRegistry;
}  // namespace mnemo::context

namespace mnemo {

// Turns each side whose match counts for a turn, and how much.
inline constexpr int kNeighbourSpan = 2;
inline constexpr double kNeighbourWeight = 0.3;
// Measured on LoCoMo dev (episodic_search recall@10): 0.3 (no answer rule)
// 0.741, 0.6 0.747, 0.9 0.742.
inline constexpr double kAnswerWeight = 0.6;

struct RankedTurn {
  storage::TurnRow row;
  double score = 0;  // the formula above, in [0, 1]
  // The best keyword score k among the turn and its neighbours: how well
  // the passage around the turn matches. A relevance threshold applies to
  // it, so the answer next to a matching question passes with it; coverage
  // orders, it does not filter.
  double passage_score = 0;
};

// The best `query.limit` turns of `query` (terms, owner scope, session),
// scored as above, best first; ties keep SearchTurns' order (keyword score,
// newest, id). Turns with no text to read (an empty response without tool
// calls) are never returned for their neighbours' sake.
// Optional recency (fusion.h, BlendRecency): the score above blended with
// the turn's age at `now`, before the order is taken.
struct TurnRecency {
  RecencyWeight weight;  // checked (search_query.h); the default 0 is relevance alone
  TimeMs now = 0;
};

// Optional soft term matching (embed/soft_match.h): each candidate's
// coverage c gains its soft score s, c' = min(1, c + s): a query word said in
// other words counts as said, at its similarity. The keyword score k stays
// the exact match's, so a turn still needs a keyword match (or a matching
// neighbour) to rank. Measured on LoCoMo dev (episodic_search / recall /
// context_build recall@10): no soft 0.747 / 0.777 / 0.784; s added to k and
// c 0.739 / 0.792 / 0.776; to k only 0.744; to c only 0.755 / 0.780 / 0.784.
// `query` is the raw query text (soft matching reads words, not stems).
struct TurnSoftMatch {
  const embed::SoftMatcher* matcher = nullptr;  // null: keyword matching only
  std::string query;
};

Result<std::vector<RankedTurn>> RankTurnsInConversation(storage::EpisodicStore& episodic,
                                                        const storage::TurnQuery& query,
                                                        TurnRecency recency = {},
                                                        const TurnSoftMatch& soft = {});

// The rows of `hit`'s session at most `span` sequence numbers away, `hit`
// itself excluded, by sequence number.
Result<std::vector<storage::TurnRow>> NeighbourTurns(storage::EpisodicStore& episodic,
                                                     const storage::TurnRow& hit, int span);

// The text of a turn a model should read for a query of `terms`: the stored
// content when it matches a term or there are no tool calls; otherwise the
// best matching passage (at most kToolPassageChars) of the first tool output
// that matches, named by its tool: "[web_search] …". Never empty when the
// turn has content or a tool output that takes part in memory: the output of
// a tool `tools` registers as no_memory (spec 50) is never shown.
inline constexpr size_t kToolPassageChars = 300;
std::string ReadableTurnText(const storage::TurnRow& row, const std::vector<std::string>& terms,
                             const context::ToolRegistry* tools);

// A passage (spec 10, memory_recall): a matching turn with the turns next to
// it in its session, so a question comes with its answer and an answer with
// its question. It grows one turn at a time at either end, the better
// scoring neighbour first (ties: the later turn, where answers are), while
// its text stays within `max_chars` code points. A turn is in at most one
// passage: a hit already quoted by a better passage gives none of its own.
inline constexpr size_t kPassageChars = 450;
struct TurnPassage {
  RankedTurn hit;                       // the matching turn
  std::vector<storage::TurnRow> turns;  // the passage in session order, hit included
  std::vector<std::string> lines;       // each turn's readable text, as `turns`
  // One turn: its readable text. Several: one "<role>: <text>" line each.
  std::string text;
};

// The part of a long derived text (a recap, a document) a model should read
// for `terms`: at most kPassageChars, around the best match; short texts
// whole.
std::string BestPassage(const std::string& text, const std::vector<std::string>& terms);

// The best `query.limit` passages of `query`, best hit first.
Result<std::vector<TurnPassage>> RankPassages(storage::EpisodicStore& episodic,
                                              const storage::TurnQuery& query,
                                              const context::ToolRegistry* tools,
                                              TurnRecency recency = {},
                                              size_t max_chars = kPassageChars,
                                              const TurnSoftMatch& soft = {});

}  // namespace mnemo
