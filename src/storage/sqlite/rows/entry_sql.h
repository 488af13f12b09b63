// SQL pieces over the `entries` table shared by the entry and the vector half
// of the SQLite backend: the entry columns and their reader, the WHERE
// fragment of an EntryFilter, and the FTS5 MATCH expression of query terms.
// One place, so every statement filters and matches the same way.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "storage/entry_store.h"
#include "storage/sqlite/connection.h"
#include "storage/sqlite/fts/fts_rank.h"

namespace mnemo::storage::internal {

// The columns ReadEntry expects, in order, from `entries e`.
inline constexpr const char* kEntryColumns =
    "e.id, e.owner, e.namespace, e.key, e.content, e.category, e.tags, e.visibility, "
    "e.created_at, e.updated_at, e.access_count, e.useful_count, e.archived";
inline constexpr int kEntryColumnCount = 13;

// The entry in kEntryColumns starting at column `first`.
Entry ReadEntry(const Statement& s, int first = 0);

// A WHERE fragment over `entries e` and its text parameters, bound in order
// to plain `?` placeholders.
struct SqlFilter {
  std::string where;
  std::vector<std::string> params;
};

// Appends the read-scope condition to `f`.
void AddScope(const ReadScope& scope, SqlFilter& f);

// entries_search.flags (schema v13, migrations.cc spells them as numbers).
inline constexpr int kSearchFlagArchived = 1;
inline constexpr int kSearchFlagPublic = 2;
inline constexpr int kSearchFlagSystem = 4;  // a system namespace (IsSystemNamespace)

// Registers mnemo_system_namespace(ns), IsSystemNamespace in SQL: the
// entries_search triggers and BuildFilter call it.
Status RegisterEntryFunctions(sqlite3* db);

// `filter` over the narrow `entries_search e` rows (schema v13), when it
// reads nothing they lack: no category, namespace, namespace prefix or tags.
std::optional<SqlFilter> BuildSearchFilter(const EntryFilter& filter);

// The entries `scope` may read, for the keyword statistics of mnemo_score:
// its own and public ones (every entry when `scope.all`).
FtsScope EntryFtsScope(const ReadScope& scope);

// Every part of `filter` (scope included), as MatchesFilter in entry_rules.h.
SqlFilter BuildFilter(const EntryFilter& filter);

// Binds `f.params` from index `next` on; returns the next free index.
int BindFilter(Statement& s, const SqlFilter& f, int next);

// `[1,2,3]`: a label list bound as one parameter and read with json_each, so
// a batch is one statement whatever its size.
std::string LabelsJson(std::span<const Label> labels);

// `"t1" OR "t2"`: each term one FTS5 string (quotes doubled), so no term can
// be read as FTS5 syntax and each is one phrase of the score.
std::string MatchExpression(const std::vector<std::string>& terms);

// Float vectors as BLOBs (entry_vectors.vector, segments.centroid): float32
// little-endian. EncodeVector returns the floats' own bytes on a
// little-endian host, else a byte-swapped copy kept in `buffer`.
std::string_view EncodeVector(std::span<const float> v, std::string& buffer);
std::vector<float> DecodeVector(std::string_view blob);

}  // namespace mnemo::storage::internal
