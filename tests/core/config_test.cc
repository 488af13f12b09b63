#include "mnemo/config.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "test_util.h"

namespace mnemo {
namespace {

using testing::TempDir;

Result<Config> LoadToml(const TempDir& dir, const std::string& toml,
                        std::map<std::string, std::string> env = {}) {
  std::string path = dir.Sub("mnemo.toml");
  std::ofstream(path) << toml;
  return LoadConfig({.file = path, .env = std::move(env)});
}

TEST(Config, DefaultsMatchSpec15) {
  auto c = LoadConfig({});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->memory.backend, "sqlite");
  EXPECT_DOUBLE_EQ(c->search.vector_weight, 0.6);
  EXPECT_DOUBLE_EQ(c->search.keyword_weight, 0.4);
  EXPECT_DOUBLE_EQ(c->search.min_relevance_score, 0.2);
  EXPECT_EQ(c->server.listen, "127.0.0.1:8765");
  EXPECT_EQ(c->server.max_body_bytes, 4194304);
  EXPECT_EQ(c->embedding.dimensions, 384);
  EXPECT_FALSE(c->learning.min_cosine_similarity.has_value());
}

TEST(Config, ReadsFileValues) {
  TempDir dir;
  auto c = LoadToml(dir, R"([memory]
backend = "in_memory"
acl_enabled = true
archive_after_days = 10

[search]
min_relevance_score = 0.5

[security.audit]
enabled = true

[[security.tokens]]
principal = "alice"
role = "admin"
sha256 = "0000000000000000000000000000000000000000000000000000000000000000"
)");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->memory.backend, "in_memory");
  EXPECT_TRUE(c->memory.acl_enabled);
  EXPECT_EQ(c->memory.archive_after_days, 10);
  EXPECT_DOUBLE_EQ(c->search.min_relevance_score, 0.5);
  EXPECT_TRUE(c->security.audit.enabled);
  ASSERT_EQ(c->security.tokens.size(), 1u);
  EXPECT_EQ(c->security.tokens[0].principal, "alice");
}

TEST(Config, SeedPlacesSearchKeysUnderMemory) {
  TempDir dir;
  auto c = LoadToml(dir, "[memory]\nvector_weight = 0.7\nkeyword_weight = 0.3\n");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_DOUBLE_EQ(c->search.vector_weight, 0.7);
  auto clash = LoadToml(dir, "[memory]\nvector_weight = 0.7\n[search]\nvector_weight = 0.5\n");
  ASSERT_FALSE(clash.ok());
  EXPECT_NE(clash.status().message().find("different values"), std::string::npos);
}

TEST(Config, UnknownKeyIsAnErrorNamingIt) {
  TempDir dir;
  auto c = LoadToml(dir, "[memory]\nbackend = \"sqlite\"\nbakend = \"x\"\n");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(c.status().message().find("memory.bakend"), std::string::npos);
  auto s = LoadToml(dir, "[memroy]\nbackend = \"sqlite\"\n");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("[memroy]"), std::string::npos);
}

TEST(Config, BadValuesNameTheKeyAndWhatIsAllowed) {
  TempDir dir;
  auto e = LoadToml(dir, "[memory]\nbackend = \"mysql\"\n");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("memory.backend"), std::string::npos);
  EXPECT_NE(e.status().message().find("sqlite, markdown, postgres, in_memory, embeddings"),
            std::string::npos);
  auto t = LoadToml(dir, "[memory]\nacl_enabled = \"yes\"\n");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("boolean"), std::string::npos);
  auto r = LoadToml(dir, "[search]\nmin_relevance_score = 1.5\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("0..1"), std::string::npos);
  auto w = LoadToml(dir, "[search]\nvector_weight = 0\nkeyword_weight = 0\n");
  ASSERT_FALSE(w.ok());
}

constexpr const char* kDigest = "0000000000000000000000000000000000000000000000000000000000000000";

// Each call a token of its own (two tokens with one digest are refused).
std::string TokenToml(const std::string& principal, const std::string& role) {
  static int tokens = 0;
  std::string digest = std::to_string(++tokens);
  digest = std::string(kDigest).substr(digest.size()) + digest;
  return "[[security.tokens]]\nprincipal = \"" + principal + "\"\nrole = \"" + role +
         "\"\nsha256 = \"" + digest + "\"\n";
}

TEST(Config, PrincipalsGrantRolesAndEveryOtherNameIsAUser) {
  TempDir dir;
  auto c = LoadToml(dir,
                    "[[security.principals]]\nname = \"ops\"\nrole = \"admin\"\n\n"
                    "[[security.principals]]\nname = \"alice\"\nrole = \"user\"\n\n" +
                        TokenToml("root", "admin") + TokenToml("bob", "user"));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  ASSERT_EQ(c->security.principals.size(), 2u);
  EXPECT_EQ(c->security.default_role, "admin");
  EXPECT_EQ(ConfiguredRole(*c, "ops"), Role::kAdmin);
  EXPECT_EQ(ConfiguredRole(*c, "alice"), Role::kUser);
  EXPECT_EQ(ConfiguredRole(*c, "root"), Role::kAdmin);  // from its token
  EXPECT_EQ(ConfiguredRole(*c, "bob"), Role::kUser);
  EXPECT_EQ(ConfiguredRole(*c, "mallory"), Role::kUser);
  const Principal ops = ProcessPrincipal(*c, "ops");
  EXPECT_EQ(ops.name, "ops");
  EXPECT_EQ(ops.role, Role::kAdmin);
  EXPECT_EQ(ProcessPrincipal(*c, "mallory").role, Role::kUser);
  const Principal owner = ProcessPrincipal(*c, "");
  EXPECT_EQ(owner.name, "local");
  EXPECT_EQ(owner.role, Role::kAdmin);
  // Naming the default principal buys no rights: only the entries grant them.
  EXPECT_EQ(ProcessPrincipal(*c, "local").role, Role::kUser);
  EXPECT_EQ(ConfiguredRole(*c, "local"), Role::kUser);
}

TEST(Config, DefaultRoleComesFromTheFileOrTheEnvironment) {
  TempDir dir;
  auto file = LoadToml(dir, "[security]\ndefault_principal = \"me\"\ndefault_role = \"user\"\n");
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_EQ(ProcessPrincipal(*file, "").name, "me");
  EXPECT_EQ(ProcessPrincipal(*file, "").role, Role::kUser);
  auto env = LoadConfig({.env = {{"MNEMO_SECURITY_DEFAULT_ROLE", "user"}}});
  ASSERT_TRUE(env.ok()) << env.status().ToString();
  EXPECT_EQ(ProcessPrincipal(*env, "").role, Role::kUser);
  auto bad = LoadConfig({.env = {{"MNEMO_SECURITY_DEFAULT_ROLE", "root"}}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("security.default_role must be one of admin, user"),
            std::string::npos)
      << bad.status().message();
}

TEST(Config, BadPrincipalTablesAreErrorsNamingTheFieldAndWhatIsAllowed) {
  TempDir dir;
  auto role = LoadToml(dir, "[[security.principals]]\nname = \"ops\"\nrole = \"root\"\n");
  ASSERT_FALSE(role.ok());
  EXPECT_EQ(role.status().message(),
            "[[security.principals]] #1: role is \"root\"; it must be admin or user");
  auto missing = LoadToml(dir, "[[security.principals]]\nname = \"ops\"\n");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("role must be a string (admin or user)"),
            std::string::npos)
      << missing.status().message();
  auto nameless = LoadToml(dir, "[[security.principals]]\nname = \"\"\nrole = \"user\"\n");
  ASSERT_FALSE(nameless.ok());
  EXPECT_NE(nameless.status().message().find("name must not be blank"), std::string::npos);
  auto unknown =
      LoadToml(dir, "[[security.principals]]\nname = \"ops\"\nrole = \"user\"\ntoken = 1\n");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("allowed keys are name, role"), std::string::npos);
  auto twice = LoadToml(dir,
                        "[[security.principals]]\nname = \"ops\"\nrole = \"admin\"\n"
                        "[[security.principals]]\nname = \"ops\"\nrole = \"admin\"\n");
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.status().message().find("[[security.principals]] #2: principal \"ops\" is "
                                          "listed twice"),
            std::string::npos)
      << twice.status().message();
  auto token_role = LoadToml(dir, TokenToml("alice", "owner"));
  ASSERT_FALSE(token_role.ok());
  EXPECT_NE(token_role.status().message().find("role is \"owner\"; it must be admin or user"),
            std::string::npos);
}

TEST(Config, OnePrincipalHasOneRole) {
  TempDir dir;
  auto table_and_token =
      LoadToml(dir, "[[security.principals]]\nname = \"alice\"\nrole = \"admin\"\n" +
                        TokenToml("alice", "user"));
  ASSERT_FALSE(table_and_token.ok());
  EXPECT_EQ(table_and_token.status().message(),
            "principal \"alice\" is granted two roles: admin by [[security.principals]] and user "
            "by [[security.tokens]]; give one principal one role");
  auto two_tokens = LoadToml(dir, TokenToml("bob", "user") + TokenToml("bob", "admin"));
  EXPECT_FALSE(two_tokens.ok());
  auto default_principal =
      LoadToml(dir, "[[security.principals]]\nname = \"local\"\nrole = \"user\"\n");
  ASSERT_FALSE(default_principal.ok());
  EXPECT_NE(default_principal.status().message().find("security.default_role"), std::string::npos);
  // Agreeing grants are fine: a token of a listed principal, two tokens of one.
  EXPECT_TRUE(LoadToml(dir, "[[security.principals]]\nname = \"bob\"\nrole = \"user\"\n" +
                                TokenToml("bob", "user") + TokenToml("bob", "user"))
                  .ok());
}

TEST(Config, ServerAllowListsAreStringArraysOrCommaSeparatedInTheEnvironment) {
  TempDir dir;
  auto c = LoadToml(dir, "[server]\nallowed_hosts = [\"mnemo.lan\", \"box:9000\"]\n");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->server.allowed_hosts, (std::vector<std::string>{"mnemo.lan", "box:9000"}));
  EXPECT_TRUE(c->server.allowed_origins.empty());
  c = LoadToml(dir, "",
               {{"MNEMO_SERVER_ALLOWED_ORIGINS", " https://a.example, ,http://b.lan:3000 "}});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->server.allowed_origins,
            (std::vector<std::string>{"https://a.example", "http://b.lan:3000"}));
  for (const char* bad : {"allowed_hosts = \"mnemo.lan\"", "allowed_origins = [1]"}) {
    auto r = LoadToml(dir, std::string("[server]\n") + bad + "\n");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("must be an array of strings"), std::string::npos)
        << r.status().message();
  }
}

TEST(Config, PostgresReadUrlsAreStandbyConnectionStringsEachOnce) {
  TempDir dir;
  auto c = LoadToml(dir,
                    "[postgres]\nurl = \"postgresql://mnemo@p:5432/mnemo\"\nread_urls = "
                    "[\"postgresql://mnemo@s1:5432/mnemo\", \"host=s2 port=5433 dbname=mnemo\"]\n");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->postgres.read_urls, (std::vector<std::string>{"postgresql://mnemo@s1:5432/mnemo",
                                                             "host=s2 port=5433 dbname=mnemo"}));
  c = LoadToml(dir, "", {{"MNEMO_POSTGRES_READ_URLS", "postgres://a/m,postgres://b/m"}});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->postgres.read_urls.size(), 2u);
  EXPECT_TRUE(LoadConfig({}).value().postgres.read_urls.empty());
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"read_urls = [\"standby1:5432\"]", "read_urls[0] is not a connection string"},
      {"read_urls = [\"\"]", "read_urls[0] is not a connection string"},
      {"read_urls = [\"postgres://a/m\", \"postgres://a/m\"]",
       "read_urls[1] repeats an earlier read url"},
      {"url = \"postgres://p/m\"\nread_urls = [\"postgres://p/m\"]",
       "read_urls[0] is postgres.url itself"},
      {"read_urls = \"postgres://a/m\"", "must be an array of strings"}};
  for (const auto& [toml, message] : bad) {
    auto r = LoadToml(dir, "[postgres]\n" + toml + "\n");
    ASSERT_FALSE(r.ok()) << toml;
    EXPECT_NE(r.status().message().find(message), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find("read_urls"), std::string::npos) << r.status().message();
  }
  // A password in a refused value is not echoed.
  auto r = LoadToml(dir, "[postgres]\nread_urls = [\"mnemo:secret-pw@s1\"]\n");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().field(), "postgres.read_urls");
  EXPECT_EQ(r.status().message().find("secret-pw"), std::string::npos) << r.status().message();
}

TEST(Config, PostgresKeywordIndexIsNodeOrServer) {
  TempDir dir;
  EXPECT_EQ(LoadConfig({}).value().postgres.keyword_index, "node");
  auto c = LoadToml(dir, "[postgres]\nkeyword_index = \"server\"\n");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->postgres.keyword_index, "server");
  c = LoadToml(dir, "", {{"MNEMO_POSTGRES_KEYWORD_INDEX", "node"}});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->postgres.keyword_index, "node");
  for (const std::string value : {"\"local\"", "\"\"", "true"}) {
    auto r = LoadToml(dir, "[postgres]\nkeyword_index = " + value + "\n");
    ASSERT_FALSE(r.ok()) << value;
    EXPECT_EQ(r.status().field(), "postgres.keyword_index") << value;
    EXPECT_NE(r.status().message().find("postgres.keyword_index must be one of node, server"),
              std::string::npos)
        << r.status().message();
  }
}

TEST(Config, CorruptTomlReportsLine) {
  TempDir dir;
  auto c = LoadToml(dir, "[memory]\nbackend = \"sqlite\n");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("not valid TOML (line 2"), std::string::npos)
      << c.status().message();
}

TEST(Config, EnvironmentOverridesFile) {
  TempDir dir;
  auto c = LoadToml(dir, "[memory]\nacl_enabled = false\n",
                    {{"MNEMO_MEMORY_ACL_ENABLED", "yes"},
                     {"MNEMO_SECURITY_AUDIT_ENABLED", "1"},
                     {"MNEMO_SEARCH_MIN_RELEVANCE_SCORE", "0.35"},
                     {"MNEMO_WORKSPACE", "/not/a/config/key"}});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_TRUE(c->memory.acl_enabled);
  EXPECT_TRUE(c->security.audit.enabled);
  EXPECT_DOUBLE_EQ(c->search.min_relevance_score, 0.35);
}

TEST(Config, BadEnvironmentValueNamesTheVariable) {
  auto c = LoadConfig({.env = {{"MNEMO_LEARNING_EVENTS_ENABLED", "maybe"}}});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("MNEMO_LEARNING_EVENTS_ENABLED"), std::string::npos);
  EXPECT_NE(c.status().message().find("1|true|yes|on"), std::string::npos);
  auto u = LoadConfig({.env = {{"MNEMO_MEMORY_BAKEND", "sqlite"}}});
  ASSERT_FALSE(u.ok());
  EXPECT_NE(u.status().message().find("MNEMO_MEMORY_BAKEND"), std::string::npos);
}

TEST(Config, OverridesWinOverEnvironment) {
  auto c = LoadConfig({.env = {{"MNEMO_SERVER_LISTEN", "127.0.0.1:1"}},
                       .overrides = {{"server.listen", "127.0.0.1:2"}}});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->server.listen, "127.0.0.1:2");
}

TEST(Config, MissingExplicitFileIsAnErrorButOptionalFileIsNot) {
  TempDir dir;
  EXPECT_FALSE(LoadConfig({.file = dir.Sub("nope.toml")}).ok());
  EXPECT_TRUE(LoadConfig({.file = dir.Sub("nope.toml"), .file_optional = true}).ok());
}

TEST(Config, AConfigPathThatIsADirectoryIsRefusedNotIgnored) {
  // A container bind mount of a missing file leaves a directory: read as
  // "no file", it turned ACL and the tokens off.
  TempDir dir;
  std::filesystem::create_directory(dir.Sub("mnemo.toml"));
  for (bool optional : {false, true}) {
    auto c = LoadConfig({.file = dir.Sub("mnemo.toml"), .file_optional = optional});
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(c.status().message(), "config file " + dir.Sub("mnemo.toml") +
                                        " is a directory: give the path of a TOML file (or "
                                        "remove it for the defaults)");
  }
}

TEST(Config, AnUnreadableConfigFileIsAnError) {
  TempDir dir;
  std::filesystem::permissions(
      dir.path(), std::filesystem::perms::owner_all | std::filesystem::perms::others_exec);
  const std::string path = dir.Sub("mnemo.toml");
  std::ofstream(path) << "[memory]\nacl_enabled = true\n";
  std::filesystem::permissions(path, std::filesystem::perms::none);
  auto load = [&] { return LoadConfig({.file = path, .file_optional = true}); };
  if (::geteuid() != 0) {
    auto c = load();
    ASSERT_FALSE(c.ok());
    EXPECT_NE(c.status().message().find("cannot read config file " + path + ": Permission denied"),
              std::string::npos)
        << c.status().ToString();
    return;
  }
  // root reads any file: the check runs in a child that is not root.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        if (::setuid(65534) != 0) std::_Exit(3);
        auto c = load();
        const bool named =
            !c.ok() && c.status().message().find("Permission denied") != std::string::npos;
        std::_Exit(named ? 42 : 1);
      },
      ::testing::ExitedWithCode(42), "");
}

TEST(Config, TwoTokensWithTheSameDigestAreRefusedNamingBoth) {
  TempDir dir;
  const std::string digest(64, 'a');
  auto c = LoadToml(dir, "[[security.tokens]]\nprincipal = \"alice\"\nsha256 = \"" + digest +
                             "\"\n[[security.tokens]]\nprincipal = \"bob\"\nsha256 = \"" +
                             std::string(64, 'b') +
                             "\"\n[[security.tokens]]\nprincipal = \"mallory\"\nrole = "
                             "\"admin\"\nsha256 = \"" +
                             std::string(64, 'A') + "\"\n");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(),
            "[[security.tokens]] #1 and [[security.tokens]] #3 have the same sha256: each token "
            "must be declared once, for one principal");
}

TEST(Config, ToolsTakeACleanerAsStepTablesOrJsonText) {
  TempDir dir;
  auto c = LoadToml(dir, R"toml([[tools]]
name = "cmd_run"
plugin = "shell"
no_memory = true

[[tools]]
name = "files_read"
cleaner = [{json_field = "content"}, {truncate = 2000}]

[[tools]]
name = "web_fetch"
description = "Fetches a page"
cleaner = '[{"strip_html": true}, {"regex_extract": "a(b)", "group": 1}]'
)toml");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  ASSERT_EQ(c->tools.size(), 3u);
  EXPECT_EQ(c->tools[0].name, "cmd_run");
  EXPECT_EQ(c->tools[0].plugin, "shell");
  EXPECT_TRUE(c->tools[0].no_memory);
  EXPECT_TRUE(c->tools[0].cleaner_json.empty());
  EXPECT_FALSE(c->tools[1].no_memory);
  EXPECT_NE(c->tools[1].cleaner_json.find("json_field"), std::string::npos);
  EXPECT_NE(c->tools[1].cleaner_json.find("2000"), std::string::npos);
  EXPECT_EQ(c->tools[2].description, "Fetches a page");
  EXPECT_NE(c->tools[2].cleaner_json.find("regex_extract"), std::string::npos);
}

TEST(Config, InvalidToolsAreErrorsNamingTheToolAndTheStep) {
  TempDir dir;
  auto bad_step = LoadToml(dir, R"([[tools]]
name = "files_read"

[[tools]]
name = "grep"
cleaner = [{strip_ansi = true}, {regex_remove = "(unclosed"}]
)");
  ASSERT_FALSE(bad_step.ok());
  const std::string& m = bad_step.status().message();
  EXPECT_NE(m.find("[[tools]] #2"), std::string::npos) << m;
  EXPECT_NE(m.find("\"grep\""), std::string::npos) << m;
  EXPECT_NE(m.find("step 2 (regex_remove)"), std::string::npos) << m;

  auto unknown_step = LoadToml(dir, "[[tools]]\nname = \"t\"\ncleaner = [{frobnicate = 1}]\n");
  ASSERT_FALSE(unknown_step.ok());
  EXPECT_NE(unknown_step.status().message().find("step 1"), std::string::npos)
      << unknown_step.status().message();

  auto bad_name = LoadToml(dir, "[[tools]]\nname = \"send mail!\"\n");
  ASSERT_FALSE(bad_name.ok());
  EXPECT_NE(bad_name.status().message().find("is invalid"), std::string::npos)
      << bad_name.status().message();

  auto bad_flag = LoadToml(dir, "[[tools]]\nname = \"t\"\nno_memory = \"yes\"\n");
  ASSERT_FALSE(bad_flag.ok());
  EXPECT_NE(bad_flag.status().message().find("no_memory"), std::string::npos);

  auto twice = LoadToml(dir, "[[tools]]\nname = \"T\"\n[[tools]]\nname = \"t\"\n");
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.status().message().find("twice"), std::string::npos);

  auto not_steps = LoadToml(dir, "[[tools]]\nname = \"t\"\ncleaner = 3\n");
  ASSERT_FALSE(not_steps.ok());
  EXPECT_NE(not_steps.status().message().find("cleaner"), std::string::npos);
}

TEST(Config, DocsReferenceIsGeneratedFromTheTable) {
  std::ifstream in(std::string(MNEMO_SOURCE_DIR) + "/docs/config.md");
  std::stringstream buf;
  buf << in.rdbuf();
  EXPECT_EQ(buf.str(), ConfigReferenceMarkdown())
      << "docs/config.md is stale: regenerate it with `mnemo docs config > docs/config.md`";
}

}  // namespace
}  // namespace mnemo
