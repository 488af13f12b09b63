// The markdown backend's file format (storage/markdown/entry_file.h): exact
// bytes, round trips of awkward entries, human edits and malformed lines.
#include "storage/markdown/entry_file.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace mnemo::storage::markdown {
namespace {

Entry Make(std::string key, std::string content) {
  Entry e;
  e.id = "0b7c6f2e-4a5d-4c1e-9f00-000000000001";
  e.key = std::move(key);
  e.content = std::move(content);
  e.tags = {"tools"};
  e.owner = "alice";
  e.created_at = 1764460800000;  // 2025-11-30T00:00:00Z
  e.updated_at = 1764460801500;
  return e;
}

void ExpectSame(const Entry& got, const Entry& want) {
  EXPECT_EQ(got.id, want.id);
  EXPECT_EQ(got.key, want.key);
  EXPECT_EQ(got.content, want.content);
  EXPECT_EQ(got.ns, want.ns);
  EXPECT_EQ(got.tags, want.tags);
  EXPECT_EQ(got.owner, want.owner);
  EXPECT_EQ(got.visibility, want.visibility);
  EXPECT_EQ(got.created_at, want.created_at);
  EXPECT_EQ(got.updated_at, want.updated_at);
  EXPECT_EQ(got.category, want.category);
  EXPECT_EQ(got.archived, want.archived);
}

ParsedFile Parse(const std::string& text) {
  return ParseEntryFile(text, "core.md", "core", false, "local");
}

TEST(MarkdownEntryFile, ExactBytesOfASimpleAndAMultiLineItem) {
  Entry multi = Make("deploy*notes", "first line\nsecond  \n\nlast");
  multi.ns = "ops";
  multi.visibility = Visibility::kPublic;
  EXPECT_EQ(
      RenderEntryFile("core", {Make("user_editor", "The user prefers Helix"), multi}),
      "# core\n\n"
      "- **user_editor**: The user prefers Helix <!-- mnemo: "
      R"({"created_at":"2025-11-30T00:00:00.000Z","id":"0b7c6f2e-4a5d-4c1e-9f00-000000000001",)"
      R"("namespace":"global","owner":"alice","tags":["tools"],)"
      R"("updated_at":"2025-11-30T00:00:01.500Z","visibility":"private"} -->)"
      "\n"
      "- **deploy\\*notes**: first line\n"
      "    second  <!-- -->\n"
      "    <!-- -->\n"
      "    last <!-- mnemo: "
      R"({"created_at":"2025-11-30T00:00:00.000Z","id":"0b7c6f2e-4a5d-4c1e-9f00-000000000001",)"
      R"("namespace":"ops","owner":"alice","tags":["tools"],)"
      R"("updated_at":"2025-11-30T00:00:01.500Z","visibility":"public"} -->)"
      "\n");
}

TEST(MarkdownEntryFile, AwkwardEntriesRoundTrip) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"k", ""},
      {"k", "\n"},
      {"k", "a\n"},
      {"k", "\na"},
      {"k", "a\n\n\nb"},
      {"a**:b", "x"},
      {"back\\slash\\", "y"},
      {"<html>", "<!-- -->"},
      {"k", "ends with pad<!-- -->\nnext"},
      {"k", "a <!-- mnemo: {} -->"},
      {"k", "trailing   \n\ttabbed\t\nlast  "},
      {"k", "  leading spaces\n      deeper"},
      {"k", "- **fake**: item\n- plain bullet"},
      {"k", "crlf\r\nline\r\n"},
      {"中文键", "第一行\n第二行 -->"},
      {"k", "x -->"},
  };
  for (const auto& [key, content] : cases) {
    SCOPED_TRACE(key + " / " + content);
    Entry e = Make(key, content);
    e.tags = {"a>b", "<!--", "-->"};
    const ParsedFile parsed = Parse(RenderEntryFile("core", {e, Make("after", "z")}));
    EXPECT_TRUE(parsed.problems.empty()) << parsed.problems[0];
    ASSERT_EQ(parsed.entries.size(), 2u);
    EXPECT_TRUE(parsed.entries[0].has_meta);
    ExpectSame(parsed.entries[0].entry, e);
    ExpectSame(parsed.entries[1].entry, Make("after", "z"));
  }
}

TEST(MarkdownEntryFile, AHumanEditedFileLoadsWithDefaultsAndReportsBadLines) {
  const std::string text =
      "# My notes\n"
      "\n"
      "Some prose a person wrote.\n"
      "- **coffee**: The user drinks flat whites\n"
      "- a plain bullet\n"
      "- **tea**: green\n"
      "    and oolong\n"
      "- **broken**: x <!-- mnemo: {not json} -->\n"
      "\n"
      "    stray indented line\n"
      "- **meta**: y <!-- mnemo: {\"visibility\":\"secret\"} -->\n";
  const ParsedFile parsed = ParseEntryFile(text, "notes.md", "notes", true, "bob");
  ASSERT_EQ(parsed.entries.size(), 2u);
  EXPECT_EQ(parsed.entries[0].entry.key, "coffee");
  EXPECT_EQ(parsed.entries[0].entry.content, "The user drinks flat whites");
  EXPECT_FALSE(parsed.entries[0].has_meta);
  EXPECT_EQ(parsed.entries[0].entry.owner, "bob");
  EXPECT_EQ(parsed.entries[0].entry.ns, "global");
  EXPECT_EQ(parsed.entries[0].entry.category, "notes");
  EXPECT_TRUE(parsed.entries[0].entry.archived);
  EXPECT_EQ(parsed.entries[0].line, 4);
  EXPECT_EQ(parsed.entries[1].entry.content, "green\nand oolong");
  ASSERT_EQ(parsed.problems.size(), 4u);
  EXPECT_EQ(parsed.problems[0],
            "notes.md:5: expected an item \"- **key**: content\"; the line was skipped");
  EXPECT_EQ(parsed.problems[1],
            "notes.md:8: the item's <!-- mnemo: ... --> metadata is not valid; the line was "
            "skipped");
  EXPECT_EQ(parsed.problems[2],
            "notes.md:10: an indented line outside an item; the line was skipped");
  EXPECT_EQ(parsed.problems[3].rfind("notes.md:11: the item's", 0), 0u) << parsed.problems[3];
}

TEST(MarkdownEntryFile, FilesByCategoryDateAndArchive) {
  Entry e = Make("k", "v");
  EXPECT_EQ(EntryFilePath(e), "core.md");
  e.category = "daily";
  EXPECT_EQ(EntryFilePath(e), "daily/2025-11-30.md");
  e.category = "conversation";
  e.archived = true;
  EXPECT_EQ(EntryFilePath(e), "archive/conversation/2025-11-30.md");
  e.category = "recipes";
  EXPECT_EQ(EntryFilePath(e), "archive/recipes.md");
}

}  // namespace
}  // namespace mnemo::storage::markdown
