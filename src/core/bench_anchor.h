// What `mnemo bench` compares mnemo with: raw SQLite FTS5 on the same texts
// (storage/sqlite/fts5_anchor.h says exactly what the anchor does) and, for
// --backend postgres, raw PostgreSQL full-text search
// (storage/postgres/pg_fts_anchor.h). The
// bench's seam into storage: it names no storage type, so the CLI reaches
// the anchor without including a storage header.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mnemo/status.h"

namespace mnemo {

namespace storage::internal {
class Fts5Anchor;
class PgFtsAnchor;
}  // namespace storage::internal

class Fts5Anchor {
 public:
  // FTS5's default tokenizer (what an application gets out of the box) or
  // mnemo's own (text/tokenizer.h).
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
  explicit Fts5Anchor(std::unique_ptr<storage::internal::Fts5Anchor> anchor);
  std::unique_ptr<storage::internal::Fts5Anchor> anchor_;
};

class PgFtsAnchor {
 public:
  // A new schema `schema` on the server at `url` (an existing one is an error).
  static Result<std::unique_ptr<PgFtsAnchor>> Create(const std::string& url,
                                                     const std::string& schema);
  ~PgFtsAnchor();
  PgFtsAnchor(const PgFtsAnchor&) = delete;
  PgFtsAnchor& operator=(const PgFtsAnchor&) = delete;

  // Inserts texts[i] as id first_rowid + i, then builds the index.
  Status Insert(std::span<const std::string> texts, int64_t first_rowid);

  // The ids of the top k rows for `query` (empty when it has no words).
  Result<std::vector<int64_t>> Search(std::string_view query, int k);

 private:
  explicit PgFtsAnchor(std::unique_ptr<storage::internal::PgFtsAnchor> anchor);
  std::unique_ptr<storage::internal::PgFtsAnchor> anchor_;
};

}  // namespace mnemo
