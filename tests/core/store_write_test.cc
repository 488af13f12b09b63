// memory.store writes its entry and the vectors of its text in one write
// transaction (storage::EntryWrite::vectors): a failure between the two (a
// crash, a refused row) leaves neither, never an entry without the vector
// its store computed; and on PostgreSQL a store takes the writer lock and
// commits once, not twice. A memory.turn_complete whose result could not be
// stored under its claim is repeated without waiting for it, and that result
// is stored as soon as the store takes it again.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>
#include <string>
#include <thread>

#include "mnemo/engine.h"
#include "storage/backend_factory.h"
#include "storage/postgres/pg_connection.h"
#include "test_util.h"

namespace mnemo {
namespace {

namespace pg = storage::internal::pg;

class StoreWriteTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    Config config;
    config.memory.backend = GetParam();
    if (GetParam() == "postgres") {
      url_ = testing::PostgresTestUrl();
      if (url_.empty()) GTEST_SKIP() << "no PostgreSQL server";
      schema_ = testing::FreshPostgresSchema();
      config.postgres.url = url_;
      config.postgres.schema = schema_;
    }
    auto e = Engine::Open({.workspace = dir_.Sub("ws"), .config = config});
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    engine_ = std::move(e).value();
  }

  Result<StoreResult> Store(const std::string& key, const std::string& content) {
    return engine_->memory().Store(me_, {.key = key, .content = content});
  }

  // Runs `sql` on the engine's database from a connection of its own, as
  // another process would; the first column of the first row, if any.
  int64_t Run(const std::string& sql) {
    if (GetParam() == "postgres") {
      auto conn = pg::PgConn::Connect(url_, "SET search_path TO \"" + schema_ + "\"");
      EXPECT_TRUE(conn.ok()) << conn.status().ToString();
      if (!conn.ok()) return -1;
      auto rows = (*conn)->ExecScriptRows(sql, "run the test's statement");
      EXPECT_TRUE(rows.ok()) << rows.status().ToString();
      return rows.ok() && !rows->empty() ? rows->Int(0, 0) : -1;
    }
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open((dir_.Sub("ws") + "/mnemo.db").c_str(), &db), SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    int64_t first = -1;
    auto keep = [](void* out, int, char** values, char**) {
      if (values[0] != nullptr && *static_cast<int64_t*>(out) == -1) {
        *static_cast<int64_t*>(out) = std::stoll(values[0]);
      }
      return 0;
    };
    char* error = nullptr;
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), keep, &first, &error), SQLITE_OK)
        << (error != nullptr ? error : "");
    sqlite3_free(error);
    sqlite3_close(db);
    return first;
  }

  // A trigger that refuses every turn's result (FinishTurnClaim's UPDATE), as
  // a server gone away in a failover does, and its removal.
  void RefuseTurnResults() {
    if (GetParam() == "postgres") {
      Run("CREATE FUNCTION test_refuse_result() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
          "RAISE EXCEPTION 'injected failure'; END $$; CREATE TRIGGER test_refuse_result BEFORE "
          "UPDATE ON turn_claims FOR EACH ROW EXECUTE FUNCTION test_refuse_result()");
    } else {
      Run("CREATE TRIGGER test_refuse_result BEFORE UPDATE ON turn_claims BEGIN SELECT "
          "RAISE(ABORT, 'injected failure'); END");
    }
  }
  void AcceptTurnResults() {
    Run("DROP TRIGGER test_refuse_result" +
        std::string(GetParam() == "postgres" ? " ON turn_claims" : ""));
  }

  // The turn's call with its result refused (RefuseTurnResults): its rows
  // stored under a claim that keeps no result.
  Result<TurnResult> TurnWithoutItsResult(const Turn& turn) {
    RefuseTurnResults();
    auto first = engine_->archivist().TurnComplete(me_, turn);
    EXPECT_EQ(Run("SELECT count(*) FROM turn_claims WHERE result = ''"), 1);
    return first;
  }

  int64_t Entries() { return Run("SELECT count(*) FROM entries"); }
  int64_t Vectors() { return Run("SELECT count(*) FROM entry_vectors"); }

  testing::TempDir dir_;
  Principal me_;
  std::string url_;
  std::string schema_;
  std::unique_ptr<Engine> engine_;
};

// A vector write that fails (here refused by a trigger; a process killed
// between the entry's commit and the vector's is the same cut) takes the
// entry with it: the store reports the failure and stores nothing. Before,
// the entry was committed on its own and stayed without its vector.
TEST_P(StoreWriteTest, AFailedVectorWriteLeavesNoEntryWithoutItsVector) {
  ASSERT_TRUE(Store("gloves", "winter gloves are in the hall cupboard").ok());
  ASSERT_EQ(Entries(), 1);
  ASSERT_EQ(Vectors(), 1);
  if (GetParam() == "postgres") {
    Run("CREATE FUNCTION test_refuse_vectors() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        "RAISE EXCEPTION 'injected failure'; END $$; CREATE TRIGGER test_refuse_vectors BEFORE "
        "INSERT ON entry_vectors FOR EACH ROW EXECUTE FUNCTION test_refuse_vectors()");
  } else {
    Run("CREATE TRIGGER test_refuse_vectors BEFORE INSERT ON entry_vectors BEGIN SELECT "
        "RAISE(ABORT, 'injected failure'); END");
  }
  const Result<StoreResult> refused = Store("boots", "the hiking boots need new laces");
  EXPECT_FALSE(refused.ok());
  EXPECT_EQ(Entries(), 1) << "an entry was stored without its vector";
  EXPECT_EQ(Vectors(), 1);

  Run("DROP TRIGGER test_refuse_vectors" +
      std::string(GetParam() == "postgres" ? " ON entry_vectors" : ""));
  ASSERT_TRUE(Store("boots", "the hiking boots need new laces").ok());
  EXPECT_EQ(Entries(), 2);
  EXPECT_EQ(Vectors(), 2);
  auto found = engine_->memory().Search(me_, {.query = "hiking boots laces", .min_score = 0.0});
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  ASSERT_FALSE(found->results.empty());
  EXPECT_EQ(found->results[0].key, "boots");
  EXPECT_TRUE(found->results[0].vector_score.has_value());
}

// A turn call that stored its rows under its claim but could not store its
// result (the server went away after the rows' commit: a failover; here a
// trigger refuses the result) leaves the claim without a result, and no call
// will add one. Its retry through the same process replays the stored rows
// at once. Before, it waited Archivist::kReplayWait (10 s) for that result:
// the 11 s of refused writes bench/failover.py saw under load. The bound
// below is half that wait, not a speed target.
TEST_P(StoreWriteTest, ARetryOfATurnWhoseResultWasNotStoredIsAnsweredAtOnce) {
  const Turn turn{.session_id = "s",
                  .user_message = "the spare key is under the blue flowerpot",
                  .assistant_response = "Noted.",
                  .turn_id = "turn-1"};
  auto first = TurnWithoutItsResult(turn);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_TRUE(first->user_row.has_value());

  const auto start = std::chrono::steady_clock::now();
  auto again = engine_->archivist().TurnComplete(me_, turn);
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_TRUE(again->replayed);
  ASSERT_TRUE(again->user_row.has_value());
  EXPECT_EQ(again->user_row->id, first->user_row->id);
  EXPECT_EQ(Run("SELECT count(*) FROM turns"), 2) << "the retry stored the turn again";
  EXPECT_LT(took, std::chrono::seconds(5)) << "the retry waited for a result no call will store";
}

// The result refused above is stored under its claim as soon as the store
// takes it again (here the trigger dropped; after a failover, the promoted
// standby), within the kReplayWait during which a repeat of the turn through
// another process, which cannot know the first call ended, waits for it.
// Before, the claim kept no result: such a repeat waited the whole 10 s and
// answered without it. The 8 s below bound how long the test waits for the
// row, not a speed.
TEST_P(StoreWriteTest, AResultTheStoreRefusedIsStoredOnceItIsTakenAgain) {
  const Turn turn{.session_id = "s",
                  .user_message = "the boat keys hang beside the back door",
                  .assistant_response = "Noted.",
                  .turn_id = "turn-2"};
  auto first = TurnWithoutItsResult(turn);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_TRUE(first->user_row.has_value());
  AcceptTurnResults();

  const std::string stored = "SELECT count(*) FROM turn_claims WHERE result <> ''";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(8);
  while (Run(stored) == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(Run(stored), 1) << "the claim still has no result";
  auto again = engine_->archivist().TurnComplete(me_, turn);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_TRUE(again->replayed);
  ASSERT_TRUE(again->user_row.has_value());
  EXPECT_EQ(again->user_row->id, first->user_row->id);
  EXPECT_EQ(Run("SELECT count(*) FROM turns"), 2) << "the retry stored the turn again";
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreWriteTest, ::testing::Values("sqlite", "postgres"));

using PostgresStoreWriteTest = StoreWriteTest;

// A row's xmin is the transaction that wrote it: a store whose entry and
// vector committed together leaves both rows with one xmin, ten stores ten
// of them. (The entry and its vector used to commit apart: two
// transactions, each with the writer lock and, with a synchronous standby,
// a replication wait.) Read from the rows themselves, not from the server's
// transaction counter, which other sessions on the same server move too.
TEST_P(PostgresStoreWriteTest, AStoreIsOneWriteTransaction) {
  ASSERT_TRUE(Store("warm", "the spaces and the pool are open after a first store").ok());
  constexpr int kStores = 10;
  for (int i = 0; i < kStores; ++i) {
    ASSERT_TRUE(Store("k" + std::to_string(i),
                      "note number " + std::to_string(i) + " about the winter boots")
                    .ok());
  }
  EXPECT_EQ(Run("SELECT count(*) FROM entries e JOIN entry_vectors v ON v.label = e.label AND "
                "v.xmin = e.xmin WHERE e.key LIKE 'k%'"),
            kStores)
      << "a store committed its entry and its vector apart";
  EXPECT_EQ(Run("SELECT count(DISTINCT e.xmin::text) FROM entries e WHERE e.key LIKE 'k%'"),
            kStores);
  EXPECT_EQ(Vectors(), Entries());
}

INSTANTIATE_TEST_SUITE_P(Postgres, PostgresStoreWriteTest, ::testing::Values("postgres"));

}  // namespace
}  // namespace mnemo
