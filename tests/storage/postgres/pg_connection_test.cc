// The connection layer under failures (pg_connection.h, pg_read_router.h):
// WAL positions parsed, a dead server refused at once during the reconnect
// backoff, a connection the server closed noticed before use, reads
// served when a listed standby is down, and statements in pipeline mode. The replicated cluster
// itself is exercised by bench/failover.py (CTest postgres_failover).
#include <gtest/gtest.h>

#include <chrono>
#include <climits>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "storage/backend_factory.h"
#include "storage/postgres/pg_connection.h"
#include "storage/postgres/pg_read_router.h"
#include "storage/postgres/pg_values.h"
#include "storage/postgres/postgres_backend.h"

namespace mnemo::storage::internal::pg {
namespace {

// Warnings of the expected failures are not printed.
std::shared_ptr<Logger> Quiet() { return FdLogger(2, LogLevel::kError); }

// Nothing listens on port 1.
constexpr const char* kDeadUrl = "postgresql://mnemo@127.0.0.1:1/mnemo";

TEST(PgConnection, ParsesWalPositions) {
  EXPECT_EQ(ParseLsn("0/0"), 0u);
  EXPECT_EQ(ParseLsn("16/B374D848"), (uint64_t{0x16} << 32) | 0xB374D848u);
  EXPECT_EQ(ParseLsn("FFFFFFFF/FFFFFFFF"), ~uint64_t{0});
  for (const char* bad : {"", "16", "/1", "1/", "x/1", "1/2/3", "100000000/0"}) {
    EXPECT_EQ(ParseLsn(bad), 0u) << bad;
  }
}

TEST(PgPool, ADeadServerIsRefusedAtOnceDuringTheBackoff) {
  auto pool = Pool::Open({.url = kDeadUrl,
                          .size = 2,
                          .connect_at_open = false,
                          .backoff_first = std::chrono::milliseconds(300),
                          .backoff_max = std::chrono::milliseconds(300),
                          .logger = Quiet()});
  ASSERT_TRUE(pool.ok()) << pool.status().ToString();
  auto first = (*pool)->Acquire();
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(first.status().code(), StatusCode::kUnavailable);
  EXPECT_TRUE((*pool)->backing_off());
  const auto start = std::chrono::steady_clock::now();
  auto second = (*pool)->Acquire();
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find("next attempt in"), std::string::npos)
      << second.status().message();
  EXPECT_NE(second.status().message().find("127.0.0.1:1"), std::string::npos);
  EXPECT_LT(took, std::chrono::milliseconds(50));
  // After the backoff the next call tries again (and fails again).
  std::this_thread::sleep_for(std::chrono::milliseconds(350));
  EXPECT_FALSE((*pool)->backing_off());
  auto third = (*pool)->Acquire();
  ASSERT_FALSE(third.ok());
  EXPECT_EQ(third.status().message().find("next attempt in"), std::string::npos);
}

class PgServer : public ::testing::Test {
 protected:
  void SetUp() override {
    url_ = testing::PostgresTestUrl();
    if (url_.empty()) GTEST_SKIP() << "no PostgreSQL server";
  }
  std::string url_;
};

TEST_F(PgServer, AConnectionTheServerClosedIsReplacedBeforeUse) {
  auto pool = Pool::Open({.url = url_, .size = 1, .logger = Quiet()});
  ASSERT_TRUE(pool.ok()) << pool.status().ToString();
  int64_t pid = 0;
  {
    auto lease = (*pool)->Acquire();
    ASSERT_TRUE(lease.ok());
    auto rows = (*lease)->Exec("SELECT pg_backend_pid()", "pid");
    ASSERT_TRUE(rows.ok());
    pid = rows->Int(0, 0);
  }
  auto killer = PgConn::Connect(url_);
  ASSERT_TRUE(killer.ok());
  ASSERT_TRUE(
      (*killer)->Exec("SELECT pg_terminate_backend($1)", Params().Add(pid), "terminate").ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  // The pool's only connection is closed: the first statement on the next
  // lease already runs on a new one.
  auto lease = (*pool)->Acquire();
  ASSERT_TRUE(lease.ok()) << lease.status().ToString();
  auto rows = (*lease)->Exec("SELECT pg_backend_pid()", "pid");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_NE(rows->Int(0, 0), pid);
}

// The backend pid of `conn`'s session.
int64_t BackendPid(PgConn& conn) {
  auto rows = conn.Exec("SELECT pg_backend_pid()", "pid");
  return rows.ok() ? rows->Int(0, 0) : -1;
}

void Terminate(const std::string& url, int64_t pid) {
  auto killer = PgConn::Connect(url);
  ASSERT_TRUE(killer.ok());
  ASSERT_TRUE(
      (*killer)->Exec("SELECT pg_terminate_backend($1)", Params().Add(pid), "terminate").ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
}

TEST_F(PgServer, AReadWhoseConnectionIsLostRunsAgainOnceOnTheRerouteConnection) {
  const std::string sep = url_.find('?') == std::string::npos ? "?" : "&";
  auto a = Pool::Open({.url = url_ + sep + "application_name=a", .size = 1, .logger = Quiet()});
  auto b = Pool::Open({.url = url_ + sep + "application_name=b", .size = 1, .logger = Quiet()});
  ASSERT_TRUE(a.ok() && b.ok());
  const std::string name_sql = "SELECT current_setting('application_name')";
  {
    auto lease = (*a)->Acquire();
    ASSERT_TRUE(lease.ok());
    Terminate(url_, BackendPid(**lease));
    int reroutes = 0;
    (*lease)->set_reroute([&](PgConn& self) -> Status {
      ++reroutes;
      MNEMO_ASSIGN_OR_RETURN(Pool::Lease other, (*b)->Acquire());
      self.SwapConnection(*other);
      return Status::Ok();
    });
    auto rows = (*lease)->ExecPrepared(name_sql, Params(), "name");
    ASSERT_TRUE(rows.ok()) << rows.status().ToString();
    EXPECT_EQ(rows->Text(0, 0), "b");
    EXPECT_EQ(reroutes, 1);
    auto again = (*lease)->Exec(name_sql, "name");
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->Text(0, 0), "b");
  }
  // Each pool closed the other's connection when it came back: both work
  // on connections of their own.
  for (auto* pool : {&*a, &*b}) {
    auto lease = (*pool)->Acquire();
    ASSERT_TRUE(lease.ok()) << lease.status().ToString();
    auto rows = (*lease)->Exec(name_sql, "name");
    ASSERT_TRUE(rows.ok()) << rows.status().ToString();
    EXPECT_EQ(rows->Text(0, 0), pool == &*a ? "a" : "b");
  }
  // Inside a transaction the snapshot is lost with the connection: no reroute.
  auto lease = (*a)->Acquire();
  ASSERT_TRUE(lease.ok());
  ASSERT_TRUE((*lease)->ExecScript("BEGIN", "begin").ok());
  Terminate(url_, BackendPid(**lease));
  bool rerouted = false;
  (*lease)->set_reroute([&](PgConn&) {
    rerouted = true;
    return Status::Ok();
  });
  EXPECT_FALSE((*lease)->Exec(name_sql, "name").ok());
  EXPECT_FALSE(rerouted);
}

TEST_F(PgServer, CommitsRecordTheirWalPositionForTheRouter) {
  auto pool = Pool::Open({.url = url_, .size = 1, .track_commit_lsn = true, .logger = Quiet()});
  ASSERT_TRUE(pool.ok());
  EXPECT_EQ((*pool)->last_commit_lsn(), 0u);
  ASSERT_TRUE(
      (*pool)
          ->Transaction("write",
                        [](PgConn& c) { return c.Exec("SELECT txid_current()", "xid").status(); })
          .ok());
  const uint64_t first = (*pool)->last_commit_lsn();
  EXPECT_GT(first, 0u);
  ASSERT_TRUE(
      (*pool)
          ->Transaction("write",
                        [](PgConn& c) { return c.Exec("SELECT txid_current()", "xid").status(); })
          .ok());
  EXPECT_GE((*pool)->last_commit_lsn(), first);
}

// Pipeline mode: the statements run in order, each one's rows come back,
// and the first failure is the error, with the rest skipped and the
// implicit transaction of the pipeline rolled back.
TEST_F(PgServer, APipelineRunsItsStatementsInOrderAndStopsAtTheFirstFailure) {
  auto conn = PgConn::Connect(url_);
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();
  PgConn& c = **conn;
  const std::vector<PgStatement> fill = {
      {.sql = "CREATE TEMP TABLE piped (x integer)"},
      {.sql = "INSERT INTO piped VALUES ($1) RETURNING x", .params = Params().Add(1)},
      {.sql = "INSERT INTO piped VALUES ($1) RETURNING x", .params = Params().Add(2)},
      {.sql = "SELECT count(*), sum(x) FROM piped"}};
  auto rows = c.ExecPipeline(fill, "fill");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 4u);
  EXPECT_EQ((*rows)[1].Int(0, 0), 1);
  EXPECT_EQ((*rows)[2].Int(0, 0), 2);
  EXPECT_EQ((*rows)[3].Int(0, 0), 2);
  EXPECT_EQ((*rows)[3].Int(0, 1), 3);

  const std::vector<PgStatement> failing = {{.sql = "INSERT INTO piped VALUES (3)"},
                                            {.sql = "SELECT 1 / 0"},
                                            {.sql = "INSERT INTO piped VALUES (4)"}};
  auto failed = c.ExecPipeline(failing, "add more");
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("add more: division by zero"), std::string::npos)
      << failed.status().message();
  EXPECT_EQ(c.last_sqlstate(), "22012");
  EXPECT_TRUE(c.ok());
  auto after = c.Exec("SELECT count(*) FROM piped", "count");
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  EXPECT_EQ(after->Int(0, 0), 2);
}

// A COPY fed chunk by chunk (a bulk write sends each chunk of rows as soon
// as it is made): the chunks form one stream, so a row may span two of
// them; every row is stored, in order. A row the server refuses in a late
// chunk, after earlier ones were parsed, fails the COPY with the server's
// reason, and none of the rows sent before it is left; the connection
// stays usable.
TEST_F(PgServer, ACopyFedChunkByChunkStoresEveryRowOrNone) {
  auto conn = PgConn::Connect(url_);
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();
  PgConn& c = **conn;
  ASSERT_TRUE(
      c.ExecScript("CREATE TEMP TABLE copied (n integer CHECK (n <> 4321), word text)", "make")
          .ok());
  auto feed = [&](int rows) {
    std::string text;
    for (int i = 0; i < rows; ++i) {
      text += std::to_string(i) + "\tword " + std::to_string(i) + "\n";
    }
    // Chunks of 1000 bytes, cut wherever that falls (inside a row too).
    size_t at = 0;
    int calls = 0;
    Status status = c.CopyIn(
        "COPY copied (n, word) FROM STDIN",
        [&]() -> std::optional<std::string_view> {
          if (at >= text.size()) return std::nullopt;
          ++calls;
          const std::string_view chunk = std::string_view(text).substr(at, 1000);
          at += chunk.size();
          return chunk;
        },
        "copy the rows");
    EXPECT_GT(calls, 10);
    return status;
  };
  ASSERT_TRUE(feed(4000).ok());
  auto stored =
      c.Exec("SELECT count(*), sum(n), max(word) FILTER (WHERE n = 3999) FROM copied", "count");
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  EXPECT_EQ(stored->Int(0, 0), 4000);
  EXPECT_EQ(stored->Int(0, 1), 3999 * 4000 / 2);
  EXPECT_EQ(stored->Text(0, 2), "word 3999");

  ASSERT_TRUE(c.ExecScript("TRUNCATE copied", "empty").ok());
  Status refused = feed(6000);  // row 4321 is refused
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("copy the rows"), std::string::npos) << refused.message();
  EXPECT_NE(refused.message().find("copied_n_check"), std::string::npos) << refused.message();
  EXPECT_TRUE(c.ok());
  auto after = c.Exec("SELECT count(*) FROM copied", "count");
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  EXPECT_EQ(after->Int(0, 0), 0);
}

// COPY fields and tsvector lexemes escaped by AppendCopyField and
// AppendQuotedLexeme (runs between escapes appended whole) read back from
// the server as they were: every character COPY or a tsvector literal
// escapes, at the start, in the middle, at the end and twice in a row.
TEST_F(PgServer, EscapedCopyFieldsAndLexemesReadBackAsTheyWere) {
  auto conn = PgConn::Connect(url_);
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();
  PgConn& c = **conn;
  ASSERT_TRUE(
      c.ExecScript("CREATE TEMP TABLE escaped (n integer, word text, tsv tsvector)", "make").ok());
  const std::vector<std::string> words = {"plain",
                                          "",
                                          "\\start",
                                          "end\\",
                                          "tab\there",
                                          "\n\nlines",
                                          "cr\r",
                                          "mixed\\\t\n\r\\",
                                          "'quoted'",
                                          "it's",
                                          "back\\slash'quote",
                                          "naïve 中文"};
  std::string text;
  for (size_t i = 0; i < words.size(); ++i) {
    std::string tsv;
    AppendQuotedLexeme(tsv, words[i].empty() ? "x" : words[i]);
    text += std::to_string(i) + "\t";
    AppendCopyField(text, words[i]);
    text += "\t";
    AppendCopyField(text, tsv);
    text += "\n";
  }
  ASSERT_TRUE(c.CopyIn("COPY escaped (n, word, tsv) FROM STDIN", text, "copy").ok());
  auto rows = c.Exec(
      "SELECT word, array_to_string(tsvector_to_array(tsv), '') FROM escaped "
      "ORDER BY n",
      "read");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), static_cast<int>(words.size()));
  for (size_t i = 0; i < words.size(); ++i) {
    const int row = static_cast<int>(i);
    EXPECT_EQ(rows->Text(row, 0), words[i]) << i;
    EXPECT_EQ(rows->Text(row, 1), words[i].empty() ? "x" : words[i]) << i;
  }
}

// A statement that asks for binary rows (a search's stored vectors: no hex
// to encode on the server and decode here) reads through the same Rows
// accessors as text rows, value for value: integers of each width and sign,
// floats, booleans, NULLs, text, and bytea byte for byte.
TEST_F(PgServer, BinaryRowsReadAsTheSameValuesAsTextRows) {
  auto conn = PgConn::Connect(url_);
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();
  const std::vector<float> floats = {1.5F, -0.25F, 3.0e-7F, 0.0F, -1.0e20F};
  const std::string bytes("\x00\x01\xff\x7f\x80 'x\\\n", 10);
  PgStatement st{.sql =
                     "SELECT $1::bigint, $2::bigint, $3::integer, $4::smallint, "
                     "$5::double precision, $6::real, $7::boolean, $8::boolean, $9::text, "
                     "$10::bytea, $11::bytea, NULL::bigint, NULL::bytea",
                 .prepared = true};
  st.params.Add(int64_t{-9007199254740993})
      .Add(int64_t{1} << 40)
      .Add(-123456)
      .Add(-7)
      .Add(-2.5e-10)
      .Add(0.375)
      .Add(true)
      .Add(false)
      .Add("naïve text")
      .AddFloats(floats)
      .AddBytes(bytes);
  PgStatement binary = st;
  binary.binary_results = true;
  auto rows = (*conn)->ExecPipeline(std::vector<PgStatement>{st, binary}, "read");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 2u);
  for (const Rows& r : *rows) {
    EXPECT_EQ(r.Int(0, 0), -9007199254740993);
    EXPECT_EQ(r.Int(0, 1), int64_t{1} << 40);
    EXPECT_EQ(r.Int(0, 2), -123456);
    EXPECT_EQ(r.Int(0, 3), -7);
    EXPECT_EQ(r.Double(0, 4), -2.5e-10);
    EXPECT_EQ(r.Double(0, 5), 0.375);
    EXPECT_TRUE(r.Bool(0, 6));
    EXPECT_FALSE(r.Bool(0, 7));
    EXPECT_EQ(r.Text(0, 8), "naïve text");
    EXPECT_EQ(r.Floats(0, 9), floats);
    EXPECT_EQ(r.Bytes(0, 10), bytes);
    EXPECT_TRUE(r.IsNull(0, 11));
    EXPECT_EQ(r.Int(0, 11), 0);
    EXPECT_TRUE(r.IsNull(0, 12));
    EXPECT_EQ(r.Bytes(0, 12), "");
  }
  // The binary rows are the server's bytes: a bytea as long as its data.
  EXPECT_EQ((*rows)[1].Text(0, 10).size(), bytes.size());
  EXPECT_EQ((*rows)[0].Text(0, 10).size(), 2 + 2 * bytes.size());
}

// Parameters of every kind reach the server as the values they were given,
// from a Params built in place, copied and moved (each points at its own
// buffer), and the text rows read back as those values: arrays whose
// elements need quotes and escapes, the float8 specials, integer extremes.
TEST_F(PgServer, ParamsAndTextRowsRoundTripEveryKindOfValue) {
  auto conn = PgConn::Connect(url_);
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();
  const std::vector<std::string> items = {"plain",       "two words", "a,b",  "{x}",   "q\"uote",
                                          "back\\slash", "",          "NULL", "naïve", "\\\""};
  const std::vector<int64_t> ints = {INT64_MIN, -1, 0, INT64_MAX};
  const std::vector<double> doubles = {5e-324, -0.1, 1.7976931348623157e308};
  Params built;
  built.Add("it's \\ \"text\"")
      .AddNull()
      .Add(std::optional<std::string>())
      .Add(std::optional<std::string>("opt"))
      .Add(INT64_MIN)
      .Add(0.1)
      .Add(false)
      .AddTextArray(items)
      .AddIntArray(ints)
      .AddDoubleArray(doubles)
      .AddBytes(std::string("\x00\xff", 2));
  const std::string sql =
      "SELECT $1::text, $2::text, $3::text, $4::text, $5::bigint, $6::float8, $7::boolean, "
      "$8::text[], $9::bigint[]::text, $10::float8[]::text, $11::bytea, "
      "'Infinity'::float8, '-Infinity'::float8, 'NaN'::float8, '{}'::text[], "
      "ARRAY[NULL, 'x']::text[]";
  Params copied(built);
  Params assigned;
  assigned = built;
  Params temporary(built);
  Params moved(std::move(temporary));
  Params move_assigned;
  move_assigned = Params(built);
  for (const Params* params : {&built, &copied, &assigned, &moved, &move_assigned}) {
    auto rows = (*conn)->ExecPrepared(sql, *params, "round trip");
    ASSERT_TRUE(rows.ok()) << rows.status().ToString();
    EXPECT_EQ(rows->Text(0, 0), "it's \\ \"text\"");
    EXPECT_TRUE(rows->IsNull(0, 1));
    EXPECT_TRUE(rows->IsNull(0, 2));
    EXPECT_EQ(rows->Text(0, 3), "opt");
    EXPECT_EQ(rows->Int(0, 4), INT64_MIN);
    EXPECT_EQ(rows->Double(0, 5), 0.1);
    EXPECT_FALSE(rows->Bool(0, 6));
    EXPECT_EQ(rows->TextArray(0, 7), items);
    EXPECT_EQ(rows->Text(0, 8), "{-9223372036854775808,-1,0,9223372036854775807}");
    EXPECT_EQ(rows->Text(0, 9), "{5e-324,-0.1,1.7976931348623157e+308}");
    EXPECT_EQ(rows->Bytes(0, 10), std::string("\x00\xff", 2));
    EXPECT_EQ(rows->Double(0, 11), std::numeric_limits<double>::infinity());
    EXPECT_EQ(rows->Double(0, 12), -std::numeric_limits<double>::infinity());
    EXPECT_TRUE(std::isnan(rows->Double(0, 13)));
    EXPECT_TRUE(rows->TextArray(0, 14).empty());
    // A NULL element reads as the word, as it always did.
    EXPECT_EQ(rows->TextArray(0, 15), (std::vector<std::string>{"NULL", "x"}));
  }
}

// A Transaction runs `first` in BEGIN's round trip, inside the transaction,
// and the connection's before_commit writes in COMMIT's: committed with the
// body's writes, or, when one fails, nothing is.
TEST_F(PgServer, ATransactionPipelinesItsFirstAndLastStatements) {
  const std::string table = "piped_" + testing::FreshPostgresSchema();
  auto pool = Pool::Open({.url = url_, .size = 1, .track_commit_lsn = true, .logger = Quiet()});
  ASSERT_TRUE(pool.ok()) << pool.status().ToString();
  {
    auto conn = (*pool)->Acquire();
    ASSERT_TRUE(conn.ok());
    ASSERT_TRUE((*conn)->ExecScript("CREATE TABLE " + table + " (x text)", "create").ok());
  }
  const std::vector<PgStatement> first = {{.sql = "SET LOCAL application_name = 'piped'"}};
  auto write = [&](const std::string& last) {
    return (*pool)->Transaction(
        "write",
        [&](PgConn& c) -> Status {
          MNEMO_ASSIGN_OR_RETURN(
              Rows name, c.Exec("SELECT current_setting('application_name')", "read the setting"));
          MNEMO_RETURN_IF_ERROR(c.Exec("INSERT INTO " + table + " VALUES ($1)",
                                       Params().Add(std::string(name.Text(0, 0))), "insert")
                                    .status());
          c.before_commit.push_back(
              {.sql = "INSERT INTO " + table + " VALUES ($1::text)", .params = Params().Add(last)});
          return Status::Ok();
        },
        first);
  };
  ASSERT_TRUE(write("last").ok());
  EXPECT_GT((*pool)->last_commit_lsn(), 0u);
  // Not text: the cast fails in COMMIT's pipeline, so the COMMIT never runs.
  const Status refused = (*pool)->Transaction(
      "write",
      [&](PgConn& c) -> Status {
        MNEMO_RETURN_IF_ERROR(
            c.Exec("INSERT INTO " + table + " VALUES ('body')", "insert").status());
        c.before_commit.push_back({.sql = "INSERT INTO " + table + " VALUES ($1::integer::text)",
                                   .params = Params().Add("not a number")});
        return Status::Ok();
      },
      first);
  EXPECT_FALSE(refused.ok());
  auto conn = (*pool)->Acquire();
  ASSERT_TRUE(conn.ok());
  auto rows = (*conn)->Exec("SELECT string_agg(x, ',' ORDER BY x) FROM " + table, "read");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(rows->Text(0, 0), "last,piped");
  ASSERT_TRUE((*conn)->ExecScript("DROP TABLE " + table, "drop").ok());
}

TEST_F(PgServer, ReadsAreServedWhenAListedStandbyIsDown) {
  // One standby down, one "standby" that is the primary itself (a promoted
  // standby answers the same way): the backend starts, writes, and reads its
  // writes back.
  auto backend = PostgresBackend::Open({.url = url_,
                                        .schema = testing::FreshPostgresSchema(),
                                        .pool_size = 2,
                                        .read_urls = {kDeadUrl, url_},
                                        .logger = Quiet()});
  ASSERT_TRUE(backend.ok()) << backend.status().ToString();
  for (int i = 0; i < 20; ++i) {
    const std::string key = "k" + std::to_string(i);
    ASSERT_TRUE((*backend)
                    ->entries()
                    .Upsert({.owner = "u", .key = key, .content = "v" + key, .now = 1000 + i})
                    .ok());
    auto found = (*backend)->entries().FindExact("u", TestNamespace("global"), TestKey(key));
    ASSERT_TRUE(found.ok()) << found.status().ToString();
    ASSERT_TRUE(found->has_value()) << key;
    EXPECT_EQ((*found)->content, "v" + key);
  }
}

}  // namespace
}  // namespace mnemo::storage::internal::pg
