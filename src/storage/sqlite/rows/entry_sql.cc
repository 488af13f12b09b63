#include "storage/sqlite/rows/entry_sql.h"

#include <bit>
#include <cstring>

#include "storage/sqlite/rows/tags_json.h"

namespace mnemo::storage::internal {

Entry ReadEntry(const Statement& s, int first) {
  Entry e;
  e.id = s.ColumnText(first + 0);
  e.owner = s.ColumnText(first + 1);
  e.ns = s.ColumnText(first + 2);
  e.key = s.ColumnText(first + 3);
  e.content = s.ColumnText(first + 4);
  e.category = s.ColumnText(first + 5);
  e.tags = DecodeTags(s.ColumnText(first + 6)).value_or(std::vector<std::string>());
  e.visibility = s.ColumnText(first + 7) == "public" ? Visibility::kPublic : Visibility::kPrivate;
  e.created_at = s.ColumnInt(first + 8);
  e.updated_at = s.ColumnInt(first + 9);
  e.access_count = s.ColumnInt(first + 10);
  e.useful_count = s.ColumnInt(first + 11);
  e.archived = s.ColumnInt(first + 12) != 0;
  return e;
}

void AddScope(const ReadScope& scope, SqlFilter& f) {
  if (scope.all) return;
  f.where += " AND (e.owner = ? OR e.visibility = 'public')";
  f.params.push_back(scope.principal);
}

namespace {

// The scope over `entries_search e`: as AddScope.
void AddSearchScope(const ReadScope& scope, SqlFilter& f) {
  if (scope.all) return;
  f.where += " AND (e.owner_id = (SELECT id FROM entry_owners WHERE owner = ?) OR e.flags & " +
             std::to_string(kSearchFlagPublic) + " <> 0)";
  f.params.push_back(scope.principal);
}

// updated_at in [since, until): a column of both `entries` and entries_search.
void AddTimeRange(const EntryFilter& filter, SqlFilter& f) {
  if (filter.since) {
    f.where += " AND e.updated_at >= CAST(? AS INTEGER)";
    f.params.push_back(std::to_string(*filter.since));
  }
  if (filter.until) {
    f.where += " AND e.updated_at < CAST(? AS INTEGER)";
    f.params.push_back(std::to_string(*filter.until));
  }
}

void SystemNamespace(sqlite3_context* ctx, int /*argc*/, sqlite3_value** argv) {
  const auto* text = reinterpret_cast<const char*>(sqlite3_value_text(argv[0]));
  const auto bytes = static_cast<size_t>(sqlite3_value_bytes(argv[0]));
  sqlite3_result_int(ctx, IsSystemNamespace(std::string_view(text == nullptr ? "" : text, bytes)));
}

}  // namespace

FtsScope EntryFtsScope(const ReadScope& scope) {
  FtsScope out{
      .fts = "entries_fts", .table = "entries_search e", .alias = "e", .rowid_column = "e.rowid"};
  SqlFilter f{"1", {}};
  AddSearchScope(scope, f);
  if (!scope.all) {
    out.where = f.where;
    out.params = std::move(f.params);
    // Own entries plus public ones, less own public ones counted twice.
    out.corpus_sql =
        "SELECT COALESCE(o.entries, 0) + p.n - COALESCE(o.public_entries, 0), "
        "COALESCE(o.tokens, 0) + p.t - COALESCE(o.public_tokens, 0) "
        "FROM (SELECT COALESCE(sum(public_entries), 0) AS n, COALESCE(sum(public_tokens), 0) "
        "AS t FROM entry_owners) p LEFT JOIN entry_owners o ON o.owner = ?";
  }
  return out;
}

Status RegisterEntryFunctions(sqlite3* db) {
  const int rc = sqlite3_create_function(db, "mnemo_system_namespace", 1,
                                         SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
                                         nullptr, SystemNamespace, nullptr, nullptr);
  return rc == SQLITE_OK ? Status::Ok() : SqliteStatus(rc, "register mnemo_system_namespace");
}

std::optional<SqlFilter> BuildSearchFilter(const EntryFilter& filter) {
  if (filter.category || filter.ns || filter.ns_prefix || !filter.tags.empty()) {
    return std::nullopt;
  }
  SqlFilter f{"1", {}};
  AddSearchScope(filter.scope, f);
  int excluded = kSearchFlagSystem;
  if (!filter.include_archived) excluded |= kSearchFlagArchived;
  f.where += " AND e.flags & " + std::to_string(excluded) + " = 0";
  AddTimeRange(filter, f);
  return f;
}

SqlFilter BuildFilter(const EntryFilter& filter) {
  SqlFilter f{"1", {}};
  AddScope(filter.scope, f);
  if (!filter.include_archived) f.where += " AND e.archived = 0";
  if (filter.category) {
    f.where += " AND e.category = ?";
    f.params.push_back(*filter.category);
  }
  if (filter.ns) {
    f.where += " AND e.namespace = ?";
    f.params.push_back(*filter.ns);
  } else {
    f.where += " AND NOT mnemo_system_namespace(e.namespace)";
  }
  if (filter.ns_prefix) {
    // substr, not LIKE or GLOB: no pattern characters, and case-sensitive.
    f.where += " AND substr(e.namespace, 1, length(?)) = ?";
    f.params.push_back(*filter.ns_prefix);
    f.params.push_back(*filter.ns_prefix);
  }
  for (const std::string& tag : filter.tags) {
    f.where += " AND EXISTS (SELECT 1 FROM json_each(e.tags) WHERE json_each.value = ?)";
    f.params.push_back(tag);
  }
  AddTimeRange(filter, f);
  return f;
}

std::string LabelsJson(std::span<const Label> labels) {
  std::string out = "[";
  for (Label label : labels) {
    if (out.size() > 1) out += ',';
    out += std::to_string(label);
  }
  out += ']';
  return out;
}

int BindFilter(Statement& s, const SqlFilter& f, int next) {
  for (const std::string& p : f.params) s.Bind(next++, p);
  return next;
}

std::string MatchExpression(const std::vector<std::string>& terms) {
  std::string out;
  for (const std::string& t : terms) {
    if (!out.empty()) out += " OR ";
    out += '"';
    for (const char c : t) {
      if (c == '"') out += '"';
      out += c;
    }
    out += '"';
  }
  return out;
}

// The stored form of a vector: float32 little-endian. On a little-endian host
// (every one mnemo builds on today) these are the floats' own bytes; `buffer`
// holds a byte-swapped copy elsewhere.
std::string_view EncodeVector(std::span<const float> v, std::string& buffer) {
  const std::string_view bytes(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
  if constexpr (std::endian::native == std::endian::little) return bytes;
  buffer.assign(bytes);
  for (size_t i = 0; i < buffer.size(); i += 4) {
    std::swap(buffer[i], buffer[i + 3]);
    std::swap(buffer[i + 1], buffer[i + 2]);
  }
  return buffer;
}

std::vector<float> DecodeVector(std::string_view blob) {
  std::vector<float> v(blob.size() / sizeof(float));
  if (v.empty()) return v;  // memcpy with a null pointer is undefined, even for 0 bytes
  std::memcpy(v.data(), blob.data(), v.size() * sizeof(float));
  if constexpr (std::endian::native != std::endian::little) {
    for (float& f : v) f = std::bit_cast<float>(__builtin_bswap32(std::bit_cast<uint32_t>(f)));
  }
  return v;
}

}  // namespace mnemo::storage::internal
