// What `mnemo bench` compares mnemo with: raw SQLite FTS5 on the same texts
// (storage/sqlite/fts5_anchor.h says exactly what the anchor does) and, for
// --backend postgres, raw PostgreSQL full-text search
// (storage/postgres/pg_fts_anchor.h).
#pragma once

#include "storage/postgres/pg_fts_anchor.h"
#include "storage/sqlite/fts5_anchor.h"

namespace mnemo {

using Fts5Anchor = storage::internal::Fts5Anchor;
using PgFtsAnchor = storage::internal::PgFtsAnchor;

}  // namespace mnemo
