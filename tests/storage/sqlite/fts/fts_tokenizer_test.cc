#include "storage/sqlite/fts/fts_tokenizer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "storage/rules/bm25.h"
#include "storage/sqlite/connection.h"
#include "storage/sqlite/fts/fts_rank.h"
#include "text/pipeline/tokenizer.h"

namespace mnemo::storage::internal {
namespace {

class FtsTokenizer : public ::testing::Test {
 protected:
  void SetUp() override {
    auto conn = Connection::Open(":memory:", true, 1000);
    ASSERT_TRUE(conn.ok());
    conn_ = std::move(conn).value();
    ASSERT_TRUE(RegisterFtsTokenizer(conn_->handle()).ok());
    ASSERT_TRUE(RegisterFtsRank(conn_->handle()).ok());
    ASSERT_TRUE(conn_
                    ->Exec("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='mnemo');"
                           "CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance');",
                           "create")
                    .ok());
  }

  void Insert(const std::string& text) {
    auto s = conn_->Prepare("INSERT INTO t (x) VALUES (?)", "insert");
    ASSERT_TRUE(s.ok());
    s->Bind(1, text);
    ASSERT_TRUE(s->Run("insert").ok());
  }

  std::vector<std::string> Column(const std::string& sql, const std::string& arg = "") {
    auto s = conn_->Prepare(sql, "query");
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    std::vector<std::string> out;
    if (!s.ok()) return out;
    if (!arg.empty()) s->Bind(1, arg);
    while (true) {
      auto row = s->Step("query");
      EXPECT_TRUE(row.ok()) << row.status().ToString();
      if (!row.ok() || !*row) break;
      out.emplace_back(s->ColumnText(0));
    }
    return out;
  }

  std::unique_ptr<Connection> conn_;
};

TEST_F(FtsTokenizer, IndexesExactlyTheTextPipelinesTokens) {
  const std::string text = "服务器上的 deploy.py sends Emails to Sarah; تسترجع الذكريات";
  Insert(text);
  std::vector<std::string> indexed = Column("SELECT term FROM v ORDER BY offset, term");
  std::vector<std::string> expected = text::TokenizeToStrings(text);
  std::sort(indexed.begin(), indexed.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(indexed, expected);
}

TEST_F(FtsTokenizer, CountsOnlyNonColocatedTokensAsLength) {
  const std::string text = "send_email deploy.py 服务器上的";
  Insert(text);
  // A colocated token shares the offset of the token before it.
  auto len = Column("SELECT COUNT(DISTINCT offset) FROM v");
  ASSERT_EQ(len.size(), 1u);
  EXPECT_EQ(std::stoi(len[0]), text::DocumentLength(text));
}

TEST_F(FtsTokenizer, PassesAQueryTermOnVerbatim) {
  Insert("Hello World");
  const auto tokens = text::TokenizeToStrings("Hello");
  ASSERT_FALSE(tokens.empty());
  // The normalised token matches; the raw word is not re-normalised.
  EXPECT_EQ(Column("SELECT rowid FROM t WHERE t MATCH ?", "\"" + tokens[0] + "\"").size(), 1u);
  if (tokens[0] != "Hello") {
    EXPECT_TRUE(Column("SELECT rowid FROM t WHERE t MATCH ?", "\"Hello\"").empty());
  }
  // A term with a space is one token, not a phrase of two.
  EXPECT_TRUE(Column("SELECT rowid FROM t WHERE t MATCH ?", "\"hello world\"").empty());
}

TEST_F(FtsTokenizer, RankFunctionScoresInUnitRange) {
  Insert("alpha beta");
  Insert("gamma delta");
  Insert("alpha alpha alpha");
  auto scores = Column("SELECT mnemo_score(t) FROM t WHERE t MATCH ? ORDER BY rowid",
                       "\"" + text::TokenizeToStrings("alpha")[0] + "\"");
  ASSERT_EQ(scores.size(), 2u);
  for (const std::string& s : scores) {
    EXPECT_GT(std::stod(s), 0.0);
    EXPECT_LE(std::stod(s), 1.0);
  }
}

}  // namespace
// The two tries of a pruned keyword search: E the rarest terms holding
// `limit` rows, then C widened as far as a known limit-th score allows; E's
// second phrases not counted, bounds from the terms' idf.
TEST(PrunedMatch, LeavesTheCommonTermsOutWhileTheirBoundAllows) {
  const std::vector<std::string> terms = {"a", "b", "c"};
  const ScoreStats stats{
      .documents = 100000, .total_tokens = 3000000, .documents_with_term = {50000, 30, 20000}};
  const double mass = Bm25Idf(100000, 50000) + Bm25Idf(100000, 30) + Bm25Idf(100000, 20000);
  const auto first = FirstPrunedMatch(terms, stats, 10);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->match, R"(("b") AND ("b" OR "a" OR "c"))");
  EXPECT_EQ(first->stats, "100000 3000000 50000 30 20000 | 1 -1 0 2");
  EXPECT_DOUBLE_EQ(first->bound, 2.2 * (Bm25Idf(100000, 50000) + Bm25Idf(100000, 20000)) / mass);
  const auto second = PrunedMatchBelow(terms, stats, 0.3);
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->match, R"(("b" OR "c") AND ("b" OR "c" OR "a"))");
  EXPECT_EQ(second->stats, "100000 3000000 50000 30 20000 | 1 2 -1 -1 0");
  EXPECT_LT(second->bound, 0.3);
  EXPECT_FALSE(PrunedMatchBelow(terms, stats, second->bound).has_value());
  // One term, too few rows left to C, or E's rows fewer than the limit.
  EXPECT_FALSE(FirstPrunedMatch({"a"}, {100000, 3000000, {50000}}, 10).has_value());
  EXPECT_FALSE(FirstPrunedMatch(terms, {100000, 3000000, {5000, 30, 2000}}, 10).has_value());
  EXPECT_FALSE(FirstPrunedMatch(terms, {100000, 3000000, {50000, 30, 20000}}, 20000).has_value());
}

// mnemo_score with a phrase map counts each term once, so a pruned match
// scores a row exactly as the plain one does.
TEST_F(FtsTokenizer, APrunedMatchScoresAsThePlainMatch) {
  Insert("alpha beta beta");
  Insert("beta gamma");
  Insert("alpha gamma gamma gamma");
  const std::string stats = "3 9 2 2 2";
  auto plain = Column("SELECT mnemo_score(t, NULL, '" + stats +
                          "') FROM t WHERE t MATCH ? "
                          "ORDER BY rowid",
                      R"("alpha" OR "beta" OR "gamma")");
  auto pruned = Column("SELECT mnemo_score(t, NULL, '" + stats +
                           " | 0 2 -1 -1 1') FROM t "
                           "WHERE t MATCH ? ORDER BY rowid",
                       R"(("alpha" OR "gamma") AND ("alpha" OR "gamma" OR "beta"))");
  EXPECT_EQ(pruned, plain);
  EXPECT_EQ(plain.size(), 3u);
  // A map that does not fit the MATCH expression is an error, not a score.
  auto s = conn_->Prepare(
      "SELECT mnemo_score(t, NULL, '" + stats + " | 0 2') FROM t WHERE t MATCH ?", "query");
  ASSERT_TRUE(s.ok());
  const std::string match = R"(("alpha" OR "gamma") AND ("alpha" OR "gamma" OR "beta"))";
  s->Bind(1, match);
  EXPECT_FALSE(s->Step("query").ok());
}

// The kept counts stay bounded: past kMaxKept scopes and terms they are all
// forgotten. (Commits of other connections: SqliteBackend's
// KeptKeywordStatisticsFollowEveryCommit.)
TEST_F(FtsTokenizer, KeptCountsStayBounded) {
  ScoreStatsMemo memo;
  ASSERT_TRUE(memo.Validate(*conn_).ok());
  const FtsScope scope{.fts = "t", .table = "t", .alias = "t", .rowid_column = "t.rowid"};
  for (size_t i = 0; i + 1 < ScoreStatsMemo::kMaxKept; ++i) {
    memo.Keep(memo.For(scope), "w" + std::to_string(i), 1);
  }
  memo.Trim();
  EXPECT_EQ(memo.For(scope).terms.size(), ScoreStatsMemo::kMaxKept - 1);
  memo.Keep(memo.For(scope), "one more", 1);
  memo.Trim();
  EXPECT_TRUE(memo.For(scope).terms.empty());

  memo.Keep(memo.For(scope), "kept", 1);
  ASSERT_TRUE(memo.Validate(*conn_).ok());
  EXPECT_EQ(memo.For(scope).terms.size(), 1u);  // nothing changed
  // A connection's own commit does not move its data_version: why only
  // reader connections, which commit nothing, keep counts.
  Insert("a new row");
  ASSERT_TRUE(memo.Validate(*conn_).ok());
  EXPECT_EQ(memo.For(scope).terms.size(), 1u);
}

}  // namespace mnemo::storage::internal
