// The markdown backend's folder (storage/markdown/entry_folder.h): the
// layout, change stamps, atomic replacement and the cross-process lock.
#include "storage/markdown/entry_folder.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>

#include "test_util.h"

namespace mnemo::storage::markdown {
namespace {

namespace fs = std::filesystem;
using ::mnemo::testing::TempDir;

TEST(MarkdownFolder, LayoutOfEntryFiles) {
  auto place = [](std::string_view p) { return PlaceOfFile(p); };
  EXPECT_EQ(place("core.md")->category, "core");
  EXPECT_FALSE(place("core.md")->archived);
  EXPECT_EQ(place("project-notes.md")->category, "project-notes");
  EXPECT_EQ(place("daily/2026-11-30.md")->category, "daily");
  EXPECT_EQ(place("conversation/2026-11-30.md")->category, "conversation");
  EXPECT_TRUE(place("archive/daily/2026-01-02.md")->archived);
  EXPECT_EQ(place("archive/recipes.md")->category, "recipes");
  for (const char* not_entries :
       {"README.txt", "Core.md", "daily.md", "daily/notes.md", "daily/2026-1-30.md",
        "other/core.md", ".core.md.tmp.1.2", "archive/archive/core.md", "a b.md", ".md",
        "conversation/2026-11-30.md.bak"}) {
    EXPECT_FALSE(place(not_entries)) << not_entries;
  }
}

TEST(MarkdownFolder, ScanFindsEntryFilesOnlyAndStampsChangeOnEdits) {
  TempDir dir;
  const std::string root = dir.Sub("memory");
  auto empty = ScanEntryFiles(root);
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty()) << "a missing folder is empty";

  ASSERT_TRUE(ReplaceEntryFile(root, "core.md", "# core\n").ok());
  ASSERT_TRUE(ReplaceEntryFile(root, "daily/2026-11-30.md", "# daily\n").ok());
  ASSERT_TRUE(ReplaceEntryFile(root, "archive/core.md", "# core\n").ok());
  std::ofstream(root + "/notes.txt") << "not an entry file";
  fs::create_directories(root + "/.index");
  std::ofstream(root + "/.index/core.md") << "hidden";
  auto scan = ScanEntryFiles(root);
  ASSERT_TRUE(scan.ok()) << scan.status().ToString();
  ASSERT_EQ(scan->size(), 3u);
  EXPECT_TRUE(scan->count("core.md"));
  EXPECT_TRUE(scan->count("daily/2026-11-30.md"));
  EXPECT_TRUE(scan->count("archive/core.md"));

  // A person appends a line: the stamp changes.
  const FileStamp before = scan->at("core.md");
  std::ofstream(root + "/core.md", std::ios::app) << "- **k**: v\n";
  auto again = ScanEntryFiles(root);
  ASSERT_TRUE(again.ok());
  EXPECT_NE(again->at("core.md"), before);
  EXPECT_EQ(again->at("daily/2026-11-30.md"), scan->at("daily/2026-11-30.md"));
}

TEST(MarkdownFolder, ReplaceIsAtomicPrivateAndRemovesOnEmpty) {
  TempDir dir;
  const std::string root = dir.Sub("memory");
  auto stamp = ReplaceEntryFile(root, "conversation/2026-11-30.md", "# conversation\n- **a**: b\n");
  ASSERT_TRUE(stamp.ok()) << stamp.status().ToString();
  ASSERT_TRUE(stamp->has_value());
  auto text = ReadEntryFile(root, "conversation/2026-11-30.md");
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "# conversation\n- **a**: b\n");
  struct stat st {};
  ASSERT_EQ(::stat((root + "/conversation/2026-11-30.md").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  // No temp file is left; a replacement is a new file (new inode).
  auto second = ReplaceEntryFile(root, "conversation/2026-11-30.md", "# conversation\n");
  ASSERT_TRUE(second.ok());
  EXPECT_NE((*second)->inode, (*stamp)->inode);
  int files = 0;
  for (const auto& e : fs::directory_iterator(root + "/conversation")) {
    ++files;
    EXPECT_FALSE(e.path().filename().string().starts_with(".")) << e.path();
  }
  EXPECT_EQ(files, 1);
  auto removed = ReplaceEntryFile(root, "conversation/2026-11-30.md", "");
  ASSERT_TRUE(removed.ok());
  EXPECT_FALSE(removed->has_value());
  EXPECT_EQ(ReadEntryFile(root, "conversation/2026-11-30.md").status().code(),
            StatusCode::kNotFound);
}

TEST(MarkdownFolder, TheLockExcludesAnotherProcessUntilReleased) {
  TempDir dir;
  const std::string root = dir.Sub("memory");
  ASSERT_TRUE(FolderLock::Acquire(root).ok());  // creates the lock file
  int to_child[2];
  int from_child[2];
  ASSERT_EQ(::pipe(to_child), 0);
  ASSERT_EQ(::pipe(from_child), 0);
  // Forked before the parent locks, so the child shares no lock descriptor.
  const pid_t child = ::fork();
  if (child == 0) {
    char go = 0;
    (void)!::read(to_child[0], &go, 1);
    const int fd = ::open((root + "/.mnemo.lock").c_str(), O_RDWR);
    const char busy = ::flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK ? 'b' : 'f';
    (void)!::write(from_child[1], &busy, 1);
    auto lock = FolderLock::Acquire(root);
    const char got = lock.ok() ? 'g' : 'x';
    (void)!::write(from_child[1], &got, 1);
    ::_exit(0);
  }
  std::optional<Result<FolderLock>> held(FolderLock::Acquire(root));
  ASSERT_TRUE(held->ok()) << held->status().ToString();
  ASSERT_EQ(::write(to_child[1], "g", 1), 1);
  char c = 0;
  ASSERT_EQ(::read(from_child[0], &c, 1), 1);
  EXPECT_EQ(c, 'b') << "the lock was not held against another process";
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  held.reset();  // release: the child gets it
  ASSERT_EQ(::read(from_child[0], &c, 1), 1);
  EXPECT_EQ(c, 'g');
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  for (int fd : {to_child[0], to_child[1], from_child[0], from_child[1]}) ::close(fd);
}

}  // namespace
}  // namespace mnemo::storage::markdown
