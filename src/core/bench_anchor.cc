#include "core/bench_anchor.h"

#include <utility>

#include "storage/postgres/pg_fts_anchor.h"
#include "storage/sqlite/fts5_anchor.h"

namespace mnemo {

Result<std::unique_ptr<Fts5Anchor>> Fts5Anchor::Create(const std::string& path,
                                                       Tokenizer tokenizer) {
  using Storage = storage::internal::Fts5Anchor;
  MNEMO_ASSIGN_OR_RETURN(
      std::unique_ptr<Storage> anchor,
      Storage::Create(path, tokenizer == Tokenizer::kMnemo ? Storage::Tokenizer::kMnemo
                                                           : Storage::Tokenizer::kUnicode61));
  return std::unique_ptr<Fts5Anchor>(new Fts5Anchor(std::move(anchor)));
}

Fts5Anchor::Fts5Anchor(std::unique_ptr<storage::internal::Fts5Anchor> anchor)
    : anchor_(std::move(anchor)) {}

Fts5Anchor::~Fts5Anchor() = default;

Status Fts5Anchor::Insert(std::span<const std::string> texts, int64_t first_rowid) {
  return anchor_->Insert(texts, first_rowid);
}

Result<std::vector<int64_t>> Fts5Anchor::Search(std::string_view query, int k) {
  return anchor_->Search(query, k);
}

Result<std::unique_ptr<PgFtsAnchor>> PgFtsAnchor::Create(const std::string& url,
                                                         const std::string& schema) {
  MNEMO_ASSIGN_OR_RETURN(std::unique_ptr<storage::internal::PgFtsAnchor> anchor,
                         storage::internal::PgFtsAnchor::Create(url, schema));
  return std::unique_ptr<PgFtsAnchor>(new PgFtsAnchor(std::move(anchor)));
}

PgFtsAnchor::PgFtsAnchor(std::unique_ptr<storage::internal::PgFtsAnchor> anchor)
    : anchor_(std::move(anchor)) {}

PgFtsAnchor::~PgFtsAnchor() = default;

Status PgFtsAnchor::Insert(std::span<const std::string> texts, int64_t first_rowid) {
  return anchor_->Insert(texts, first_rowid);
}

Result<std::vector<int64_t>> PgFtsAnchor::Search(std::string_view query, int k) {
  return anchor_->Search(query, k);
}

}  // namespace mnemo
