// The anchors `mnemo bench` measures keyword search against (issue 22): raw
// SQLite FTS5 on the same texts, as an application would use it without
// mnemo. One ordinary FTS5 table (content stored, document sizes kept),
// rows inserted in one transaction; a query is its whitespace-separated
// words as quoted FTS5 strings joined by OR, ranked by FTS5's built-in bm25
// (`ORDER BY rank`), answering rowid and text of the top k.
//
// Two tokenizers: FTS5's default (unicode61: what an application gets out of
// the box; it splits on spaces and punctuation, so unspaced Chinese text is
// one token per clause and Chinese queries rarely match) and mnemo's own
// (text/pipeline/tokenizer.h), where both index the same terms and the difference is
// everything mnemo adds (scopes and filters, per-caller statistics, its own
// score, whole entries in the answer).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mnemo/status.h"

namespace mnemo::storage::internal {

class Connection;

class Fts5Anchor {
 public:
  enum class Tokenizer { kUnicode61, kMnemo };

  // A new database file at `path` (an existing file is an error).
  static Result<std::unique_ptr<Fts5Anchor>> Create(const std::string& path, Tokenizer tokenizer);
  ~Fts5Anchor();
  Fts5Anchor(const Fts5Anchor&) = delete;
  Fts5Anchor& operator=(const Fts5Anchor&) = delete;

  // Inserts texts[i] as rowid first_rowid + i, all in one transaction.
  Status Insert(std::span<const std::string> texts, int64_t first_rowid);

  // The rowids of the top k rows for `query` (empty when it has no words).
  Result<std::vector<int64_t>> Search(std::string_view query, int k);

 private:
  explicit Fts5Anchor(std::unique_ptr<Connection> db);
  std::unique_ptr<Connection> db_;
};

}  // namespace mnemo::storage::internal
