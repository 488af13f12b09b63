#include "archivist/archive/markdown_archive.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "archivist/archive/archive_erase.h"
#include "test_util.h"
#include "text/utf8.h"

namespace mnemo::archivist {
namespace {

namespace fs = std::filesystem;
using ::mnemo::testing::TempDir;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::set<std::string> Entries(const std::string& dir) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    names.insert(entry.path().filename().string());
  }
  return names;
}

mode_t ModeOf(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & 0777;
}

ArchiveRow UserRow(int64_t seq = 12, std::string content = "Hello, world") {
  ArchiveRow row;
  row.session_id = "sess-1";
  row.seq = seq;
  row.timestamp_ms = 1700000000000;
  row.role = "user";
  row.content = std::move(content);
  return row;
}

// Names of the form "NNNNNN.md" for seqs first..first+count-1.
std::set<std::string> SeqNames(int first, int count) {
  std::set<std::string> names;
  for (int seq = first; seq < first + count; ++seq) {
    std::string digits = std::to_string(seq);
    names.insert(std::string(6 - std::min<size_t>(6, digits.size()), '0') + digits + ".md");
  }
  return names;
}

// --- file format ----------------------------------------------------------------

TEST(MarkdownArchiveFormat, UserRowExactBytes) {
  EXPECT_EQ(RenderArchiveFile(UserRow()),
            "---\n"
            "session_id: \"sess-1\"\n"
            "seq: 12\n"
            "timestamp_ms: 1700000000000\n"
            "role: \"user\"\n"
            "cost_microdollars: 0\n"
            "---\n"
            "\n"
            "Hello, world\n");
}

TEST(MarkdownArchiveFormat, AssistantRowWithLessonAndToolCallsExactBytes) {
  ArchiveRow row;
  row.session_id = "sess-1";
  row.seq = 13;
  row.timestamp_ms = 1700000000123;
  row.role = "assistant";
  row.cost_microdollars = 4250;
  row.lesson = "Tools that failed in this turn: grep, 搜索\n\"quoted\"\ttab";
  row.tool_calls_json = R"([{"name":"grep","arguments":{"pattern":"a\"b\n"},"note":"中文"}])";
  row.content = "第一行\n\"第二行\"\n";
  EXPECT_EQ(RenderArchiveFile(row),
            "---\n"
            "session_id: \"sess-1\"\n"
            "seq: 13\n"
            "timestamp_ms: 1700000000123\n"
            "role: \"assistant\"\n"
            "cost_microdollars: 4250\n"
            R"(lesson: "Tools that failed in this turn: grep, 搜索\n\"quoted\"\ttab")"
            "\n"
            R"(tool_calls_json: "[{\"name\":\"grep\",\"arguments\":{\"pattern\":\"a\\\"b\\n\"},)"
            R"(\"note\":\"中文\"}]")"
            "\n"
            "---\n"
            "\n"
            "第一行\n\"第二行\"\n");
}

TEST(MarkdownArchiveFormat, OmitsOnlyTheEmptyOptionalFields) {
  ArchiveRow row = UserRow();
  row.tool_calls_json = "[]";
  const std::string text = RenderArchiveFile(row);
  EXPECT_EQ(text.find("lesson:"), std::string::npos);
  EXPECT_NE(text.find("\ncost_microdollars: 0\ntool_calls_json: \"[]\"\n---\n\n"),
            std::string::npos)
      << text;
  row.tool_calls_json.clear();
  row.lesson = "L";
  EXPECT_NE(RenderArchiveFile(row).find("\nlesson: \"L\"\n---\n"), std::string::npos);
}

TEST(MarkdownArchiveFormat, EscapesControlCharactersAndReplacesInvalidUtf8) {
  ArchiveRow row = UserRow();
  row.session_id = std::string("s\x01\x1f\x7f\xc2\x85\b\f\r/", 10) + std::string(1, '\0');
  row.role = "bad \xff\xfe end";
  row.lesson = "\\ back";
  row.content = "x\xc3";
  const std::string text = RenderArchiveFile(row);
  EXPECT_TRUE(text::IsValidUtf8(text));
  EXPECT_NE(text.find(R"(session_id: "s\u0001\u001f\u007f\u0085\b\f\r/\u0000")"
                      "\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("role: \"bad \xEF\xBF\xBD\xEF\xBF\xBD end\"\n"), std::string::npos) << text;
  EXPECT_NE(text.find(R"(lesson: "\\ back")"), std::string::npos) << text;
  EXPECT_TRUE(text.ends_with("---\n\nx\xEF\xBF\xBD\n")) << text;
}

TEST(MarkdownArchiveFormat, ContentEndsWithExactlyOneAddedNewlineAtMost) {
  const std::string head = RenderArchiveFile(UserRow(12, ""));
  EXPECT_TRUE(head.ends_with("cost_microdollars: 0\n---\n\n")) << head;
  EXPECT_EQ(RenderArchiveFile(UserRow(12, "a")), head + "a\n");
  EXPECT_EQ(RenderArchiveFile(UserRow(12, "a\n")), head + "a\n");
  EXPECT_EQ(RenderArchiveFile(UserRow(12, "a\n\n")), head + "a\n\n");
  EXPECT_EQ(RenderArchiveFile(UserRow(12, "\n")), head + "\n");
  EXPECT_EQ(RenderArchiveFile(UserRow(12, "a\r\n")), head + "a\r\n");
}

TEST(MarkdownArchiveFormat, NumbersAreDecimalIncludingNegatives) {
  ArchiveRow row = UserRow(1234567);
  row.timestamp_ms = -5;
  row.cost_microdollars = 9223372036854775807;
  const std::string text = RenderArchiveFile(row);
  EXPECT_NE(text.find("\nseq: 1234567\ntimestamp_ms: -5\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\ncost_microdollars: 9223372036854775807\n"), std::string::npos) << text;
}

// --- session folder names -----------------------------------------------------------

// --- reading a file back --------------------------------------------------------

void ExpectSameRow(const ArchiveRow& got, const ArchiveRow& want) {
  EXPECT_EQ(got.session_id, want.session_id);
  EXPECT_EQ(got.seq, want.seq);
  EXPECT_EQ(got.timestamp_ms, want.timestamp_ms);
  EXPECT_EQ(got.role, want.role);
  EXPECT_EQ(got.cost_microdollars, want.cost_microdollars);
  EXPECT_EQ(got.lesson, want.lesson);
  EXPECT_EQ(got.tool_calls_json, want.tool_calls_json);
  EXPECT_EQ(got.content, want.content);
}

TEST(MarkdownArchiveParse, ReadsBackEveryFieldIncludingEscapes) {
  ArchiveRow row = UserRow(13, "第一行\n\"第二行\"\n\nend");
  row.role = "assistant";
  row.cost_microdollars = -7;
  row.session_id = std::string("s\x01\x1f\x7f\xc2\x85\b\f\r/\\\"", 13);
  row.lesson = "失败的工具\n\"q\"\t";
  row.tool_calls_json = R"([{"name":"grep","arguments":{"pattern":"a\"b\n"}}])";
  auto parsed = ParseArchiveFile(RenderArchiveFile(row));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  ExpectSameRow(*parsed, row);

  row.lesson.clear();
  row.tool_calls_json.clear();
  row.content.clear();
  parsed = ParseArchiveFile(RenderArchiveFile(row));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  ExpectSameRow(*parsed, row);
}

TEST(MarkdownArchiveParse, OnlyANewlineTheWriterMayHaveAddedIsDropped) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"x", "x"}, {"x\n", "x"}, {"x\n\n", "x\n\n"}, {"\n", "\n"}, {"", ""}, {"a\nb", "a\nb"}};
  for (const auto& [written, read] : cases) {
    const std::string text = RenderArchiveFile(UserRow(1, written));
    auto parsed = ParseArchiveFile(text);
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    EXPECT_EQ(parsed->content, read) << "written: " << written;
    EXPECT_EQ(RenderArchiveFile(*parsed), text);
  }
}

TEST(MarkdownArchiveParse, FieldsMayComeInAnyOrder) {
  auto parsed = ParseArchiveFile(
      "---\nrole: \"user\"\nseq: 3\ncost_microdollars: 0\ntimestamp_ms: 5\n"
      "session_id: \"s\"\n---\n\nhi\n");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->seq, 3);
  EXPECT_EQ(parsed->timestamp_ms, 5);
  EXPECT_EQ(parsed->session_id, "s");
  EXPECT_EQ(parsed->content, "hi");
}

TEST(MarkdownArchiveParse, RejectsMalformedFilesNamingTheLine) {
  const std::string good = RenderArchiveFile(UserRow());
  struct Case {
    std::string text;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"", "line 1: expected \"---\""},
      {good.substr(0, good.find("---\n\n")), "does not end with \"---\""},  // torn
      {"---\nseq: 1\n---\n\n", "\"session_id\" is missing"},
      {"---\nsession_id: s\n", "line 2: session_id must be a JSON string literal"},
      {"---\nsession_id: \"s\"\nseq: 01\n", "line 3: seq must be a decimal integer"},
      {"---\nsession_id: \"s\"\nseq: 1x\n", "seq must be a decimal integer"},
      {"---\nseq: 99999999999999999999\n", "seq must be a decimal integer"},
      {"---\nsession_id: \"s\"\nsession_id: \"t\"\n", "line 3: field \"session_id\" repeated"},
      {"---\nowner: \"x\"\n", "unknown field \"owner\""},
      {"---\nsession_id \"s\"\n", "expected \"name: value\""},
      {"---\nsession_id: \"\\ud800\"\n", "JSON string literal"},
      {"---\nsession_id: \"a\" \"b\"\n", "JSON string literal"},
      {std::string("---\nsession_id: \"\xff\"\n"), "not valid UTF-8"},
  };
  for (const Case& c : cases) {
    auto parsed = ParseArchiveFile(c.text);
    ASSERT_FALSE(parsed.ok()) << c.text;
    EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(parsed.status().message().find(c.message), std::string::npos)
        << parsed.status().message() << " / wanted: " << c.message;
  }
  std::string no_blank = good;
  no_blank.replace(no_blank.find("---\n\n"), 5, "---\nHello");
  auto parsed = ParseArchiveFile(no_blank);
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find("expected an empty line"), std::string::npos);
}

TEST(MarkdownArchiveFolderName, KeepsSafeIdsUnchanged) {
  EXPECT_EQ(SessionFolderName("sess-1"), "sess-1");
  EXPECT_EQ(SessionFolderName("A_b-9"), "A_b-9");
  EXPECT_EQ(SessionFolderName("550e8400-e29b-41d4-a716-446655440000"),
            "550e8400-e29b-41d4-a716-446655440000");
  EXPECT_EQ(SessionFolderName(std::string(64, 'x')), std::string(64, 'x'));
}

TEST(MarkdownArchiveFolderName, HashesIdsWithOtherBytes) {
  // Digests computed independently (Python hashlib).
  EXPECT_EQ(SessionFolderName("a/b"), "a_b-c14cddc033f6");
  EXPECT_EQ(SessionFolderName("a?b"), "a_b-c2a7b64a2d25");
  EXPECT_EQ(SessionFolderName("../x"), "___x-d6b96a97d147");
  EXPECT_EQ(SessionFolderName(".."), "__-5ec1f7e700f3");
  EXPECT_EQ(SessionFolderName("."), "_-cdb4ee2aea69");
  EXPECT_EQ(SessionFolderName(""), "-e3b0c44298fc");
}

TEST(MarkdownArchiveFolderName, CapsLongIdsAndHashesThem) {
  EXPECT_EQ(SessionFolderName(std::string(300, 'x')), std::string(64, 'x') + "-0d4e2ca9e9cb");
  const std::string long_a = std::string(64, 'y') + "a";
  const std::string long_b = std::string(64, 'y') + "b";
  EXPECT_EQ(SessionFolderName(long_a).size(), 64u + 1 + 12);
  EXPECT_TRUE(SessionFolderName(long_a).starts_with(std::string(64, 'y') + "-"));
  EXPECT_NE(SessionFolderName(long_a), SessionFolderName(long_b));
  std::string unsafe(300, '/');
  EXPECT_EQ(SessionFolderName(unsafe).size(), 77u);
}

TEST(MarkdownArchiveFolderName, SimilarIdsGetDistinctFolders) {
  const std::set<std::string> names = {SessionFolderName("a/b"), SessionFolderName("a?b"),
                                       SessionFolderName("a_b"), SessionFolderName("a b"),
                                       SessionFolderName("a\\b")};
  EXPECT_EQ(names.size(), 5u);
  EXPECT_EQ(SessionFolderName("a_b"), "a_b");
}

std::vector<std::string> HostileIds() {
  return {"sess-1",
          "a/b",
          "a?b",
          "../x",
          "..",
          ".",
          "",
          "/",
          "//",
          "/etc/passwd",
          "../../..",
          "..\\..",
          "%2e%2e",
          "会话",
          "a\nb",
          std::string("a\0b", 3),
          std::string(300, '.'),
          std::string(300, 'z'),
          "~",
          "-",
          "x/../../y"};
}

TEST(MarkdownArchiveFolderName, NeverEmptyDotOrSlash) {
  for (const std::string& id : HostileIds()) {
    const std::string name = SessionFolderName(id);
    EXPECT_FALSE(name.empty()) << id;
    EXPECT_NE(name, ".") << id;
    EXPECT_NE(name, "..") << id;
    EXPECT_EQ(
        name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"),
        std::string::npos)
        << id;
  }
}

TEST(MarkdownArchiveFolderName, EveryFolderStaysInsideTheRoot) {
  TempDir dir;
  const std::string root = dir.Sub("archive");
  std::set<std::string> folders;
  int64_t seq = 0;
  for (const std::string& id : HostileIds()) {
    ArchiveRow row = UserRow(seq++);
    row.session_id = id;
    const fs::path path = fs::weakly_canonical(ArchivePath(root, row));
    ASSERT_TRUE(WriteArchiveFile(root, row).ok()) << id;
    EXPECT_EQ(path.parent_path().parent_path(), fs::canonical(root)) << id;
    EXPECT_EQ(ReadFile(path.string()), RenderArchiveFile(row)) << id;
    folders.insert(path.parent_path().string());
  }
  EXPECT_EQ(folders.size(), HostileIds().size());
  EXPECT_EQ(Entries(root).size(), HostileIds().size());
  EXPECT_EQ(Entries(dir.path()), (std::set<std::string>{"archive"}));
}

// --- paths ---------------------------------------------------------------------------

TEST(MarkdownArchivePath, PadsTheSeqToSixDigits) {
  EXPECT_EQ(ArchivePath("/r", UserRow(0)), "/r/sess-1/000000.md");
  EXPECT_EQ(ArchivePath("/r", UserRow(12)), "/r/sess-1/000012.md");
  EXPECT_EQ(ArchivePath("/r", UserRow(999999)), "/r/sess-1/999999.md");
  EXPECT_EQ(ArchivePath("/r", UserRow(1000000)), "/r/sess-1/1000000.md");
  EXPECT_EQ(ArchivePath("/r", UserRow(123456789012)), "/r/sess-1/123456789012.md");
  EXPECT_EQ(ArchivePath("/r/", UserRow(7)), "/r/sess-1/000007.md");
  ArchiveRow row = UserRow(3);
  row.session_id = "a/b";
  EXPECT_EQ(ArchivePath("/r", row), "/r/a_b-c14cddc033f6/000003.md");
}

// Each principal but the default one has a folder of its own, so two
// principals' sessions of one id never share a folder.
TEST(MarkdownArchivePath, EachPrincipalButTheDefaultOneHasItsOwnFolder) {
  ArchiveRow row = UserRow(3);
  EXPECT_EQ(row.owner, kRootArchivePrincipal);
  EXPECT_EQ(ArchivePath("/r", row), "/r/sess-1/000003.md");
  row.owner = "alice";
  EXPECT_EQ(ArchivePath("/r", row), "/r/@alice/sess-1/000003.md");
  EXPECT_EQ(LegacyArchivePath("/r", row), "/r/sess-1/000003.md");
  row.owner = "a/../b";
  EXPECT_EQ(PrincipalFolderName(row.owner).find('/'), std::string::npos);
  EXPECT_EQ(PrincipalFolderName(row.owner).front(), '@');
}

TEST(MarkdownArchiveWrite, TwoPrincipalsSessionsOfOneIdEachGetTheirFiles) {
  TempDir dir;
  ArchiveRow alice = UserRow(0, "alice's words");
  alice.owner = "alice";
  ArchiveRow bob = UserRow(0, "bob's words");
  bob.owner = "bob";
  for (const ArchiveRow& row : {alice, bob}) {
    const Result<ArchiveOutcome> outcome = WriteArchiveFile(dir.path(), row);
    ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
    EXPECT_EQ(*outcome, ArchiveOutcome::kWritten);
    EXPECT_EQ(ReadFile(ArchivePath(dir.path(), row)), RenderArchiveFile(row));
  }
  EXPECT_EQ(ModeOf(dir.Sub("@alice")), 0700u);
  // bob's erasure removes his own files by name and leaves alice's.
  bob.content = "not what the file holds";
  const Result<int64_t> erased = EraseArchiveFiles(dir.path(), std::vector<ArchiveRow>{bob});
  ASSERT_TRUE(erased.ok()) << erased.status().ToString();
  EXPECT_EQ(*erased, 1);
  EXPECT_FALSE(fs::exists(dir.Sub("@bob")));
  EXPECT_EQ(ReadFile(ArchivePath(dir.path(), alice)), RenderArchiveFile(alice));
}

// Files written before principal folders lie in the root for every owner:
// erasure removes one there only when it holds exactly the erased row.
TEST(MarkdownArchiveErase, RemovesALegacyRootFileOnlyWhenItHoldsTheRow) {
  TempDir dir;
  ArchiveRow bob = UserRow(0, "bob's words");
  ArchiveRow alice = UserRow(1, "alice's words");
  for (const ArchiveRow& row : {bob, alice}) {  // as written then: in the root
    ASSERT_TRUE(WriteArchiveFile(dir.path(), row).ok());
  }
  bob.owner = "bob";
  alice.owner = "bob";
  alice.content = "bob's row 1, whose file alice's row pre-empted";
  const Result<int64_t> erased = EraseArchiveFiles(dir.path(), std::vector<ArchiveRow>{bob, alice});
  ASSERT_TRUE(erased.ok()) << erased.status().ToString();
  EXPECT_EQ(*erased, 1);
  EXPECT_FALSE(fs::exists(dir.Sub("sess-1/000000.md")));
  EXPECT_TRUE(fs::exists(dir.Sub("sess-1/000001.md")));
}

TEST(MarkdownArchiveSymlink, APrincipalFolderLinkedElsewhereIsRefused) {
  TempDir dir;
  const std::string root = dir.Sub("archive");
  const std::string outside = dir.Sub("outside");
  fs::create_directories(root);
  fs::create_directories(outside);
  fs::create_directory_symlink(outside, root + "/@alice");
  ArchiveRow row = UserRow();
  row.owner = "alice";
  const Result<ArchiveOutcome> outcome = WriteArchiveFile(root, row);
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(outcome.status().message().find("symbolic link"), std::string::npos)
      << outcome.status().message();
  EXPECT_TRUE(Entries(outside).empty());
}

// --- writing ----------------------------------------------------------------------

TEST(MarkdownArchiveWrite, CreatesFoldersAndAPrivateFile) {
  TempDir dir;
  const std::string root = dir.Sub("memory_tree/content/episodic");
  const ArchiveRow row = UserRow();
  const Result<ArchiveOutcome> outcome = WriteArchiveFile(root, row);
  ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
  EXPECT_EQ(*outcome, ArchiveOutcome::kWritten);
  const std::string path = root + "/sess-1/000012.md";
  EXPECT_EQ(ArchivePath(root, row), path);
  EXPECT_EQ(ReadFile(path), RenderArchiveFile(row));
  EXPECT_EQ(ModeOf(path), 0600u);
  EXPECT_EQ(ModeOf(root + "/sess-1"), 0700u);
  EXPECT_EQ(ModeOf(root) & 0077u, 0u);
  EXPECT_EQ(ModeOf(dir.Sub("memory_tree")) & 0077u, 0u);
  EXPECT_EQ(Entries(root + "/sess-1"), (std::set<std::string>{"000012.md"}));
}

TEST(MarkdownArchiveWrite, ASecondWriteOfTheSameSeqKeepsTheFirstFile) {
  TempDir dir;
  const ArchiveRow first = UserRow(12, "first text");
  const ArchiveRow second = UserRow(12, "second, longer text that must not appear");
  const Result<ArchiveOutcome> a = WriteArchiveFile(dir.path(), first);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(*a, ArchiveOutcome::kWritten);
  const Result<ArchiveOutcome> b = WriteArchiveFile(dir.path(), second);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(*b, ArchiveOutcome::kAlreadyExisted);
  EXPECT_EQ(ReadFile(ArchivePath(dir.path(), first)), RenderArchiveFile(first));
  EXPECT_EQ(Entries(dir.Sub("sess-1")), (std::set<std::string>{"000012.md"}));
}

TEST(MarkdownArchiveWrite, KeepsACrashLeftoverAsItIs) {
  TempDir dir;
  fs::create_directories(dir.Sub("sess-1"));
  {
    std::ofstream out(dir.Sub("sess-1/000012.md"), std::ios::binary);
    out << "partial";
  }
  const Result<ArchiveOutcome> outcome = WriteArchiveFile(dir.path(), UserRow());
  ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
  EXPECT_EQ(*outcome, ArchiveOutcome::kAlreadyExisted);
  EXPECT_EQ(ReadFile(dir.Sub("sess-1/000012.md")), "partial");
  EXPECT_EQ(Entries(dir.Sub("sess-1")), (std::set<std::string>{"000012.md"}));
}

TEST(MarkdownArchiveBatch, WritesEveryRowAndSyncsEachFolderOnce) {
  TempDir dir;
  std::vector<ArchiveRow> rows;
  for (int64_t seq = 0; seq < 5; ++seq) rows.push_back(UserRow(seq, "one " + std::to_string(seq)));
  for (int64_t seq = 0; seq < 3; ++seq) {
    ArchiveRow row = UserRow(seq, "two " + std::to_string(seq));
    row.session_id = "sess-2";
    rows.push_back(std::move(row));
  }
  ArchiveRow other = UserRow(7, "alice's");
  other.owner = "alice";
  rows.push_back(other);
  const ArchiveBatch batch = WriteArchiveFiles(dir.path(), rows);
  ASSERT_EQ(batch.outcomes.size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    ASSERT_TRUE(batch.outcomes[i].ok()) << i << ": " << batch.outcomes[i].status().ToString();
    EXPECT_EQ(*batch.outcomes[i], ArchiveOutcome::kWritten) << i;
    EXPECT_EQ(ReadFile(ArchivePath(dir.path(), rows[i])), RenderArchiveFile(rows[i])) << i;
  }
  EXPECT_EQ(batch.folders_synced, 3);
  // No temp file is left beside the files.
  EXPECT_EQ(Entries(dir.Sub("sess-1")), SeqNames(0, 5));
  EXPECT_EQ(Entries(dir.Sub("sess-2")), SeqNames(0, 3));
}

TEST(MarkdownArchiveBatch, ARowThatFailsOrExistsDoesNotStopTheOthers) {
  TempDir dir;
  ASSERT_TRUE(WriteArchiveFile(dir.path(), UserRow(1, "first")).ok());
  const std::vector<ArchiveRow> rows = {UserRow(0), UserRow(-1), UserRow(1, "again"), UserRow(2)};
  const ArchiveBatch batch = WriteArchiveFiles(dir.path(), rows);
  ASSERT_EQ(batch.outcomes.size(), 4u);
  ASSERT_TRUE(batch.outcomes[0].ok());
  EXPECT_EQ(*batch.outcomes[0], ArchiveOutcome::kWritten);
  ASSERT_FALSE(batch.outcomes[1].ok());
  EXPECT_EQ(batch.outcomes[1].status().code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(batch.outcomes[2].ok());
  EXPECT_EQ(*batch.outcomes[2], ArchiveOutcome::kAlreadyExisted);
  ASSERT_TRUE(batch.outcomes[3].ok());
  EXPECT_EQ(*batch.outcomes[3], ArchiveOutcome::kWritten);
  EXPECT_EQ(ReadFile(dir.Sub("sess-1/000001.md")), RenderArchiveFile(UserRow(1, "first")));
  EXPECT_EQ(Entries(dir.Sub("sess-1")), SeqNames(0, 3));
  EXPECT_EQ(batch.folders_synced, 1);
}

TEST(MarkdownArchiveBatch, SyncsNoFolderWhenNothingNewWasPlaced) {
  TempDir dir;
  ASSERT_TRUE(WriteArchiveFile(dir.path(), UserRow(1)).ok());
  const std::vector<ArchiveRow> rows = {UserRow(1), UserRow(-3)};
  const ArchiveBatch batch = WriteArchiveFiles(dir.path(), rows);
  EXPECT_EQ(batch.folders_synced, 0);
  ASSERT_TRUE(batch.outcomes[0].ok());
  EXPECT_EQ(*batch.outcomes[0], ArchiveOutcome::kAlreadyExisted);
  EXPECT_FALSE(batch.outcomes[1].ok());
}

TEST(MarkdownArchiveWrite, RefusesANegativeSeqBeforeCreatingAnything) {
  TempDir dir;
  const std::string root = dir.Sub("archive");
  const Result<ArchiveOutcome> outcome = WriteArchiveFile(root, UserRow(-1));
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(outcome.status().field(), "seq");
  EXPECT_FALSE(fs::exists(root));
}

TEST(MarkdownArchiveWrite, ReportsABadRootAsUnavailableNamingIt) {
  TempDir dir;
  const std::string file = dir.Sub("not-a-folder");
  { std::ofstream out(file); }
  Result<ArchiveOutcome> outcome = WriteArchiveFile(file, UserRow());
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(outcome.status().message().find(file), std::string::npos) << outcome.status().message();

  const std::string below = file + "/archive";
  outcome = WriteArchiveFile(below, UserRow());
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(outcome.status().message().find(file), std::string::npos) << outcome.status().message();

  outcome = WriteArchiveFile("", UserRow());
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.status().code(), StatusCode::kUnavailable);
}

TEST(MarkdownArchiveWrite, ASessionFolderThatIsAFileIsUnavailable) {
  TempDir dir;
  { std::ofstream out(dir.Sub("sess-1")); }
  const Result<ArchiveOutcome> outcome = WriteArchiveFile(dir.path(), UserRow());
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(outcome.status().message().find(dir.Sub("sess-1")), std::string::npos)
      << outcome.status().message();
  EXPECT_EQ(Entries(dir.path()), (std::set<std::string>{"sess-1"}));
}

// --- symbolic links -----------------------------------------------------------------

TEST(MarkdownArchiveSymlink, ASessionFolderLinkedOutsideTheRootIsRefused) {
  TempDir dir;
  const std::string root = dir.Sub("archive");
  const std::string outside = dir.Sub("outside");
  fs::create_directories(root);
  fs::create_directories(outside);
  fs::create_directory_symlink(outside, root + "/sess-1");
  const Result<ArchiveOutcome> outcome = WriteArchiveFile(root, UserRow());
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(outcome.status().message().find(root + "/sess-1"), std::string::npos)
      << outcome.status().message();
  EXPECT_NE(outcome.status().message().find("symbolic link"), std::string::npos)
      << outcome.status().message();
  EXPECT_TRUE(Entries(outside).empty());
  EXPECT_TRUE(fs::is_symlink(root + "/sess-1"));
}

TEST(MarkdownArchiveSymlink, ASessionFolderLinkedInsideTheRootIsRefusedToo) {
  TempDir dir;
  fs::create_directories(dir.Sub("other"));
  fs::create_directory_symlink("other", dir.Sub("sess-1"));
  const Result<ArchiveOutcome> outcome = WriteArchiveFile(dir.path(), UserRow());
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.status().code(), StatusCode::kUnavailable);
  EXPECT_TRUE(Entries(dir.Sub("other")).empty());
}

TEST(MarkdownArchiveSymlink, AFileNameLinkedOutsideIsNotFollowed) {
  TempDir dir;
  const std::string target = dir.Sub("target.txt");
  fs::create_directories(dir.Sub("archive/sess-1"));
  fs::create_symlink(target, dir.Sub("archive/sess-1/000012.md"));  // dangling
  const Result<ArchiveOutcome> outcome = WriteArchiveFile(dir.Sub("archive"), UserRow());
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(outcome.status().message().find("000012.md"), std::string::npos)
      << outcome.status().message();
  EXPECT_FALSE(fs::exists(target));
  EXPECT_EQ(Entries(dir.Sub("archive/sess-1")), (std::set<std::string>{"000012.md"}));
}

// --- concurrency ----------------------------------------------------------------------

TEST(MarkdownArchiveConcurrency, TwentyFourThreadsWritingOneSessionLoseNothing) {
  constexpr int kThreads = 24;
  constexpr int kRowsEach = 20;
  TempDir dir;
  const std::string root = dir.Sub("archive");  // created by the racing writers
  std::vector<int> failures(kThreads, 0);
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kRowsEach; ++i) {
        const int seq = t * kRowsEach + i;
        const Result<ArchiveOutcome> outcome = WriteArchiveFile(
            root, UserRow(seq, "thread " + std::to_string(t) + " row " + std::to_string(i)));
        if (!outcome.ok() || *outcome != ArchiveOutcome::kWritten) ++failures[t];
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
  EXPECT_EQ(Entries(root + "/sess-1"), SeqNames(0, kThreads * kRowsEach));
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kRowsEach; ++i) {
      const ArchiveRow row =
          UserRow(t * kRowsEach + i, "thread " + std::to_string(t) + " row " + std::to_string(i));
      EXPECT_EQ(ReadFile(ArchivePath(root, row)), RenderArchiveFile(row));
    }
  }
}

TEST(MarkdownArchiveConcurrency, ThreadsRacingForOneSeqLeaveOneWholeFile) {
  constexpr int kThreads = 16;
  TempDir dir;
  std::atomic<int> written{0};
  std::atomic<int> existed{0};
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const Result<ArchiveOutcome> outcome =
          WriteArchiveFile(dir.path(), UserRow(5, std::string(100000, static_cast<char>('a' + t))));
      if (outcome.ok() && *outcome == ArchiveOutcome::kWritten) ++written;
      if (outcome.ok() && *outcome == ArchiveOutcome::kAlreadyExisted) ++existed;
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(written.load(), 1);
  EXPECT_EQ(existed.load(), kThreads - 1);
  EXPECT_EQ(Entries(dir.Sub("sess-1")), (std::set<std::string>{"000005.md"}));
  const std::string text = ReadFile(dir.Sub("sess-1/000005.md"));
  bool whole = false;
  for (int t = 0; t < kThreads; ++t) {
    whole = whole ||
            text == RenderArchiveFile(UserRow(5, std::string(100000, static_cast<char>('a' + t))));
  }
  EXPECT_TRUE(whole) << text.substr(0, 200);
}

TEST(MarkdownArchiveConcurrency, FourProcessesWritingOneSessionLoseNothing) {
  constexpr int kProcesses = 4;
  constexpr int kRowsEach = 50;
  TempDir dir;
  const std::string root = dir.Sub("archive");
  int start[2];
  ASSERT_EQ(::pipe(start), 0);
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(start[1]);
      char unused;
      // Every child waits here until the parent closes the pipe: they start together.
      if (::read(start[0], &unused, 1) != 0) ::_exit(3);
      for (int i = 0; i < kRowsEach; ++i) {
        const Result<ArchiveOutcome> outcome =
            WriteArchiveFile(root, UserRow(p * kRowsEach + i, "process " + std::to_string(p) +
                                                                  " row " + std::to_string(i)));
        if (!outcome.ok()) ::_exit(1);
        if (*outcome != ArchiveOutcome::kWritten) ::_exit(2);
      }
      ::_exit(0);
    }
    children.push_back(pid);
  }
  ::close(start[0]);
  ::close(start[1]);
  for (const pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  }
  EXPECT_EQ(Entries(root), (std::set<std::string>{"sess-1"}));
  EXPECT_EQ(Entries(root + "/sess-1"), SeqNames(0, kProcesses * kRowsEach));
  for (int p = 0; p < kProcesses; ++p) {
    for (int i = 0; i < kRowsEach; ++i) {
      const ArchiveRow row =
          UserRow(p * kRowsEach + i, "process " + std::to_string(p) + " row " + std::to_string(i));
      EXPECT_EQ(ReadFile(ArchivePath(root, row)), RenderArchiveFile(row));
    }
  }
}

}  // namespace
}  // namespace mnemo::archivist
