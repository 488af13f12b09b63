// The graph (spec 50, "Graph"): subject–predicate–object triples distilled
// from documents or stated through memory.graph_upsert, with confidence,
// provenance and validity. Nothing is deleted when a fact changes: a
// superseded triple gets `valid_to` and stays as history; an older fact
// arriving after a newer one is stored as history (PlanTripleUpsert
// in graph_rules.h) instead of superseding it. A triple is deleted by an
// erasure, by the person it is about (DeleteTriple: memory.graph_delete,
// graph_correct) or by reindex when its sentence no longer yields a triple;
// reindex never derives a document's triples again (docs/storage.md,
// "Reindex").
//
// Matching (upserts and queries) uses the normalised forms of graph_rules.h:
// the predicate is stored normalised (ASCII lower case, whitespace runs as
// one '_': "Lives In" = "lives_in"); subject and object are stored trimmed
// with whitespace runs collapsed, and compare case-insensitively for ASCII
// letters ("Berlin" = "berlin"; other scripts compare as written).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mnemo/types.h"

namespace mnemo::storage {

struct TripleRow {
  std::string id;  // UUID; assigned by UpsertTriple when empty
  std::string owner = "local";
  std::string subject;
  std::string predicate;
  std::string object;
  double confidence = 0;  // [0, 1]
  // Provenance: the id of the document it was extracted from, or the
  // caller's source ("" when none was given).
  std::string source;
  std::string sentence;  // the sentence it was extracted from ("" when stated)
  TimeMs valid_from = 0;
  TimeMs valid_to = 0;  // 0: current
  TimeMs created_at = 0;
};

struct TripleUpsert {
  TripleRow row;         // as stored
  bool created = false;  // false: an identical current triple was refreshed
  // Ids of the current triples this upsert ended (single-valued predicates).
  std::vector<std::string> superseded;
};

struct TripleQuery {
  // Each, when present, must match: subject and object after TripleTermKey,
  // the predicate after NormalizePredicate.
  std::optional<std::string> subject;
  std::optional<std::string> predicate;
  std::optional<std::string> object;
  std::optional<std::string> owner;  // whose triples; nullopt: every owner's
  bool include_history = false;      // false: current triples only
  int limit = 100;
  // Valid at this time: valid_from <= as_of and (current, or valid_to >
  // as_of); include_history is then ignored.
  std::optional<TimeMs> as_of;
};

}  // namespace mnemo::storage
