#include "text/cleaner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "text/utf8.h"

namespace mnemo::text {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// The cleaned text, or "ERROR: <message>" so that expectations show both.
std::string Clean(std::string_view spec, std::string_view output) {
  Result<Cleaner> cleaner = Cleaner::Parse(spec);
  if (!cleaner.ok()) return "SPEC: " + cleaner.status().message();
  Result<std::string> cleaned = cleaner->Apply(output);
  if (!cleaned.ok()) return "ERROR: " + cleaned.status().message();
  return *cleaned;
}

// The parse error of an invalid spec ("" when it parsed).
std::string SpecError(std::string_view spec) {
  Result<Cleaner> cleaner = Cleaner::Parse(spec);
  if (cleaner.ok()) return "";
  EXPECT_EQ(cleaner.status().code(), StatusCode::kInvalidArgument) << spec;
  EXPECT_EQ(cleaner.status().field(), "cleaner") << spec;
  return cleaner.status().message();
}

Status ApplyStatus(std::string_view spec, std::string_view output) {
  Result<Cleaner> cleaner = Cleaner::Parse(spec);
  EXPECT_TRUE(cleaner.ok()) << cleaner.status().ToString();
  if (!cleaner.ok()) return cleaner.status();
  Result<std::string> cleaned = cleaner->Apply(output);
  return cleaned.ok() ? Status::Ok() : cleaned.status();
}

std::string Repeat(std::string_view s, size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

// ---- json_field / json_pointer -----------------------------------------------

TEST(Cleaner, JsonFieldTakesTheSpecScenarioContent) {
  EXPECT_EQ(Clean(R"([{"json_field": "content"}])",
                  R"({"path":"/srv/app","content":"main.py, utils.py, deploy.py"})"),
            "main.py, utils.py, deploy.py");
}

TEST(Cleaner, JsonFieldGivesNumbersBooleansAndContainersAsJson) {
  EXPECT_EQ(Clean(R"([{"json_field": "n"}])", R"({"n": 42})"), "42");
  EXPECT_EQ(Clean(R"([{"json_field": "n"}])", R"({"n": -1.5})"), "-1.5");
  EXPECT_EQ(Clean(R"([{"json_field": "ok"}])", R"({"ok": true})"), "true");
  EXPECT_EQ(Clean(R"([{"json_field": "o"}])", R"({"o": {"a": [1, "x"]}})"), R"({"a":[1,"x"]})");
  EXPECT_EQ(Clean(R"([{"json_field": "s"}])", R"({"s": "line\nnext \u00e9"})"),
            "line\nnext \xC3\xA9");
}

TEST(Cleaner, JsonFieldFailuresNameTheStep) {
  EXPECT_EQ(Clean(R"([{"json_field": "content"}])", R"({"path": "/srv"})"),
            R"(ERROR: cleaner step 1 (json_field): output has no member "content")");
  EXPECT_EQ(Clean(R"([{"json_field": "content"}])", "plain text"),
            "ERROR: cleaner step 1 (json_field): output is not JSON (syntax error at byte 1)");
  EXPECT_EQ(Clean(R"([{"json_field": "content"}])", R"([{"content": "x"}])"),
            "ERROR: cleaner step 1 (json_field): output is a JSON array, not an object");
  EXPECT_EQ(Clean(R"([{"json_field": "content"}])", R"({"content": null})"),
            R"(ERROR: cleaner step 1 (json_field): member "content" is null)");
  EXPECT_EQ(ApplyStatus(R"([{"json_field": "content"}])", "{}").code(), StatusCode::kNotFound);
  EXPECT_EQ(ApplyStatus(R"([{"json_field": "content"}])", "nope").code(),
            StatusCode::kInvalidArgument);
}

TEST(Cleaner, JsonFieldLooksAtTheTopLevelOnly) {
  EXPECT_EQ(Clean(R"([{"json_field": "content"}])", R"({"data": {"content": "deep"}})"),
            R"(ERROR: cleaner step 1 (json_field): output has no member "content")");
}

TEST(Cleaner, JsonPointerSelectsNestedValues) {
  const std::string doc = R"({"data": {"text": "hello", "items": [{"name": "a"}, {"name": "b"}],
                             "a/b": "slash", "m~n": "tilde"}})";
  EXPECT_EQ(Clean(R"([{"json_pointer": "/data/text"}])", doc), "hello");
  EXPECT_EQ(Clean(R"([{"json_pointer": "/data/items/1/name"}])", doc), "b");
  EXPECT_EQ(Clean(R"([{"json_pointer": "/data/a~1b"}])", doc), "slash");
  EXPECT_EQ(Clean(R"([{"json_pointer": "/data/m~0n"}])", doc), "tilde");
  EXPECT_EQ(Clean(R"([{"json_pointer": ""}])", R"("a whole string")"), "a whole string");
}

TEST(Cleaner, JsonPointerFailsWhenNothingIsThere) {
  const std::string doc = R"({"data": {"items": [1, 2]}})";
  EXPECT_EQ(Clean(R"([{"json_pointer": "/data/text"}])", doc),
            R"(ERROR: cleaner step 1 (json_pointer): output has nothing at "/data/text")");
  EXPECT_EQ(ApplyStatus(R"([{"json_pointer": "/data/items/7"}])", doc).code(),
            StatusCode::kNotFound);
  EXPECT_EQ(ApplyStatus(R"([{"json_pointer": "/data/items/x"}])", doc).code(),
            StatusCode::kNotFound);
  EXPECT_EQ(ApplyStatus(R"([{"json_pointer": "/data"}])", "<html>").code(),
            StatusCode::kInvalidArgument);
}

TEST(Cleaner, DeeplyNestedOutputFailsWithoutCrashing) {
  const std::string deep = Repeat("[", 100000) + Repeat("]", 100000);
  EXPECT_EQ(Clean(R"([{"json_field": "a"}])", deep),
            "ERROR: cleaner step 1 (json_field): output nests deeper than 256 levels");
  const std::string deep_object = Repeat(R"({"a":)", 100000) + "1" + Repeat("}", 100000);
  EXPECT_THAT(Clean(R"([{"json_pointer": "/a/a"}])", deep_object), HasSubstr("nests deeper"));
  const std::string unbalanced = Repeat("{\"a\":[", 50000);
  EXPECT_THAT(Clean(R"([{"json_field": "a"}])", unbalanced), StartsWith("ERROR: "));
  // Within the limit a nested member comes out as compact JSON.
  const std::string ok = R"({"a":)" + Repeat("[", 200) + Repeat("]", 200) + "}";
  EXPECT_EQ(Clean(R"([{"json_field": "a"}])", ok), Repeat("[", 200) + Repeat("]", 200));
}

// ---- regex_remove / regex_extract ------------------------------------------------

TEST(Cleaner, RegexRemoveDeletesEveryMatch) {
  EXPECT_EQ(Clean(R"([{"regex_remove": "\\[\\d+/\\d+\\] "}])", "[1/3] build [2/3] test [3/3] ok"),
            "build test ok");
  EXPECT_EQ(Clean(R"([{"regex_remove": "(?i)debug: [^\\n]*\\n"}])", "DEBUG: x\nkeep\ndebug: y\n"),
            "keep\n");
  EXPECT_EQ(Clean(R"([{"regex_remove": "z*"}])", "abc"), "abc");
}

TEST(Cleaner, RegexExtractKeepsTheGroupOfTheFirstMatch) {
  EXPECT_EQ(Clean(R"j([{"regex_extract": "status: (\\w+)", "group": 1}])j",
                  "x status: green y status: red"),
            "green");
  EXPECT_EQ(Clean(R"([{"regex_extract": "\\d+"}])", "abc 123 456"), "123");
  EXPECT_EQ(Clean(R"([{"regex_extract": "a(x)?b", "group": 1}])", "ab"), "");
  EXPECT_EQ(Clean(R"([{"regex_extract": "(?<word>[a-z]+)!", "group": 1}])", "1 hi! 2"), "hi");
}

TEST(Cleaner, RegexExtractWithoutAMatchFails) {
  EXPECT_EQ(Clean(R"j([{"regex_extract": "status: (\\w+)", "group": 1}])j", "nothing here"),
            "ERROR: cleaner step 1 (regex_extract): no match");
  EXPECT_EQ(ApplyStatus(R"([{"regex_extract": "x"}])", "").code(), StatusCode::kNotFound);
}

TEST(Cleaner, CatastrophicRegexFailsByItsLimits) {
  // (a+)+$ against a's and a final b backtracks exponentially.
  const std::string hostile = std::string(100000, 'a') + "b";
  const Status failed = ApplyStatus(R"([{"regex_remove": "(a+)+$"}])", hostile);
  EXPECT_EQ(failed.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(failed.message(), StartsWith("cleaner step 1 (regex_remove): the regular expression "
                                           "ran past its "));
  EXPECT_THAT(failed.message(), HasSubstr("limit"));
  // A short input keeps the backtracking stack small, so the time limit stops it.
  EXPECT_EQ(Clean(R"([{"regex_extract": "(x+x+)+y"}])", std::string(40, 'x')),
            "ERROR: cleaner step 1 (regex_extract): the regular expression ran past its time "
            "limit (2000 ICU time units)");
}

TEST(Cleaner, RegexRemoveFailsInsteadOfReturningAHalfCleanedText) {
  // ICU's replaceAll stops at the time limit and reports success; the
  // cleaner must not.
  const std::string output = "xy xy xy " + std::string(40, 'x');
  const Status status = ApplyStatus(R"([{"regex_remove": "(x+x+)+y"}])", output);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("time limit"));
}

TEST(Cleaner, RegexRemoveHandlesLongOutputs) {
  const std::string output = Repeat("keep \x1b[0m", 200000);
  EXPECT_EQ(Clean(R"([{"regex_remove": "\\x1b\\[[0-9;]*m"}])", output), Repeat("keep ", 200000));
}

// ---- text steps / truncate -------------------------------------------------

TEST(Cleaner, TextStepsRunThroughTheSpec) {
  // The filters themselves are tested in strip_test.cc.
  EXPECT_EQ(Clean(R"([{"strip_html": true}])", "<p>a &amp; <b>b</b></p>"), "\na & b\n");
  EXPECT_EQ(Clean(R"([{"strip_ansi": true}])", "\x1b[31mred\x1b[0m\r\n"), "red\n");
  EXPECT_EQ(Clean(R"([{"collapse_whitespace": true}])", "  a \t b\n\n c "), "a b\nc");
}

TEST(Cleaner, TruncateCountsCodePoints) {
  EXPECT_EQ(Clean(R"([{"truncate": 5}])", "abcdefgh"), "abcde");
  EXPECT_EQ(Clean(R"([{"truncate": 5}])", "abc"), "abc");
  EXPECT_EQ(Clean(R"([{"truncate": 2}])", "\xF0\x9F\x98\x80\xF0\x9F\x98\x81\xF0\x9F\x98\x82"),
            "\xF0\x9F\x98\x80\xF0\x9F\x98\x81");
  EXPECT_EQ(Clean(R"([{"truncate": 3}])", "\xE4\xBD\xA0\xE5\xA5\xBD\xE4\xB8\x96\xE7\x95\x8C"),
            "\xE4\xBD\xA0\xE5\xA5\xBD\xE4\xB8\x96");
}

// ---- chains ------------------------------------------------------------------------

TEST(Cleaner, StepsRunInOrder) {
  EXPECT_EQ(Clean(R"([{"json_field": "content"}, {"truncate": 7}])",
                  R"({"content": "main.py, utils.py"})"),
            "main.py");
  EXPECT_EQ(Clean(R"([{"strip_html": true}, {"collapse_whitespace": true}])",
                  "<html><body>\n  <h1>Report</h1>\n  <p>All   <b>green</b>.</p>\n</body></html>"),
            "Report\nAll green.");
  EXPECT_EQ(Clean(R"j([{"json_pointer": "/result/html"}, {"strip_html": true},
                      {"regex_extract": "Total: (\\d+)", "group": 1}])j",
                  R"({"result": {"html": "<p>Total: <b>42</b></p>"}})"),
            "42");
  // A failure later in the chain names its own step.
  EXPECT_EQ(Clean(R"([{"strip_ansi": true}, {"json_field": "x"}])", "\x1b[0m{}"),
            R"(ERROR: cleaner step 2 (json_field): output has no member "x")");
}

TEST(Cleaner, EmptyCleanerReturnsItsInput) {
  Result<Cleaner> cleaner = Cleaner::Parse("[]");
  ASSERT_TRUE(cleaner.ok());
  EXPECT_TRUE(cleaner->empty());
  EXPECT_EQ(*cleaner->Apply("as is  "), "as is  ");
  EXPECT_TRUE(Cleaner().empty());
  EXPECT_EQ(*Cleaner().Apply("x"), "x");
}

// ---- scripts ---------------------------------------------------------------------

// 你好，世界。 and مرحبا بالعالم ("hello, world") with harakat on the first word.
constexpr std::string_view kChinese =
    "\xE4\xBD\xA0\xE5\xA5\xBD\xEF\xBC\x8C\xE4\xB8\x96\xE7\x95\x8C\xE3\x80\x82";
constexpr std::string_view kChineseBare = "\xE4\xBD\xA0\xE5\xA5\xBD\xE4\xB8\x96\xE7\x95\x8C";
constexpr std::string_view kArabic =
    "\xD9\x85\xD9\x8E\xD8\xB1\xD9\x92\xD8\xAD\xD9\x8E\xD8\xA8\xD9\x8B\xD8\xA7 "
    "\xD8\xA8\xD8\xA7\xD9\x84\xD8\xB9\xD8\xA7\xD9\x84\xD9\x85";
constexpr std::string_view kArabicBare =
    "\xD9\x85\xD8\xB1\xD8\xAD\xD8\xA8\xD8\xA7 "
    "\xD8\xA8\xD8\xA7\xD9\x84\xD8\xB9\xD8\xA7\xD9\x84\xD9\x85";

TEST(Cleaner, ChineseAndArabicPassThroughEveryStep) {
  const std::string both = std::string(kChinese) + " " + std::string(kArabic);
  EXPECT_EQ(Clean(R"([{"json_field": "content"}])", R"({"content": ")" + both + "\"}"), both);
  EXPECT_EQ(Clean(R"([{"json_pointer": "/a/0"}])", R"({"a": [")" + both + "\"]}"), both);
  EXPECT_EQ(Clean(R"([{"strip_html": true}])",
                  "<p>" + std::string(kChinese) + "</p><b>" + std::string(kArabic) + "</b>"),
            "\n" + std::string(kChinese) + "\n" + std::string(kArabic));
  EXPECT_EQ(Clean(R"([{"strip_ansi": true}])",
                  "\x1b[1m" + std::string(kChinese) + "\x1b[0m " + std::string(kArabic)),
            both);
  EXPECT_EQ(Clean(R"([{"regex_remove": "[\\uFF0C\\u3002]"}])", kChinese), kChineseBare);
  EXPECT_EQ(Clean(R"([{"regex_remove": "\\p{Mn}"}])", kArabic), kArabicBare);
  EXPECT_EQ(Clean(R"j([{"regex_extract": "(\\p{Han}+)", "group": 1}])j", "id 42: " + both),
            "\xE4\xBD\xA0\xE5\xA5\xBD");
  EXPECT_EQ(Clean(R"([{"regex_extract": "\\p{Arabic}+$"}])", both),
            "\xD8\xA8\xD8\xA7\xD9\x84\xD8\xB9\xD8\xA7\xD9\x84\xD9\x85");
  EXPECT_EQ(Clean(R"([{"collapse_whitespace": true}])",
                  std::string(kChinese) + "\xE3\x80\x80\xE3\x80\x80 " + std::string(kArabicBare)),
            std::string(kChinese) + " " + std::string(kArabicBare));
  EXPECT_EQ(Clean(R"([{"truncate": 2}])", kChinese), "\xE4\xBD\xA0\xE5\xA5\xBD");
  EXPECT_EQ(Clean(R"([{"truncate": 3}])", kArabicBare), "\xD9\x85\xD8\xB1\xD8\xAD");
}

TEST(Cleaner, InvalidUtf8NeverEscapesACleaner) {
  const std::string broken = "ab\xFF\xC3 \x1b[0m<p>\xE4\xBD</p>\xED\xA0\x80 z";
  for (std::string_view spec : {R"([{"strip_html": true}])", R"([{"strip_ansi": true}])",
                                R"([{"regex_remove": "b"}])", R"([{"regex_extract": "a.*z"}])",
                                R"([{"collapse_whitespace": true}])", R"([{"truncate": 4}])"}) {
    const std::string cleaned = Clean(spec, broken);
    EXPECT_TRUE(IsValidUtf8(cleaned)) << spec;
    EXPECT_THAT(cleaned, StartsWith("a")) << spec;
  }
  EXPECT_EQ(Clean(R"([{"json_field": "c"}])", "{\"c\": \"a\xFF\"}"), "a\xEF\xBF\xBD");
}

// ---- invalid specs -------------------------------------------------------------------

TEST(Cleaner, RejectsSpecsThatAreNotArraysOfObjects) {
  EXPECT_EQ(SpecError("strip_html"),
            "cleaner is not valid JSON (syntax error at byte 1): use an array of steps such as "
            "[{\"json_field\": \"content\"}]");
  EXPECT_EQ(SpecError(R"({"strip_html": true})"),
            "cleaner must be an array of steps such as [{\"json_field\": \"content\"}], got an "
            "object");
  EXPECT_EQ(SpecError(R"([{"truncate": 5}, "strip_html"])"),
            "cleaner step 2 must be an object such as {\"truncate\": 2000}, got \"strip_html\"");
  EXPECT_EQ(SpecError(Repeat("[", 100000)),
            "cleaner nests deeper than 64 levels: a JSON value may nest at most 64 levels (the "
            "limit of a request body)");
  EXPECT_TRUE(
      Cleaner::Parse(Repeat("[", 64) + Repeat("]", 64)).status().message().find("nests deeper") ==
      std::string::npos);
  EXPECT_EQ(SpecError("[" + Repeat(R"({"strip_ansi": true},)", 32) + R"({"strip_ansi": true}])"),
            "cleaner has 33 steps; at most 32 are allowed");
}

TEST(Cleaner, RejectsUnknownMissingAndDoubledStepNames) {
  EXPECT_EQ(SpecError(R"([{"strip_ansi": true}, {"frobnicate": true}])"),
            "cleaner step 2: unknown step \"frobnicate\": use json_field, json_pointer, "
            "strip_html, strip_ansi, regex_remove, regex_extract, collapse_whitespace or "
            "truncate");
  EXPECT_THAT(SpecError(R"([{}])"),
              StartsWith("cleaner step 1 is an empty object: a step is one "));
  EXPECT_THAT(SpecError(R"([{"group": 1}])"),
              StartsWith("cleaner step 1 has \"group\" but no regex_extract"));
  EXPECT_EQ(SpecError(R"([{"json_field": "a", "truncate": 5}])"),
            "cleaner step 1 names two steps, json_field and truncate: put each step in an "
            "object of its own");
  EXPECT_EQ(SpecError(R"([{"truncate": 5, "group": 1}])"),
            "cleaner step 1 (truncate): \"group\" is allowed only with regex_extract");
}

TEST(Cleaner, RejectsBadRegularExpressions) {
  EXPECT_EQ(SpecError(R"([{"truncate": 10}, {"regex_remove": "[ab"}])"),
            "cleaner step 2 (regex_remove): invalid ICU regular expression: "
            "U_REGEX_MISSING_CLOSE_BRACKET at offset 3");
  EXPECT_THAT(SpecError(R"([{"regex_extract": "(a"}])"),
              StartsWith("cleaner step 1 (regex_extract): invalid ICU regular expression: U_"));
  EXPECT_EQ(SpecError(R"([{"regex_remove": ""}])"),
            "cleaner step 1 (regex_remove): the pattern must not be empty");
  EXPECT_EQ(SpecError(R"([{"regex_remove": 7}])"),
            "cleaner step 1 (regex_remove): value must be a string, got 7");
  EXPECT_EQ(SpecError(R"([{"regex_remove": ")" + std::string(5000, 'a') + "\"}]"),
            "cleaner step 1 (regex_remove): value is 5000 bytes; at most 4096 are allowed");
}

TEST(Cleaner, RejectsGroupsOutsideThePattern) {
  EXPECT_EQ(SpecError(R"j([{"regex_extract": "a(b)", "group": 2}])j"),
            "cleaner step 1 (regex_extract): group must be between 0 and 1 (the pattern's "
            "group count), got 2");
  EXPECT_EQ(SpecError(R"([{"regex_extract": "ab", "group": -1}])"),
            "cleaner step 1 (regex_extract): group must be between 0 and 0 (the pattern's "
            "group count), got -1");
  EXPECT_EQ(SpecError(R"j([{"regex_extract": "a(b)", "group": "1"}])j"),
            "cleaner step 1 (regex_extract): group must be an integer between 0 and the "
            "pattern's group count, got \"1\"");
}

TEST(Cleaner, RejectsTruncateOutsideItsRange) {
  const std::string prefix =
      "cleaner step 1 (truncate): value must be an integer number of code points between 1 "
      "and 1000000, got ";
  EXPECT_EQ(SpecError(R"([{"truncate": 0}])"), prefix + "0");
  EXPECT_EQ(SpecError(R"([{"truncate": -5}])"), prefix + "-5");
  EXPECT_EQ(SpecError(R"([{"truncate": 1000001}])"), prefix + "1000001");
  EXPECT_EQ(SpecError(R"([{"truncate": 18446744073709551615}])"), prefix + "18446744073709551615");
  EXPECT_EQ(SpecError(R"([{"truncate": 2.5}])"), prefix + "2.5");
  EXPECT_EQ(SpecError(R"([{"truncate": "10"}])"), prefix + "\"10\"");
  EXPECT_EQ(SpecError(R"([{"truncate": true}])"), prefix + "true");
}

TEST(Cleaner, RejectsBadFieldsPointersAndFlags) {
  EXPECT_EQ(SpecError(R"([{"json_field": ""}])"),
            "cleaner step 1 (json_field): value must name a member, got \"\"");
  EXPECT_EQ(SpecError(R"([{"json_field": ["a"]}])"),
            "cleaner step 1 (json_field): value must be a string, got an array");
  EXPECT_EQ(SpecError(R"([{"json_pointer": "data/text"}])"),
            "cleaner step 1 (json_pointer): \"data/text\" is not a JSON pointer: use \"\" or "
            "\"/\"-separated tokens such as \"/data/text\" (\"~\" only as ~0 or ~1)");
  EXPECT_THAT(SpecError(R"([{"json_pointer": "/a~2b"}])"),
              StartsWith("cleaner step 1 (json_pointer): \"/a~2b\" is not a JSON po"));
  EXPECT_EQ(SpecError(R"([{"strip_html": false}])"),
            "cleaner step 1 (strip_html): value must be true (leave the step out to skip it), "
            "got false");
  EXPECT_THAT(SpecError(R"([{"collapse_whitespace": 1}])"),
              StartsWith("cleaner step 1 (collapse_whitespace): value must be true"));
}

TEST(Cleaner, FromStepsChecksLikeParse) {
  EXPECT_THAT(
      Cleaner::FromSteps({{.kind = CleanerStepKind::kTruncate, .limit = 0}}).status().message(),
      StartsWith("cleaner step 1 (truncate):"));
  EXPECT_EQ(Cleaner::FromSteps({{.kind = CleanerStepKind::kJsonField, .argument = "a\xFF"}})
                .status()
                .message(),
            "cleaner step 1 (json_field): value is not valid UTF-8");
  // Fields a kind does not use are dropped.
  Result<Cleaner> cleaner = Cleaner::FromSteps(
      {{.kind = CleanerStepKind::kStripAnsi, .argument = "x", .group = 3, .limit = 9}});
  ASSERT_TRUE(cleaner.ok()) << cleaner.status().ToString();
  EXPECT_EQ(cleaner->ToJson(), R"([{"strip_ansi":true}])");
}

// ---- canonical text ------------------------------------------------------------------

TEST(Cleaner, ToJsonIsCanonicalAndRoundTrips) {
  const std::string spec = R"j([ {"json_pointer": "/data/html"}, {"strip_html": true},
      {"strip_ansi": true}, {"regex_remove": "\\s+\"x\"\n"},
      {"group": 1, "regex_extract": "a(\u4F60)"}, {"regex_extract": "b"},
      {"collapse_whitespace": true}, {"truncate": 2000}, {"json_field": "content"} ])j";
  Result<Cleaner> cleaner = Cleaner::Parse(spec);
  ASSERT_TRUE(cleaner.ok()) << cleaner.status().ToString();
  const std::string canonical =
      R"([{"json_pointer":"/data/html"},{"strip_html":true},{"strip_ansi":true},)"
      R"({"regex_remove":"\\s+\"x\"\n"},{"regex_extract":"a()"
      "\xE4\xBD\xA0"
      R"j()","group":1},)j"
      R"({"regex_extract":"b","group":0},{"collapse_whitespace":true},{"truncate":2000},)"
      R"({"json_field":"content"}])";
  EXPECT_EQ(cleaner->ToJson(), canonical);
  Result<Cleaner> again = Cleaner::Parse(cleaner->ToJson());
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->ToJson(), canonical);
  ASSERT_EQ(again->steps().size(), 9u);
  EXPECT_EQ(again->steps()[3].argument, "\\s+\"x\"\n");
  EXPECT_EQ(again->steps()[4].group, 1);
  EXPECT_EQ(again->steps()[7].limit, 2000);
  EXPECT_EQ(Cleaner().ToJson(), "[]");
}

TEST(Cleaner, StepNamesAreTheSpecNames) {
  EXPECT_EQ(CleanerStepName(CleanerStepKind::kJsonField), "json_field");
  EXPECT_EQ(CleanerStepName(CleanerStepKind::kCollapseWhitespace), "collapse_whitespace");
  EXPECT_EQ(CleanerStepName(CleanerStepKind::kTruncate), "truncate");
}

// ---- fallback ----------------------------------------------------------------------------

TEST(Cleaner, CleanOrFallbackReturnsTheCleanedText) {
  Result<Cleaner> cleaner = Cleaner::Parse(R"([{"json_field": "content"}])");
  ASSERT_TRUE(cleaner.ok());
  const CleanedOutput out = cleaner->CleanOrFallback(R"({"content": "deploy.py"})");
  EXPECT_EQ(out.text, "deploy.py");
  EXPECT_FALSE(out.failed);
  EXPECT_EQ(out.reason, "");
}

TEST(Cleaner, CleanOrFallbackFallsBackOnFailure) {
  Result<Cleaner> cleaner = Cleaner::Parse(R"([{"json_field": "content"}])");
  ASSERT_TRUE(cleaner.ok());
  const std::string raw = "not json \xFF at all";
  const CleanedOutput out = cleaner->CleanOrFallback(raw);
  EXPECT_EQ(out.text, raw);
  EXPECT_TRUE(out.failed);
  EXPECT_EQ(out.reason, "cleaner step 1 (json_field): output is not JSON (syntax error at byte 2)");
}

TEST(Cleaner, CleanOrFallbackFallsBackOnEmptyText) {
  Result<Cleaner> cleaner = Cleaner::Parse(R"([{"strip_html": true}, {"regex_remove": "[a-z]"}])");
  ASSERT_TRUE(cleaner.ok());
  EXPECT_EQ(*cleaner->Apply("<p>abc</p>"), "\n\n");
  const CleanedOutput out = cleaner->CleanOrFallback("<p>abc</p>");
  EXPECT_EQ(out.text, "<p>abc</p>");
  EXPECT_TRUE(out.failed);
  EXPECT_EQ(out.reason, "cleaner produced empty text");
  const CleanedOutput kept = cleaner->CleanOrFallback("<p>abc1</p>");
  EXPECT_EQ(kept.text, "\n1\n");
  EXPECT_FALSE(kept.failed);
}

TEST(Cleaner, CleanOrFallbackWithoutStepsKeepsTheOutput) {
  const CleanedOutput out = Cleaner().CleanOrFallback("");
  EXPECT_EQ(out.text, "");
  EXPECT_FALSE(out.failed);
}

TEST(Cleaner, CopiesShareCompiledPatternsAcrossThreads) {
  Cleaner copy;
  {
    Result<Cleaner> cleaner = Cleaner::Parse(R"j([{"regex_extract": "id=(\\d+)", "group": 1}])j");
    ASSERT_TRUE(cleaner.ok());
    copy = *cleaner;
  }
  std::vector<std::string> results(4);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < results.size(); ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        Result<std::string> r = copy.Apply("x id=" + std::to_string(t) + " y");
        results[t] = r.ok() ? *r : r.status().message();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (size_t t = 0; t < results.size(); ++t) EXPECT_EQ(results[t], std::to_string(t));
}

}  // namespace
}  // namespace mnemo::text
