// SQLite-only parts of the vector storage: migration of a version-1 database,
// the persisted format, and (disabled) throughput measurements.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "storage/sqlite/fts/fts_rank.h"
#include "storage/sqlite/fts/fts_tokenizer.h"
#include "storage/sqlite/migrations.h"
#include "storage/sqlite/rows/entry_sql.h"
#include "storage/sqlite/sqlite_backend.h"
#include "storage/temp_dir.h"
#include "storage/test_values.h"
#include "text/pipeline/query.h"

namespace mnemo::storage::internal {
namespace {

using ::testing::ElementsAre;

std::unique_ptr<internal::SqliteBackend> Open(const std::string& path) {
  auto r = internal::SqliteBackend::Open({.path = path, .readers = 2});
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(r).value() : nullptr;
}

std::unique_ptr<Connection> OpenRaw(const std::string& path) {
  auto conn = Connection::Open(path, /*create=*/true, 1000);
  EXPECT_TRUE(conn.ok()) << conn.status().ToString();
  if (!conn.ok()) return nullptr;
  EXPECT_TRUE(RegisterFtsTokenizer((*conn)->handle()).ok());
  EXPECT_TRUE(RegisterEntryFunctions((*conn)->handle()).ok());
  return std::move(conn).value();
}

TEST(SqliteVectors, AVersion1DatabaseMigratesToVersion2WithItsEntries) {
  testing::TempDir dir;
  const std::string path = dir.File("mnemo.db");
  {
    auto conn = OpenRaw(path);
    ASSERT_NE(conn, nullptr);
    auto v = Migrate(*conn, SchemaMigrations().first(1));
    ASSERT_TRUE(v.ok()) << v.status().ToString();
    ASSERT_EQ(*v, 1);
    // What version 1 wrote for one entry: its row and its FTS5 row.
    ASSERT_TRUE(conn->Exec("INSERT INTO entries (rowid, id, owner, namespace, key, content, "
                           "category, created_at, updated_at, doc_length) VALUES (7, 'id-7', "
                           "'local', 'global', 'editor', 'prefers helix', 'core', 1, 2, 3); "
                           "INSERT INTO entries_fts (rowid, key, content) "
                           "VALUES (7, 'editor', 'prefers helix')",
                           "write a version-1 entry")
                    .ok());
  }
  auto b = Open(path);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->schema_version(), internal::LatestSchemaVersion());
  auto e = b->entries().FindExact("local", TestNamespace("global"), TestKey("editor"));
  ASSERT_TRUE(e.ok() && e->has_value());
  EXPECT_EQ((*e)->id, "id-7");
  auto hits = b->entries().KeywordSearch({.terms = text::QueryTerms("helix")});
  ASSERT_TRUE(hits.ok());
  ASSERT_EQ(hits->size(), 1u);
  EXPECT_EQ((*hits)[0].label, 7);
  auto missing = b->entries().MissingVectors("s", 0, 10);
  ASSERT_TRUE(missing.ok());
  ASSERT_EQ(missing->size(), 1u);
  EXPECT_EQ((*missing)[0].label, 7);
  ASSERT_TRUE(b->entries().PutVectors("s", std::vector<LabeledVector>{{7, {1, 2}}}).ok());
  auto created = b->entries().Upsert({.key = "new", .content = "text"});
  ASSERT_TRUE(created.ok());
  EXPECT_EQ(created->label, 8);
}

TEST(SqliteVectors, VectorsSurviveReopenAsLittleEndianFloat32) {
  testing::TempDir dir;
  const std::string path = dir.File("mnemo.db");
  Label a = 0;
  Label b = 0;
  int64_t watermark = 0;
  {
    auto backend = Open(path);
    ASSERT_NE(backend, nullptr);
    a = backend->entries().Upsert({.key = "a", .content = "one"})->label;
    b = backend->entries().Upsert({.key = "b", .content = "two"})->label;
    ASSERT_TRUE(backend->entries()
                    .PutVectors("s", std::vector<LabeledVector>{{b, {1, -2, 0.5f}}, {a, {0, 0, 3}}})
                    .ok());
    watermark = *backend->entries().VectorWatermark("s");
  }
  auto backend = Open(path);
  ASSERT_NE(backend, nullptr);
  std::vector<LabeledVector> all;
  ASSERT_TRUE(backend->entries()
                  .ForEachVector("s",
                                 [&](const LabeledVector& v) {
                                   all.push_back(v);
                                   return Status::Ok();
                                 })
                  .ok());
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].label, a);
  EXPECT_THAT(all[1].vector, ElementsAre(1, -2, 0.5f));
  EXPECT_EQ(*backend->entries().VectorWatermark("s"), watermark);

  auto conn = OpenRaw(path);
  ASSERT_NE(conn, nullptr);
  auto s = conn->Prepare("SELECT dim, vector FROM entry_vectors WHERE label = ?", "read");
  ASSERT_TRUE(s.ok());
  s->Bind(1, b);
  auto row = s->Step("read");
  ASSERT_TRUE(row.ok() && *row);
  EXPECT_EQ(s->ColumnInt(0), 3);
  const std::string_view blob = s->ColumnBlob(1);
  // 1.0f, -2.0f, 0.5f as IEEE-754 little-endian.
  const unsigned char expected[] = {0x00, 0x00, 0x80, 0x3f, 0x00, 0x00,
                                    0x00, 0xc0, 0x00, 0x00, 0x00, 0x3f};
  ASSERT_EQ(blob.size(), sizeof(expected));
  EXPECT_EQ(std::memcmp(blob.data(), expected, sizeof(expected)), 0);
}

double SecondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Throughput, not a test: run by hand with
//   storage_tests --gtest_also_run_disabled_tests --gtest_filter='*DISABLED_Vector*'
TEST(SqliteVectors, DISABLED_VectorThroughputAt100k) {
  testing::TempDir dir;
  auto b = Open(dir.File("mnemo.db"));
  ASSERT_NE(b, nullptr);
  constexpr int kEntries = 100000;
  constexpr int kDim = 384;
  constexpr int kVocabulary = 20000;
  // ~200 bytes of Zipf-distributed made-up words per entry, like
  // DISABLED_ThroughputOf100kImportAndKeywordSearch.
  uint64_t seed = 42;
  auto next = [&] {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return seed >> 11;
  };
  const char* syllables[] = {"ka", "lo", "mi", "ne", "ru", "sa",
                             "ti", "vo", "ze", "pa", "do", "gu"};
  std::vector<std::string> vocabulary;
  for (int i = 0; i < kVocabulary; ++i) {
    std::string w;
    for (int n = i; w.size() < 4 || n > 0; n /= 12) w += syllables[n % 12];
    vocabulary.push_back(w);
  }
  std::vector<double> cumulative;
  double total = 0;
  for (int i = 0; i < kVocabulary; ++i) cumulative.push_back(total += 1.0 / (i + 1));
  auto word = [&]() -> const std::string& {
    const double u = static_cast<double>(next() % 1000000007) / 1000000007.0 * total;
    return vocabulary[std::lower_bound(cumulative.begin(), cumulative.end(), u) -
                      cumulative.begin()];
  };
  std::vector<EntryWrite> writes;
  for (int i = 0; i < kEntries; ++i) {
    std::string content;
    while (content.size() < 200) content += word() + " ";
    EntryWrite write{.key = "entry_" + std::to_string(i), .content = content, .now = 1000 + i};
    write.category = i % 10 == 0 ? "daily" : "core";
    writes.push_back(std::move(write));
  }
  auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(b->entries().UpsertBatch(writes).ok());
  std::printf("import %d entries: %.2f s\n", kEntries, SecondsSince(t0));

  std::vector<LabeledVector> vectors;
  vectors.reserve(kEntries);
  for (Label label = 1; label <= kEntries; ++label) {
    std::vector<float> v(kDim);
    for (int d = 0; d < kDim; ++d) v[d] = static_cast<float>((label * 31 + d) % 97) / 97.0f;
    vectors.push_back({label, std::move(v)});
  }
  t0 = std::chrono::steady_clock::now();
  Status put = b->entries().PutVectors("hash-v1-384", vectors);
  ASSERT_TRUE(put.ok()) << put.ToString();
  std::printf("PutVectors %d x %d floats, one call: %.2f s\n", kEntries, kDim, SecondsSince(t0));
  vectors.clear();

  t0 = std::chrono::steady_clock::now();
  int64_t seen = 0;
  ASSERT_TRUE(b->entries()
                  .ForEachVector("hash-v1-384",
                                 [&](const LabeledVector&) {
                                   ++seen;
                                   return Status::Ok();
                                 })
                  .ok());
  std::printf("ForEachVector %lld vectors: %.2f s\n", static_cast<long long>(seen),
              SecondsSince(t0));

  t0 = std::chrono::steady_clock::now();
  auto changes = b->entries().VectorChangesSince("hash-v1-384", 0, kEntries);
  ASSERT_TRUE(changes.ok());
  std::printf("VectorChangesSince(0) %zu changes: %.2f s\n", changes->size(), SecondsSince(t0));

  t0 = std::chrono::steady_clock::now();
  auto missing = b->entries().CountMissingVectors("other");
  ASSERT_TRUE(missing.ok());
  std::printf("CountMissingVectors (all %lld missing): %.3f s\n", static_cast<long long>(*missing),
              SecondsSince(t0));

  std::vector<double> ms;
  std::vector<double> keyword_ms;
  for (int q = 0; q < 200; ++q) {
    std::vector<Label> labels;
    for (int i = 0; i < 200; ++i) labels.push_back(static_cast<Label>(next() % kEntries) + 1);
    const auto terms = text::QueryTerms(word() + " " + word());
    const EntryFilter filter{.category =
                                 q % 2 == 0 ? std::optional<std::string>("core") : std::nullopt};
    auto s0 = std::chrono::steady_clock::now();
    auto hits = b->entries().FetchByLabels(labels, filter, terms);
    ms.push_back(SecondsSince(s0) * 1000);
    ASSERT_TRUE(hits.ok());
    s0 = std::chrono::steady_clock::now();
    auto keyword = b->entries().KeywordSearch({.terms = terms, .filter = filter, .limit = 10});
    keyword_ms.push_back(SecondsSince(s0) * 1000);
    ASSERT_TRUE(keyword.ok());
  }
  std::sort(keyword_ms.begin(), keyword_ms.end());
  std::printf("KeywordSearch of the same queries: p50 %.2f ms, p95 %.2f ms\n",
              keyword_ms[keyword_ms.size() / 2], keyword_ms[keyword_ms.size() * 95 / 100]);
  std::sort(ms.begin(), ms.end());
  std::printf("FetchByLabels 200 labels, 2 terms: p50 %.2f ms, p95 %.2f ms\n", ms[ms.size() / 2],
              ms[ms.size() * 95 / 100]);

  ms.clear();
  for (int q = 0; q < 50; ++q) {
    const auto s0 = std::chrono::steady_clock::now();
    auto labels = b->entries().MatchingLabels({.category = "daily"}, 5000);
    ms.push_back(SecondsSince(s0) * 1000);
    ASSERT_TRUE(labels.ok());
  }
  std::sort(ms.begin(), ms.end());
  std::printf("MatchingLabels, 5 000 of 10%% of 100k: p50 %.2f ms\n", ms[ms.size() / 2]);
}

}  // namespace
}  // namespace mnemo::storage::internal
