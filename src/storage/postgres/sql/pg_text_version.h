// The keyword index's text version on PostgreSQL, as on SQLite
// (sqlite/fts/text_version.h): every `tsv` column holds the tokens mnemo's
// tokenizer made when the row was written, so after text::kTextVersion
// changed they are rebuilt. The version is the `text_version` row of the
// schema's `generations` (absent: 1).
#pragma once

#include <cstdint>
#include <string>

#include "mnemo/status.h"
#include "storage/postgres/pg_connection.h"

namespace mnemo::storage::internal::pg {

// When the stored version differs from text::kTextVersion: in one
// transaction (under the schema's migration lock), recomputes `tsv` of
// every row of entries, turns, events, documents, segment_recaps and
// context_events from the text the row keeps, and records the version.
// Returns the number of rows rebuilt (0 when current). Document lengths and
// text_stats are unchanged: stemming keeps the token count.
Result<int64_t> EnsureTextVersion(PgConn& conn, const std::string& schema);

}  // namespace mnemo::storage::internal::pg
