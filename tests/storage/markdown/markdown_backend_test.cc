// The markdown backend (storage/markdown/markdown_backend.h) beyond the
// conformance suite: the files are the truth. Hand edits are picked up,
// malformed lines reported and kept, the index rebuilds from the files, and
// writers in several processes lose nothing.
#include "storage/markdown/markdown_backend.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "storage/markdown/entry_file.h"
#include "storage/markdown/entry_folder.h"
#include "storage/stores.h"
#include "storage/test_values.h"
#include "test_util.h"
#include "text/pipeline/query.h"

namespace mnemo::storage::markdown {
namespace {

namespace fs = std::filesystem;
using ::mnemo::testing::TempDir;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr TimeMs kNov30 = 1'795'996'800'000;  // 2026-11-30T00:00:00Z

EntryWrite Write(std::string key, std::string content, TimeMs now = kNov30,
                 std::string category = "core") {
  return EntryWrite{.key = std::move(key),
                    .content = std::move(content),
                    .category = std::move(category),
                    .now = now};
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream out;
  out << in.rdbuf();
  return out.str();
}

// Writes `text` as a person's editor would (in place, a new size).
void HandWrite(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::trunc) << text;
}

void Replace(std::string& text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos) << from << " not in:\n" << text;
  text.replace(at, from.size(), to);
}

class MarkdownBackendTest : public ::testing::Test {
 protected:
  void SetUp() override { Open(); }

  void Open() {
    stores_ = {};
    auto b = OpenMarkdownStores({.root = root_});
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    stores_ = std::move(*b);
  }

  Entry Put(const EntryWrite& w) {
    auto r = stores_.entries->Upsert(w);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r->entry : Entry{};
  }

  std::optional<Entry> Find(const std::string& key, const std::string& ns = "global") {
    auto r = stores_.entries->FindExact("local", TestNamespace(ns), TestKey(key));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : std::nullopt;
  }

  std::string File(const std::string& relative) const { return root_ + "/" + relative; }

  TempDir dir_;
  std::string root_ = dir_.Sub("memory");
  Stores stores_;
};

TEST_F(MarkdownBackendTest, EntriesAreReadableItemsInTheFilesOfTheirCategory) {
  EntryWrite tagged = Write("user_editor", "The user prefers Helix");
  tagged.tags = std::vector<std::string>{"tools"};
  Entry editor = Put(tagged);
  Put(Write("standup", "Standup moved to 10:00", kNov30 + 3'600'000, "daily"));
  Put(Write("pasta", "Salt the water", kNov30, "recipes"));
  const std::string core = ReadText(File("core.md"));
  EXPECT_THAT(core, HasSubstr("# core\n"));
  EXPECT_THAT(core, HasSubstr("- **user_editor**: The user prefers Helix <!-- mnemo: {"));
  EXPECT_THAT(core, HasSubstr("\"id\":\"" + editor.id + "\""));
  EXPECT_THAT(core, HasSubstr("\"tags\":[\"tools\"]"));
  EXPECT_THAT(ReadText(File("daily/2026-11-30.md")), HasSubstr("- **standup**: Standup moved"));
  EXPECT_THAT(ReadText(File("recipes.md")), HasSubstr("- **pasta**: Salt the water"));
  EXPECT_EQ(stores_.name, "markdown");
}

// Tool rules, tool statistics and the tool registry are the engine's, not
// the person's (issue 18 section 4): they live under system/, and the
// person's core.md and a category of their own named "critical" stay theirs.
TEST_F(MarkdownBackendTest, SystemNamespacesStayOutOfThePersonsFiles) {
  Put(Write("user_editor", "The user prefers Helix"));
  Put(Write("oncall", "Page the on-call for outages", kNov30, "critical"));
  EntryWrite rule = Write("rule_1", "Never email Sarah", kNov30, "critical");
  rule.ns = "tool-send_email";
  Put(rule);
  EntryWrite stats = Write("send_email", "{\"calls\":3}", kNov30, "core");
  stats.ns = "tool_effectiveness";
  Put(stats);
  EXPECT_THAT(ReadText(File("core.md")), Not(HasSubstr("calls")));
  EXPECT_THAT(ReadText(File("critical.md")), Not(HasSubstr("Sarah")));
  EXPECT_THAT(ReadText(File("critical.md")), HasSubstr("Page the on-call"));
  EXPECT_THAT(ReadText(File("system/critical.md")), HasSubstr("- **rule_1**: Never email Sarah"));
  EXPECT_THAT(ReadText(File("system/core.md")), HasSubstr("- **send_email**: {\"calls\":3}"));
  // Read back from the files alone.
  Open();
  ASSERT_TRUE(Find("rule_1", "tool-send_email"));
  EXPECT_EQ(Find("rule_1", "tool-send_email")->content, "Never email Sarah");
  EXPECT_EQ(Find("rule_1", "tool-send_email")->category, "critical");
}

// A workspace written before system/ existed: its system entries are moved
// out of the person's files at open, nothing lost, the person's text kept.
TEST_F(MarkdownBackendTest, SystemEntriesInThePersonsFilesMoveToSystemAtOpen) {
  stores_ = {};
  HandWrite(
      File("core.md"),
      "# core\n\nMy own notes.\n\n"
      "- **user_editor**: The user prefers Helix\n"
      "- **send_email**: {\"calls\":3} <!-- mnemo: {\"namespace\":\"tool_effectiveness\"} -->\n");
  Open();
  ASSERT_TRUE(Find("send_email", "tool_effectiveness"));
  EXPECT_EQ(Find("send_email", "tool_effectiveness")->content, "{\"calls\":3}");
  const std::string core = ReadText(File("core.md"));
  EXPECT_THAT(core, Not(HasSubstr("calls")));
  EXPECT_THAT(core, HasSubstr("My own notes."));
  EXPECT_THAT(core, HasSubstr("- **user_editor**: The user prefers Helix"));
  EXPECT_THAT(ReadText(File("system/core.md")), HasSubstr("- **send_email**: {\"calls\":3}"));
  Open();  // and it stays there
  EXPECT_EQ(Find("send_email", "tool_effectiveness")->content, "{\"calls\":3}");
  EXPECT_THAT(ReadText(File("core.md")), Not(HasSubstr("calls")));
}

TEST_F(MarkdownBackendTest, HandEditsArePickedUpOnTheNextOperation) {
  Entry editor = Put(Write("editor", "uses vim"));
  Put(Write("stale", "forget me"));
  Put(Write("kept", "untouched"));
  std::string core = ReadText(File("core.md"));
  Replace(core, "uses vim", "uses helix");  // changed, metadata left alone
  const size_t stale = core.find("- **stale**");
  core.erase(stale, core.find('\n', stale) + 1 - stale);  // removed
  core += "- **added_by_hand**: a person wrote this\n";   // added, no metadata
  core += "- not an item\n";                              // malformed
  HandWrite(File("core.md"), core);
  HandWrite(File("projects.md"), "# projects\n\n- **mnemo**: the memory engine\n");  // a new file

  ::testing::internal::CaptureStderr();
  std::optional<Entry> changed = Find("editor");
  const std::string warnings = ::testing::internal::GetCapturedStderr();

  ASSERT_TRUE(changed.has_value());
  EXPECT_EQ(changed->content, "uses helix");
  EXPECT_EQ(changed->id, editor.id);
  EXPECT_EQ(changed->created_at, kNov30);
  EXPECT_GT(changed->updated_at, kNov30) << "a hand edit is an update";
  EXPECT_FALSE(Find("stale").has_value());
  std::optional<Entry> added = Find("added_by_hand");
  ASSERT_TRUE(added.has_value());
  EXPECT_EQ(added->content, "a person wrote this");
  EXPECT_EQ(added->category, "core");
  EXPECT_FALSE(added->id.empty());
  std::optional<Entry> project = Find("mnemo");
  ASSERT_TRUE(project.has_value());
  EXPECT_EQ(project->category, "projects");
  EXPECT_EQ(Find("kept")->content, "untouched");
  // Search sees the edit, not the old text.
  KeywordQuery q{.terms = text::QueryTerms("helix")};
  auto hits = stores_.entries->KeywordSearch(q);
  ASSERT_TRUE(hits.ok());
  ASSERT_EQ(hits->size(), 1u);
  EXPECT_EQ((*hits)[0].entry.key, "editor");

  // The malformed line: reported with file and line, skipped, and still in
  // the file for the person to fix.
  const int malformed_line = 6;  // title, blank, editor, kept, added_by_hand, this
  EXPECT_THAT(warnings, HasSubstr("mnemo: warning: " + File("core.md") + ":" +
                                  std::to_string(malformed_line) + ": expected an item"));
  EXPECT_THAT(warnings, HasSubstr("the line was skipped"));
  core = ReadText(File("core.md"));
  EXPECT_THAT(core, HasSubstr("- not an item\n"));
  // The added item got its metadata written back, so its id survives a
  // rebuild of the index.
  EXPECT_THAT(core, HasSubstr("\"id\":\"" + added->id + "\""));
  EXPECT_THAT(ReadText(File("projects.md")), HasSubstr("\"id\":\"" + project->id + "\""));
  // So did the edited one's new updated_at.
  stores_ = {};
  fs::remove_all(File(".index"));
  Open();
  EXPECT_EQ(Find("editor")->updated_at, changed->updated_at);
  EXPECT_EQ(Find("added_by_hand")->id, added->id);
  EXPECT_EQ(Find("added_by_hand")->created_at, added->created_at);
}

TEST_F(MarkdownBackendTest, UnchangedFilesAreNotParsedAgain) {
  Put(Write("a", "one"));
  HandWrite(File("notes.md"), "- broken item\n- **n**: fine\n");
  ::testing::internal::CaptureStderr();
  EXPECT_TRUE(Find("n").has_value());
  EXPECT_THAT(::testing::internal::GetCapturedStderr(), HasSubstr("notes.md:1:"));
  ::testing::internal::CaptureStderr();
  EXPECT_TRUE(Find("n").has_value());
  Put(Write("b", "two"));
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "") << "no file changed: nothing parsed";
}

TEST_F(MarkdownBackendTest, ForgetRewritesTheFileAndTheLastItemRemovesIt) {
  Entry a = Put(Write("a", "alpha"));
  Entry b = Put(Write("b", "beta"));
  auto deleted = stores_.entries->Delete(a.id);
  ASSERT_TRUE(deleted.ok() && *deleted);
  EXPECT_THAT(ReadText(File("core.md")), Not(HasSubstr("alpha")));
  EXPECT_THAT(ReadText(File("core.md")), HasSubstr("- **b**: beta"));
  ASSERT_TRUE(stores_.entries->Delete(b.id).ok());
  EXPECT_FALSE(fs::exists(File("core.md")));
  Open();
  EXPECT_FALSE(Find("a").has_value());
  EXPECT_FALSE(Find("b").has_value());
}

TEST_F(MarkdownBackendTest, ANewCategoryOrArchivingMovesTheItem) {
  Entry e = Put(Write("plan", "ship it"));
  Put(Write("plan", "ship it today", kNov30 + 1000, "daily"));
  EXPECT_FALSE(fs::exists(File("core.md")));
  EXPECT_THAT(ReadText(File("daily/2026-11-30.md")), HasSubstr("- **plan**: ship it today"));
  auto counts = stores_.entries->ApplyHygiene(std::vector<std::string>{e.id},
                                              [](const Entry&) { return HygieneAction::kArchive; });
  ASSERT_TRUE(counts.ok() && counts->archived == 1);
  EXPECT_FALSE(fs::exists(File("daily/2026-11-30.md")));
  EXPECT_THAT(ReadText(File("archive/daily/2026-11-30.md")), HasSubstr("- **plan**:"));
  Open();
  std::optional<Entry> archived = Find("plan");
  ASSERT_TRUE(archived.has_value());
  EXPECT_TRUE(archived->archived);
  EXPECT_EQ(archived->id, e.id);
}

TEST_F(MarkdownBackendTest, NotesAndDuplicatesAPersonWroteSurviveWrites) {
  HandWrite(File("core.md"),
            "# My core memories\n\nSome notes of mine.\n\n- **k**: first\n- **k**: second\n");
  ::testing::internal::CaptureStderr();
  Put(Write("other", "written by mnemo"));
  EXPECT_THAT(::testing::internal::GetCapturedStderr(),
              HasSubstr("core.md:6: a second item for key \"k\""));
  EXPECT_EQ(Find("k")->content, "first");
  const std::string core = ReadText(File("core.md"));
  EXPECT_THAT(core, HasSubstr("# My core memories\n\nSome notes of mine.\n"));
  EXPECT_THAT(core, HasSubstr("- **k**: second\n")) << "a skipped line stays for the person";
  EXPECT_THAT(core, HasSubstr("- **other**: written by mnemo"));
}

TEST_F(MarkdownBackendTest, RejectsWhatNoFileCanHold) {
  auto r = stores_.entries->Upsert(Write("k", "v", kNov30, "Core!"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("[a-z0-9_-]{1,64}"));
  auto two_lines = stores_.entries->Upsert(Write("a\nb", "v"));
  ASSERT_FALSE(two_lines.ok());
  EXPECT_EQ(two_lines.status().code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(fs::exists(File("core.md")));
}

TEST_F(MarkdownBackendTest, DeletingTheIndexRebuildsTheSameEntries) {
  EntryWrite tagged = Write("multi", "line one\nline two  \n\n*stars* and <tags>");
  tagged.tags = std::vector<std::string>{"a", "b c"};
  tagged.visibility = Visibility::kPublic;
  tagged.owner = "alice";
  tagged.ns = "work";
  Put(tagged);
  Put(Write("weird\\key*<", "escaped"));
  Put(Write("chat", "hello", kNov30 + 5, "conversation"));
  Put(Write("rule/1", "Prefer rg", kNov30, "core"));
  EntryWrite rule = Write("rule/1", "Prefer rg over grep", kNov30 + 7);
  rule.ns = "tool-shell";
  Put(rule);
  std::vector<Entry> before;
  ASSERT_TRUE(stores_.entries
                  ->ForEach({}, "",
                            [&](const Entry& e) {
                              before.push_back(e);
                              return Status::Ok();
                            })
                  .ok());
  ASSERT_EQ(before.size(), 5u);

  stores_ = {};
  ASSERT_TRUE(fs::exists(File(".index/mnemo-index.db")));
  fs::remove_all(File(".index"));
  Open();
  std::vector<Entry> after;
  ASSERT_TRUE(stores_.entries
                  ->ForEach({}, "",
                            [&](const Entry& e) {
                              after.push_back(e);
                              return Status::Ok();
                            })
                  .ok());
  ASSERT_EQ(after.size(), before.size());
  for (size_t i = 0; i < before.size(); ++i) {
    SCOPED_TRACE(before[i].key);
    EXPECT_EQ(after[i].id, before[i].id);
    EXPECT_EQ(after[i].owner, before[i].owner);
    EXPECT_EQ(after[i].ns, before[i].ns);
    EXPECT_EQ(after[i].key, before[i].key);
    EXPECT_EQ(after[i].content, before[i].content);
    EXPECT_EQ(after[i].category, before[i].category);
    EXPECT_EQ(after[i].tags, before[i].tags);
    EXPECT_EQ(after[i].visibility, before[i].visibility);
    EXPECT_EQ(after[i].created_at, before[i].created_at);
    EXPECT_EQ(after[i].updated_at, before[i].updated_at);
  }
  KeywordQuery q{.terms = text::QueryTerms("stars"), .filter = {.ns = "work"}};
  auto hits = stores_.entries->KeywordSearch(q);
  ASSERT_TRUE(hits.ok());
  ASSERT_EQ(hits->size(), 1u);
  EXPECT_EQ((*hits)[0].entry.key, "multi");
}

// Vector index files outside the index catch up by change number; after a
// rebuild those numbers start again and the labels are new.
TEST_F(MarkdownBackendTest, AfterARebuildOldVectorPositionsAskForARebuild) {
  auto put = stores_.entries->Upsert(Write("k", "v"));
  ASSERT_TRUE(put.ok());
  ASSERT_TRUE(
      stores_.entries->PutVectors("sig", std::vector<LabeledVector>{{put->label, {1, 0}}}).ok());
  auto seen = stores_.entries->VectorWatermark("sig");
  ASSERT_TRUE(seen.ok() && *seen > 0);
  EXPECT_TRUE(stores_.entries->VectorChangesSince("sig", *seen, 10).ok());
  stores_ = {};
  fs::remove_all(File(".index"));
  Open();
  auto changes = stores_.entries->VectorChangesSince("sig", *seen, 10);
  ASSERT_FALSE(changes.ok());
  EXPECT_EQ(changes.status().code(), StatusCode::kNotFound);
}

TEST_F(MarkdownBackendTest, AFileWrittenWhileClosedIsTheTruthAtOpen) {
  Put(Write("a", "alpha"));
  Put(Write("b", "beta"));
  stores_ = {};
  std::string core = ReadText(File("core.md"));
  const size_t b = core.find("- **b**");
  core.erase(b, core.find('\n', b) + 1 - b);
  Replace(core, "alpha", "alpha, edited");
  HandWrite(File("core.md"), core);
  Open();
  EXPECT_EQ(Find("a")->content, "alpha, edited");
  EXPECT_FALSE(Find("b").has_value()) << "an index entry in no file is deleted at open";
}

// Two processes, each with its own backend, write different keys at once:
// with their own index each (only the files carry one's writes to the
// other) and with the one index of the folder (two `mnemo serve` of one
// workspace).
class MarkdownTwoProcesses : public MarkdownBackendTest,
                             public ::testing::WithParamInterface<bool> {};

TEST_P(MarkdownTwoProcesses, WritersLoseNothing) {
  const bool shared_index = GetParam();
  stores_ = {};
  constexpr int kEach = 40;
  std::vector<pid_t> children;
  for (int p = 0; p < 2; ++p) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      auto b = OpenMarkdownStores(
          {.root = root_,
           .index_path = shared_index ? "" : dir_.File("index-" + std::to_string(p) + ".db")});
      if (!b.ok()) ::_exit(2);
      for (int i = 0; i < kEach; ++i) {
        const std::string key = "p" + std::to_string(p) + "-" + std::to_string(i);
        // Half in core.md (both write it), half in a file of their own.
        const std::string category = i % 2 == 0 ? "core" : "proc" + std::to_string(p);
        auto put =
            b->entries->Upsert(Write(key, "written by " + std::to_string(p), kNov30 + i, category));
        if (!put.ok()) {
          std::fprintf(stderr, "process %d: %s\n", p, put.status().ToString().c_str());
          ::_exit(3);
        }
      }
      ::_exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
  }
  // Every file parses clean and holds every key once.
  auto scan = ScanEntryFiles(root_);
  ASSERT_TRUE(scan.ok());
  std::set<std::string> keys;
  for (const auto& [relative, stamp] : *scan) {
    const FilePlace place = *PlaceOfFile(relative);
    ParsedFile parsed =
        ParseEntryFile(ReadText(File(relative)), relative, place.category, false, "local");
    EXPECT_TRUE(parsed.problems.empty()) << ::testing::PrintToString(parsed.problems);
    for (const FileEntry& fe : parsed.entries) {
      EXPECT_TRUE(fe.has_meta);
      EXPECT_TRUE(keys.insert(fe.entry.key).second) << "twice: " << fe.entry.key;
    }
  }
  EXPECT_EQ(keys.size(), 2u * kEach);
  // A third index, built from the files, has them all.
  Open();
  auto stats = stores_.entries->GetStats({});
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->entries, 2 * kEach);
}

INSTANTIATE_TEST_SUITE_P(Index, MarkdownTwoProcesses, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Shared" : "OwnEach"; });

}  // namespace
}  // namespace mnemo::storage::markdown
