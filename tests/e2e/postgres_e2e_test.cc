// Several mnemo processes on one PostgreSQL schema behave as one memory
// (issue 9): daemons with separate workspaces see each other's writes,
// concurrent upserts of one key from two processes leave one entry, an
// import killed mid-transaction leaves nothing half-written, and a server
// that goes away and comes back gives clear errors, then works again.
// The server is the throwaway cluster CTest starts (scripts/pg-cluster.sh).
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "process.h"
#include "rpc_client.h"
#include "storage/backend_factory.h"
#include "storage/postgres/pg_connection.h"
#include "test_util.h"

namespace mnemo::e2e {
namespace {

using nlohmann::json;
namespace pg = storage::internal::pg;

std::string ReadLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// A workspace whose config points at `schema` on `url`.
std::string PostgresWorkspace(const testing::TempDir& dir, const std::string& name,
                              const std::string& url, const std::string& schema) {
  const std::string ws = dir.Sub(name);
  std::filesystem::create_directories(ws);
  std::ofstream(ws + "/mnemo.toml") << "[memory]\nbackend = \"postgres\"\n[postgres]\nurl = \""
                                    << url << "\"\nschema = \"" << schema << "\"\npool_size = 4\n";
  return ws;
}

// One number from the schema, read straight from the server.
int64_t Count(const std::string& url, const std::string& schema, const std::string& sql) {
  auto conn = pg::PgConn::Connect(url, "SET search_path TO \"" + schema + "\"");
  EXPECT_TRUE(conn.ok()) << conn.status().ToString();
  if (!conn.ok()) return -1;
  auto rows = (*conn)->Exec(sql, "count");
  EXPECT_TRUE(rows.ok()) << rows.status().ToString();
  return rows.ok() && !rows->empty() ? rows->Int(0, 0) : -1;
}

class PostgresE2e : public ::testing::Test {
 protected:
  void SetUp() override {
    url_ = testing::PostgresTestUrl();
    ASSERT_FALSE(url_.empty()) << "no PostgreSQL server: run through ctest (which starts one) or "
                                  "set MNEMO_TEST_POSTGRES_URL";
    schema_ = testing::FreshPostgresSchema();
  }
  testing::TempDir dir_;
  std::string url_;
  std::string schema_;
};

TEST_F(PostgresE2e, TwoDaemonsWithTheirOwnWorkspacesAreOneMemory) {
  Daemon a(PostgresWorkspace(dir_, "a", url_, schema_));
  ASSERT_TRUE(a.started()) << a.Stderr();
  Daemon b(PostgresWorkspace(dir_, "b", url_, schema_));
  ASSERT_TRUE(b.started()) << b.Stderr();
  RpcClient ca(a.port()), cb(b.port());

  ASSERT_TRUE(
      ca.Call("memory.store", {{"key", "editor"}, {"value", "The user edits code with Helix"}})
          .contains("result"));
  ASSERT_TRUE(ca.Call("memory.store", {{"key", "城市"}, {"value", "用户住在柏林，喜欢喝茶"}})
                  .contains("result"));
  ASSERT_TRUE(
      ca.Call("memory.store", {{"key", "lang"}, {"value", "المستخدم يتحدث العربية والألمانية"}})
          .contains("result"));

  // Keyword and hybrid search through the other process, in three scripts.
  for (const auto& [query, key] : std::vector<std::pair<std::string, std::string>>{
           {"Helix editor", "editor"}, {"柏林", "城市"}, {"العربية", "lang"}}) {
    json r = cb.Result("memory.search", {{"query", query}});
    ASSERT_TRUE(r.contains("results")) << r.dump();
    ASSERT_FALSE(r["results"].empty()) << query << ": " << r.dump();
    EXPECT_EQ(r["results"][0]["key"], key) << query << ": " << r.dump();
    EXPECT_GT(r["results"][0]["vector_score"].get<double>(), 0.0) << r.dump();
  }
  // A forget through b is gone for a; a rule put through a pins in b.
  ASSERT_EQ(cb.Result("memory.forget", {{"key", "editor"}})["forgotten"], true);
  EXPECT_NE(ca.ErrorCode("memory.get", {{"key", "editor"}}), 0);
  ASSERT_TRUE(
      ca.Call("memory.tool_rule_put",
              {{"tool_name", "email"}, {"rule", "never email Sarah"}, {"priority", "critical"}})
          .contains("result"));
  json pinned = cb.Result("memory.tool_rules_for_prompt", {{"tools", {"email"}}});
  EXPECT_NE(pinned.dump().find("never email Sarah"), std::string::npos) << pinned.dump();
  EXPECT_EQ(cb.Result("memory.stats", json::object())["backend"], "postgres");
}

TEST_F(PostgresE2e, ConcurrentUpsertsOfOneKeyFromTwoProcessesLeaveOneEntry) {
  Daemon a(PostgresWorkspace(dir_, "a", url_, schema_));
  ASSERT_TRUE(a.started()) << a.Stderr();
  Daemon b(PostgresWorkspace(dir_, "b", url_, schema_));
  ASSERT_TRUE(b.started()) << b.Stderr();
  constexpr int kThreads = 8;
  constexpr int kWrites = 25;
  std::atomic<int> errors{0};
  std::mutex mu;
  std::set<std::string> written;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      RpcClient client(t % 2 == 0 ? a.port() : b.port());
      for (int i = 0; i < kWrites; ++i) {
        const std::string value =
            "value from thread " + std::to_string(t) + " write " + std::to_string(i);
        json r = client.CallQuietly("memory.store", {{"key", "shared"}, {"value", value}});
        if (!r.contains("result")) {
          ++errors;
          ADD_FAILURE() << r.dump();
          continue;
        }
        std::lock_guard lock(mu);
        written.insert(value);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(Count(url_, schema_, "SELECT count(*) FROM entries WHERE key = 'shared'"), 1);
  json got = RpcClient(b.port()).Result("memory.get", {{"key", "shared"}});
  EXPECT_EQ(written.count(got["content"].get<std::string>()), 1u) << got.dump();
  // The keyword statistics agree with the rows (no lost or doubled update).
  EXPECT_EQ(Count(url_, schema_, "SELECT documents FROM text_stats WHERE name = 'entries'"), 1);
  EXPECT_EQ(Count(url_, schema_,
                  "SELECT (SELECT total_tokens FROM text_stats WHERE name = 'entries') - "
                  "(SELECT sum(doc_length) FROM entries)"),
            0);
}

TEST_F(PostgresE2e, AnImportKilledMidTransactionLeavesNothingHalfWritten) {
  const std::string ws = PostgresWorkspace(dir_, "ws", url_, schema_);
  std::mt19937_64 rng(std::random_device{}());
  constexpr int kEntries = 3000;
  auto write_file = [&](int round) {
    const std::string path = dir_.Sub("round-" + std::to_string(round) + ".jsonl");
    std::ofstream out(path);
    for (int i = 0; i < kEntries; ++i) {
      out << json{{"key", "r" + std::to_string(round) + "-" + std::to_string(i)},
                  {"content", "round " + std::to_string(round) + " entry " + std::to_string(i)}}
                 .dump()
          << "\n";
    }
    return path;
  };
  const auto start = std::chrono::steady_clock::now();
  RunResult first = RunMnemo({"--workspace", ws, "import", write_file(0)});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const auto took = std::chrono::duration_cast<std::chrono::microseconds>(
      std::chrono::steady_clock::now() - start);
  int64_t expected = kEntries;
  int killed_before_commit = 0;
  for (int round = 1; round <= 6; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const auto delay =
        std::chrono::microseconds(static_cast<int64_t>(rng() % (took.count() * 3 / 2 + 1)));
    RunResult r = RunMnemoKilledAfter({"--workspace", ws, "import", write_file(round)}, delay);
    ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 128 + SIGKILL) << r.exit_code << r.err;
    const int64_t got =
        Count(url_, schema_,
              "SELECT count(*) FROM entries WHERE key LIKE 'r" + std::to_string(round) + "-%'");
    EXPECT_TRUE(got == 0 || got == kEntries) << "a killed import left " << got << " entries";
    if (r.exit_code == 0) {
      EXPECT_EQ(got, kEntries);
    }
    if (got == 0) ++killed_before_commit;
    expected += got;
    EXPECT_EQ(Count(url_, schema_, "SELECT count(*) FROM entries"), expected);
    EXPECT_EQ(Count(url_, schema_, "SELECT documents FROM text_stats WHERE name = 'entries'"),
              expected);
  }
  std::cerr << "postgres import kills: " << killed_before_commit
            << " of 6 rounds killed before their commit; an import took " << took.count() / 1000
            << " ms\n";
}

TEST_F(PostgresE2e, ClearErrorsWhenTheServerIsAwayAndRecoveryWhenItIsBack) {
  // Nothing listens on the port: start-up fails with a clear message that
  // names the server, never the password.
  const std::string closed = "postgresql://mnemo:secret-pw@127.0.0.1:1/mnemo";
  RunResult down = RunMnemo({"--workspace", PostgresWorkspace(dir_, "down", closed, schema_), "rpc",
                             "memory.stats", "{}"});
  EXPECT_NE(down.exit_code, 0);
  EXPECT_NE(down.err.find("cannot connect to PostgreSQL at postgresql://mnemo:***@127.0.0.1:1"),
            std::string::npos)
      << down.err;
  EXPECT_EQ(down.err.find("secret-pw"), std::string::npos) << down.err;

  // A private cluster this test may stop and start.
  const std::string state = dir_.Sub("cluster");
  const std::string script = std::string(MNEMO_SOURCE_DIR) + "/scripts/pg-cluster.sh";
  ASSERT_EQ(std::system((script + " start " + state + " > /dev/null").c_str()), 0);
  const std::string url = ReadLine(state + "/url");
  Daemon d(PostgresWorkspace(dir_, "ws", url, schema_));
  ASSERT_TRUE(d.started()) << d.Stderr();
  RpcClient client(d.port());
  ASSERT_TRUE(client.Call("memory.store", {{"key", "before"}, {"value", "stored before"}})
                  .contains("result"));
  ASSERT_EQ(std::system((script + " pause " + state).c_str()), 0);
  json failed = client.CallQuietly("memory.store", {{"key", "during"}, {"value", "lost?"}});
  ASSERT_TRUE(failed.contains("error")) << failed.dump();
  EXPECT_EQ(failed["error"]["code"], -32005) << failed.dump();  // unavailable
  EXPECT_NE(failed["error"]["message"].get<std::string>().find("PostgreSQL"), std::string::npos)
      << failed.dump();
  ASSERT_EQ(std::system((script + " resume " + state).c_str()), 0);
  // The daemon is alive and reconnects: the very next requests succeed
  // (the pool checks its other connections once one was found broken).
  json after = client.CallQuietly("memory.store", {{"key", "after"}, {"value", "stored after"}});
  EXPECT_TRUE(after.contains("result")) << after.dump();
  EXPECT_EQ(client.Result("memory.search", {{"query", "stored after"}})["results"][0]["key"],
            "after");
  EXPECT_EQ(client.Result("memory.get", {{"key", "before"}})["content"], "stored before");
  EXPECT_NE(client.ErrorCode("memory.get", {{"key", "during"}}), 0);
  d.Stop(SIGTERM);
  std::system((script + " stop " + state).c_str());
}

// `mnemo bench --backend postgres --workspace W` names its schema after W, so
// a later run with --reuse queries what the first imported (issue 46; before,
// each run's schema was named after its process and --reuse found nothing).
TEST_F(PostgresE2e, BenchReuseQueriesTheSchemaItsWorkspaceImported) {
  const std::string ds = dir_.Sub("ds");
  std::filesystem::create_directories(ds);
  std::ofstream(ds + "/memories.jsonl")
      << R"({"key": "m1", "content": "a golden retriever sleeps by the door"})"
      << "\n"
      << R"({"key": "m2", "content": "the cat purrs on the windowsill"})"
      << "\n"
      << R"({"key": "m3", "content": "green tea in Berlin every morning"})"
      << "\n";
  std::ofstream(ds + "/queries.jsonl") << R"({"query": "retriever", "relevant": ["m1"]})"
                                       << "\n"
                                       << R"({"query": "purrs", "relevant": ["m2"]})"
                                       << "\n";
  const std::string ws = dir_.Sub("bench");
  for (const bool reuse : {false, true}) {
    std::vector<std::string> args = {"bench",   "--dataset",   ds,         "--mode",
                                     "keyword", "--backend",   "postgres", "--postgres-url",
                                     url_,      "--workspace", ws};
    if (reuse) args.push_back("--reuse");
    RunResult r = RunMnemo(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json out = json::parse(r.out);
    EXPECT_EQ(out["kw_recall_at_10"], 1.0) << (reuse ? "reused: " : "imported: ") << r.out;
  }
}

}  // namespace
}  // namespace mnemo::e2e
