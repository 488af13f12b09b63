// Row writes of the SQLite backend inside the caller's write transaction
// (the writer connection, writer_mu() held), with their keyword index rows:
// the one statement of each kind that the public writes and Restore
// (sqlite_restore.cc) share.
#pragma once

#include <string_view>
#include <vector>

#include "storage/episodic_store.h"
#include "storage/restore.h"
#include "storage/sqlite/connection.h"

namespace mnemo::storage::internal {

// Turn `row` with its id and seq as set, indexed by `search_text`.
Status InsertTurnIn(Connection& db, const TurnRow& row, std::string_view search_text);
// Inserts or replaces segment `seg` (PutSegment's rules) and its recap index.
Status PutSegmentIn(Connection& db, const SegmentRow& seg);
// StepSegment's read, decision and write for (owner, session).
Result<SegmentChange> StepSegmentIn(Connection& db, std::string_view owner,
                                    std::string_view session_id,
                                    const EpisodicStore::SegmentDecision& decide);
// False (nothing written) when the (owner, type, text) is stored.
Result<bool> AddEventIn(Connection& db, const EventRow& e);
// Inserts or replaces the facet of (owner, facet_type, key) with `row`.
Status PutFacetIn(Connection& db, const FacetRow& row);
// Every facet of `owner`, by facet_type and key.
Result<std::vector<FacetRow>> OwnerFacetsIn(Connection& db, std::string_view owner);
// `doc` as given (content_hash included) with its index row.
Status InsertDocumentIn(Connection& db, const DocumentRow& doc);
// The event with `out.seq`; `out.id` kept when > 0, else assigned (and set).
Status InsertContextEventIn(Connection& db, ContextEventRow& out);
// `t` as given (valid_to 0: current).
Status InsertTriple(Connection& db, const TripleRow& t);

}  // namespace mnemo::storage::internal
