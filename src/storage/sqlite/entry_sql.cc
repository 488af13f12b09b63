#include "storage/sqlite/entry_sql.h"

#include <bit>
#include <cstring>

#include "storage/sqlite/tags_json.h"

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

FtsScope EntryFtsScope(const ReadScope& scope) {
  FtsScope out{.fts = "entries_fts", .table = "entries e", .alias = "e", .rowid_column = "e.rowid"};
  SqlFilter f{"1", {}};
  AddScope(scope, f);
  if (!scope.all) {
    out.where = f.where;
    out.params = std::move(f.params);
  }
  return out;
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
    // GLOB, not LIKE: LIKE ignores case and would hide "Tool-x" as well.
    f.where +=
        " AND e.namespace NOT GLOB 'tool-*' AND e.namespace NOT IN ('tool_effectiveness', "
        "'tool_registry')";
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
  if (filter.since) {
    f.where += " AND e.updated_at >= CAST(? AS INTEGER)";
    f.params.push_back(std::to_string(*filter.since));
  }
  if (filter.until) {
    f.where += " AND e.updated_at < CAST(? AS INTEGER)";
    f.params.push_back(std::to_string(*filter.until));
  }
  return f;
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
