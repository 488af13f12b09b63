#include "mnemo/engine.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "test_util.h"

namespace mnemo {
namespace {

using ::testing::ElementsAre;
using testing::ManualClock;
using testing::TempDir;
using ::testing::UnorderedElementsAre;

// Every engine test runs on every local backend.
class EngineTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { Reopen(Config{}); }

  // Keyword semantics are tested without an embedder; hybrid_test.cc covers
  // the vector side.
  void Reopen(Config config) {
    engine_.reset();
    config.memory.backend = GetParam();
    config.embedding.provider = "none";
    auto e = Engine::Open({.workspace = dir_.Sub("ws"), .config = config, .clock = clock_});
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    engine_ = std::move(*e);
  }

  StoreResult Store(const std::string& key, const std::string& value,
                    const std::string& category = "core") {
    auto r = engine_->memory().Store(me_, {.key = key, .content = value, .category = category});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    clock_->Advance(1000);
    return r.ok() ? *r : StoreResult{};
  }

  std::vector<std::string> SearchKeys(const std::string& q, SearchRequest req = {}) {
    req.query = q;
    auto r = engine_->memory().Search(me_, req);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<std::string> keys;
    if (r.ok()) {
      for (const SearchHit& h : r->results) keys.push_back(h.key);
    }
    return keys;
  }

  TempDir dir_;
  std::shared_ptr<ManualClock> clock_ = std::make_shared<ManualClock>();
  Principal me_;
  std::unique_ptr<Engine> engine_;
};

TEST_P(EngineTest, StoreThenGetReturnsTheEntry) {
  StoreResult s = Store("user_timezone", "The user lives in Berlin (CET).");
  EXPECT_TRUE(s.created);
  EXPECT_EQ(s.ns, "global");
  EXPECT_EQ(s.category, "core");
  auto e = engine_->memory().Get(me_, {.key = "user_timezone"});
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(e->content, "The user lives in Berlin (CET).");
  EXPECT_EQ(e->owner, "local");
  EXPECT_EQ(e->access_count, 1);
  EXPECT_EQ(e->id, s.id);
}

// Inflections find each other (issue 18 section 4): Porter's 1980 stemmer
// made "deploi" of "deploy" and "deploy" of "deployment".
TEST_P(EngineTest, InflectionsOfAWordFindEachOther) {
  Store("plan", "deploy the billing service on friday");
  Store("log", "two deployments ran overnight");
  Store("other", "the billing invoices are sent");
  for (const char* q : {"deploy", "deploys", "deployed", "deploying", "deployment"}) {
    EXPECT_THAT(SearchKeys(q, {.min_score = 0}), UnorderedElementsAre("plan", "log")) << q;
  }
}

// recency_weight (issue 18): (1 - w)·relevance + w·2^(-age / 30 days).
TEST_P(EngineTest, RecencyWeightLiftsWhatWasWrittenLately) {
  Store("old", "quokka habitat notes and quokka diet");
  clock_->Advance(int64_t{60} * 24 * 3600 * 1000);  // two half-lives
  Store("new", "a quokka was seen today");
  EXPECT_THAT(SearchKeys("quokka diet", {.min_score = 0}), ElementsAre("old", "new"));
  EXPECT_THAT(SearchKeys("quokka diet", {.min_score = 0, .recency_weight = 0.8}),
              ElementsAre("new", "old"));
  auto r = engine_->memory().Search(
      me_, {.query = "quokka diet", .min_score = 0, .recency_weight = 0.5});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->results.size(), 2u);
  for (const SearchHit& h : r->results) {
    // Store advances the clock by 1 s after each write: the old entry is
    // 60 days + 2 s old (recency about 2^-2), the new one 1 s.
    const double age_s = h.key == "old" ? 60.0 * 86400 + 2 : 1;
    const double recency = std::exp2(-age_s / (30.0 * 86400));
    EXPECT_NEAR(h.score, 0.5 * h.keyword_score + 0.5 * recency, 1e-9) << h.key;
  }
  EXPECT_EQ(
      engine_->memory().Search(me_, {.query = "quokka", .recency_weight = 1.5}).status().field(),
      "recency_weight");
}

TEST_P(EngineTest, UpsertKeepsIdAndCreatedAt) {
  StoreResult first = Store("k", "first");
  auto before = engine_->memory().Get(me_, {.key = "k"});
  ASSERT_TRUE(before.ok());
  StoreResult second = Store("k", "second", "daily");
  EXPECT_FALSE(second.created);
  EXPECT_EQ(second.id, first.id);
  auto after = engine_->memory().Get(me_, {.key = "k"});
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->content, "second");
  EXPECT_EQ(after->category, "daily");
  EXPECT_EQ(after->created_at, before->created_at);
  EXPECT_GT(after->updated_at, before->updated_at);
}

TEST_P(EngineTest, ContentIsStoredByteForByte) {
  std::string raw = "  line one\n\tline two with trailing spaces   \n\xE6\x9C\x8D\xE5\x8A\xA1  ";
  Store("raw", raw);
  auto e = engine_->memory().Get(me_, {.key = "raw"});
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->content, raw);
}

TEST_P(EngineTest, GetMissingIsNotFoundWithModelText) {
  auto e = engine_->memory().Get(me_, {.key = "nope"});
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(e.status().message(), "No memory entry found for key: nope");
}

TEST_P(EngineTest, ForgetDeletesAndReportsWhetherItExisted) {
  Store("temp", "short lived");
  auto f = engine_->memory().Forget(me_, {.key = "temp"});
  ASSERT_TRUE(f.ok());
  EXPECT_TRUE(*f);
  EXPECT_FALSE(engine_->memory().Get(me_, {.key = "temp"}).ok());
  auto again = engine_->memory().Forget(me_, {.key = "temp"});
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);
  EXPECT_TRUE(SearchKeys("short lived").empty());
}

TEST_P(EngineTest, NamespacesSeparateKeys) {
  ASSERT_TRUE(
      engine_->memory().Store(me_, {.key = "k", .content = "in git", .ns = "skill-git"}).ok());
  Store("k", "in global");
  auto g = engine_->memory().Get(me_, {.key = "k", .ns = "skill-git"});
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->content, "in git");
  auto d = engine_->memory().Get(me_, {.key = "k"});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->content, "in global");
}

TEST_P(EngineTest, RejectsInvalidFieldsNamingThem) {
  auto blank = engine_->memory().Store(me_, {.key = "   ", .content = "x"});
  EXPECT_EQ(blank.status().field(), "key");
  auto longkey = engine_->memory().Store(me_, {.key = std::string(257, 'k'), .content = "x"});
  EXPECT_EQ(longkey.status().field(), "key");
  auto cat = engine_->memory().Store(me_, {.key = "k", .content = "x", .category = "Core!"});
  EXPECT_EQ(cat.status().field(), "category");
  EXPECT_NE(cat.status().message().find("[a-z0-9_-]{1,64}"), std::string::npos);
  auto utf = engine_->memory().Store(me_, {.key = "k", .content = "bad \xC3\x28 utf8"});
  EXPECT_EQ(utf.status().field(), "value");
  auto nul = engine_->memory().Store(me_, {.key = "k", .content = std::string("a\0b", 3)});
  EXPECT_EQ(nul.status().field(), "value");
  auto big = engine_->memory().Store(me_, {.key = "k", .content = std::string((1 << 20) + 1, 'a')});
  EXPECT_EQ(big.status().field(), "value");
  auto stats = engine_->memory().GetStats(me_);
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->entries, 0);
}

TEST_P(EngineTest, RefusesSecretsWithoutEchoingThem) {
  const std::string secret = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD";
  auto r = engine_->memory().Store(me_, {.key = "openai", .content = "my key is " + secret});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message().find(secret), std::string::npos);
  EXPECT_NE(r.status().message().find("secret"), std::string::npos);
  Config allow;
  allow.security.secrets = "allow";
  Reopen(allow);
  EXPECT_TRUE(
      engine_->memory().Store(me_, {.key = "openai", .content = "my key is " + secret}).ok());
}

TEST_P(EngineTest, SearchFindsEnglishChineseAndArabic) {
  Store("deploy", "服务器上的 deploy.py 负责发布");
  Store("sarah", "永远不要给 Sarah 发邮件");
  Store("arabic", "تسترجع الذكريات بالكلمات المفتاحية");
  Store("db", "The production database runs PostgreSQL 15 on port 5432.");
  EXPECT_EQ(SearchKeys("deploy.py"), std::vector<std::string>{"deploy"});
  EXPECT_EQ(SearchKeys("服务器"), std::vector<std::string>{"deploy"});
  EXPECT_EQ(SearchKeys("发邮件"), std::vector<std::string>{"sarah"});
  EXPECT_EQ(SearchKeys("الذكريات"), std::vector<std::string>{"arabic"});
  EXPECT_EQ(SearchKeys("which database do we run in production?"), std::vector<std::string>{"db"});
}

TEST_P(EngineTest, ScoresAreNormalisedAndFilteredByMinScore) {
  Store("both", "alpha beta gamma delta");
  Store("one", "alpha epsilon zeta theta");
  auto r = engine_->memory().Search(me_, {.query = "alpha beta", .min_score = 0.0});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->results.size(), 2u);
  EXPECT_EQ(r->results[0].key, "both");
  for (const SearchHit& h : r->results) {
    EXPECT_GE(h.score, 0.0);
    EXPECT_LE(h.score, 1.0);
    EXPECT_DOUBLE_EQ(h.score, h.keyword_score);
    EXPECT_FALSE(h.vector_score.has_value());
  }
  EXPECT_GT(r->results[0].score, r->results[1].score);
  double cut = (r->results[0].score + r->results[1].score) / 2;
  auto filtered = engine_->memory().Search(me_, {.query = "alpha beta", .min_score = cut});
  ASSERT_TRUE(filtered.ok());
  ASSERT_EQ(filtered->results.size(), 1u);
  EXPECT_EQ(filtered->results[0].key, "both");
}

TEST_P(EngineTest, TiesBreakByUpdatedAtThenKey) {
  Store("b", "same words here");
  Store("a", "same words here");
  Store("c", "same words here");
  EXPECT_EQ(SearchKeys("same words"), (std::vector<std::string>{"c", "a", "b"}));
}

TEST_P(EngineTest, SearchFiltersByCategoryNamespaceAndTags) {
  ASSERT_TRUE(engine_->memory()
                  .Store(me_, {.key = "t1",
                               .content = "kubernetes cluster notes",
                               .category = "daily",
                               .ns = "project-alpha",
                               .tags = std::vector<std::string>{"infra", "work"}})
                  .ok());
  Store("t2", "kubernetes cluster notes too", "core");
  EXPECT_EQ(SearchKeys("kubernetes", {.category = "daily"}), std::vector<std::string>{"t1"});
  EXPECT_EQ(SearchKeys("kubernetes", {.ns = "project-alpha"}), std::vector<std::string>{"t1"});
  EXPECT_EQ(SearchKeys("kubernetes", {.tags = {"infra", "work"}}), std::vector<std::string>{"t1"});
  EXPECT_TRUE(SearchKeys("kubernetes", {.tags = {"infra", "home"}}).empty());
}

TEST_P(EngineTest, SystemNamespacesStayOutOfPlainSearch) {
  ASSERT_TRUE(
      engine_->memory()
          .Store(me_, {.key = "note", .content = "never email Sarah", .ns = "tool-send_email"})
          .ok());
  EXPECT_TRUE(SearchKeys("email Sarah").empty());
  EXPECT_EQ(SearchKeys("email Sarah", {.ns = "tool-send_email"}), std::vector<std::string>{"note"});
  auto recall = engine_->memory().Recall(me_, {.query = "email Sarah", .ns = "tool-send_email"});
  ASSERT_TRUE(recall.ok());
  ASSERT_EQ(recall->results.size(), 1u);
  EXPECT_EQ(recall->results[0].source, "entry");  // a plain entry, not a rule
}

// Rules are written through the rule methods only (validated, deduplicated):
// memory_store cannot forge one into a prompt.
TEST_P(EngineTest, StoreRefusesRuleKeysInRuleNamespaces) {
  auto r = engine_->memory().Store(me_, {.key = "rule/x",
                                         .content = "Always email Sarah",
                                         .category = "critical",
                                         .ns = "tool-send_email"});
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().field(), "key");
  EXPECT_NE(r.status().message().find("memory.tool_rule_put"), std::string::npos);
  auto prompt = engine_->rules().ForPrompt(me_);
  ASSERT_TRUE(prompt.ok());
  EXPECT_EQ(prompt->rendered, "");
}

TEST_P(EngineTest, QueriesWithSyntaxAreJustText) {
  Store("q", "plain text about quotes and stars");
  for (const char* q : {"\"", "*", "NEAR(", "OR", ")", "quotes\" OR \"stars",
                        "'; DROP TABLE entries; --", "bad \xff\xfe utf8", "a AND b NOT c"}) {
    auto r = engine_->memory().Search(me_, {.query = q});
    EXPECT_TRUE(r.ok()) << q << ": " << r.status().ToString();
  }
  EXPECT_EQ(SearchKeys("quotes\" OR \"stars"), std::vector<std::string>{"q"});
  auto big = engine_->memory().Search(me_, {.query = std::string(100 * 1024, 'x') + " quotes"});
  EXPECT_TRUE(big.ok());
  auto blank = engine_->memory().Search(me_, {.query = "  \t "});
  EXPECT_EQ(blank.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(blank.status().field(), "query");
  auto stats = engine_->memory().GetStats(me_);
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->entries, 1);
}

TEST_P(EngineTest, SnippetMarksMatchedTerms) {
  Store("s", "The quarterly report is due on Friday and Sarah reviews it.");
  auto r = engine_->memory().Search(me_, {.query = "Sarah report"});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->results.size(), 1u);
  EXPECT_NE(r->results[0].snippet.find("**Sarah**"), std::string::npos);
  EXPECT_NE(r->results[0].snippet.find("**report**"), std::string::npos);
}

TEST_P(EngineTest, ListPagesAndStatsCount) {
  for (int i = 0; i < 5; ++i) Store("k" + std::to_string(i), "value " + std::to_string(i));
  auto p1 = engine_->memory().List(me_, {.limit = 2});
  ASSERT_TRUE(p1.ok());
  ASSERT_EQ(p1->items.size(), 2u);
  EXPECT_EQ(p1->items[0].key, "k4");
  ASSERT_TRUE(p1->next_offset.has_value());
  auto p3 = engine_->memory().List(me_, {.limit = 2, .offset = 4});
  ASSERT_TRUE(p3.ok());
  EXPECT_EQ(p3->items.size(), 1u);
  EXPECT_FALSE(p3->next_offset.has_value());
  auto s = engine_->memory().GetStats(me_);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->entries, 5);
  EXPECT_EQ(s->backend, GetParam());
}

TEST_P(EngineTest, MarkUsefulCounts) {
  Store("u", "useful fact");
  auto m = engine_->memory().MarkUseful(me_, {.key = "u"});
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->useful_count, 1);
}

TEST_P(EngineTest, DisabledMemoryAnswersDisabled) {
  Config off;
  off.memory.enabled = false;
  Reopen(off);
  EXPECT_EQ(engine_->memory().Store(me_, {.key = "k", .content = "v"}).status().code(),
            StatusCode::kDisabled);
  EXPECT_EQ(engine_->memory().Search(me_, {.query = "v"}).status().code(), StatusCode::kDisabled);
  // Every service the engine hands out checks it, as the wire does.
  EXPECT_EQ(engine_->rules().List(me_, std::nullopt).status().code(), StatusCode::kDisabled);
  EXPECT_EQ(engine_->archivist().TurnComplete(me_, {.session_id = "s"}).status().code(),
            StatusCode::kDisabled);
  EXPECT_EQ(engine_->knowledge().GraphQuery(me_, {}).status().code(), StatusCode::kDisabled);
  EXPECT_EQ(engine_->documents().List(me_, {}).status().code(), StatusCode::kDisabled);
  EXPECT_EQ(engine_->context().Build(me_, {.query = "v"}).status().code(), StatusCode::kDisabled);
  EXPECT_EQ(engine_->tools().List(me_).status().code(), StatusCode::kDisabled);
  EXPECT_EQ(engine_->admin().Health(me_, 0).status().code(), StatusCode::kDisabled);
  // The path guard answers either way.
  EXPECT_TRUE(engine_->admin().PathProtected(me_, "/etc/passwd").ok());
}

TEST_P(EngineTest, RecallIsDisabledUnderAcl) {
  Config acl;
  acl.memory.acl_enabled = true;
  Reopen(acl);
  auto r = engine_->memory().Recall(me_, {.query = "anything"});
  EXPECT_EQ(r.status().code(), StatusCode::kDisabled);
}

TEST_P(EngineTest, AclKeepsPrivateEntriesApart) {
  Config acl;
  acl.memory.acl_enabled = true;
  Reopen(acl);
  Principal alice{"alice", Role::kUser};
  Principal bob{"bob", Role::kUser};
  ASSERT_TRUE(
      engine_->memory().Store(alice, {.key = "diary", .content = "alice secret plans"}).ok());
  ASSERT_TRUE(engine_->memory().Store(bob, {.key = "diary", .content = "bob garden plans"}).ok());
  auto a = engine_->memory().Get(alice, {.key = "diary"});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->content, "alice secret plans");
  auto b_search = engine_->memory().Search(bob, {.query = "plans"});
  ASSERT_TRUE(b_search.ok());
  ASSERT_EQ(b_search->results.size(), 1u);
  EXPECT_EQ(b_search->results[0].owner, "bob");
  auto steal = engine_->memory().Get(bob, {.key = "diary", .owner = "alice"});
  EXPECT_EQ(steal.status().code(), StatusCode::kNotFound);
  auto forget = engine_->memory().Forget(bob, {.key = "diary", .owner = "alice"});
  ASSERT_TRUE(forget.ok());
  EXPECT_TRUE(engine_->memory().Get(alice, {.key = "diary"}).ok());
}

TEST_P(EngineTest, ReopenKeepsDataUnlessInMemory) {
  Store("persist", "survives a restart");
  Reopen(Config{});
  auto e = engine_->memory().Get(me_, {.key = "persist"});
  EXPECT_EQ(e.ok(), GetParam() != "in_memory");
}

INSTANTIATE_TEST_SUITE_P(Backends, EngineTest, ::testing::Values("sqlite", "in_memory", "markdown"),
                         [](const auto& info) { return info.param; });

TEST(Workspace, ResolutionOrder) {
  EXPECT_EQ(ResolveWorkspace("/x/flag"), "/x/flag");
  ::setenv("MNEMO_WORKSPACE", "/x/env", 1);
  EXPECT_EQ(ResolveWorkspace(""), "/x/env");
  ::unsetenv("MNEMO_WORKSPACE");
  ::setenv("XDG_DATA_HOME", "/x/xdg", 1);
  EXPECT_EQ(ResolveWorkspace(""), "/x/xdg/mnemo");
  ::unsetenv("XDG_DATA_HOME");
  ::setenv("HOME", "/x/home", 1);
  EXPECT_EQ(ResolveWorkspace(""), "/x/home/.local/share/mnemo");
}

TEST(Workspace, CreatedWithMode0700) {
  TempDir dir;
  auto e = Engine::Open({.workspace = dir.Sub("a/b/ws")});
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  struct stat st {};
  ASSERT_EQ(::stat(dir.Sub("a/b/ws").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
}

TEST(Workspace, UnwritableWorkspaceIsAClearError) {
  // /proc refuses new folders even to root, which CI runs as.
  auto e = Engine::Open({.workspace = "/proc/mnemo-test-ws"});
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(e.status().message().find("/proc/mnemo-test-ws"), std::string::npos);
}

TEST(Workspace, AFileInTheWayIsAClearError) {
  TempDir dir;
  { std::ofstream(dir.Sub("file")) << "x"; }
  auto e = Engine::Open({.workspace = dir.Sub("file/ws")});
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(e.status().message().find("file"), std::string::npos);
}

// `embeddings` (spec 10) is sqlite with an embedder required.
// memory.backend = "markdown" (spec 10): the entries are files under
// <workspace>/memory/ (or memory.path), which a person may edit.
TEST(MarkdownBackend, StoresEntriesAsFilesUnderTheWorkspaceMemoryFolder) {
  TempDir dir;
  Config config;
  config.memory.backend = "markdown";
  config.embedding.provider = "none";
  const Principal me;
  {
    auto e = Engine::Open({.workspace = dir.Sub("ws"), .config = config});
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    ASSERT_TRUE((*e)->memory()
                    .Store(me, {.key = "user_editor", .content = "The user edits with Helix"})
                    .ok());
    auto found = (*e)->memory().Search(me, {.query = "Helix"});
    ASSERT_TRUE(found.ok()) << found.status().ToString();
    ASSERT_EQ(found->results.size(), 1u);
    EXPECT_EQ(found->results[0].key, "user_editor");
  }
  std::stringstream core;
  core << std::ifstream(dir.Sub("ws/memory/core.md")).rdbuf();
  EXPECT_NE(core.str().find("- **user_editor**: The user edits with Helix <!-- mnemo: "),
            std::string::npos)
      << core.str();

  // A person's edit is what the next engine finds; memory.path moves the folder.
  std::string text = core.str();
  text.replace(text.find("Helix"), 5, "Emacs");
  std::ofstream(dir.Sub("ws/memory/core.md"), std::ios::trunc) << text;
  std::filesystem::rename(dir.Sub("ws/memory"), dir.Sub("notes"));
  config.memory.path = dir.Sub("notes");
  auto e = Engine::Open({.workspace = dir.Sub("ws"), .config = config});
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  auto got = (*e)->memory().Get(me, {.key = "user_editor"});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->content, "The user edits with Emacs");
  EXPECT_FALSE(std::filesystem::exists(dir.Sub("ws/memory/core.md")));
}

TEST(EmbeddingsBackend, RefusesToOpenWithoutAnEmbedderNamingTheSetting) {
  TempDir dir;
  Config config;
  config.memory.backend = "embeddings";
  config.embedding.provider = "none";
  auto e = Engine::Open({.workspace = dir.Sub("ws"), .config = config});
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(e.status().message().find("[embedding] provider"), std::string::npos)
      << e.status().message();
  EXPECT_FALSE(std::ifstream(dir.Sub("ws/mnemo.db")).good()) << "nothing is created";
}

TEST(EmbeddingsBackend, WithAnEmbedderIsSqliteWithVectors) {
  TempDir dir;
  Config config;
  config.memory.backend = "embeddings";
  config.embedding.provider = "hash";
  auto e = Engine::Open({.workspace = dir.Sub("ws"), .config = config});
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  const Principal me;
  ASSERT_TRUE((*e)->memory().Store(me, {.key = "k", .content = "The user edits with Helix"}).ok());
  auto found = (*e)->memory().Search(me, {.query = "The user edits with Helix"});
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  ASSERT_EQ(found->results.size(), 1u);
  ASSERT_TRUE(found->results[0].vector_score.has_value());
  EXPECT_GT(*found->results[0].vector_score, 0.9);
  EXPECT_TRUE(std::ifstream(dir.Sub("ws/mnemo.db")).good());
}

}  // namespace
}  // namespace mnemo
