#include "storage/sqlite/fts_tokenizer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "storage/sqlite/connection.h"
#include "storage/sqlite/fts_rank.h"
#include "text/tokenizer.h"

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
}  // namespace mnemo::storage::internal
