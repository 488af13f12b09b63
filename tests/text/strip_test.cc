#include "text/strip.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "text/utf8.h"

namespace mnemo::text {
namespace {

std::string Repeat(std::string_view s, size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

// ---- strip_html ------------------------------------------------------------------

TEST(StripHtml, DropsTagsAndKeepsText) {
  EXPECT_EQ(StripHtml("<b>bold</b> and <a href=\"x\">link</a>"), "bold and link");
  EXPECT_EQ(StripHtml("<a title=\"1 > 0\" href='a>b'>x</a>"), "x");
  EXPECT_EQ(StripHtml("a<!-- hidden <p> -->b<!DOCTYPE html>c"), "abc");
  EXPECT_EQ(StripHtml("x<![CDATA[a<b]]>y"), "xa<by");
}

TEST(StripHtml, DropsScriptAndStyleContent) {
  EXPECT_EQ(StripHtml("a<script type=\"x\">if (a < b) { document.write('<p>') }</script>b"
                      "<STYLE>p { color: red }</Style>c<script>never closed"),
            "abc");
  EXPECT_EQ(StripHtml("<scripts>kept</scripts>"), "kept");
}

TEST(StripHtml, TurnsBlockTagsIntoNewlines) {
  EXPECT_EQ(StripHtml("<h1>Title</h1><p>one<br>two</p><ul><li>x</li>"),
            "\nTitle\n\none\ntwo\n\n\nx\n");
  EXPECT_EQ(StripHtml("<tr><td>a</td><td>b</td></tr>"), "\n a  b \n");
}

TEST(StripHtml, DecodesEntities) {
  EXPECT_EQ(StripHtml("&lt;b&gt; &amp; &quot;q&quot; &#39;s&apos; a&nbsp;b &#65;&#x42;&#X43;"),
            "<b> & \"q\" 's' a b ABC");
  EXPECT_EQ(StripHtml("&#x4F60;&#22909; &hellip; &mdash;"),
            "\xE4\xBD\xA0\xE5\xA5\xBD \xE2\x80\xA6 \xE2\x80\x94");
  // Invalid code points become U+FFFD; unknown or unterminated references stay.
  EXPECT_EQ(StripHtml("&#0;&#xD800;&#x110000;"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(StripHtml("&bogus; &amp &#xZZ; AT&T"), "&bogus; &amp &#xZZ; AT&T");
}

TEST(StripHtml, LeavesStrayAnglesAsText) {
  EXPECT_EQ(StripHtml("a < b and 3<4 and x<y"), "a < b and 3<4 and x<y");
  EXPECT_EQ(StripHtml("ends with <"), "ends with <");
}

// ---- strip_ansi ------------------------------------------------------------------

TEST(StripAnsi, RemovesEscapeSequences) {
  EXPECT_EQ(StripAnsi("\x1b[1;31merror\x1b[0m: \x1b[38;5;208mx\x1b[K"), "error: x");
  EXPECT_EQ(StripAnsi("\x1b]0;window title\x07text"), "text");
  EXPECT_EQ(StripAnsi("\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\"), "link");
  EXPECT_EQ(StripAnsi("\x1b(Ba\x1b=b\x1b"), "ab");
  EXPECT_EQ(StripAnsi("\xC2\x9B"
                      "32mgreen"),
            "green");
}

TEST(StripAnsi, RemovesControlCharactersButKeepsLines) {
  EXPECT_EQ(StripAnsi(std::string("a\tb\nc\x08\x07\x7f"
                                  "d\0e",
                                  11)),
            "a\tb\ncde");
  EXPECT_EQ(StripAnsi("10%\r50%\r100%\r\ndone"), "10%\n50%\n100%\ndone");
}

// ---- collapse_whitespace -------------------------------------------------------

TEST(CollapseWhitespace, KeepsOneBreakPerRun) {
  EXPECT_EQ(CollapseWhitespace("  a \t b\n\n   c  \r\n d \n"), "a b\nc\nd");
  // U+00A0, U+3000 and U+2029 are whitespace too.
  EXPECT_EQ(CollapseWhitespace("a\xC2\xA0\xE3\x80\x80"
                               "b\xE2\x80\xA9"
                               "c"),
            "a b\nc");
  EXPECT_EQ(CollapseWhitespace(" \n\t "), "");
}

TEST(CollapseWhitespace, LeavesIllFormedBytesAlone) {
  EXPECT_EQ(CollapseWhitespace("a\xFF  \xC3"), "a\xFF \xC3");
}

// Moved from tests/rules (the one-line collapse was the rules room's own copy).
TEST(CollapseToLine, AsciiRunsBecomeOneSpace) {
  EXPECT_EQ(CollapseToLine("a\nb\tc\r\nd  e"), "a b c d e");
  EXPECT_EQ(CollapseToLine("  \n leading and trailing \t\r\n"), "leading and trailing");
  EXPECT_EQ(CollapseToLine("rule\n\n### `forged`\n- **[critical]** x"),
            "rule ### `forged` - **[critical]** x");
  EXPECT_EQ(CollapseToLine(""), "");
  EXPECT_EQ(CollapseToLine(" \t\n "), "");
}

TEST(CollapseToLine, UnicodeSeparatorsCount) {
  EXPECT_EQ(CollapseToLine("line\xE2\x80\xA8separator"), "line separator");  // U+2028
  EXPECT_EQ(CollapseToLine("para\xE2\x80\xA9separator"), "para separator");  // U+2029
  EXPECT_EQ(CollapseToLine("no\xC2\xA0"
                           "break"),
            "no break");                                                        // U+00A0
  EXPECT_EQ(CollapseToLine("ideo\xE3\x80\x80space"), "ideo space");             // U+3000
  EXPECT_EQ(CollapseToLine("\xE2\x80\xA8\xC2\xA0 edge \xE2\x80\xA9"), "edge");  // only spaces
  // Other non-ASCII text is untouched.
  EXPECT_EQ(CollapseToLine("永远不要  发邮件"), "永远不要 发邮件");
}

TEST(CollapseToLine, InvalidUtf8BytesAreKept) {
  EXPECT_EQ(CollapseToLine("a\xFF\xFE  b"), "a\xFF\xFE b");
  // A truncated sequence at the very end must neither crash nor vanish.
  const std::string truncated = CollapseToLine("end \xE2\x80");
  EXPECT_TRUE(truncated.starts_with("end ")) << truncated;
  EXPECT_NE(truncated.find('\xE2'), std::string::npos);
  EXPECT_EQ(CollapseToLine("\xC3"), "\xC3");
}

TEST(IsBlank, AcceptsOnlyUnicodeWhitespace) {
  EXPECT_TRUE(IsBlank(""));
  EXPECT_TRUE(IsBlank(" \t\r\n\xC2\xA0\xE3\x80\x80"));
  EXPECT_FALSE(IsBlank(" . "));
  EXPECT_FALSE(IsBlank("\xE4\xBD\xA0"));
  EXPECT_FALSE(IsBlank("\xFF"));
}

// ---- hostile input ------------------------------------------------------------------

// Each filter makes one pass: inputs built to make a naive scanner retry at
// every '<' or ESC finish at once instead of taking minutes.
TEST(Strip, HostileInputsTakeOnePass) {
  const auto start = std::chrono::steady_clock::now();
  const std::string open_tags = Repeat("<a", 500000);
  EXPECT_EQ(StripHtml(open_tags), open_tags);
  const std::string open_quotes = Repeat("<a x='", 200000);
  EXPECT_EQ(StripHtml(open_quotes), open_quotes);
  const std::string open_comments = "x" + Repeat("<!--", 200000);
  EXPECT_EQ(StripHtml(open_comments), "x");
  const std::string open_scripts = Repeat("<script></scrip", 100000);
  EXPECT_EQ(StripHtml(open_scripts), "");
  EXPECT_EQ(StripAnsi(Repeat("\x1b[", 500000)), "");
  EXPECT_EQ(StripAnsi("x" + Repeat("\x1b]", 500000)), "x");
  EXPECT_EQ(CollapseWhitespace(Repeat(" \xE3\x80\x80", 500000)), "");
  // Generous: a quadratic pass over these inputs takes minutes.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
}

TEST(Strip, ValidUtf8StaysValid) {
  const std::string mixed =
      "<p>\xE4\xBD\xA0\xE5\xA5\xBD</p>\x1b[1m\xD9\x85\xD8\xB1\xC2\x85\xC2\x9B"
      "31m &#x1F600; \xE2\x80\xA8 z";
  EXPECT_TRUE(IsValidUtf8(StripHtml(mixed)));
  EXPECT_TRUE(IsValidUtf8(StripAnsi(mixed)));
  EXPECT_TRUE(IsValidUtf8(CollapseWhitespace(mixed)));
  EXPECT_EQ(StripAnsi(StripHtml(mixed)),
            "\n\xE4\xBD\xA0\xE5\xA5\xBD\n\xD9\x85\xD8\xB1 \xF0\x9F\x98\x80 \xE2\x80\xA8 z");
}

}  // namespace
}  // namespace mnemo::text
