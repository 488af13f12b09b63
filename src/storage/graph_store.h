// The graph (spec 50; rows in storage/graph.h): triples with validity
// history. Its conformance suite: tests/storage/graph_conformance_test.cc.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mnemo/status.h"
#include "mnemo/types.h"
#include "storage/graph.h"

namespace mnemo::storage {

class GraphStore {
 public:
  virtual ~GraphStore() = default;

  // Stores `row` (ids, normalisation and checks of graph_rules.h
  // NewTripleRow) in one write transaction (SQLite: serialised with other
  // processes too). When the owner already has a current triple with the
  // same subject, predicate and object, that one is refreshed instead:
  // confidence becomes the larger of both, nothing else changes, created =
  // false. Otherwise the row is added and, when `single_valued`, every other
  // current triple of the same (owner, subject, predicate) gets valid_to =
  // SupersededAt (it stays stored as history) and is listed in `superseded`.
  // So an owner never has two current triples of a single-valued
  // (subject, predicate), whatever the concurrency.
  virtual Result<TripleUpsert> UpsertTriple(const TripleRow& row, bool single_valued) = 0;
  // Triples matching every filter of `query`, in TripleOrder (graph_rules.h):
  // subject, predicate, current before history, newest valid_from first,
  // object, id. At most `limit` (none when limit <= 0).
  virtual Result<std::vector<TripleRow>> QueryTriples(const TripleQuery& query) = 0;

  // --- Corrections (issue 44 section 3). The triple `id` (current or
  // history), if any.
  virtual Result<std::optional<TripleRow>> GetTriple(std::string_view id) = 0;
  // Deletes the triple `id`; false when there is none. A triple it had
  // superseded is not made current again (the deleted one was wrong, not
  // the history before it).
  virtual Result<bool> DeleteTriple(std::string_view id) = 0;
  // Closes the current triple `id` at `at` (valid_to = max(at, its
  // valid_from, 1)): it stays as history. False when there is no such
  // current triple. Used when the statement behind it is ended without a
  // new value ("I no longer work at X", archivist/profile/slot_graph.h).
  virtual Result<bool> CloseTriple(std::string_view id, TimeMs at) = 0;
};

}  // namespace mnemo::storage
