// Row writes of the PostgreSQL backend inside the caller's write
// (PostgresDatabase::Write: writer lock held): the one statement of each
// kind that the public writes and Restore (stores/postgres_restore.cc) share.
#pragma once

#include <string_view>
#include <vector>

#include "storage/episodic_store.h"
#include "storage/postgres/pg_connection.h"
#include "storage/postgres/sql/pg_text.h"
#include "storage/restore.h"

namespace mnemo::storage::internal {

Result<int64_t> InsertTurnIn(pg::PgConn& conn, const TurnRow& row, std::string_view search_text,
                             const pg::IndexedText& text);
Status PutSegmentIn(pg::PgConn& conn, const SegmentRow& seg);
// StepSegment's read, decision and write for (owner, session).
Result<SegmentChange> StepSegmentIn(pg::PgConn& conn, std::string_view owner,
                                    std::string_view session_id,
                                    const EpisodicStore::SegmentDecision& decide);
Result<bool> AddEventIn(pg::PgConn& conn, const EventRow& e, const pg::IndexedText& text);
Status PutFacetIn(pg::PgConn& conn, const FacetRow& merged);
// Every facet of `owner`, by facet_type and key.
Result<std::vector<FacetRow>> OwnerFacetsIn(pg::PgConn& conn, std::string_view owner);
Status InsertDocumentIn(pg::PgConn& conn, const DocumentRow& doc);
Result<int64_t> InsertContextEventIn(pg::PgConn& conn, const ContextEventRow& row,
                                     const pg::IndexedText& text);
Status InsertTriple(pg::PgConn& conn, const TripleRow& t);

}  // namespace mnemo::storage::internal
