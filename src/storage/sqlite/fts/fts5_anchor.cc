#include "storage/sqlite/fts/fts5_anchor.h"

#include <algorithm>
#include <filesystem>

#include "storage/sqlite/connection.h"
#include "storage/sqlite/fts/fts_tokenizer.h"
#include "storage/sqlite/rows/entry_sql.h"

namespace mnemo::storage::internal {
namespace {

// The query's whitespace-separated words as FTS5 strings joined by OR.
std::string AnchorMatch(std::string_view query) {
  std::vector<std::string> words;
  size_t i = 0;
  while (i < query.size()) {
    const size_t j = std::min(query.size(), query.find_first_of(" \t\n", i));
    if (j > i) words.emplace_back(query.substr(i, j - i));
    i = j + 1;
  }
  return MatchExpression(words);
}

}  // namespace

Fts5Anchor::Fts5Anchor(std::unique_ptr<Connection> db) : db_(std::move(db)) {}
Fts5Anchor::~Fts5Anchor() = default;

Result<std::unique_ptr<Fts5Anchor>> Fts5Anchor::Create(const std::string& path,
                                                       Tokenizer tokenizer) {
  if (std::filesystem::exists(path)) {
    return InvalidArgument("the anchor's database must be new: " + path + " exists", "path");
  }
  MNEMO_ASSIGN_OR_RETURN(std::unique_ptr<Connection> db,
                         Connection::Open(path, /*create=*/true, /*busy_timeout_ms=*/5000));
  MNEMO_RETURN_IF_ERROR(RegisterFtsTokenizer(db->handle()));
  // The page cache and memory map of mnemo's own connections (sqlite_database.cc).
  MNEMO_RETURN_IF_ERROR(
      db->Exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; "
               "PRAGMA cache_size = -32768; PRAGMA mmap_size = 1073741824",
               "configure the anchor's connection"));
  MNEMO_RETURN_IF_ERROR(db->Exec(tokenizer == Tokenizer::kMnemo
                                     ? "CREATE VIRTUAL TABLE anchor USING fts5(content, "
                                       "tokenize='mnemo')"
                                     : "CREATE VIRTUAL TABLE anchor USING fts5(content)",
                                 "create the anchor's table"));
  return std::unique_ptr<Fts5Anchor>(new Fts5Anchor(std::move(db)));
}

Status Fts5Anchor::Insert(std::span<const std::string> texts, int64_t first_rowid) {
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(*db_));
  MNEMO_ASSIGN_OR_RETURN(Statement s, db_->Prepare("INSERT INTO anchor (rowid, content) "
                                                   "VALUES (?, ?)",
                                                   "insert into the anchor"));
  for (size_t i = 0; i < texts.size(); ++i) {
    s.Bind(1, first_rowid + static_cast<int64_t>(i));
    s.Bind(2, std::string_view(texts[i]));
    MNEMO_RETURN_IF_ERROR(s.Run("insert into the anchor"));
    s.Reset();
  }
  return txn.Commit();
}

Result<std::vector<int64_t>> Fts5Anchor::Search(std::string_view query, int k) {
  const std::string match = AnchorMatch(query);
  std::vector<int64_t> out;
  if (match.empty() || k <= 0) return out;
  MNEMO_ASSIGN_OR_RETURN(Statement s, db_->Prepare("SELECT rowid, content FROM anchor WHERE "
                                                   "anchor MATCH ? ORDER BY rank LIMIT ?",
                                                   "search the anchor"));
  s.Bind(1, std::string_view(match));
  s.Bind(2, static_cast<int64_t>(k));
  while (true) {
    MNEMO_ASSIGN_OR_RETURN(bool row, s.Step("search the anchor"));
    if (!row) break;
    out.push_back(s.ColumnInt(0));
    (void)s.ColumnText(1);  // the text, as an application reads it
  }
  return out;
}

}  // namespace mnemo::storage::internal
