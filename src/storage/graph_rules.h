// Backend-independent rules of the graph part of the storage contract
// (backend.h, graph.h), shared by every backend so that they cannot drift.
#pragma once

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

// The QueryTriples order: subject key, predicate, current before history,
// valid_from descending, object key, id.
bool TripleOrder(const TripleRow& a, const TripleRow& b);

// `query` with its filters in matching form (TripleTermKey, NormalizePredicate).
TripleQuery NormalizedQuery(const TripleQuery& query);

}  // namespace mnemo::storage::internal
