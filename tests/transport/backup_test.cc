// Export format version 2 is a backup (spec 10 CLI, issue 16 item 3): a
// rich workspace exported and imported into an empty one answers every read
// method exactly as before, on sqlite -> sqlite and sqlite -> postgres ->
// sqlite; and import is all-or-nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "mnemo/engine.h"
#include "storage/backend_factory.h"
#include "test_util.h"
#include "transport/rpc/jsonrpc.h"
#include "transport/rpc/method_table.h"

namespace mnemo::transport {
namespace {

using nlohmann::json;

// One workspace: an engine (sqlite or postgres) behind a Dispatcher, on a
// clock that only the test moves.
struct Workspace {
  std::shared_ptr<testing::ManualClock> clock = std::make_shared<testing::ManualClock>();
  std::unique_ptr<Engine> engine;
  std::unique_ptr<Dispatcher> dispatcher;

  Workspace(const std::string& dir, const std::string& backend, bool acl = false) {
    Config config;
    config.memory.backend = backend;
    config.memory.acl_enabled = acl;
    if (backend == "postgres") {
      config.postgres.url = testing::PostgresTestUrl();
      config.postgres.schema = testing::FreshPostgresSchema();
    }
    auto e = Engine::Open({.workspace = dir, .config = config, .clock = clock});
    EXPECT_TRUE(e.ok()) << e.status().ToString();
    if (!e.ok()) return;
    engine = std::move(e).value();
    dispatcher = std::make_unique<Dispatcher>(*engine);
  }

  json Call(const std::string& method, const json& params, const Principal& who = {}) {
    json req = {{"jsonrpc", "2.0"}, {"id", 1}, {"method", method}, {"params", params}};
    auto out = dispatcher->HandleText(req.dump(), who);
    return out ? json::parse(*out) : json(nullptr);
  }
  json Ok(const std::string& method, const json& params, const Principal& who = {}) {
    json r = Call(method, params, who);
    EXPECT_TRUE(r.contains("result")) << method << " " << params.dump() << " -> " << r.dump();
    return r.value("result", json());
  }

  std::string Export(const ExportOptions& options = {}, const Principal& who = {}) {
    std::stringstream out;
    Status s = engine->admin().ExportJsonl(who, out, options);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return out.str();
  }
  Result<ImportReport> Import(const std::string& text, const ImportOptions& options = {},
                              const Principal& who = {}) {
    std::stringstream in(text);
    return engine->admin().ImportJsonl(who, in, {}, options);
  }
};

// Three sessions with tool calls and closed segments (recaps, events,
// profile, segment documents), entries of both visibilities, rules, tool
// statistics, a registered tool, documents, context events, a graph with a
// superseded triple, and bring-your-own vectors.
void BuildRichWorkspace(Workspace& w) {
  w.Ok("memory.tool_register", {{"name", "web_fetch"},
                                {"description", "Fetches a page"},
                                {"cleaner", json::array({{{"strip_html", true}}})}});
  w.Ok("memory.store", {{"key", "editor"}, {"value", "The user prefers vim keybindings"}});
  w.Ok("memory.store", {{"key", "team"},
                        {"value", "The platform team owns the deploy pipeline"},
                        {"visibility", "public"},
                        {"tags", {"org"}},
                        {"category", "daily"}});
  w.Ok("memory.store", {{"key", "byo"},
                        {"value", "An entry with its own vector"},
                        {"embedding", {0.1, 0.2, 0.3, 0.4}}});
  w.Ok("memory.tool_rule_put",
       {{"tool_name", "shell"}, {"rule", "Never run rm -rf /"}, {"priority", "critical"}});
  const char* topics[] = {"deploy the billing service to staging",
                          "write the quarterly report on churn", "plan the trip to Lisbon in May"};
  for (int s = 0; s < 3; ++s) {
    const std::string session = "session-" + std::to_string(s);
    for (int t = 0; t < 4; ++t) {
      w.clock->Advance(60'000);
      json call = {{"name", t % 2 == 0 ? "web_fetch" : "shell"},
                   {"arguments", {{"n", t}}},
                   {"success", t != 3},
                   {"output", "<p>output " + std::to_string(t) + " about " + topics[s] + "</p>"},
                   {"duration_ms", 10 * t}};
      w.Ok("memory.turn_complete",
           {{"session_id", session},
            {"user_message", std::string("Let's ") + topics[s] + ". I decided to use Postgres " +
                                 "for step " + std::to_string(t) + ". I prefer short answers."},
            {"assistant_response", std::string("Working on ") + topics[s]},
            {"tool_calls", json::array({call})},
            {"cost_microdollars", 100 + t},
            {"agent_id", "agent-" + std::to_string(s)},
            {"sync", true}});
    }
    w.Ok("memory.session_end", {{"session_id", session}, {"sync", true}});
  }
  w.Ok("memory.profile_put", {{"facet_type", "preference"}, {"key", "language"}, {"value", "C++"}});
  w.Ok("memory.doc_put", {{"content", "Release notes: the billing service moved to Postgres."},
                          {"source", "notes://release"}});
  for (int i = 0; i < 3; ++i) {
    w.clock->Advance(1000);
    w.Ok("memory.context_append",
         {{"session_id", "ctx"},
          {"event",
           {{"input", "step " + std::to_string(i) + " of the migration"},
            {"response", "done with step " + std::to_string(i)},
            {"tool_results", json::array({{{"name", "web_fetch"},
                                           {"output", "<b>page</b> " + std::to_string(i)},
                                           {"success", true}}})}}}});
  }
  w.Ok("memory.context_prune", {{"session_id", "ctx"}, {"keep", 2}});
  w.Ok("memory.graph_upsert",
       {{"subject", "user"}, {"predicate", "lives in"}, {"object", "Berlin"}});
  w.clock->Advance(86'400'000);
  w.Ok("memory.graph_upsert",
       {{"subject", "user"}, {"predicate", "lives in"}, {"object", "Lisbon"}});
  w.Ok("memory.graph_upsert", {{"subject", "user"}, {"predicate", "uses"}, {"object", "vim"}});
}

// Every read method, in one fixed order (some count accesses, so both
// sides read from the same exported state in the same order).
std::vector<std::pair<std::string, json>> ReadCalls(Workspace& w) {
  std::vector<std::pair<std::string, json>> calls = {
      {"memory.search", {{"query", "deploy pipeline"}}},
      {"memory.search", {{"query", "vector"}, {"embedding", {0.1, 0.2, 0.3, 0.4}}}},
      {"memory.recall", {{"query", "billing service Postgres"}}},
      {"memory.list", json::object()},
      {"memory.list", {{"namespace", "tool_effectiveness"}}},
      {"memory.get", {{"key", "editor"}}},
      {"memory.stats", json::object()},
      {"memory.tool_rule_list", {{"tool_name", "shell"}}},
      {"memory.tool_rules_for_prompt", {{"tools", {"shell", "web_fetch"}}}},
      {"memory.tool_rules_json", json::object()},
      {"memory.tool_rule_count", {{"tool_name", "shell"}}},
      {"memory.episodic_search", {{"query", "quarterly churn report"}}},
      {"memory.episodic_search", {{"query", "output page"}}},
      {"memory.session_turns", {{"session_id", "session-0"}}},
      {"memory.session_turns", {{"session_id", "session-2"}}},
      {"memory.segments", json::object()},
      {"memory.events", json::object()},
      {"memory.events", {{"query", "Postgres"}}},
      {"memory.profile", json::object()},
      {"memory.profile_render", json::object()},
      {"memory.doc_list", json::object()},
      {"memory.doc_search", {{"query", "billing Postgres"}}},
      {"memory.context_window",
       {{"session_id", "ctx"}, {"query", "migration"}, {"budget_chars", 4000}}},
      {"memory.context_build", {{"query", "billing"}, {"session_id", "session-0"}}},
      {"memory.graph_query", {{"subject", "user"}, {"include_history", true}}},
      {"memory.graph_query", {{"object", "vim"}}},
      {"memory.tool_list", json::object()},
  };
  // doc_get of every document listed.
  json docs = w.Ok("memory.doc_list", json::object());
  for (const json& d : docs.value("documents", json::array())) {
    calls.push_back({"memory.doc_get", {{"id", d["id"]}}});
  }
  return calls;
}

// Keyword scores to 2 significant digits: a rebuilt FTS index holds no
// statistics of rows deleted before the export (a segment document's
// derived fields replaced, pruned events), which moves a tiny BM25 score in
// its third digit (5.524e-06 against 5.531e-06). Everything else is exact.
void RoundScores(json& j) {
  if (j.is_object()) {
    for (auto& [key, value] : j.items()) {
      if (key == "score" && value.is_number_float()) {
        std::array<char, 32> buf{};
        std::snprintf(buf.data(), buf.size(), "%.2g", value.get<double>());
        value = std::strtod(buf.data(), nullptr);
      } else {
        RoundScores(value);
      }
    }
  } else if (j.is_array()) {
    for (json& x : j) RoundScores(x);
  }
}

std::vector<json> Answers(Workspace& w, const std::vector<std::pair<std::string, json>>& calls) {
  std::vector<json> out;
  for (const auto& [method, params] : calls) {
    out.push_back(w.Call(method, params));
    RoundScores(out.back());
    // Which store answers: differs by design on the postgres hop.
    if (method == "memory.stats") {
      out.back()["result"].erase("backend");
      out.back()["result"].erase("schema_version");
    }
  }
  return out;
}

// The records of an export (its header dropped: created_at and backend differ).
std::string Body(const std::string& exported) { return exported.substr(exported.find('\n') + 1); }

void ExpectSameAnswers(const std::vector<std::pair<std::string, json>>& calls,
                       const std::vector<json>& want, const std::vector<json>& got) {
  ASSERT_EQ(want.size(), got.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(want[i], got[i]) << calls[i].first << " " << calls[i].second.dump();
    EXPECT_FALSE(want[i].contains("error")) << calls[i].first << " -> " << want[i].dump();
  }
}

class BackupRoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(BackupRoundTrip, EveryReadMethodAnswersTheSameAfterImportIntoAnEmptyWorkspace) {
  testing::TempDir dir;
  Workspace a(dir.Sub("a"), "sqlite");
  ASSERT_NE(a.engine, nullptr);
  BuildRichWorkspace(a);
  const std::string exported = a.Export({.with_vectors = true});
  const json header = json::parse(exported.substr(0, exported.find('\n')));
  EXPECT_EQ(header["mnemo_export"], 2);
  const json counts = header["counts"];
  for (const char* kind : {"entries", "vectors", "turns", "segments", "events", "facets",
                           "documents", "context_events", "triples"}) {
    EXPECT_GT(counts.value(kind, 0), 0) << kind << " missing from " << header.dump();
  }
  EXPECT_EQ(counts["turns"], 24);  // 3 sessions x 4 turns x (user, assistant)
  const auto calls = ReadCalls(a);
  const std::vector<json> want = Answers(a, calls);

  // Through the other backend and back: every hop answers the same.
  std::vector<std::string> hops = {GetParam()};
  if (GetParam() == "postgres") hops.push_back("sqlite");
  std::string file = exported;
  for (size_t h = 0; h < hops.size(); ++h) {
    Workspace b(dir.Sub("hop" + std::to_string(h)), hops[h]);
    ASSERT_NE(b.engine, nullptr);
    b.clock->Advance(a.clock->NowMs() - b.clock->NowMs());
    auto report = b.Import(file);
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    EXPECT_EQ(report->version, 2);
    EXPECT_EQ(report->skipped, 0);
    const std::string again = b.Export({.with_vectors = true});
    EXPECT_EQ(Body(again), Body(exported)) << "hop " << hops[h];
    ExpectSameAnswers(calls, want, Answers(b, calls));
    file = again;
  }
  RecordProperty("read_calls_compared", static_cast<int>(calls.size()));
}

INSTANTIATE_TEST_SUITE_P(Backends, BackupRoundTrip, ::testing::Values("sqlite", "postgres"));

// Where `value` breaks `schema` (the subset the method table uses: type,
// enum, properties, required, items, additionalProperties); "" when it
// does not.
std::string SchemaViolation(const json& schema, const json& value, const std::string& path) {
  if (schema.contains("type")) {
    auto is = [&value](const std::string& t) {
      return (t == "object" && value.is_object()) || (t == "array" && value.is_array()) ||
             (t == "string" && value.is_string()) || (t == "boolean" && value.is_boolean()) ||
             (t == "null" && value.is_null()) || (t == "number" && value.is_number()) ||
             (t == "integer" && value.is_number_integer());
    };
    const json& type = schema["type"];
    bool ok = type.is_array() ? std::any_of(type.begin(), type.end(),
                                            [&](const json& t) { return is(t.get<std::string>()); })
                              : is(type.get<std::string>());
    if (!ok) return path + " is " + value.dump().substr(0, 80) + ", not " + type.dump();
  }
  if (schema.contains("enum") &&
      std::find(schema["enum"].begin(), schema["enum"].end(), value) == schema["enum"].end()) {
    return path + " = " + value.dump() + " is not one of " + schema["enum"].dump();
  }
  if (value.is_object()) {
    for (const json& name : schema.value("required", json::array())) {
      if (!value.contains(name.get<std::string>()))
        return path + "." + name.get<std::string>() + " is missing";
    }
    for (const auto& [name, member] : value.items()) {
      const json properties = schema.value("properties", json::object());
      const json* sub = properties.contains(name) ? &properties[name] : nullptr;
      if (sub == nullptr && schema.contains("additionalProperties") &&
          schema["additionalProperties"].is_object()) {
        sub = &schema["additionalProperties"];
      }
      if (sub == nullptr) continue;
      std::string v = SchemaViolation(*sub, member, path + "." + name);
      if (!v.empty()) return v;
    }
  }
  if (value.is_array() && schema.contains("items")) {
    for (size_t i = 0; i < value.size(); ++i) {
      std::string v =
          SchemaViolation(schema["items"], value[i], path + "[" + std::to_string(i) + "]");
      if (!v.empty()) return v;
    }
  }
  return "";
}

// docs/schema.json's `read_only` is what the clients retry on a lost
// answer: every method flagged so is called here, twice, and leaves the
// workspace as it was (its export unchanged); every method called here is
// flagged.
TEST(ReadOnlyMethods, LeaveTheWorkspaceAsItWasAndEveryAnswerMatchesItsSchema) {
  testing::TempDir dir;
  Workspace w(dir.Sub("w"), "sqlite");
  ASSERT_NE(w.engine, nullptr);
  BuildRichWorkspace(w);
  auto calls = ReadCalls(w);
  const json rules = w.Ok("memory.tool_rule_list", {{"tool_name", "shell"}});
  ASSERT_FALSE(rules.empty());
  calls.push_back({"memory.tool_rule_get", {{"tool_name", "shell"}, {"id", rules[0]["id"]}}});
  calls.push_back({"memory.path_protected", {{"path", dir.Sub("w") + "/mnemo.db"}}});
  calls.push_back({"memory.health", json::object()});
  calls.push_back({"memory.methods", json::object()});
  calls.push_back({"memory.tools_schema", json::object()});
  std::set<std::string> called;
  for (const auto& [method, params] : calls) called.insert(method);
  // Every answer is what its method's result schema says (docs/schema.json,
  // from which the clients' types are generated), some writes' too.
  auto checked = calls;
  checked.push_back({"memory.recall", {{"query", "Postgres"}, {"context_turns", 1}}});
  checked.push_back({"memory.store", {{"key", "schema"}, {"value", "checked"}}});
  checked.push_back({"memory.forget", {{"key", "schema"}}});
  checked.push_back(
      {"memory.tool_call", {{"name", "memory_get"}, {"arguments", {{"key", "editor"}}}}});
  for (const auto& [method, params] : checked) {
    const MethodSpec* spec = transport::DefaultMethodTable().Find(method);
    ASSERT_NE(spec, nullptr) << method;
    json answer = w.Call(method, params);
    ASSERT_TRUE(answer.contains("result")) << method << " " << answer.dump();
    EXPECT_EQ(SchemaViolation(spec->result_schema, answer["result"], "result"), "")
        << method << " " << params.dump();
  }
  for (const MethodSpec& m : transport::DefaultMethodTable().All()) {
    EXPECT_EQ(called.count(m.name) == 1, m.read_only) << m.name;
  }
  // The export's records with their access counts (statistics) left out.
  auto records = [&w] {
    std::vector<json> out;
    std::istringstream lines(Body(w.Export({.with_vectors = true})));
    for (std::string line; std::getline(lines, line);) {
      out.push_back(json::parse(line));
      out.back().erase("access_count");
    }
    return out;
  };
  const std::vector<json> before = records();
  for (int round = 0; round < 2; ++round) {
    for (const auto& [method, params] : calls) {
      EXPECT_FALSE(w.Call(method, params).contains("error")) << method << " " << params.dump();
    }
  }
  const std::vector<json> after = records();
  ASSERT_EQ(after.size(), before.size());
  for (size_t i = 0; i < before.size(); ++i) EXPECT_EQ(after[i], before[i]);
}

class Backup : public ::testing::Test {
 protected:
  testing::TempDir dir_;
};

TEST_F(Backup, ABadLineImportsNothingAndEveryBadLineIsReported) {
  Workspace a(dir_.Sub("a"), "sqlite");
  BuildRichWorkspace(a);
  std::string file = a.Export();
  // Break two record lines: line 3 and the last one.
  std::vector<std::string> lines;
  std::stringstream in(file);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  lines[2] = "{\"type\": \"turn\", \"role\": \"robot\", \"session_id\": \"s\"}";
  lines.back() = "{not json";
  std::string broken;
  for (const std::string& l : lines) broken += l + "\n";
  Workspace b(dir_.Sub("b"), "sqlite");
  auto report = b.Import(broken);
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.status().message().find("line 3:"), std::string::npos)
      << report.status().message();
  EXPECT_NE(report.status().message().find("line " + std::to_string(lines.size()) + ":"),
            std::string::npos)
      << report.status().message();
  EXPECT_EQ(Body(b.Export()), "");  // nothing was imported
}

TEST_F(Backup, CountsThatDisagreeWithTheLinesAreRefused) {
  Workspace a(dir_.Sub("a"), "sqlite");
  BuildRichWorkspace(a);
  std::string file = a.Export();
  // Drop the last record: a truncated file.
  file.pop_back();
  file = file.substr(0, file.rfind('\n') + 1);
  Workspace b(dir_.Sub("b"), "sqlite");
  auto report = b.Import(file);
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.status().message().find("the header counts"), std::string::npos)
      << report.status().message();
  EXPECT_EQ(Body(b.Export()), "");
}

TEST_F(Backup, ANonEmptyWorkspaceIsRefusedUnlessMerge) {
  Workspace a(dir_.Sub("a"), "sqlite");
  BuildRichWorkspace(a);
  const std::string file = a.Export();
  Workspace b(dir_.Sub("b"), "sqlite");
  b.Ok("memory.store", {{"key", "mine"}, {"value", "already here"}});
  auto refused = b.Import(file);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("not empty (it holds 1 entries"), std::string::npos)
      << refused.status().message();
  EXPECT_NE(refused.status().message().find("--merge"), std::string::npos);
  auto merged = b.Import(file, {.merge = true});
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ(b.Ok("memory.session_turns", {{"session_id", "session-1"}}).size(),
            a.Ok("memory.session_turns", {{"session_id", "session-1"}}).size());
  // Merging the same file again keeps what is stored and skips every record
  // but the entries (which are upserted).
  auto again = b.Import(file, {.merge = true});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->created, 0);
  EXPECT_EQ(again->skipped, again->imported - again->records["entries"]);
}

TEST_F(Backup, AVersionOneFileStillImports) {
  Workspace b(dir_.Sub("b"), "sqlite");
  b.Ok("memory.store", {{"key", "there"}, {"value", "before"}});
  auto report = b.Import(
      "{\"key\":\"k1\",\"content\":\"one\"}\n{\"key\":\"k2\",\"content\":\"two\","
      "\"visibility\":\"public\"}\n");
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->version, 1);
  EXPECT_EQ(report->imported, 2);
  EXPECT_EQ(b.Ok("memory.get", {{"key", "k2"}})["content"], "two");
}

TEST_F(Backup, AUsersExportUnderAclHoldsNothingPrivateOfAnotherUser) {
  Workspace w(dir_.Sub("w"), "sqlite", /*acl=*/true);
  const Principal alice{.name = "alice", .role = Role::kUser};
  const Principal bob{.name = "bob", .role = Role::kUser};
  w.Ok("memory.store", {{"key", "a"}, {"value", "alice-private-marker"}}, alice);
  w.Ok("memory.store", {{"key", "b"}, {"value", "bob-private-marker"}}, bob);
  w.Ok("memory.store", {{"key", "p"}, {"value", "bob-public-marker"}, {"visibility", "public"}},
       bob);
  w.Ok("memory.turn_complete",
       {{"session_id", "s"},
        {"user_message", "bob-turn-marker"},
        {"assistant_response", "ok"},
        {"sync", true}},
       bob);
  w.Ok("memory.session_end", {{"session_id", "s"}, {"sync", true}}, bob);
  w.Ok("memory.doc_put", {{"content", "bob-document-marker"}}, bob);
  w.Ok("memory.graph_upsert",
       {{"subject", "bob"}, {"predicate", "uses"}, {"object", "bob-graph-marker"}}, bob);
  const std::string mine = w.Export({}, alice);
  EXPECT_NE(mine.find("alice-private-marker"), std::string::npos);
  EXPECT_NE(mine.find("bob-public-marker"), std::string::npos);
  for (const char* marker :
       {"bob-private-marker", "bob-turn-marker", "bob-document-marker", "bob-graph-marker"}) {
    EXPECT_EQ(mine.find(marker), std::string::npos) << marker;
  }
  const std::string all = w.Export({}, Principal{.name = "root", .role = Role::kAdmin});
  for (const char* marker : {"alice-private-marker", "bob-private-marker", "bob-turn-marker",
                             "bob-document-marker", "bob-graph-marker"}) {
    EXPECT_NE(all.find(marker), std::string::npos) << marker;
  }
}

}  // namespace
}  // namespace mnemo::transport
