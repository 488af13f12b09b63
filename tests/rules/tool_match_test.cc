#include "rules/tool_match.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "rules/tool_rule.h"

namespace mnemo::rules {
namespace {

using Strings = std::vector<std::string>;

ToolCandidates Turn(const Strings& tools) { return {.turn = tools, .known = nullptr}; }

// This turn's tools and the tools the engine knows; counts how often the
// known ones are asked for.
struct WithKnown {
  Strings turn;
  Strings known;
  int* asked = nullptr;

  ToolCandidates Candidates() const {
    return {.turn = turn, .known = [known = known, asked = asked] {
              if (asked != nullptr) ++*asked;
              return known;
            }};
  }
};

TEST(AliasTable, AnyTableCanBeGiven) {
  const std::vector<Alias> aliases = {{.words = {"ticket", "工单"}, .tool_contains = {"jira"}}};
  EXPECT_EQ(MatchTool("Never close tickets.", Turn({"search", "jira_close"}), aliases),
            "jira_close");
  EXPECT_EQ(MatchTool("不要关闭工单。", Turn({"search", "jira_close"}), aliases), "jira_close");
  // Without the built-in rows "email" reaches no mail tool.
  EXPECT_EQ(MatchTool("Never email Sarah.", Turn({"search", "outbox_mail"}), aliases), kAnyTool);
  EXPECT_EQ(MatchTool("Never email Sarah.", Turn({"search", "outbox_mail"}), BuiltinAliases()),
            "outbox_mail");
}

TEST(MatchToolRule, FallsBackToTheOnlyToolThenAnyTool) {
  EXPECT_EQ(MatchTool("never do that", Turn({"alpha", "beta"}), BuiltinAliases()), kAnyTool);
  EXPECT_EQ(MatchTool("never do that", Turn({}), BuiltinAliases()), kAnyTool);
  EXPECT_EQ(MatchTool("never do that", Turn({"", "beta"}), BuiltinAliases()), "beta");
  EXPECT_EQ(MatchTool("never do that", Turn({"beta", "beta"}), BuiltinAliases()), "beta");
}

TEST(MatchToolRule, MatchesNamesAsWholeWordsOnly) {
  const Strings tools = {"first", "mail"};
  EXPECT_EQ(MatchTool("never use Mail", Turn(tools), {}), "mail");
  EXPECT_EQ(MatchTool("never use mail_v2", Turn(tools), {}), kAnyTool);
  EXPECT_EQ(MatchTool("never use gmail", Turn(tools), {}), kAnyTool);
  EXPECT_EQ(MatchTool("never send email", Turn({"first", "send_email"}), {}), "send_email");
  EXPECT_EQ(MatchTool("never run-shell", Turn({"first", "run-shell"}), {}), "run-shell");
}

TEST(MatchToolRule, MatchesAliasInflectionsAtWordStarts) {
  const Strings tools = {"first", "send_mail"};
  for (const char* s :
       {"stop emailing", "no emails", "the mailer", "E-Mail", "mailed it", "发邮件"}) {
    EXPECT_EQ(MatchTool(s, Turn(tools), BuiltinAliases()), "send_mail") << s;
  }
  for (const char* s : {"gmail", "mailbox", "emailable", "remail"}) {
    EXPECT_EQ(MatchTool(s, Turn(tools), BuiltinAliases()), kAnyTool) << s;
  }
}

TEST(MatchToolRule, PrefersTheMostSpecificAlias) {
  // (a) the tool name contains the spoken word, even a shorter word.
  EXPECT_EQ(MatchTool("no bash terminal", Turn({"shell_runner", "bash_exec"}), BuiltinAliases()),
            "bash_exec");
  // (b) the longer spoken word, even with a shorter needle.
  const std::vector<Alias> aliases = {{.words = {"zz"}, .tool_contains = {"long_needle"}},
                                      {.words = {"zzzz"}, .tool_contains = {"n"}}};
  EXPECT_EQ(MatchTool("zz zzzz", Turn({"t_n", "t_long_needle"}), aliases), "t_n");
  EXPECT_EQ(MatchTool("zz", Turn({"t_n", "t_long_needle"}), aliases), "t_long_needle");
  // (c) the longer tool_contains needle.
  EXPECT_EQ(MatchTool("no terminal", Turn({"exec_x", "shell_x"}), BuiltinAliases()), "shell_x");
  // (d) the earlier tool.
  EXPECT_EQ(MatchTool("no terminal", Turn({"shell_b", "shell_a"}), BuiltinAliases()), "shell_b");
}

TEST(AliasTable, BuiltinHasTheSpecRows) {
  const std::vector<Alias>& table = BuiltinAliases();
  ASSERT_EQ(table.size(), 6U);
  EXPECT_EQ(table[0].words, (Strings{"email", "mail", "e-mail", "邮件"}));
  EXPECT_EQ(table[0].tool_contains, (Strings{"mail"}));
  EXPECT_EQ(table[1].words, (Strings{"shell", "terminal", "bash", "命令", "终端"}));
  EXPECT_EQ(table[1].tool_contains, (Strings{"shell", "bash", "exec"}));
  EXPECT_EQ(table[2].words, (Strings{"browser", "web", "网页", "链接"}));
  EXPECT_EQ(table[2].tool_contains, (Strings{"browser", "web", "http"}));
  EXPECT_EQ(table[3].words, (Strings{"slack", "dm"}));
  EXPECT_EQ(table[3].tool_contains, (Strings{"slack"}));
  EXPECT_EQ(table[4].words, (Strings{"file", "files", "文件"}));
  EXPECT_EQ(table[4].tool_contains, (Strings{"file"}));
  EXPECT_EQ(table[5].words, (Strings{"sms", "text", "短信"}));
  EXPECT_EQ(table[5].tool_contains, (Strings{"sms"}));
}

// Spec 30, tool step 1: a word of a tool's name, compared after stemming.
TEST(MatchToolRule, MatchesAWordOfAToolName) {
  EXPECT_EQ(MatchTool("Never force-push to the release branch.", Turn({"git_push", "bash"}),
                      BuiltinAliases()),
            "git_push");
  EXPECT_EQ(MatchTool("Do not merge pull requests on my behalf.", Turn({"github_merge", "bash"}),
                      BuiltinAliases()),
            "github_merge");
  EXPECT_EQ(
      MatchTool("Stop sending newsletters.", Turn({"web_search", "send_email"}), BuiltinAliases()),
      "send_email");
  EXPECT_EQ(MatchTool("Could you stop adding emojis to my commit messages?",
                      Turn({"web_search", "git_commit"}), BuiltinAliases()),
            "git_commit");
  // The whole name beats words of another; more words beat fewer.
  EXPECT_EQ(MatchTool("Don't send emails from slack_post.", Turn({"send_email", "slack_post"}),
                      BuiltinAliases()),
            "slack_post");
  EXPECT_EQ(MatchTool("Don't run shell commands.", Turn({"shell_exec", "run_shell"}), {}),
            "run_shell");
  // One-letter parts, numbers and function words of a name are no words of it.
  EXPECT_EQ(MatchTool("Never read the news.", Turn({"get_the_weather", "x_y"}), {}), kAnyTool);
  EXPECT_EQ(MatchTool("Never upload to s3 2 times.", Turn({"v2_x", "s3_upload"}), {}), "s3_upload");
}

// Spec 30, tool step 2: aliases among this turn's tools, then among every
// tool the engine knows.
TEST(MatchToolRule, ReachesAKnownToolThroughAnAlias) {
  int asked = 0;
  const WithKnown known{
      .turn = {"web_search"}, .known = {"send_email", "calendar_add"}, .asked = &asked};
  EXPECT_EQ(MatchTool("Never email Mark.", known.Candidates(), BuiltinAliases()), "send_email");
  EXPECT_EQ(asked, 1);
  const WithKnown slack{.turn = {"read_file"}, .known = {"slack_send"}, .asked = nullptr};
  EXPECT_EQ(MatchTool("Never DM the CEO on Slack.", slack.Candidates(), BuiltinAliases()),
            "slack_send");
  // A tool of the turn reached through an alias comes first.
  const WithKnown both{
      .turn = {"web_search", "mail_send"}, .known = {"send_email"}, .asked = &asked};
  EXPECT_EQ(MatchTool("Never email Mark.", both.Candidates(), BuiltinAliases()), "mail_send");
  EXPECT_EQ(asked, 1);
  // The most specific known tool, then the first by name.
  const WithKnown many{.turn = {}, .known = {"zmail", "bash_exec", "amail"}, .asked = nullptr};
  EXPECT_EQ(MatchTool("Don't mail Bob.", many.Candidates(), BuiltinAliases()), "amail");
  EXPECT_EQ(MatchTool("No bash here, ever.", many.Candidates(), BuiltinAliases()), "bash_exec");
}

TEST(MatchToolRule, AsksForKnownToolsOnlyWhenAnAliasIsSpoken) {
  int asked = 0;
  const WithKnown known{
      .turn = {"web_search", "send_sms"}, .known = {"send_email"}, .asked = &asked};
  ToolMatcher matcher(known.Candidates(), BuiltinAliases());
  EXPECT_EQ(matcher.Match("Never share my phone number."), kAnyTool);
  EXPECT_EQ(matcher.Match("Never text my sister."), "send_sms");
  EXPECT_EQ(asked, 0);
  EXPECT_EQ(matcher.Match("Never email my sister."), "send_email");
  EXPECT_EQ(matcher.Match("Never e-mail my brother."), "send_email");
  EXPECT_EQ(asked, 1);  // once per matcher
}

// Spec 30, tool steps 3 and 4.
TEST(MatchToolRule, TheOnlyToolOfTheTurnElseUnscoped) {
  EXPECT_EQ(MatchTool("If it fails, don't retry more than twice.", Turn({"deploy_app"}),
                      BuiltinAliases()),
            "deploy_app");
  EXPECT_EQ(MatchTool("Never share my phone number.", Turn({"send_email", "slack_send"}),
                      BuiltinAliases()),
            kAnyTool);
  EXPECT_EQ(MatchTool("Never order food after 10pm.", Turn({}), BuiltinAliases()), kAnyTool);
  // Calls of one tool are one tool.
  EXPECT_EQ(MatchTool("Never order food.", Turn({"shop", "shop"}), BuiltinAliases()), "shop");
}

TEST(AliasTable, TheSpecRowsReachTheirTools) {
  EXPECT_EQ(MatchTool("别在终端里执行 rm。", Turn({"read_file", "run_bash"}), BuiltinAliases()),
            "run_bash");
  EXPECT_EQ(MatchTool("不要打开这个链接。", Turn({"search", "http_get"}), BuiltinAliases()),
            "http_get");
  EXPECT_EQ(MatchTool("Stop texting my sister.", Turn({"search", "send_sms"}), BuiltinAliases()),
            "send_sms");
  EXPECT_EQ(MatchTool("不要发短信。", Turn({"search", "send_sms"}), BuiltinAliases()), "send_sms");
  EXPECT_EQ(MatchTool("Never touch my files.", Turn({"search", "file_write"}), BuiltinAliases()),
            "file_write");
}

}  // namespace
}  // namespace mnemo::rules
