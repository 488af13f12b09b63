// The parsers of other tools' formats (core/formats/foreign_formats.h), without an
// engine.
#include "core/formats/foreign_formats.h"

#include <gtest/gtest.h>

namespace mnemo::internal {
namespace {

constexpr int64_t kMaxLine = 1 << 20;

ForeignFile File(std::string text, std::string relative = "note.md") {
  return {.name = relative, .relative = relative, .text = std::move(text)};
}

TEST(ForeignFormats, UnknownFormatNamesTheFive) {
  Result<ForeignFormat> f = ParseForeignFormat("obsidian");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(f.status().message(),
            "unknown import format \"obsidian\": use mcp-memory, mem0, basic-memory, markdown or "
            "jsonl");
  ASSERT_TRUE(ParseForeignFormat("basic-memory").ok());
  EXPECT_EQ(ForeignFormatName(*ParseForeignFormat("basic-memory")), "basic-memory");
}

TEST(ForeignFormats, ListElementLinesOfAnArrayOrAMember) {
  EXPECT_EQ(JsonListElementLines("[\n {\"a\": \"]\"},\n\n {\"b\": [1,\n 2]}, 3\n]", ""),
            (std::vector<int64_t>{2, 4, 5}));
  EXPECT_EQ(
      JsonListElementLines(
          "{\"total\": [9],\n \"results\": [\n  {\"id\": 1},\n  {\"id\": 2}\n ]\n}", "results"),
      (std::vector<int64_t>{3, 4}));
  EXPECT_TRUE(JsonListElementLines("{\"results\": 3}", "results").empty());
  EXPECT_TRUE(JsonListElementLines("{\"a\": [1]}", "").empty());
}

TEST(ForeignFormats, McpMemoryEntityBecomesAnEntryAndItsTypeATriple) {
  ForeignRecords r = ParseMcpMemory(
      File("{\"type\":\"entity\",\"name\":\"Ada\",\"entityType\":\"person\","
           "\"observations\":[\"Writes programs\",\"Likes tea\"]}\n"
           "\n"
           "{\"type\":\"relation\",\"from\":\"Ada\",\"to\":\"Babbage\",\"relationType\":"
           "\"works with\"}\n"
           "{\"type\":\"entity\",\"name\":\"X\",\"observations\":[1]}\n",
           "memory.jsonl"),
      kMaxLine);
  ASSERT_EQ(r.entries.size(), 1u);
  EXPECT_EQ(r.entries[0].key, "Ada");
  EXPECT_EQ(r.entries[0].content, "Ada (person)\n- Writes programs\n- Likes tea");
  EXPECT_EQ(r.entries[0].tags, std::vector<std::string>{"person"});
  ASSERT_EQ(r.triples.size(), 2u);
  EXPECT_EQ(r.triples[0].predicate, "is_a");
  EXPECT_EQ(r.triples[1].line, 3);
  EXPECT_EQ(r.triples[1].predicate, "works with");
  ASSERT_EQ(r.skipped.size(), 1u);
  EXPECT_EQ(r.skipped[0].line, 4);
  EXPECT_EQ(r.skipped[0].reason, "\"observations\" must be an array of strings");
}

TEST(ForeignFormats, Mem0ReadsAListAndOneMemoryPerLine) {
  ForeignRecords list =
      ParseMem0(File("[\n {\"id\": \"m1\", \"memory\": \"Likes jazz\", \"user_id\": \"alex\",\n"
                     "  \"agent_id\": \"dj\", \"categories\": [\"music\"],\n"
                     "  \"created_at\": \"2024-07-26T10:29:36.630547-07:00\"},\n"
                     " {\"id\": \"m2\"}\n]",
                     "export.json"),
                kMaxLine);
  ASSERT_EQ(list.entries.size(), 1u);
  EXPECT_EQ(list.entries[0].key, "m1");
  EXPECT_EQ(list.entries[0].owner, "alex");
  EXPECT_EQ(list.entries[0].tags, (std::vector<std::string>{"music", "agent:dj"}));
  EXPECT_EQ(list.entries[0].created_at, 1722014976630);  // 17:29:36.630 UTC
  EXPECT_EQ(list.entries[0].updated_at, list.entries[0].created_at);
  ASSERT_EQ(list.skipped.size(), 1u);
  EXPECT_EQ(list.skipped[0].line, 5);

  ForeignRecords lines = ParseMem0(File("{\"memory\": \"Likes tea\"}\n{\"memory\": \"Likes jazz\", "
                                        "\"id\": 7}\nnot json\n",
                                        "export.jsonl"),
                                   kMaxLine);
  ASSERT_EQ(lines.entries.size(), 2u);
  EXPECT_TRUE(lines.entries[0].key.starts_with("mem0-"));
  EXPECT_EQ(lines.entries[1].key, "7");
  ASSERT_EQ(lines.skipped.size(), 1u);
  EXPECT_EQ(lines.skipped[0].line, 3);
}

TEST(ForeignFormats, JsonlTakesValueForContentAndKeepsTheLinesNamespace) {
  ForeignRecords r = ParseJsonlEntries(
      File("{\"key\": \"a\", \"value\": \"first\"}\n"
           "{\"key\": \"b\", \"content\": \"second\", \"namespace\": \"work\", \"tags\": [\"x\"]}\n"
           "{\"content\": \"no key\"}\n",
           "e.jsonl"),
      kMaxLine);
  ASSERT_EQ(r.entries.size(), 2u);
  EXPECT_EQ(r.entries[0].content, "first");
  EXPECT_EQ(r.entries[0].ns, "");  // the import's namespace
  EXPECT_EQ(r.entries[1].ns, "work");
  EXPECT_EQ(r.entries[1].tags, std::vector<std::string>{"x"});
  ASSERT_EQ(r.skipped.size(), 1u);
  EXPECT_EQ(r.skipped[0].line, 3);
  EXPECT_EQ(r.skipped[0].reason, "\"key\" must be a string (required)");
}

TEST(ForeignFormats, FrontMatterListsFlowListsAndAnUnclosedOne) {
  Result<FrontMatter> fm = ParseFrontMatter(
      "---\ntitle: \"A: B\"\ntags:\n  - one\n  - 'two'\nother: [x, \"y\"]\n---\n"
      "body\n");
  ASSERT_TRUE(fm.ok());
  EXPECT_TRUE(fm->present);
  EXPECT_EQ(fm->Get("title"), "A: B");
  EXPECT_EQ(fm->GetAll("tags"), (std::vector<std::string>{"one", "two"}));
  EXPECT_EQ(fm->GetAll("other"), (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(fm->body_line, 8);
  Result<FrontMatter> none = ParseFrontMatter("# Title\n");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->present);
  EXPECT_EQ(ParseFrontMatter("---\ntitle: x\n").status().code(), StatusCode::kInvalidArgument);
}

TEST(ForeignFormats, AMalformedFrontMatterNamesItsFirstBadLine) {
  Result<FrontMatter> prose = ParseFrontMatter("---\ntitle: x\njust some words\n---\nbody\n");
  ASSERT_EQ(prose.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(prose.status().message(),
            "the front matter is malformed: its line 3 is not \"key: value\", \"key:\", "
            "\"- item\" or an indented continuation");
  Result<FrontMatter> quote = ParseFrontMatter("---\ntags: [a, b\nbroken: \"no body\n---\n");
  ASSERT_EQ(quote.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(quote.status().message(),
            "the front matter is malformed: its line 2 opens a [ list that is never closed");
  // Quotes, lists and continuations that close are fine.
  EXPECT_TRUE(ParseFrontMatter("---\na: 'x'\nb: {c: d}\nd: |\n  text\n---\n").ok());
}

TEST(ForeignFormats, ANoteWhoseFrontMatterIsMalformedIsSkippedNotImported) {
  // Opened with a key, never closed: it meant a front matter.
  ForeignRecords open = ParseMarkdownNote(File("---\nbroken: \"no body\"\n", "broken.md"));
  EXPECT_TRUE(open.entries.empty());
  ASSERT_EQ(open.skipped.size(), 1u);
  EXPECT_EQ(open.skipped[0].line, 1);
  EXPECT_EQ(open.skipped[0].reason,
            "the front matter opened on line 1 is never closed (a line \"---\" ends it)");
  ForeignRecords quote = ParseMarkdownNote(File("---\ntitle: \"Plan\n---\n\nShip it.\n"));
  EXPECT_TRUE(quote.entries.empty());
  ASSERT_EQ(quote.skipped.size(), 1u);
  EXPECT_EQ(quote.skipped[0].reason,
            "the front matter is malformed: its line 2 opens a quote that is never closed");
  ForeignRecords note = ParseBasicMemoryNote(File("---\ntitle: Tea\noops\n---\n- [a] b #c\n"));
  EXPECT_TRUE(note.entries.empty());
  EXPECT_TRUE(note.documents.empty());
  ASSERT_EQ(note.skipped.size(), 1u);
  EXPECT_NE(note.skipped[0].reason.find("its line 3 is not"), std::string::npos);
}

TEST(ForeignFormats, EntityNamesFoldUnderscoresAndSpaces) {
  EXPECT_EQ(ForeignEntityName("Maria_Lopez"), "Maria Lopez");
  EXPECT_EQ(ForeignEntityName(" Maria__Lopez\n"), "Maria Lopez");
  EXPECT_EQ(ForeignEntityName("Maria Lopez"), "Maria Lopez");
}

TEST(ForeignFormats, BasicMemoryObservationsRelationsAndLinks) {
  ForeignRecords r =
      ParseBasicMemoryNote(File("---\ntitle: Tea\npermalink: drinks/tea\ntags: [drinks]\n---\n"
                                "# Tea\n"
                                "- [fact] Green tea brews at 80°C #temperature (not boiling)\n"
                                "- [ ] buy more tea\n"
                                "- [00:01:02] a transcript line\n"
                                "- plain item with [[Kettle]]\n"
                                "- pairs_with [[Biscuits]]\n"
                                "- \"grown in\" [[Japan]] (mostly)\n"
                                "- mentions [[A]] and [[B]] in prose\n"
                                "```\n- [code] not an observation\n```\n"
                                "> - [quote] not one either\n",
                                "drinks/tea.md"));
  ASSERT_EQ(r.documents.size(), 1u);
  EXPECT_EQ(r.documents[0].source, "basic-memory:drinks/tea");
  ASSERT_EQ(r.entries.size(), 1u);
  EXPECT_EQ(r.entries[0].line, 7);
  EXPECT_EQ(r.entries[0].content, "Tea: Green tea brews at 80°C #temperature (not boiling)");
  EXPECT_TRUE(r.entries[0].key.starts_with("drinks/tea#"));
  EXPECT_EQ(r.entries[0].tags, (std::vector<std::string>{"fact", "temperature", "drinks"}));
  std::vector<std::string> facts;
  for (const ForeignTriple& t : r.triples) {
    facts.push_back(t.subject + " " + t.predicate + " " + t.object);
  }
  EXPECT_EQ(facts,
            (std::vector<std::string>{"Tea links_to Kettle", "Tea pairs_with Biscuits",
                                      "Tea grown in Japan", "Tea links_to A", "Tea links_to B"}));
}

// Found by the foreign_formats fuzz target: a note with a byte that is not
// UTF-8 in its front matter threw from the JSON of its document's meta.
TEST(ForeignFormats, ANoteThatIsNotUtf8IsSkippedByTheLineOfItsFirstBadByte) {
  const std::string bad = "---\ntitle: Beans\ntype: topic\xf6\x8f\nperma\n---\n\nText.\n";
  for (bool basic : {true, false}) {
    ForeignFile file{.name = "n.md", .relative = "n.md", .text = bad};
    ForeignRecords r = basic ? ParseBasicMemoryNote(file) : ParseMarkdownNote(file);
    EXPECT_TRUE(r.entries.empty());
    EXPECT_TRUE(r.documents.empty());
    ASSERT_EQ(r.skipped.size(), 1U);
    EXPECT_EQ(r.skipped[0].line, 3);
    EXPECT_EQ(r.skipped[0].reason, "the note is not valid UTF-8 text");
  }
}

TEST(ForeignFormats, MarkdownNoteIsOneEntryKeyedByItsPath) {
  ForeignRecords r =
      ParseMarkdownNote(File("---\ntags: [a]\n---\n\n# Plan\n\nShip it.\n", "projects/plan.md"));
  ASSERT_EQ(r.entries.size(), 1u);
  EXPECT_EQ(r.entries[0].key, "projects/plan");
  EXPECT_EQ(r.entries[0].content, "# Plan\n\nShip it.");
  EXPECT_EQ(r.entries[0].tags, std::vector<std::string>{"a"});
  EXPECT_EQ(ParseMarkdownNote(File("\n  \n", "e.md")).skipped.size(), 1u);
  // A rule on the first line that never closes is part of the note.
  ForeignRecords rule = ParseMarkdownNote(File("---\nNot front matter.\n", "r.md"));
  ASSERT_EQ(rule.entries.size(), 1u);
  EXPECT_EQ(rule.entries[0].content, "---\nNot front matter.");
}

}  // namespace
}  // namespace mnemo::internal
