#include "storage/sqlite/fts/text_version.h"

#include <optional>
#include <string>
#include <vector>

#include "storage/rules/document_rules.h"
#include "storage/sqlite/fts/fts_rows.h"
#include "storage/sqlite/rows/tags_json.h"
#include "text/pipeline/tokenizer.h"

namespace mnemo::storage::internal {
namespace {

constexpr const char* kWhat = "rebuild the keyword index for a new text version";

// A contentless table with one indexed column, and the rows that feed it.
struct OneColumnSource {
  const char* fts;
  const char* select;  // rowid, text
};

constexpr OneColumnSource kOneColumnSources[] = {
    // A turn's search text is its content where search_text is NULL
    // (StoredSearchText).
    {"turns_fts", "SELECT id, COALESCE(search_text, content) FROM turns"},
    {"events_fts", "SELECT rowid, text FROM events"},
    {"segment_recaps_fts", "SELECT rowid, body FROM segment_recaps"},
    {"context_events_fts", "SELECT id, search_text FROM context_events"},
};

Status EmptyFts(Connection& db, const std::string& table) {
  const std::string sql = "INSERT INTO " + table + "(" + table + ") VALUES ('delete-all')";
  return db.Exec(sql.c_str(), kWhat);
}

Result<int64_t> StoredVersion(Connection& db) {
  MNEMO_ASSIGN_OR_RETURN(
      Statement get,
      db.Prepare("SELECT value FROM generations WHERE name = 'text_version'", kWhat));
  MNEMO_ASSIGN_OR_RETURN(bool row, get.Step(kWhat));
  return row ? get.ColumnInt(0) : int64_t{1};
}

}  // namespace

Result<int64_t> EnsureTextVersion(Connection& db) {
  MNEMO_ASSIGN_OR_RETURN(int64_t stored, StoredVersion(db));
  if (stored == text::kTextVersion) return int64_t{0};
  MNEMO_ASSIGN_OR_RETURN(Transaction tx, Transaction::Begin(db));
  // Another process may have rebuilt it while this one waited for the lock.
  MNEMO_ASSIGN_OR_RETURN(stored, StoredVersion(db));
  if (stored == text::kTextVersion) return int64_t{0};
  int64_t rows = 0;

  MNEMO_RETURN_IF_ERROR(EmptyFts(db, "entries_fts"));
  {
    MNEMO_ASSIGN_OR_RETURN(Statement all,
                           db.Prepare("SELECT rowid, key, content FROM entries", kWhat));
    for (;;) {
      MNEMO_ASSIGN_OR_RETURN(bool row, all.Step(kWhat));
      if (!row) break;
      MNEMO_RETURN_IF_ERROR(
          IndexFtsRow(db, "entries_fts", all.ColumnInt(0),
                      {{"key", all.ColumnText(1)}, {"content", all.ColumnText(2)}})
              .status());
      ++rows;
    }
  }
  for (const OneColumnSource& source : kOneColumnSources) {
    MNEMO_RETURN_IF_ERROR(EmptyFts(db, source.fts));
    MNEMO_ASSIGN_OR_RETURN(Statement all, db.Prepare(source.select, kWhat));
    for (;;) {
      MNEMO_ASSIGN_OR_RETURN(bool row, all.Step(kWhat));
      if (!row) break;
      MNEMO_RETURN_IF_ERROR(
          IndexFtsRow(db, source.fts, all.ColumnInt(0), {{"body", all.ColumnText(1)}}).status());
      ++rows;
    }
  }
  MNEMO_RETURN_IF_ERROR(EmptyFts(db, "documents_fts"));
  {
    MNEMO_ASSIGN_OR_RETURN(
        Statement all,
        db.Prepare("SELECT rowid, search_text, summary, tags FROM documents", kWhat));
    for (;;) {
      MNEMO_ASSIGN_OR_RETURN(bool row, all.Step(kWhat));
      if (!row) break;
      const std::optional<std::vector<std::string>> tags = DecodeTags(all.ColumnText(3));
      if (!tags) return Internal("a document's tags are not a JSON array of strings");
      const std::string tags_text = TagsText(*tags);
      MNEMO_RETURN_IF_ERROR(
          IndexFtsRow(
              db, "documents_fts", all.ColumnInt(0),
              {{"body", all.ColumnText(1)}, {"summary", all.ColumnText(2)}, {"tags", tags_text}})
              .status());
      ++rows;
    }
  }

  MNEMO_ASSIGN_OR_RETURN(
      Statement put, db.Prepare("INSERT INTO generations (name, value) VALUES ('text_version', ?) "
                                "ON CONFLICT (name) DO UPDATE SET value = excluded.value",
                                kWhat));
  put.Bind(1, text::kTextVersion);
  MNEMO_RETURN_IF_ERROR(put.Run(kWhat));
  MNEMO_RETURN_IF_ERROR(tx.Commit());
  return rows;
}

}  // namespace mnemo::storage::internal
