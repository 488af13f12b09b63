#include "mnemo/bench_anchor.h"

#include <utility>

#include "storage/postgres/sql/pg_fts_anchor.h"
#include "storage/sqlite/fts/fts5_anchor.h"

namespace mnemo {
namespace {

// The public anchors over storage's own (Insert and Search of the same shape).
template <typename Public, typename Anchor>
class AnchorOver : public Public {
 public:
  explicit AnchorOver(std::unique_ptr<Anchor> anchor) : anchor_(std::move(anchor)) {}

  Status Insert(std::span<const std::string> texts, int64_t first_rowid) override {
    return anchor_->Insert(texts, first_rowid);
  }

  Result<std::vector<int64_t>> Search(std::string_view query, int k) override {
    return anchor_->Search(query, k);
  }

 protected:
  Anchor& anchor() { return *anchor_; }

 private:
  std::unique_ptr<Anchor> anchor_;
};

class PgAnchorOver final : public AnchorOver<PgFtsAnchor, storage::internal::PgFtsAnchor> {
 public:
  using AnchorOver::AnchorOver;
  Result<int64_t> CountMatches(std::string_view query) override {
    return anchor().CountMatches(query);
  }
};

}  // namespace

Result<std::unique_ptr<Fts5Anchor>> Fts5Anchor::Create(const std::string& path,
                                                       Tokenizer tokenizer) {
  using Storage = storage::internal::Fts5Anchor;
  MNEMO_ASSIGN_OR_RETURN(
      std::unique_ptr<Storage> anchor,
      Storage::Create(path, tokenizer == Tokenizer::kMnemo ? Storage::Tokenizer::kMnemo
                                                           : Storage::Tokenizer::kUnicode61));
  return std::unique_ptr<Fts5Anchor>(
      std::make_unique<AnchorOver<Fts5Anchor, Storage>>(std::move(anchor)));
}

Result<std::unique_ptr<PgFtsAnchor>> PgFtsAnchor::Create(const std::string& url,
                                                         const std::string& schema, Terms terms) {
  using Storage = storage::internal::PgFtsAnchor;
  MNEMO_ASSIGN_OR_RETURN(
      std::unique_ptr<Storage> anchor,
      Storage::Create(url, schema,
                      terms == Terms::kMnemo ? Storage::Terms::kMnemo : Storage::Terms::kSimple));
  return std::unique_ptr<PgFtsAnchor>(std::make_unique<PgAnchorOver>(std::move(anchor)));
}

}  // namespace mnemo
