// The real `mnemo serve` driven over HTTP.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>

#include <fstream>
#include <thread>
#include <vector>

#include "base/sha256.h"
#include "process.h"
#include "test_util.h"

namespace mnemo::e2e {
namespace {

using nlohmann::json;

constexpr size_t kMaxBody = 4 * 1024 * 1024;

class Http : public ::testing::Test {
 protected:
  void SetUp() override { Start({}); }

  void Start(const std::map<std::string, std::string>& env) {
    daemon_ = std::make_unique<Daemon>(dir_.path(), env);
    ASSERT_TRUE(daemon_->started()) << daemon_->Stderr();
    client_ = std::make_unique<httplib::Client>("127.0.0.1", daemon_->port());
    client_->set_read_timeout(20, 0);
    client_->set_write_timeout(20, 0);
  }

  httplib::Result PostRaw(const std::string& body) {
    return client_->Post("/rpc", body, "application/json");
  }

  // The parsed response to a raw body (HTTP 200 expected).
  json Raw(const std::string& body) {
    auto r = PostRaw(body);
    EXPECT_TRUE(r) << "no response";
    if (!r) return nullptr;
    EXPECT_EQ(r->status, 200) << r->body;
    return json::parse(r->body, nullptr, false);
  }

  json Call(const std::string& method, const json& params) {
    return Raw(json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", method}, {"params", params}}.dump());
  }

  int ErrorCode(const json& r) { return r.contains("error") ? r["error"].value("code", 0) : 0; }

  // The sentinel entry is still there and nothing else was written.
  void ExpectStoreIntact(size_t entries = 1) {
    json got = Call("memory.get", {{"key", "sentinel"}});
    EXPECT_EQ(got["result"]["content"], "keep me") << got.dump();
    EXPECT_EQ(Call("memory.stats", json::object())["result"]["entries"], entries);
  }

  void StoreSentinel() {
    json r = Call("memory.store", {{"key", "sentinel"}, {"value", "keep me"}});
    ASSERT_TRUE(r.contains("result")) << r.dump();
  }

  testing::TempDir dir_;
  std::unique_ptr<Daemon> daemon_;
  std::unique_ptr<httplib::Client> client_;
};

TEST_F(Http, StoreSearchGetForget) {
  json r = Call("memory.store",
                {{"key", "editor"}, {"value", "The user edits with Helix"}, {"tags", {"tools"}}});
  ASSERT_EQ(r["result"]["created"], true) << r.dump();
  r = Call("memory.search", {{"query", "Helix editor"}, {"min_score", 0}});
  ASSERT_FALSE(r["result"]["results"].empty()) << r.dump();
  EXPECT_EQ(r["result"]["results"][0]["key"], "editor");
  r = Call("memory.get", {{"key", "editor"}});
  EXPECT_EQ(r["result"]["content"], "The user edits with Helix");
  EXPECT_EQ(r["result"]["access_count"], 1);
  r = Call("memory.forget", {{"key", "editor"}});
  EXPECT_EQ(r["result"]["forgotten"], true);
  r = Call("memory.get", {{"key", "editor"}});
  EXPECT_EQ(ErrorCode(r), -32001);
  EXPECT_EQ(r["error"]["message"], "No memory entry found for key: editor");
}

TEST_F(Http, HealthzAndMetrics) {
  auto h = client_->Get("/healthz");
  ASSERT_TRUE(h);
  EXPECT_EQ(h->status, 200);
  EXPECT_EQ(json::parse(h->body)["status"], "ok");
  StoreSentinel();
  Call("memory.nope", json::object());
  auto m = client_->Get("/metrics");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->status, 200);
  EXPECT_NE(m->body.find("mnemo_rpc_requests_total{method=\"memory.store\",outcome=\"ok\"} 1"),
            std::string::npos)
      << m->body;
  EXPECT_NE(m->body.find("outcome=\"method_not_found\""), std::string::npos);
  EXPECT_NE(m->body.find("mnemo_rpc_request_duration_seconds_bucket"), std::string::npos);
  EXPECT_NE(m->body.find("mnemo_entries 1"), std::string::npos);
  EXPECT_NE(m->body.find("mnemo_queue_depth"), std::string::npos);
}

TEST_F(Http, BatchAndNotifications) {
  json r =
      Raw(R"([{"jsonrpc":"2.0","id":"a","method":"memory.store","params":{"key":"x","value":"1"}},
                   {"jsonrpc":"2.0","method":"memory.store","params":{"key":"y","value":"2"}},
                   {"jsonrpc":"2.0","id":"b","method":"memory.stats"}])");
  ASSERT_TRUE(r.is_array()) << r.dump();
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0]["id"], "a");
  EXPECT_EQ(r[1]["result"]["entries"], 2);
  auto n = PostRaw(R"({"jsonrpc":"2.0","method":"memory.stats"})");
  ASSERT_TRUE(n);
  EXPECT_EQ(n->status, 204);
  EXPECT_TRUE(n->body.empty());
}

TEST_F(Http, ProtocolErrorsLeaveTheStoreIntact) {
  StoreSentinel();
  EXPECT_EQ(ErrorCode(Raw("{\"jsonrpc\":\"2.0\",")), -32700);
  EXPECT_EQ(ErrorCode(Raw("\xff\xfe{}")), -32700);
  EXPECT_EQ(ErrorCode(Raw("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"memory.store\",\"params\":"
                          "{\"key\":\"bad\xc3\",\"value\":\"v\"}}")),
            -32700);
  EXPECT_EQ(ErrorCode(Raw(R"({"id":1,"method":"memory.stats"})")), -32600);
  EXPECT_EQ(ErrorCode(Raw(R"({"jsonrpc":"2.0","id":1,"method":5})")), -32600);
  EXPECT_EQ(ErrorCode(Raw("[]")), -32600);
  EXPECT_EQ(ErrorCode(Call("memory.drop_everything", json::object())), -32601);
  ExpectStoreIntact();
}

TEST_F(Http, InvalidParamsLeaveTheStoreIntact) {
  StoreSentinel();
  struct Case {
    const char* method;
    json params;
    const char* field;
  };
  const std::vector<Case> cases = {
      {"memory.store", {{"value", "v"}}, "key"},
      {"memory.store", {{"key", ""}, {"value", "v"}}, "key"},
      {"memory.store", {{"key", "   "}, {"value", "v"}}, "key"},
      {"memory.store", {{"key", std::string(257, 'k')}, {"value", "v"}}, "key"},
      {"memory.store", {{"key", "k"}}, "value"},
      {"memory.store", {{"key", "k"}, {"value", ""}}, "value"},
      {"memory.store", {{"key", "k"}, {"value", std::string((1 << 20) + 1, 'v')}}, "value"},
      {"memory.store", {{"key", 42}, {"value", "v"}}, "key"},
      {"memory.store", {{"key", "k"}, {"value", {{"nested", true}}}}, "value"},
      {"memory.store", {{"key", "k"}, {"value", "v"}, {"tags", "t"}}, "tags"},
      {"memory.store", {{"key", "k"}, {"value", "v"}, {"category", "Core!"}}, "category"},
      {"memory.search", {{"query", " "}}, "query"},
      {"memory.search", {{"query", "x"}, {"max_results", "ten"}}, "max_results"},
      {"memory.get", {{"key", "sentinel"}, {"namespace", 7}}, "namespace"},
  };
  for (const Case& c : cases) {
    json r = Call(c.method, c.params);
    EXPECT_EQ(ErrorCode(r), -32602) << c.method << " " << r.dump().substr(0, 300);
    EXPECT_EQ(r["error"]["data"].value("field", ""), c.field) << r.dump().substr(0, 300);
    EXPECT_FALSE(r["error"]["message"].get<std::string>().empty());
  }
  ExpectStoreIntact();
}

TEST_F(Http, HostileQueriesAreJustText) {
  StoreSentinel();
  for (const std::string& q : std::vector<std::string>{
           "\"", "*", "NEAR(", "OR", ")", "keep OR me", "'; DROP TABLE entries; --", "a\" OR \"b",
           "NEAR(keep me, 2)", std::string(100 * 1024, 'q'),
           "keep " + std::string(100 * 1024, 'x')}) {
    for (const char* method : {"memory.search", "memory.recall"}) {
      json r = Call(method, {{"query", q}});
      EXPECT_TRUE(r.contains("result"))
          << method << " " << q.substr(0, 40) << " -> " << r.dump().substr(0, 300);
    }
  }
  json sql = Call("memory.store", {{"key", "'; DROP TABLE entries; --"},
                                   {"value", "Robert'); DROP TABLE entries;--"}});
  EXPECT_TRUE(sql.contains("result")) << sql.dump();
  EXPECT_EQ(Call("memory.get", {{"key", "'; DROP TABLE entries; --"}})["result"]["content"],
            "Robert'); DROP TABLE entries;--");
  ExpectStoreIntact(2);
}

TEST_F(Http, BodyLimitIsEnforcedWithContentLength) {
  StoreSentinel();
  auto r = PostRaw(std::string(kMaxBody + 1, ' '));
  ASSERT_TRUE(r) << "no response";
  EXPECT_EQ(r->status, 413);
  // Exactly at the limit is read (and here rejected as oversized content).
  std::string prefix =
      R"({"jsonrpc":"2.0","id":1,"method":"memory.store","params":{"key":"big","value":")";
  std::string suffix = "\"}}";
  std::string at_limit =
      prefix + std::string(kMaxBody - prefix.size() - suffix.size(), 'v') + suffix;
  ASSERT_EQ(at_limit.size(), kMaxBody);
  json j = Raw(at_limit);
  EXPECT_EQ(ErrorCode(j), -32602);
  ExpectStoreIntact();
}

TEST_F(Http, BodyLimitIsEnforcedWhenChunked) {
  StoreSentinel();
  size_t sent = 0;
  auto r = client_->Post(
      "/rpc",
      [&](size_t, httplib::DataSink& sink) {
        const std::string chunk(64 * 1024, ' ');
        if (sent > kMaxBody) {
          sink.done();
          return true;
        }
        sent += chunk.size();
        return sink.write(chunk.data(), chunk.size());
      },
      "application/json");
  ASSERT_TRUE(r) << "no response, error " << static_cast<int>(r.error());
  EXPECT_EQ(r->status, 413);
  ExpectStoreIntact();
}

TEST_F(Http, WrongContentTypeAndBodiesOffRpc) {
  auto r = client_->Post("/rpc", "{}", "text/plain");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 415);
  auto g = client_->Get("/nope");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->status, 404);
}

// Issue 20: the inspector's files are compiled in and served with headers
// that keep the page to itself; nothing else is served at other paths.
TEST_F(Http, TheInspectorIsServedWithAStrictPolicy) {
  auto page = client_->Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_EQ(page->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(page->body.find("<script type=\"module\" src=\"/inspector/app.js\">"),
            std::string::npos);
  EXPECT_EQ(page->get_header_value("Content-Security-Policy"),
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
  EXPECT_EQ(page->get_header_value("X-Content-Type-Options"), "nosniff");
  EXPECT_EQ(page->get_header_value("Referrer-Policy"), "no-referrer");
  EXPECT_FALSE(page->has_header("Access-Control-Allow-Origin"));
  auto script = client_->Get("/inspector/app.js");
  ASSERT_TRUE(script);
  EXPECT_EQ(script->status, 200);
  EXPECT_EQ(script->get_header_value("Content-Type"), "text/javascript; charset=utf-8");
  // Values are put into the page as text, never as markup.
  EXPECT_EQ(script->body.find("innerHTML"), std::string::npos);
  for (const char* path : {"/inspector/", "/inspector/../mnemo.toml", "/inspector/nope.js"}) {
    auto missing = client_->Get(path);
    ASSERT_TRUE(missing) << path;
    EXPECT_EQ(missing->status, 404) << path;
  }
  // A page is only ever read: a body sent to it is refused before it is read.
  auto post = client_->Post("/", "{}", "application/json");
  ASSERT_TRUE(post);
  EXPECT_EQ(post->status, 400);
}

TEST_F(Http, SigtermStopsCleanly) {
  StoreSentinel();
  EXPECT_EQ(daemon_->Stop(SIGTERM), 0) << daemon_->Stderr();
  EXPECT_NE(daemon_->Stderr().find("stopped"), std::string::npos);
  // The data survived the stop.
  Start({});
  ExpectStoreIntact();
  EXPECT_EQ(daemon_->Stop(SIGINT), 0);
}

int ConnectIdle(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

TEST_F(Http, FullQueueAnswers503) {
  daemon_->Stop(SIGTERM);
  Start({{"MNEMO_SERVER_WORKERS", "1"}, {"MNEMO_SERVER_QUEUE", "1"}});
  // Idle connections hold no worker (the event loop keeps them).
  int idle = ConnectIdle(daemon_->port());
  ASSERT_GE(idle, 0);
  auto healthy = client_->Get("/healthz");
  ASSERT_TRUE(healthy);
  EXPECT_EQ(healthy->status, 200);
  close(idle);
  // Twelve slow batches at once: one runs, one waits, the rest are refused.
  json batch = json::array();
  for (int i = 0; i < 200; ++i) {
    batch.push_back({{"jsonrpc", "2.0"},
                     {"id", i},
                     {"method", "memory.store"},
                     {"params", {{"key", "k" + std::to_string(i)}, {"value", "v"}}}});
  }
  std::vector<int> statuses(12, 0);
  std::vector<std::string> bodies(12);
  std::vector<std::thread> clients;
  for (size_t i = 0; i < statuses.size(); ++i) {
    clients.emplace_back([&, i] {
      httplib::Client c("127.0.0.1", daemon_->port());
      c.set_read_timeout(30, 0);
      if (auto r = c.Post("/rpc", batch.dump(), "application/json")) {
        statuses[i] = r->status;
        bodies[i] = r->body;
      }
    });
  }
  for (std::thread& t : clients) t.join();
  int refused = 0;
  for (size_t i = 0; i < statuses.size(); ++i) {
    EXPECT_TRUE(statuses[i] == 200 || statuses[i] == 503) << statuses[i] << " " << bodies[i];
    if (statuses[i] != 503) continue;
    ++refused;
    EXPECT_NE(bodies[i].find("-32005"), std::string::npos) << bodies[i];
  }
  EXPECT_GE(refused, 1);
  // Capacity comes back once the batches are done.
  auto ok = client_->Get("/healthz");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
}

TEST(HttpStart, NonLoopbackWithoutTokensRefusesToStart) {
  testing::TempDir dir;
  RunResult r = RunMnemo({"--workspace", dir.path(), "serve", "--listen", "0.0.0.0:0"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("security.tokens"), std::string::npos) << r.err;
}

// A port is never shared (issue 16): with SO_REUSEPORT a second daemon said
// "listening" and the kernel split the connections between the two.
TEST(HttpStart, ASecondDaemonOnAServedPortExits2AndTheFirstKeepsServing) {
  testing::TempDir first_dir;
  testing::TempDir second_dir;
  Daemon first(first_dir.path());
  ASSERT_TRUE(first.started()) << first.Stderr();
  const std::string address = "127.0.0.1:" + std::to_string(first.port());
  // Killed after 10 s if it serves instead of exiting (137 then).
  RunResult second = RunMnemoKilledAfter(
      {"--workspace", second_dir.path(), "serve", "--listen", address}, std::chrono::seconds(10));
  EXPECT_EQ(second.exit_code, 2) << second.err;
  EXPECT_NE(second.err.find(address + " is already in use"), std::string::npos) << second.err;
  EXPECT_EQ(second.err.find("listening on"), std::string::npos) << second.err;
  // Every connection reaches the first daemon's workspace.
  httplib::Client client("127.0.0.1", first.port());
  client.set_read_timeout(20, 0);
  for (int i = 0; i < 10; ++i) {
    const json store = {{"jsonrpc", "2.0"},
                        {"id", i},
                        {"method", "memory.store"},
                        {"params", {{"key", "k" + std::to_string(i)}, {"value", "v"}}}};
    httplib::Client once("127.0.0.1", first.port());
    auto r = once.Post("/rpc", store.dump(), "application/json");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200);
  }
  auto stats =
      client.Post("/rpc", R"({"jsonrpc":"2.0","id":1,"method":"memory.stats","params":{}})",
                  "application/json");
  ASSERT_TRUE(stats);
  EXPECT_EQ(json::parse(stats->body)["result"]["entries"], 10) << stats->body;
  EXPECT_EQ(first.Stop(SIGTERM), 0);
}

}  // namespace
}  // namespace mnemo::e2e

namespace mnemo::e2e {
namespace {

// With [[security.tokens]] every request needs a matching bearer token, and
// the token's principal owns what it stores.
TEST(HttpTokens, BearerTokenIsRequiredAndNamesThePrincipal) {
  testing::TempDir dir;
  {
    std::ofstream toml(dir.Sub("mnemo.toml"));
    toml << "[[security.tokens]]\nprincipal = \"alice\"\nrole = \"user\"\nsha256 = \""
         << internal::Sha256Hex("alice-token") << "\"\n";
  }
  Daemon daemon(dir.path());
  ASSERT_TRUE(daemon.started()) << daemon.Stderr();
  httplib::Client client("127.0.0.1", daemon.port());
  const std::string store =
      R"({"jsonrpc":"2.0","id":1,"method":"memory.store","params":{"key":"k","value":"v"}})";

  auto none = client.Post("/rpc", store, "application/json");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 401);
  EXPECT_EQ(none->get_header_value("WWW-Authenticate"), "Bearer");

  auto wrong =
      client.Post("/rpc", {{"Authorization", "Bearer not-the-token"}}, store, "application/json");
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 401);
  auto metrics = client.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_EQ(metrics->status, 401);
  auto health = client.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);

  httplib::Headers auth = {{"Authorization", "Bearer alice-token"}};
  auto ok = client.Post("/rpc", auth, store, "application/json");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200) << ok->body;
  auto got = client.Post("/rpc", auth,
                         R"({"jsonrpc":"2.0","id":2,"method":"memory.get","params":{"key":"k"}})",
                         "application/json");
  ASSERT_TRUE(got);
  nlohmann::json body = nlohmann::json::parse(got->body);
  EXPECT_EQ(body["result"]["owner"], "alice") << got->body;
  EXPECT_EQ(daemon.Stderr().find("alice-token"), std::string::npos) << "tokens are never logged";
  EXPECT_EQ(daemon.Stop(SIGTERM), 0);
}

}  // namespace
}  // namespace mnemo::e2e
