#include "archivist/archive/memory_md.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "test_util.h"

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

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

Result<MemoryMdResult> Append(const std::string& workspace, const std::string& content,
                              const std::string& file = "MEMORY.md") {
  MemoryMdUpdate update;
  update.file = file;
  update.action = MemoryMdAction::kAppend;
  update.content = content;
  return UpdateMemoryMd(workspace, update);
}

Result<MemoryMdResult> Replace(const std::string& workspace, const std::string& title,
                               const std::string& content, const std::string& file = "MEMORY.md") {
  MemoryMdUpdate update;
  update.file = file;
  update.action = MemoryMdAction::kReplaceSection;
  update.section_title = title;
  update.content = content;
  return UpdateMemoryMd(workspace, update);
}

std::string NotAllowed(const std::string& shown) {
  return "File '" + shown + "' is not allowed. Permitted files: MEMORY.md, SKILL.md";
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

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// --- action names ---------------------------------------------------------

TEST(MemoryMdParseAction, AcceptsAppendAndReplaceSection) {
  auto append = ParseMemoryMdAction("append");
  ASSERT_TRUE(append.ok());
  EXPECT_EQ(*append, MemoryMdAction::kAppend);
  auto replace = ParseMemoryMdAction("replace_section");
  ASSERT_TRUE(replace.ok());
  EXPECT_EQ(*replace, MemoryMdAction::kReplaceSection);
}

TEST(MemoryMdParseAction, RejectsOtherNamesListingTheAllowedOnes) {
  for (const std::string name : {"Append", "replace", "", "delete"}) {
    auto action = ParseMemoryMdAction(name);
    ASSERT_FALSE(action.ok()) << name;
    EXPECT_EQ(action.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(action.status().field(), "action");
    EXPECT_EQ(action.status().message(),
              "action \"" + name + "\" is invalid: use append or replace_section");
  }
  auto control = ParseMemoryMdAction("append\n");
  ASSERT_FALSE(control.ok());
  EXPECT_EQ(control.status().message(),
            "action \"append?\" is invalid: use append or replace_section");
}

// --- append -----------------------------------------------------------------

TEST(MemoryMdAppend, CreatesAMissingFile) {
  TempDir dir;
  auto result = Append(dir.path(), "first fact");
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->path, fs::canonical(dir.path()).string() + "/MEMORY.md");
  EXPECT_EQ(result->bytes, 11);
  EXPECT_FALSE(result->section_created);
  EXPECT_EQ(ReadFile(dir.Sub("MEMORY.md")), "first fact\n");
  EXPECT_EQ(ModeOf(dir.Sub("MEMORY.md")), 0600u);
}

TEST(MemoryMdAppend, EndsALastLineThatHasNoNewline) {
  TempDir dir;
  WriteFile(dir.Sub("MEMORY.md"), "# Memory\nline one");
  auto result = Append(dir.path(), "line two");
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(ReadFile(dir.Sub("MEMORY.md")), "# Memory\nline one\nline two\n");
  EXPECT_EQ(result->bytes, 27);
}

TEST(MemoryMdAppend, TwiceKeepsBothInOrder) {
  TempDir dir;
  ASSERT_TRUE(Append(dir.path(), "alpha").ok());
  ASSERT_TRUE(Append(dir.path(), "beta\ngamma").ok());
  EXPECT_EQ(ReadFile(dir.Sub("MEMORY.md")), "alpha\nbeta\ngamma\n");
}

TEST(MemoryMdAppend, ContentEndingInNewlineGetsNoSecondOne) {
  TempDir dir;
  ASSERT_TRUE(Append(dir.path(), "one\n").ok());
  ASSERT_TRUE(Append(dir.path(), "two\n").ok());
  EXPECT_EQ(ReadFile(dir.Sub("MEMORY.md")), "one\ntwo\n");
}

TEST(MemoryMdAppend, EmptyContentOnlyEndsTheLastLine) {
  TempDir dir;
  WriteFile(dir.Sub("MEMORY.md"), "abc");
  ASSERT_TRUE(Append(dir.path(), "").ok());
  EXPECT_EQ(ReadFile(dir.Sub("MEMORY.md")), "abc\n");
}

TEST(MemoryMdAppend, WritesSkillMdSeparately) {
  TempDir dir;
  ASSERT_TRUE(Append(dir.path(), "skill", "SKILL.md").ok());
  ASSERT_TRUE(Append(dir.path(), "memory").ok());
  EXPECT_EQ(ReadFile(dir.Sub("SKILL.md")), "skill\n");
  EXPECT_EQ(ReadFile(dir.Sub("MEMORY.md")), "memory\n");
}

TEST(MemoryMdAppend, KeepsTheModeOfAnExistingFile) {
  TempDir dir;
  WriteFile(dir.Sub("MEMORY.md"), "x\n");
  ASSERT_EQ(::chmod(dir.Sub("MEMORY.md").c_str(), 0644), 0);
  ASSERT_TRUE(Append(dir.path(), "y").ok());
  EXPECT_EQ(ModeOf(dir.Sub("MEMORY.md")), 0644u);
  EXPECT_EQ(ReadFile(dir.Sub("MEMORY.md")), "x\ny\n");
}

TEST(MemoryMdAppend, IgnoresTheSectionTitle) {
  TempDir dir;
  MemoryMdUpdate update;
  update.file = "MEMORY.md";
  update.section_title = "bad\ntitle";
  update.content = "kept";
  ASSERT_TRUE(UpdateMemoryMd(dir.path(), update).ok());
  EXPECT_EQ(ReadFile(dir.Sub("MEMORY.md")), "kept\n");
}

// --- replace_section --------------------------------------------------------

const std::string kHead = "# Memory\nintro\n\n## Alpha\na1\na2\n\n## Beta\n";
const std::string kBetaBody = "b1\n### Beta detail\nb2\n\n";
const std::string kTail = "## Gamma\ng1\n";

TEST(MemoryMdReplaceSection, ReplacesTheMiddleSectionOnly) {
  TempDir dir;
  WriteFile(dir.Sub("MEMORY.md"), kHead + kBetaBody + kTail);
  auto result = Replace(dir.path(), "Beta", "new beta\nsecond line");
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_FALSE(result->section_created);
  const std::string now = ReadFile(dir.Sub("MEMORY.md"));
  EXPECT_EQ(now, kHead + "new beta\nsecond line\n" + kTail);
  EXPECT_TRUE(now.starts_with(kHead));  // the heading and everything before: byte-identical
  EXPECT_TRUE(now.ends_with(kTail));    // the next section: byte-identical
  EXPECT_EQ(result->bytes, static_cast<int64_t>(now.size()));
}

TEST(MemoryMdReplaceSection, ReplacesTheLastSection) {
  TempDir dir;
  WriteFile(dir.Sub("MEMORY.md"), kHead + kBetaBody + kTail);
  ASSERT_TRUE(Replace(dir.path(), "Gamma", "g-new\n").ok());
  EXPECT_EQ(ReadFile(dir.Sub("MEMORY.md")), kHead + kBetaBody + "## Gamma\ng-new\n");
}

TEST(MemoryMdReplaceSection, AppendsAnAbsentSection) {
  TempDir dir;
  WriteFile(dir.Sub("MEMORY.md"), "## Alpha\na");
  auto result = Replace(dir.path(), "Zeta", "z1\nz2");
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_TRUE(result->section_created);
  EXPECT_EQ(ReadFile(dir.Sub("MEMORY.md")), "## Alpha\na\n## Zeta\nz1\nz2\n");
}

TEST(MemoryMdReplaceSection, CreatesAMissingFileWithTheSection) {
  TempDir dir;
  auto result = Replace(dir.path(), "Tools", "use rg", "SKILL.md");
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_TRUE(result->section_created);
  EXPECT_EQ(ReadFile(dir.Sub("SKILL.md")), "## Tools\nuse rg\n");
}

TEST(MemoryMdReplaceSection, MatchesOnlyTheExactHeadingLine) {
  TempDir dir;
  const std::string before = "### A\nx\n## A2\ny\n## A \nz\n#  A\nw\n";
  WriteFile(dir.Sub("MEMORY.md"), before + "## A\nreal\n");
  auto result = Replace(dir.path(), "A", "replaced");
  ASSERT_TRUE(result.ok());
  EXPECT_FALSE(result->section_created);
  EXPECT_EQ(ReadFile(dir.Sub("MEMORY.md")), before + "## A\nreplaced\n");
}

TEST(MemoryMdReplaceSection, ReplacesOnlyTheFirstOfTwoEqualHeadings) {
  TempDir dir;
  WriteFile(dir.Sub("MEMORY.md"), "## A\none\n## A\ntwo\n");
  ASSERT_TRUE(Replace(dir.path(), "A", "new").ok());
  EXPECT_EQ(ReadFile(dir.Sub("MEMORY.md")), "## A\nnew\n## A\ntwo\n");
}

TEST(MemoryMdReplaceSection, HeadingOnTheLastLineWithoutNewline) {
  TempDir dir;
  WriteFile(dir.Sub("MEMORY.md"), "intro\n## A");
  ASSERT_TRUE(Replace(dir.path(), "A", "body").ok());
  EXPECT_EQ(ReadFile(dir.Sub("MEMORY.md")), "intro\n## A\nbody\n");
}

TEST(MemoryMdReplaceSection, MatchesAHeadingInACrlfFile) {
  TempDir dir;
  WriteFile(dir.Sub("MEMORY.md"), "## A\r\nold\r\n## B\r\nb\r\n");
  auto result = Replace(dir.path(), "A", "new");
  ASSERT_TRUE(result.ok());
  EXPECT_FALSE(result->section_created);
  EXPECT_EQ(ReadFile(dir.Sub("MEMORY.md")), "## A\r\nnew\n## B\r\nb\r\n");
}

TEST(MemoryMdReplaceSection, EmptyContentEmptiesTheSection) {
  TempDir dir;
  WriteFile(dir.Sub("MEMORY.md"), "## A\nold\nolder\n## B\nb\n");
  ASSERT_TRUE(Replace(dir.path(), "A", "").ok());
  EXPECT_EQ(ReadFile(dir.Sub("MEMORY.md")), "## A\n## B\nb\n");
}

// --- validation ---------------------------------------------------------------

TEST(MemoryMdValidation, RejectsBadSectionTitles) {
  TempDir dir;
  const std::vector<std::string> titles = {
      "",         "   ",       "\u3000\u00a0",  "two\nlines",
      "cr\rhere", "tab\there", "bad \xff utf8", std::string(kMaxMemoryMdTitleBytes + 1, 'a')};
  for (const std::string& title : titles) {
    auto result = Replace(dir.path(), title, "x");
    ASSERT_FALSE(result.ok()) << title;
    EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(result.status().field(), "section_title");
    EXPECT_NE(result.status().message().find("use one non-blank line"), std::string::npos);
  }
  EXPECT_TRUE(Entries(dir.path()).empty());
  ASSERT_TRUE(Replace(dir.path(), std::string(kMaxMemoryMdTitleBytes, 'a'), "x").ok());
  ASSERT_TRUE(Replace(dir.path(), "Café 偏好", "x").ok());
  EXPECT_EQ(ReadFile(dir.Sub("MEMORY.md")),
            "## " + std::string(kMaxMemoryMdTitleBytes, 'a') + "\nx\n## Café 偏好\nx\n");
}

TEST(MemoryMdValidation, RejectsBadContent) {
  TempDir dir;
  const std::vector<std::string> contents = {std::string("nul\0byte", 8), "bad \xc0\xaf utf8",
                                             std::string(kMaxMemoryMdContentBytes + 1, 'a')};
  for (const std::string& content : contents) {
    auto result = Append(dir.path(), content);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(result.status().field(), "content");
  }
  EXPECT_TRUE(Entries(dir.path()).empty());
  auto largest = Append(dir.path(), std::string(kMaxMemoryMdContentBytes, 'a'));
  ASSERT_TRUE(largest.ok()) << largest.status().ToString();
  EXPECT_EQ(largest->bytes, static_cast<int64_t>(kMaxMemoryMdContentBytes + 1));
}

TEST(MemoryMdValidation, MissingWorkspaceIsUnavailableAndNamed) {
  TempDir dir;
  const std::string missing = dir.Sub("nope");
  auto result = Append(missing, "x");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(result.status().message().find(missing), std::string::npos);
  EXPECT_FALSE(fs::exists(missing));

  WriteFile(dir.Sub("file"), "");
  auto not_folder = Append(dir.Sub("file"), "x");
  ASSERT_FALSE(not_folder.ok());
  EXPECT_EQ(not_folder.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(not_folder.status().message().find(dir.Sub("file")), std::string::npos);

  EXPECT_EQ(Append("", "x").status().code(), StatusCode::kUnavailable);
}

// --- the file whitelist -----------------------------------------------------------

TEST(MemoryMdFileWhitelist, RefusesEveryOtherNameWithTheExactMessage) {
  TempDir dir;
  fs::create_directory(dir.Sub("sub"));
  const std::vector<std::string> names = {"memory.md",
                                          "Memory.md",
                                          "MEMORY.MD",
                                          "skill.md",
                                          "README.md",
                                          "MEMORY.md ",
                                          " MEMORY.md",
                                          "MEMORY",
                                          "../MEMORY.md",
                                          "memory.md/../x",
                                          "./MEMORY.md",
                                          "sub/MEMORY.md",
                                          "MEMORY.md/",
                                          "/etc/passwd",
                                          "/tmp/MEMORY.md",
                                          dir.Sub("MEMORY.md"),
                                          "",
                                          ".memory-write.lock",
                                          ".MEMORY.md.tmp.1.1"};
  for (const std::string& name : names) {
    for (MemoryMdAction action : {MemoryMdAction::kAppend, MemoryMdAction::kReplaceSection}) {
      MemoryMdUpdate update;
      update.file = name;
      update.action = action;
      update.section_title = "T";
      update.content = "x";
      auto result = UpdateMemoryMd(dir.path(), update);
      ASSERT_FALSE(result.ok()) << name;
      EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument) << name;
      EXPECT_EQ(result.status().field(), "file") << name;
      EXPECT_EQ(result.status().message(), NotAllowed(name));
    }
  }
  // Nothing was created, not even the lock file.
  EXPECT_EQ(Entries(dir.path()), std::set<std::string>{"sub"});
  EXPECT_TRUE(Entries(dir.Sub("sub")).empty());
}

TEST(MemoryMdFileWhitelist, ShowsControlBytesAndBadUtf8AsQuestionMarks) {
  TempDir dir;
  const std::map<std::string, std::string> shown = {
      {std::string("MEMORY.md\0", 10), "MEMORY.md?"},
      {std::string("MEMORY.md\0.txt", 14), "MEMORY.md?.txt"},
      {"\x1b[2JMEMORY.md", "?[2JMEMORY.md"},
      {"MEMORY.md\n", "MEMORY.md?"},
      {"\xff\xfeMEMORY.md", "??MEMORY.md"},
      {"a\xc2\x85z", "a?z"},  // U+0085, a C1 control
      {"café.md", "café.md"},
      {std::string(200, 'a'), std::string(128, 'a') + "..."}};
  for (const auto& [name, expected] : shown) {
    auto result = Append(dir.path(), "x", name);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.status().message(), NotAllowed(expected));
    EXPECT_EQ(result.status().field(), "file");
  }
  EXPECT_TRUE(Entries(dir.path()).empty());
}

// --- symlinks -----------------------------------------------------------------

void ExpectSymlinkRefused(const std::string& workspace, const std::string& file) {
  for (int replace = 0; replace < 2; ++replace) {
    auto result =
        replace == 0 ? Append(workspace, "evil", file) : Replace(workspace, "S", "e", file);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(result.status().field(), "file");
    EXPECT_EQ(result.status().message(), NotAllowed(file));
  }
  EXPECT_TRUE(fs::is_symlink(workspace + "/" + file));
}

TEST(MemoryMdSymlink, RefusesALinkToAFileInsideTheWorkspace) {
  TempDir dir;
  WriteFile(dir.Sub("notes.md"), "original\n");
  fs::create_symlink("notes.md", dir.Sub("MEMORY.md"));
  ExpectSymlinkRefused(dir.path(), "MEMORY.md");
  EXPECT_EQ(ReadFile(dir.Sub("notes.md")), "original\n");
}

TEST(MemoryMdSymlink, RefusesALinkToAFileElsewhere) {
  TempDir dir;
  TempDir other;
  WriteFile(other.Sub("passwd"), "root:x:0:0:root:/root:/bin/sh\n");
  fs::create_symlink(other.Sub("passwd"), dir.Sub("SKILL.md"));
  fs::create_symlink(other.Sub("passwd"), dir.Sub("MEMORY.md"));
  ExpectSymlinkRefused(dir.path(), "SKILL.md");
  ExpectSymlinkRefused(dir.path(), "MEMORY.md");
  EXPECT_EQ(ReadFile(other.Sub("passwd")), "root:x:0:0:root:/root:/bin/sh\n");
  EXPECT_EQ(Entries(other.path()), std::set<std::string>{"passwd"});
}

TEST(MemoryMdSymlink, RefusesADanglingLinkWithoutCreatingItsTarget) {
  TempDir dir;
  TempDir other;
  fs::create_symlink(other.Sub("created.md"), dir.Sub("MEMORY.md"));
  ExpectSymlinkRefused(dir.path(), "MEMORY.md");
  EXPECT_FALSE(fs::exists(other.Sub("created.md")));
}

TEST(MemoryMdSymlink, RefusesASymlinkedLockFile) {
  TempDir dir;
  TempDir other;
  WriteFile(other.Sub("victim"), "keep\n");
  fs::create_symlink(other.Sub("victim"), dir.Sub(".memory-write.lock"));
  auto result = Append(dir.path(), "x");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(result.status().message().find(".memory-write.lock"), std::string::npos);
  EXPECT_NE(result.status().message().find("symbolic link"), std::string::npos);
  EXPECT_EQ(ReadFile(other.Sub("victim")), "keep\n");
  EXPECT_FALSE(fs::exists(dir.Sub("MEMORY.md")));

  fs::remove(dir.Sub(".memory-write.lock"));
  fs::create_symlink(other.Sub("new-lock"), dir.Sub(".memory-write.lock"));
  ASSERT_FALSE(Append(dir.path(), "x").ok());
  EXPECT_FALSE(fs::exists(other.Sub("new-lock")));
}

TEST(MemoryMdSymlink, TheLockFileIsAPrivateRegularFile) {
  TempDir dir;
  ASSERT_TRUE(Append(dir.path(), "x").ok());
  const std::string lock = dir.Sub(".memory-write.lock");
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(lock)));
  EXPECT_EQ(ModeOf(lock), 0600u);
  EXPECT_EQ(Entries(dir.path()), (std::set<std::string>{".memory-write.lock", "MEMORY.md"}));
}

// --- concurrency ----------------------------------------------------------------

TEST(MemoryMdConcurrency, TwentyProcessesAppendingAtOnceLoseNoLine) {
  constexpr int kProcesses = 20;
  constexpr int kLinesEach = 10;
  TempDir dir;
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
      for (int i = 0; i < kLinesEach; ++i) {
        const std::string line = "process " + std::to_string(p) + " line " + std::to_string(i);
        if (!Append(dir.path(), line).ok()) ::_exit(1);
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
  std::map<std::string, int> seen;
  for (const std::string& line : Lines(ReadFile(dir.Sub("MEMORY.md")))) ++seen[line];
  EXPECT_EQ(seen.size(), static_cast<size_t>(kProcesses * kLinesEach));
  for (int p = 0; p < kProcesses; ++p) {
    for (int i = 0; i < kLinesEach; ++i) {
      EXPECT_EQ(seen["process " + std::to_string(p) + " line " + std::to_string(i)], 1);
    }
  }
}

TEST(MemoryMdConcurrency, EightThreadsAppendingLoseNoLine) {
  constexpr int kThreads = 8;
  constexpr int kLinesEach = 25;
  TempDir dir;
  std::vector<int> failures(kThreads, 0);
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kLinesEach; ++i) {
        const std::string line = "thread " + std::to_string(t) + " line " + std::to_string(i);
        if (!Append(dir.path(), line).ok()) ++failures[t];
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
  const std::vector<std::string> lines = Lines(ReadFile(dir.Sub("MEMORY.md")));
  EXPECT_EQ(lines.size(), static_cast<size_t>(kThreads * kLinesEach));
  const std::set<std::string> distinct(lines.begin(), lines.end());
  EXPECT_EQ(distinct.size(), static_cast<size_t>(kThreads * kLinesEach));
  // Each thread's lines appear in the order it wrote them.
  std::vector<int> next(kThreads, 0);
  for (const std::string& line : lines) {
    int t = -1;
    int i = -1;
    ASSERT_EQ(std::sscanf(line.c_str(), "thread %d line %d", &t, &i), 2) << line;
    ASSERT_TRUE(t >= 0 && t < kThreads);
    EXPECT_EQ(i, next[t]++);
  }
}

// --- crash safety -----------------------------------------------------------------

constexpr size_t kBlockBytes = 200 * 1024;

// True when `text` is whole blocks: kBlockBytes of one letter, then "\n".
bool IsWholeBlocks(const std::string& text) {
  if (text.size() % (kBlockBytes + 1) != 0) return false;
  for (size_t at = 0; at < text.size(); at += kBlockBytes + 1) {
    const char letter = text[at];
    if (letter < 'a' || letter > 'z' || text[at + kBlockBytes] != '\n') return false;
    if (text.find_first_not_of(letter, at) != at + kBlockBytes) return false;
  }
  return true;
}

TEST(MemoryMdCrashSafety, AKilledWriterLeavesTheOldFileOrANewOne) {
  constexpr int kRounds = 20;
  TempDir dir;
  std::string before;
  for (int round = 0; round < kRounds; ++round) {
    int done[2];
    ASSERT_EQ(::pipe(done), 0);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(done[0]);
      for (int i = 0;; ++i) {
        std::string block(kBlockBytes, static_cast<char>('a' + (round + i) % 26));
        block += '\n';
        if (!Append(dir.path(), block).ok()) ::_exit(1);
        const char one = 1;
        if (::write(done[1], &one, 1) != 1) ::_exit(2);
      }
    }
    ::close(done[1]);
    char byte = 0;
    ASSERT_EQ(::read(done[0], &byte, 1), 1) << "the writer never finished a write";
    // Kill it somewhere inside a later write (read, temp file, fsync, rename).
    ::usleep(static_cast<useconds_t>(300 + 700 * (round % 7)));
    ASSERT_EQ(::kill(pid, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "status " << status;
    size_t reported = 1;
    while (::read(done[0], &byte, 1) == 1) ++reported;
    ::close(done[0]);

    const std::string now = ReadFile(dir.Sub("MEMORY.md"));
    ASSERT_TRUE(IsWholeBlocks(now)) << "torn file of " << now.size() << " bytes, round " << round;
    ASSERT_TRUE(now.starts_with(before)) << "round " << round;
    const size_t added = (now.size() - before.size()) / (kBlockBytes + 1);
    // Every reported write is there; one more may have been renamed but not reported.
    EXPECT_GE(added, reported) << "round " << round;
    EXPECT_LE(added, reported + 1) << "round " << round;
    before = now;

    // At most the killed writer's temp file is left, and it is not named like the target.
    int temps = 0;
    for (const std::string& name : Entries(dir.path())) {
      if (name == "MEMORY.md" || name == ".memory-write.lock") continue;
      EXPECT_TRUE(name.starts_with(".MEMORY.md.tmp.")) << name;
      ++temps;
    }
    EXPECT_LE(temps, 1) << "round " << round;
  }
  ASSERT_TRUE(Append(dir.path(), std::string(kBlockBytes, 'z')).ok());
  EXPECT_TRUE(IsWholeBlocks(ReadFile(dir.Sub("MEMORY.md"))));
  EXPECT_EQ(Entries(dir.path()), (std::set<std::string>{".memory-write.lock", "MEMORY.md"}));
}

TEST(MemoryMdCrashSafety, TheNextWriteRemovesStrayTempFiles) {
  TempDir dir;
  for (const std::string name : {".MEMORY.md.tmp.99999.0", ".SKILL.md.tmp.1.2", ".MEMORY.md.tmpx",
                                 "MEMORY.md.tmp.1.1", "notes.md"}) {
    WriteFile(dir.Sub(name), "stale");
  }
  ASSERT_TRUE(Append(dir.path(), "x").ok());
  EXPECT_EQ(Entries(dir.path()),
            (std::set<std::string>{".MEMORY.md.tmpx", ".memory-write.lock", "MEMORY.md",
                                   "MEMORY.md.tmp.1.1", "notes.md"}));
}

}  // namespace
}  // namespace mnemo::archivist
