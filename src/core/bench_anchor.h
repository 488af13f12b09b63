// What `mnemo bench` compares mnemo with: raw SQLite FTS5 on the same texts
// (storage/sqlite/fts5_anchor.h says exactly what the anchor does).
#pragma once

#include "storage/sqlite/fts5_anchor.h"

namespace mnemo {

using Fts5Anchor = storage::internal::Fts5Anchor;

}  // namespace mnemo
