#include "rules/edicts.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "rules/tool_rule.h"
#include "text/utf8.h"

namespace mnemo::rules {
namespace {

using Strings = std::vector<std::string>;
using Pairs = std::vector<std::pair<std::string, std::string>>;  // (tool, body)

ToolCandidates Turn(const Strings& tools) { return {.turn = tools, .known = nullptr}; }

Pairs Extract(std::string_view message, const Strings& tools) {
  Pairs out;
  for (Edict& e : ExtractEdicts(message, Turn(tools), BuiltinAliases())) {
    out.emplace_back(std::move(e.tool_name), std::move(e.body));
  }
  return out;
}

std::string Repeat(std::string_view unit, size_t times) {
  std::string out;
  out.reserve(unit.size() * times);
  for (size_t i = 0; i < times; ++i) out += unit;
  return out;
}

// 300-character edicts: bodies are cut to 240 code points.
const std::string kLongEnglish = "Never write " + std::string(288, 'a');
const std::string kLongChinese = "不要" + Repeat("写", 298);

// Timing budgets. Unoptimised and sanitizer builds run 10-30x slower; the
// budgets still catch quadratic behaviour, which would take hours on 1 MB.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MNEMO_EDICTS_TEST_SLOW_BUILD 1
#endif
#endif
#if !defined(NDEBUG) || defined(__SANITIZE_ADDRESS__)
#define MNEMO_EDICTS_TEST_SLOW_BUILD 1
#endif
#ifdef MNEMO_EDICTS_TEST_SLOW_BUILD
// The unoptimised sanitizer build is about 40x slower: the inputs below took
// 38 s there on an idle machine (0.99 s in the optimised build). A quadratic
// pass over a megabyte would take hours, so the bound still catches one.
constexpr auto kMegabyteBudget = std::chrono::seconds(120);
constexpr auto kTurnBudget = std::chrono::microseconds(2000);
#else
// Bounds against pathological behaviour, not speed targets (those are
// bench/rules_bench's): the suite runs two test binaries at a time on a
// loaded machine, where a typical turn measured 95 us of a 100 us budget.
constexpr auto kMegabyteBudget = std::chrono::seconds(3);
constexpr auto kTurnBudget = std::chrono::microseconds(1000);
#endif

struct Row {
  std::string message;
  Strings tools;
  Pairs expected;
};

// clang-format off
const Row kRows[] = {
    // The safety case of spec 30, in English and Chinese.
    {"Never email Sarah at sarah@example.com.", {"send_email"},
     {{"send_email", "Never email Sarah at sarah@example.com."}}},
    {"永远不要给 sarah@example.com 的 Sarah 发邮件。", {"send_email"},
     {{"send_email", "永远不要给 sarah@example.com 的 Sarah 发邮件。"}}},
    // Statements, requests and idioms are not edicts.
    {"I never liked that report.", {"send_email"}, {}},
    {"we don't have a printer.", {"print_file"}, {}},
    {"stop the server", {"shell"}, {}},
    {"Stop it!", {"shell"}, {}},
    {"我从来不喜欢这个报告。", {"file_read"}, {}},
    {"You never listen.", {"chat"}, {}},
    {"They don't use sudo here.", {"shell"}, {}},
    {"Sarah said she would never email me.", {"send_email"}, {}},
    {"Never mind.", {"shell"}, {}},
    {"Never. Never again!", {"shell"}, {}},
    {"Don't worry about it.", {"shell"}, {}},
    {"Don't mind me.", {"shell"}, {}},
    {"Don't mention it.", {"shell"}, {}},
    {"Okay so just don't.", {"shell"}, {}},
    {"Do not.", {"shell"}, {}},
    // Questions are not edicts.
    {"Never email Sarah?", {"send_email"}, {}},
    {"Don't you think we should stop emailing Sarah?!", {"send_email"}, {}},
    {"不要给她发邮件吗？", {"send_email"}, {}},
    // Chinese non-edicts.
    {"别人都这么做。", {"shell"}, {}},
    {"不要紧，我自己来。", {"shell"}, {}},
    {"停止服务器。", {"shell"}, {}},
    {"停止这个进程。", {"shell"}, {}},
    // English edict forms.
    {"Stop emailing Sarah.", {"web_search", "send_email"}, {{"send_email", "Stop emailing Sarah."}}},
    {"Stop being verbose.", {}, {{"*", "Stop being verbose."}}},
    {"dont push to main", {"git_push"}, {{"git_push", "dont push to main"}}},
    {"Do not delete files in /etc.", {"web_fetch", "delete_file"},
     {{"delete_file", "Do not delete files in /etc."}}},
    {"NEVER RUN SUDO.", {"shell"}, {{"shell", "NEVER RUN SUDO."}}},
    {"Never ever run rm -rf /.", {"shell"}, {{"shell", "Never ever run rm -rf /."}}},
    {"Never again use sudo.", {"shell"}, {{"shell", "Never again use sudo."}}},
    // Openers, vocatives and list markers.
    {"Please never call me before 9am.", {}, {{"*", "Please never call me before 9am."}}},
    {"oh, and please don't ping me after 6pm.", {},
     {{"*", "oh, and please don't ping me after 6pm."}}},
    {"hey bot, don't touch the prod database.", {"db_query"},
     {{"db_query", "hey bot, don't touch the prod database."}}},
    {"Claude, stop emailing my boss.", {"send_email"},
     {{"send_email", "Claude, stop emailing my boss."}}},
    {"Remember: never commit secrets.", {"git_commit"},
     {{"git_commit", "Remember: never commit secrets."}}},
    {"Thanks for the help. Also, never email Sarah again.", {"send_email"},
     {{"send_email", "Also, never email Sarah again."}}},
    {"- Never push on Fridays.\n- Don't skip tests.", {"git"},
     {{"git", "Never push on Fridays."}, {"git", "Don't skip tests."}}},
    // Curly apostrophes and quotes are kept as written.
    {"Don’t use sudo in the terminal.", {"read_file", "shell_exec"},
     {{"shell_exec", "Don’t use sudo in the terminal."}}},
    {"“Don’t reply-all.”", {"send_mail"}, {{"send_mail", "“Don’t reply-all.”"}}},
    // E-mail addresses, URLs, file names, decimals and abbreviations.
    {"Don't open https://x.io/a.b?c=1 in the browser.", {"http_get"},
     {{"http_get", "Don't open https://x.io/a.b?c=1 in the browser."}}},
    {"Never delete report.pdf.", {"delete_file"}, {{"delete_file", "Never delete report.pdf."}}},
    {"Never set the temperature above 3.14 in the config.", {"set_config"},
     {{"set_config", "Never set the temperature above 3.14 in the config."}}},
    {"Never use abbreviations, e.g. ASAP, in emails.", {"send_email"},
     {{"send_email", "Never use abbreviations, e.g. ASAP, in emails."}}},
    {"Never email Mr. Smith or J. Doe.", {"send_email"},
     {{"send_email", "Never email Mr. Smith or J. Doe."}}},
    // Several edicts in one message, in message order.
    {"Never email Sarah. Don't open example.com in the browser! Thanks.",
     {"send_email", "browser_open"},
     {{"send_email", "Never email Sarah."},
      {"browser_open", "Don't open example.com in the browser!"}}},
    {"Stop emailing Sarah; stop being verbose.", {"send_email"},
     {{"send_email", "Stop emailing Sarah;"}, {"send_email", "stop being verbose."}}},
    {"never use sudo\ndon't push", {"shell", "git_push"},
     {{"*", "never use sudo"}, {"git_push", "don't push"}}},
    {"不要用sudo！别删除文件。", {"shell", "file_delete"},
     {{"*", "不要用sudo！"}, {"file_delete", "别删除文件。"}}},
    // The same edict twice is one.
    {"Never use sudo. never   use SUDO!", {"shell"}, {{"shell", "Never use sudo."}}},
    {"Never email Sarah.\nNever email Sarah.", {"send_email"},
     {{"send_email", "Never email Sarah."}}},
    // Tool: named in the sentence (longest name, then earliest tool).
    {"Don't run shell commands with sudo.", {"shell_exec", "run_shell"},
     {{"run_shell", "Don't run shell commands with sudo."}}},
    {"Never call send_email or send_email_batch.", {"send_email", "send_email_batch"},
     {{"send_email_batch", "Never call send_email or send_email_batch."}}},
    {"Don't use foo or bar.", {"bar", "foo"}, {{"bar", "Don't use foo or bar."}}},
    {"Don't send emails from slack_post.", {"send_email", "slack_post"},
     {{"slack_post", "Don't send emails from slack_post."}}},
    {"Never touch mailbox_v2 again.", {"web_fetch", "mail"},
     {{"*", "Never touch mailbox_v2 again."}}},
    // Tool: aliases, most specific match wins.
    {"Never run bash scripts as root.", {"shell", "bash_exec"},
     {{"bash_exec", "Never run bash scripts as root."}}},
    {"Never use the terminal for deploys.", {"exec_remote", "shell_exec"},
     {{"shell_exec", "Never use the terminal for deploys."}}},
    {"Never use the web browser for banking.", {"web_search", "browser_open"},
     {{"browser_open", "Never use the web browser for banking."}}},
    {"Never email the team.", {"gmail_send", "outlook_mail"},
     {{"gmail_send", "Never email the team."}}},
    {"Don't DM Sarah.", {"send_email", "slack_post"}, {{"slack_post", "Don't DM Sarah."}}},
    {"Never send e-mails on Sunday.", {"search", "mail_send"},
     {{"mail_send", "Never send e-mails on Sunday."}}},
    // Chinese edicts and aliases.
    {"小助手，不要用 sudo。", {"shell"}, {{"shell", "小助手，不要用 sudo。"}}},
    {"别用浏览器访问这个网页。", {"search", "web_fetch"},
     {{"web_fetch", "别用浏览器访问这个网页。"}}},
    {"停止给Sarah发邮件。", {"search", "send_email"}, {{"send_email", "停止给Sarah发邮件。"}}},
    {"请勿删除这个文件。", {"web_fetch", "delete_file"},
     {{"delete_file", "请勿删除这个文件。"}}},
    {"禁止在终端运行命令。", {"search", "shell_exec"},
     {{"shell_exec", "禁止在终端运行命令。"}}},
    {"不许私信任何人。", {"slack_dm", "search"}, {{"*", "不许私信任何人。"}}},
    {"以后也不要发邮件给他。", {"search", "mail_send"},
     {{"mail_send", "以后也不要发邮件给他。"}}},
    {"千万别在周五部署。", {"deploy"}, {{"deploy", "千万别在周五部署。"}}},
    // No tool in the turn, or none that matches.
    {"Never share my address.", {}, {{"*", "Never share my address."}}},
    {"Never share my address.", {"search", "notes"}, {{"*", "Never share my address."}}},
    {"Never share my address.", {"notes", "notes"}, {{"notes", "Never share my address."}}},
    // 300-character edicts are cut to 240 code points.
    {kLongEnglish, {}, {{"*", kLongEnglish.substr(0, 240)}}},
    {kLongChinese, {"writer"}, {{"writer", "不要" + Repeat("写", 238)}}},
};
// clang-format on

TEST(EdictExtraction, MatchesTheTable) {
  ASSERT_GE(std::size(kRows), 50U);
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.message.substr(0, 80));
    EXPECT_EQ(Extract(row.message, row.tools), row.expected);
  }
}

TEST(EdictExtraction, KeepsTheSafetyBodyIntact) {
  const auto edicts = ExtractEdicts("Never email Sarah at sarah@example.com.", Turn({"send_email"}),
                                    BuiltinAliases());
  ASSERT_EQ(edicts.size(), 1U);
  EXPECT_NE(edicts[0].body.find("sarah@example.com"), std::string::npos);
  EXPECT_EQ(NormalizedBody(edicts[0].body), "never email sarah at sarah@example.com");
}

TEST(EdictExtraction, SameEdictForTwoToolsIsTwoRules) {
  const auto edicts = ExtractEdicts("Never use sudo in bash_exec. Never use sudo in shell.",
                                    Turn({"bash_exec", "shell"}), BuiltinAliases());
  ASSERT_EQ(edicts.size(), 2U);
  EXPECT_EQ(edicts[0].tool_name, "bash_exec");
  EXPECT_EQ(edicts[1].tool_name, "shell");
}

TEST(EdictBody, CutsAtACharacterBoundary) {
  // 239 ASCII code points, then two 4-byte emoji: the first one fits.
  const std::string sentence =
      "Never " + std::string(233, 'a') + "\xF0\x9F\x98\x80\xF0\x9F\x98\x80";
  const std::string body = EdictBody(sentence);
  EXPECT_EQ(text::CountCodePoints(body), kMaxEdictChars);
  EXPECT_EQ(body, sentence.substr(0, 239 + 4));
  EXPECT_TRUE(text::IsValidUtf8(body));
}

TEST(EdictBody, TrimsAndDropsABulletButKeepsTheWords) {
  EXPECT_EQ(EdictBody("  \t Don’t email sarah@example.com!  \n"), "Don’t email sarah@example.com!");
  EXPECT_EQ(EdictBody("- Never push on Fridays."), "Never push on Fridays.");
  EXPECT_EQ(EdictBody("\xE2\x80\xA2 不要用 sudo。"), "不要用 sudo。");
  EXPECT_EQ(EdictBody("-Never x"), "-Never x");
  EXPECT_EQ(EdictBody("12) Never push."), "Never push.");
  EXPECT_EQ(EdictBody("1234) Never push."), "1234) Never push.");
  EXPECT_EQ(EdictBody("Never " + std::string(233, 'a') + "   tail"),
            "Never " + std::string(233, 'a'));  // no trailing space after the cut
}

TEST(SentenceSplit, KeepsEmailAddressesWhole) {
  EXPECT_EQ(SplitSentences("Mail sarah@example.com. Then stop."),
            (Strings{"Mail sarah@example.com.", "Then stop."}));
  EXPECT_EQ(SplitSentences("Never email sarah@example.com."),
            (Strings{"Never email sarah@example.com."}));
}

TEST(SentenceSplit, KeepsUrlsFileNamesAndDecimalsWhole) {
  EXPECT_EQ(SplitSentences("See https://x.io/a.b?c=1 now! Open report.pdf; use 3.14 here."),
            (Strings{"See https://x.io/a.b?c=1 now!", "Open report.pdf;", "use 3.14 here."}));
}

TEST(SentenceSplit, DoesNotSplitAfterAbbreviationsOrInitials) {
  EXPECT_EQ(SplitSentences("Use tools, e.g. grep, i.e. rg, etc. Ask Dr. Who vs. Mr. X. Done."),
            (Strings{"Use tools, e.g. grep, i.e. rg, etc. Ask Dr. Who vs. Mr. X. Done."}));
  EXPECT_EQ(SplitSentences("Email J. Smith. Then Mrs. Doe at Main St. today."),
            (Strings{"Email J. Smith.", "Then Mrs. Doe at Main St. today."}));
  // Longer words are not abbreviations.
  EXPECT_EQ(SplitSentences("Visit Paris. Then rest."), (Strings{"Visit Paris.", "Then rest."}));
}

TEST(SentenceSplit, SplitsOnChinesePunctuationWithoutSpaces) {
  EXPECT_EQ(SplitSentences("不要用sudo。别删除文件！你好吗？好；Never x."),
            (Strings{"不要用sudo。", "别删除文件！", "你好吗？", "好；", "Never x."}));
}

TEST(SentenceSplit, SplitsAtLineBreaks) {
  EXPECT_EQ(SplitSentences("first line\r\nsecond line\n\n  third\xE2\x80\xA8"
                           "fourth"),
            (Strings{"first line", "second line", "third", "fourth"}));
}

TEST(SentenceSplit, KeepsClosersWithTheSentence) {
  EXPECT_EQ(SplitSentences("Really?! He said \"no.\" Wait... 他说「好。」然后走了。"),
            (Strings{"Really?!", "He said \"no.\"", "Wait...", "他说「好。」", "然后走了。"}));
}

TEST(SentenceSplit, DropsEmptySentences) {
  EXPECT_TRUE(SplitSentences("").empty());
  EXPECT_TRUE(SplitSentences(" \n\t \xE3\x80\x80 ").empty());
  EXPECT_EQ(SplitSentences("  a.  \n\n  b  "), (Strings{"a.", "b"}));
}

// clang-format off
constexpr std::string_view kEdicts[] = {
    "Never email Sarah.", "never, ever email Sarah", "Don't push.", "don’t push", "Dont push",
    "DO NOT push", "Stop emailing Sarah", "Stop e-mailing Sarah", "please don't push",
    "Now, just never push", "listen, don't push", "> Don't push.", "1) Never push",
    "“Never push.”", "**Never** use sudo", "Don't ever push", "Never ever, email x",
    "Note: never push", "Claude, “never push.”", "Don't email her (she asked why?).", "Never push!",
    "不要用sudo", "请不要用sudo", "请勿用sudo", "别用sudo", "永远别用sudo", "禁止用sudo",
    "不许用sudo", "停止使用sudo", "另外，不要用sudo", "Hey bot，不要用sudo", "**不要**用sudo",
    // Spec 30's forms: an adverb after "never", lead-ins ending in a colon,
    // conditions, polite "stop <verb>ing" (even as a question).
    "never ever call Bob", "I told you: never push", "I said it before: don't book aisle seats.",
    "If it fails, don't retry more than twice.", "when you deploy, never skip the tests",
    "If the upload to the staging bucket fails on a Friday night, don't retry it.",
    "如果失败，不要重试。", "如果 upload 失败，别重试", "As I said, never email Sarah.",
    "我说过：别订靠过道的座位。", "stop emailing Sarah", "please stop emailing Sarah",
    "can you stop emailing Sarah?", "Could you stop adding emojis to my commit messages?",
    "would you please stop pinging me", "Don't you dare email her.", "Never have more than 3 tabs open"};
constexpr std::string_view kNotEdicts[] = {
    "", "   ", "I never liked that report", "we don't have a printer", "stop the server",
    "stop it", "stop king", "stopping emails is hard", "Never mind", "Nevermind that",
    "Never ever.", "Never, thanks", "don't", "Don't ever.", "Don't, please.", "Don't worry",
    "don't mention it", "Donts are fine", "Do nothing", "Don't push?", "Never?!",
    "Don't push!?", "Never push?”", "One two three four, never push",
    "我从来不喜欢", "别人说的", "别的方法", "不要紧", "不要，谢谢", "停止服务器", "停止这个进程",
    "不要发吗？", "请问你好",
    // Spec 30's statements, requests, reminders, reassurances, fillers and
    // questions.
    "she never emails me back", "the docs say never use eval", "The docs say: never use eval.",
    "She said, never email her.", "我从来不喜欢那份报告", "医生说，不要喝咖啡", "Stop the build, it's stuck.",
    "Could you stop the server?", "don't forget the milk", "Don't forget to call mom.",
    "Never forget where you came from.", "don't hesitate to ask", "don't worry about it",
    "don't mind me", "never mind the last request", "Don't bother.", "don't be sorry",
    "Don't get me wrong, I like it.", "Never fear.", "stop worrying about it", "不要忘记明天开会。",
    "别忘了带伞", "别担心", "不用担心", "别着急，慢慢来。", "别急。", "不要客气", "why don't you check the logs?",
    "Why don't you check the logs first.", "don't you think it's late?", "Don't you think it's late.",
    "don't you want to rerun the tests?", "Never will I do that.", "Never is a long time."};
// clang-format on

TEST(EdictDetection, AcceptsInstructions) {
  for (std::string_view s : kEdicts) EXPECT_TRUE(IsEdict(s)) << s;
}

TEST(EdictDetection, RejectsStatementsRequestsAndQuestions) {
  for (std::string_view s : kNotEdicts) EXPECT_FALSE(IsEdict(s)) << s;
}

TEST(EdictDetection, ARushIsNotAReassurance) {
  EXPECT_TRUE(IsEdict("别急着部署。"));
  EXPECT_FALSE(IsEdict("别急，慢慢来。"));
}

using Views = std::vector<std::string_view>;

TEST(ClauseSplit, CutsWhereAnEdictBeginsAfterAJoiner) {
  EXPECT_EQ(SplitClauses("Never forward attachments from unknown senders, and do not click "
                         "tracking links in the browser."),
            (Views{"Never forward attachments from unknown senders",
                   "do not click tracking links in the browser."}));
  EXPECT_EQ(SplitClauses("Never push and never merge."), (Views{"Never push", "never merge."}));
  EXPECT_EQ(SplitClauses("Never push and also don't merge."),
            (Views{"Never push", "also don't merge."}));
  EXPECT_EQ(SplitClauses("不要用sudo，也不要删除文件。"),
            (Views{"不要用sudo", "也不要删除文件。"}));
  EXPECT_EQ(SplitClauses("不要用sudo并且不要删除文件"), (Views{"不要用sudo", "不要删除文件"}));
  EXPECT_EQ(SplitClauses("别用sudo而且别删文件"), (Views{"别用sudo", "别删文件"}));
  EXPECT_EQ(SplitClauses("I'm tired of spam, and never email Mark."),
            (Views{"I'm tired of spam", "never email Mark."}));
}

TEST(ClauseSplit, KeepsListsConditionsAndIntroductionsWhole) {
  for (std::string_view s :
       {"Never share my address, phone, and email.", "Never email Sarah, and tell Bob instead.",
        "如果失败，不要重试。", "If it fails, don't retry.", "hey bot，别用sudo。",
        "别着急，慢慢来。", "Never email Sarah and Bob.", "I don't drink and don't smoke.",
        "Oh, and please never call me."}) {
    EXPECT_EQ(SplitClauses(s), (Views{s})) << s;
  }
  EXPECT_TRUE(SplitClauses("").empty());
  EXPECT_EQ(SplitClauses("Never push, and"), (Views{"Never push, and"}));
}

TEST(EdictExtraction, EachClauseIsAnEdictOfItsOwn) {
  EXPECT_EQ(Extract("Never forward attachments from unknown senders, and do not click tracking "
                    "links in the browser.",
                    {"read_email", "browser_open"}),
            (Pairs{{"*", "Never forward attachments from unknown senders"},
                   {"browser_open", "do not click tracking links in the browser."}}));
  EXPECT_EQ(Extract("Stop emailing Sarah; stop being verbose.", {"send_email", "web_search"}),
            (Pairs{{"send_email", "Stop emailing Sarah;"}, {"*", "stop being verbose."}}));
  EXPECT_EQ(Extract("不要用sudo，也不要删除文件。", {"bash", "file_delete"}),
            (Pairs{{"*", "不要用sudo"}, {"file_delete", "也不要删除文件。"}}));
}

// The false positives and false negatives of ../shared/eval/capture/dev.jsonl
// before spec 30's capture rules (bench/eval_capture.py), one row each:
// message, this turn's tools, the tools the engine knew, the expected tools.
struct DevCase {
  std::string message;
  Strings tools;
  Strings known;
  Strings expect;
};

Strings ToolsOf(const DevCase& c) {
  ToolCandidates candidates{.turn = c.tools, .known = [known = c.known] { return known; }};
  Strings out;
  for (const Edict& e : ExtractEdicts(c.message, candidates, BuiltinAliases())) {
    if (std::find(out.begin(), out.end(), e.tool_name) == out.end()) out.push_back(e.tool_name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

void ExpectTools(const std::vector<DevCase>& cases) {
  for (const DevCase& c : cases) EXPECT_EQ(ToolsOf(c), c.expect) << c.message;
}

TEST(EdictCaptureDevSet, RemindersAndReassurancesGiveNoRule) {
  ExpectTools({{"Don't forget my dentist appointment.", {"calendar_add"}, {}, {}},
               {"Don't hesitate to correct me.", {"web_search"}, {}, {}},
               {"不要忘记明天开会。", {"calendar_add"}, {}, {}},
               {"别着急，慢慢来。", {"bash"}, {}, {}}});
}

TEST(EdictCaptureDevSet, ConditionsLeadInsAndPoliteStopsAreEdicts) {
  ExpectTools(
      {{"If the upload fails, don't retry it.", {"s3_upload"}, {}, {"s3_upload"}},
       {"Could you stop adding emojis to my commit messages?", {"git_commit"}, {}, {"git_commit"}},
       {"I said it before: don't book aisle seats.", {"book_flight"}, {}, {"book_flight"}}});
}

TEST(EdictCaptureDevSet, AToolOfNoUseToTheEdictIsNotItsTool) {
  ExpectTools({{"Never email my landlord.", {"calendar_add"}, {"send_email"}, {"send_email"}},
               {"Never DM the CEO on Slack.", {"read_file"}, {"slack_send"}, {"slack_send"}},
               {"Never reveal my home address to anyone.", {"send_email", "slack_send"}, {}, {"*"}},
               {"Never wipe the staging bucket. And don't email investors.",
                {"bash", "send_email"},
                {},
                {"*", "send_email"}}});
}

TEST(EdictCaptureDevSet, ClausesJoinedByCommaAndAreEdictsOfTheirOwn) {
  ExpectTools(
      {{"Never forward attachments from unknown senders, and do not click tracking links "
        "in the browser.",
        {"read_email", "browser_open"},
        {},
        {"*", "browser_open"}}});
}

TEST(ClassifyFailure, RecognisesEveryClass) {
  EXPECT_EQ(ClassifyFailure("Error: Unknown tool 'foo'"), "unknown_tool");
  EXPECT_EQ(ClassifyFailure("tool not found: bar"), "unknown_tool");
  EXPECT_EQ(ClassifyFailure("request Timed Out after 30s"), "timeout");
  EXPECT_EQ(ClassifyFailure("context deadline exceeded"), "timeout");
  EXPECT_EQ(ClassifyFailure("connect ECONNREFUSED 127.0.0.1:80"), "connection_error");
  EXPECT_EQ(ClassifyFailure("getaddrinfo ENOTFOUND example.com"), "connection_error");
  EXPECT_EQ(ClassifyFailure("open /etc/shadow: Permission denied"), "permission_denied");
  EXPECT_EQ(ClassifyFailure("HTTP 403 Forbidden"), "permission_denied");
  EXPECT_EQ(ClassifyFailure("ls: x: No such file or directory"), "not_found");
  EXPECT_EQ(ClassifyFailure("HTTP 404"), "not_found");
  EXPECT_EQ(ClassifyFailure("Invalid JSON at line 3"), "parse_error");
  EXPECT_EQ(ClassifyFailure("SyntaxError: Unexpected token } in JSON"), "parse_error");
  EXPECT_EQ(ClassifyFailure("something broke"), "error");
  EXPECT_EQ(ClassifyFailure(""), "error");
}

TEST(ClassifyFailure, AppliesThePrecedence) {
  EXPECT_EQ(ClassifyFailure("tool not found after timeout"), "unknown_tool");
  EXPECT_EQ(ClassifyFailure("timeout: connection refused"), "timeout");
  EXPECT_EQ(ClassifyFailure("connection reset; access denied"), "connection_error");
  EXPECT_EQ(ClassifyFailure("forbidden: file not found"), "permission_denied");
  EXPECT_EQ(ClassifyFailure("not found: parse error"), "not_found");
}

TEST(EdictRobustness, SurvivesInvalidUtf8) {
  const std::string inputs[] = {
      "Never use \xFF sudo.",
      "不要用\xE4\xB8",
      "\xE4\xB8\xE4\xB8\xE4\xB8。\xF0\x9F\x98",
      std::string("Never\0email Sarah.", 18),
      "\xC0\xAF\xED\xA0\x80 don\xE2\x80 push. \xEF\xBC",
      "\xE2\x80\x99\xE2\x80",
  };
  for (const std::string& in : inputs) {
    for (const Edict& e : ExtractEdicts(in, Turn({"send_email", "shell"}), BuiltinAliases())) {
      EXPECT_TRUE(text::IsValidUtf8(e.body));
      EXPECT_FALSE(e.body.empty());
    }
    (void)ClassifyFailure(in);
    (void)SplitSentences(in);
  }
  const auto edicts = ExtractEdicts("Never use \xFF sudo.", Turn({"shell"}), BuiltinAliases());
  ASSERT_EQ(edicts.size(), 1U);
  EXPECT_EQ(edicts[0].body, "Never use \xEF\xBF\xBD sudo.");
  EXPECT_EQ(ExtractEdicts("不要用\xE4\xB8", Turn({}), BuiltinAliases()).size(), 1U);
}

TEST(EdictRobustness, HandlesEmptyInput) {
  EXPECT_TRUE(ExtractEdicts("", Turn({"shell"}), BuiltinAliases()).empty());
  EXPECT_TRUE(ExtractEdicts("", Turn({}), {}).empty());
  EXPECT_FALSE(IsEdict(""));
  EXPECT_EQ(EdictBody(""), "");
  EXPECT_EQ(MatchTool("", Turn({}), {}), kAnyTool);
}

TEST(EdictRobustness, OneMegabyteRunsFast) {
  constexpr size_t kMegabyte = 1 << 20;
  const std::string inputs[] = {
      Repeat("Never use sudo. ", kMegabyte / 16),
      Repeat("a", kMegabyte),
      Repeat(".", kMegabyte),
      Repeat("e.g. ", kMegabyte / 5),
      Repeat("hey, ", kMegabyte / 5),
      Repeat("please ", kMegabyte / 7),
      "Never " + Repeat("emailing mail ", kMegabyte / 14),
      Repeat("不要", kMegabyte / 6),
      Repeat("\xFF\xE4\xB8", kMegabyte / 3),
  };
  const auto start = std::chrono::steady_clock::now();
  size_t edicts = 0;
  std::string classes;
  for (const std::string& in : inputs) {
    edicts += ExtractEdicts(in, Turn({"send_email", "shell", "browser"}), BuiltinAliases()).size();
    classes += ClassifyFailure(in);
  }
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_LT(elapsed, kMegabyteBudget);
  // "Never use sudo." (deduplicated), "Never emailing…" and "不要不要…".
  EXPECT_EQ(edicts, 3U);
  EXPECT_EQ(classes, Repeat("error", std::size(inputs)));
  // The repeated edict is one rule; the huge edict is cut.
  const auto repeated = ExtractEdicts(inputs[0], Turn({"shell"}), BuiltinAliases());
  ASSERT_EQ(repeated.size(), 1U);
  const auto huge = ExtractEdicts(inputs[6], Turn({"shell"}), BuiltinAliases());
  ASSERT_EQ(huge.size(), 1U);
  EXPECT_EQ(text::CountCodePoints(huge[0].body), kMaxEdictChars);
}

TEST(EdictRobustness, TypicalTurnIsWellUnderAMillisecond) {
  const std::string message =
      "Thanks, that worked. Never email Sarah at sarah@example.com. 另外，不要用 sudo。";
  const Strings tools = {"web_search", "send_email", "shell_exec"};
  constexpr int kRuns = 2000;
  size_t total = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kRuns; ++i)
    total += ExtractEdicts(message, Turn(tools), BuiltinAliases()).size();
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(total, 2U * kRuns);
  EXPECT_LT(elapsed / kRuns, kTurnBudget);
}

}  // namespace
}  // namespace mnemo::rules
