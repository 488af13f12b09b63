// The one atomic-write sequence (base/io/atomic_file.h): whole files, exact
// modes, nothing followed or replaced by a create-new, no temp file left.
#include "base/io/atomic_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "base/io/file_io.h"
#include "test_util.h"

namespace mnemo::internal {
namespace {

namespace fs = std::filesystem;

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream out;
  out << in.rdbuf();
  return out.str();
}

std::vector<std::string> Names(const std::string& folder) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(folder)) names.push_back(e.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

unsigned ModeOf(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & 0777;
}

class AtomicFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = Fd(::open(tmp_.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    ASSERT_GE(dir_.get(), 0);
  }
  AtomicTarget Target(const std::string& file, Placement placement, unsigned mode = 0600) {
    AtomicTarget t;
    t.dir_fd = dir_.get();
    t.folder_path = tmp_.path();
    t.file = file;
    t.mode = mode;
    t.placement = placement;
    return t;
  }

  testing::TempDir tmp_;
  Fd dir_{-1};
};

TEST_F(AtomicFile, ReplaceWritesTheWholeFileWithItsExactModeAndLeavesNoTemp) {
  std::ofstream(tmp_.File("MEMORY.md")) << "old text";
  const mode_t old_umask = ::umask(0077);
  Result<Placed> placed =
      WriteFileAtomically(Target("MEMORY.md", Placement::kReplace, 0644), "new");
  ::umask(old_umask);
  ASSERT_TRUE(placed.ok()) << placed.status().message();
  EXPECT_EQ(*placed, Placed::kWritten);
  EXPECT_EQ(Slurp(tmp_.File("MEMORY.md")), "new");
  EXPECT_EQ(ModeOf(tmp_.File("MEMORY.md")), 0644u);  // fchmod, not the umask
  EXPECT_EQ(Names(tmp_.path()), std::vector<std::string>{"MEMORY.md"});
}

TEST_F(AtomicFile, CreateNewLeavesAFileThatHasTheNameAsItIs) {
  std::ofstream(tmp_.File("000001.md")) << "first";
  Result<Placed> placed = WriteFileAtomically(Target("000001.md", Placement::kCreateNew), "second");
  ASSERT_TRUE(placed.ok()) << placed.status().message();
  EXPECT_EQ(*placed, Placed::kNameTaken);
  EXPECT_EQ(Slurp(tmp_.File("000001.md")), "first");
  EXPECT_EQ(Names(tmp_.path()), std::vector<std::string>{"000001.md"});

  placed = WriteFileAtomically(Target("000002.md", Placement::kCreateNew), "new");
  ASSERT_TRUE(placed.ok()) << placed.status().message();
  EXPECT_EQ(*placed, Placed::kWritten);
  EXPECT_EQ(Slurp(tmp_.File("000002.md")), "new");
  EXPECT_EQ(Names(tmp_.path()), (std::vector<std::string>{"000001.md", "000002.md"}));
}

TEST_F(AtomicFile, CreateNewNeverFollowsASymlinkPlantedAtTheName) {
  const std::string outside = tmp_.File("outside");
  std::ofstream(outside) << "untouched";
  ASSERT_EQ(::symlink(outside.c_str(), tmp_.File("000001.md").c_str()), 0);
  Result<Placed> placed = WriteFileAtomically(Target("000001.md", Placement::kCreateNew), "x");
  ASSERT_TRUE(placed.ok()) << placed.status().message();
  EXPECT_EQ(*placed, Placed::kNameTaken);
  EXPECT_EQ(Slurp(outside), "untouched");
  EXPECT_TRUE(fs::is_symlink(tmp_.File("000001.md")));
}

TEST_F(AtomicFile, AFailedFillKeepsTheOldFileAndRemovesTheTemp) {
  std::ofstream(tmp_.File("core.md")) << "kept";
  Result<Placed> placed =
      WriteFileAtomically(Target("core.md", Placement::kReplace), [](int fd, const std::string&) {
        EXPECT_TRUE(WriteAll(fd, "half", "temp").ok());
        return Unavailable("disk full");
      });
  ASSERT_FALSE(placed.ok());
  EXPECT_EQ(placed.status().message(), "disk full");
  EXPECT_EQ(Slurp(tmp_.File("core.md")), "kept");
  EXPECT_EQ(Names(tmp_.path()), std::vector<std::string>{"core.md"});
}

TEST_F(AtomicFile, ByPathNamesAMissingFolder) {
  const std::string path = tmp_.Sub("missing") + "/x.idx";
  Result<Placed> placed = WriteFileAtomically(path, 0600, Placement::kReplace, "x");
  ASSERT_FALSE(placed.ok());
  EXPECT_EQ(placed.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(placed.status().message().find(tmp_.Sub("missing")), std::string::npos)
      << placed.status().message();
  ASSERT_TRUE(WriteFileAtomically(tmp_.File("x.idx"), 0600, Placement::kReplace, "v").ok());
  EXPECT_EQ(Slurp(tmp_.File("x.idx")), "v");
}

TEST(AtomicFileNames, TempNamesAreRecognisedForTheirFileOnly) {
  EXPECT_TRUE(IsTempNameOf(".MEMORY.md.tmp.123.4", "MEMORY.md"));
  EXPECT_TRUE(IsTempNameOf(".MEMORY.md.tmp.x", "MEMORY.md"));
  EXPECT_FALSE(IsTempNameOf(".MEMORY.md.tmp.", "MEMORY.md"));
  EXPECT_FALSE(IsTempNameOf(".MEMORY.md.tmpx", "MEMORY.md"));
  EXPECT_FALSE(IsTempNameOf("MEMORY.md.tmp.1.1", "MEMORY.md"));
  EXPECT_FALSE(IsTempNameOf(".SKILL.md.tmp.1.2", "MEMORY.md"));
}

}  // namespace
}  // namespace mnemo::internal
