// What `mnemo bench` compares mnemo with: raw SQLite FTS5 on the same texts
// (storage/sqlite/fts/fts5_anchor.h says exactly what the anchor does) and, for
// --backend postgres, raw PostgreSQL full-text search, with PostgreSQL's
// 'simple' words or with mnemo's own terms (storage/postgres/sql/pg_fts_anchor.h). The bench's seam
// into storage: the CLI reaches the anchors through this header, storage implements them
// (src/storage/bench_anchor.cc), and neither names the other's types.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mnemo/status.h"

// libmnemo is built with hidden visibility: it exports what include/mnemo
// declares, and nothing else (docs/architecture.md, "Target graph").
#pragma GCC visibility push(default)

namespace mnemo {

class Fts5Anchor {
 public:
  // FTS5's default tokenizer (what an application gets out of the box) or
  // mnemo's own (text/pipeline/tokenizer.h).
  enum class Tokenizer { kUnicode61, kMnemo };

  // A new database file at `path` (an existing file is an error).
  static Result<std::unique_ptr<Fts5Anchor>> Create(const std::string& path, Tokenizer tokenizer);
  virtual ~Fts5Anchor() = default;

  // Inserts texts[i] as rowid first_rowid + i, all in one transaction.
  virtual Status Insert(std::span<const std::string> texts, int64_t first_rowid) = 0;

  // The rowids of the top k rows for `query` (empty when it has no words).
  virtual Result<std::vector<int64_t>> Search(std::string_view query, int k) = 0;
};

class PgFtsAnchor {
 public:
  // The text's and the query's whitespace-separated words as PostgreSQL's
  // 'simple' configuration gives them (what an application gets out of the
  // box), or the terms mnemo itself indexes and searches.
  enum class Terms { kSimple, kMnemo };

  // A new schema `schema` on the server at `url` (an existing one is an error).
  static Result<std::unique_ptr<PgFtsAnchor>> Create(const std::string& url,
                                                     const std::string& schema, Terms terms);
  virtual ~PgFtsAnchor() = default;

  // Inserts texts[i] as id first_rowid + i, then builds the index.
  virtual Status Insert(std::span<const std::string> texts, int64_t first_rowid) = 0;

  // The ids of the top k rows for `query` (empty when it has no words).
  virtual Result<std::vector<int64_t>> Search(std::string_view query, int k) = 0;

  // How many rows match `query`, all of them (0 when it has no terms).
  virtual Result<int64_t> CountMatches(std::string_view query) = 0;
};

}  // namespace mnemo

#pragma GCC visibility pop
