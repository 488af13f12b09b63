// The keyword index's text version on SQLite (docs/storage.md, "Keyword
// index version"). FTS5 keeps the tokens of the tokenizer that indexed a
// row; after text::kTextVersion changed, a query's tokens no longer meet the
// stored ones ("deployment" stemmed by Porter2 against Porter's "deploi").
// The version the index was built with is the `text_version` row of
// `generations` (absent: 1, the version before it was recorded).
#pragma once

#include <cstdint>

#include "mnemo/status.h"
#include "storage/sqlite/connection.h"

namespace mnemo::storage::internal {

// When the stored version differs from text::kTextVersion: in one write
// transaction, empties every contentless FTS5 table (entries_fts, turns_fts,
// events_fts, documents_fts, segment_recaps_fts, context_events_fts),
// indexes every row again from the text its table keeps, and records the
// version. Returns the number of rows indexed (0 when the index was
// current). Document lengths are unchanged: stemming keeps the token count.
Result<int64_t> EnsureTextVersion(Connection& db);

}  // namespace mnemo::storage::internal
