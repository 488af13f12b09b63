// Backend-independent rules of the graph part of the storage contract
// (graph_store.h, graph.h), shared by every backend so that they cannot drift.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mnemo/status.h"
#include "storage/graph.h"

namespace mnemo::storage::internal {

// Trimmed (ASCII whitespace), every whitespace run one ' '.
std::string CollapseSpaces(std::string_view text);

// The stored form of a predicate: CollapseSpaces, ASCII lower case, every
// ' ' an '_' ("Lives  in" -> "lives_in"). Other bytes are kept.
std::string NormalizePredicate(std::string_view predicate);

// The matching form of a subject or object: CollapseSpaces, ASCII lower case.
std::string TripleTermKey(std::string_view term);

// `row` as UpsertTriple stores it: id (a new UUID when empty), subject and
// object collapsed, predicate normalised. kInvalidArgument (naming the
// field) for a blank owner, subject, predicate or object, a confidence
// outside [0, 1], or a valid_to other than 0 (only UpsertTriple ends a
// triple's validity).
Result<TripleRow> NewTripleRow(const TripleRow& row);

// The valid_to a current triple gets when `incoming` supersedes it: the new
// valid_from, but never before the old triple's own valid_from.
TimeMs SupersededAt(const TripleRow& current, const TripleRow& incoming);
// The valid_to GraphStore::CloseTriple gives `current` closed at `at`:
// never before it began, never 0 (which means current).
TimeMs ClosedAt(const TripleRow& current, TimeMs at);

// What UpsertTriple does, given `existing`: every triple (current and
// history) of the incoming one's owner, subject and predicate, in id order
// (for a multi-valued predicate, the current one of the same object is
// enough).
//   - A current triple with the same object is refreshed (confidence the
//     larger); otherwise `incoming` is inserted.
//   - Single-valued predicates: a newer fact ends the current triples of
//     other objects (SupersededAt) when it Supersedes them (supersession.h,
//     the rule profile facets follow too); when it does not (a hedged 0.4
//     statement against a 0.9 stated one) it is inserted as history that
//     was never current (valid_to = its valid_from) and ends nothing. Older evidence arriving late
//     (a document re-derived by reindex, a statement dated in the past), i.e. when a triple of
//     another object started after `incoming`, ends nothing: it is inserted as history up to the
//     earliest such start, and a history triple of another object that was still valid when it
//     began now ends there.
struct TripleUpsertPlan {
  std::optional<size_t> refresh;  // index into `existing`
  TimeMs insert_valid_to = 0;     // for the inserted triple (0: current)
  std::vector<size_t> supersede;  // current triples that end at SupersededAt
  std::vector<size_t> trim;       // history triples that end at incoming.valid_from
};
TripleUpsertPlan PlanTripleUpsert(const std::vector<TripleRow>& existing, const TripleRow& incoming,
                                  bool single_valued);

// The QueryTriples order: subject key, predicate, current before history,
// valid_from descending, object key, id.
bool TripleOrder(const TripleRow& a, const TripleRow& b);

// `query` with its filters in matching form (TripleTermKey, NormalizePredicate).
TripleQuery NormalizedQuery(const TripleQuery& query);

}  // namespace mnemo::storage::internal
