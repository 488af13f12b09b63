// memory.path_protected through the Engine (spec 10, "Files"): the workspace
// and what lives elsewhere (markdown store, audit log) are protected however
// the path is spelled: symlinks, `..`, hard links; neighbours are not.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "mnemo/engine.h"
#include "test_util.h"

namespace mnemo {
namespace {

namespace fs = std::filesystem;

class PathGuardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* d : {"out", "logs", "notes", "ws2"}) fs::create_directories(dir_.Sub(d));
    Config config;
    config.memory.backend = "sqlite";
    config.embedding.provider = "none";
    config.security.audit.path = dir_.Sub("logs") + "/audit.log";
    config.memory.path = dir_.Sub("notes");  // a markdown store outside the workspace
    auto e = Engine::Open({.workspace = ws_, .config = config});
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    engine_ = std::move(*e);
    ASSERT_TRUE(engine_->memory().Store(me_, {.key = "k", .content = "a memory"}).ok());
  }

  bool Protected(const std::string& path) {
    auto r = engine_->admin().PathProtected(me_, path);
    EXPECT_TRUE(r.ok()) << path << ": " << r.status().ToString();
    return r.ok() && r->is_protected;
  }

  testing::TempDir dir_;
  std::string ws_ = dir_.Sub("ws");
  std::unique_ptr<Engine> engine_;
  Principal me_;
};

TEST_F(PathGuardTest, TheWorkspaceAndEverythingInItIsProtected) {
  for (const char* name : {"", "/mnemo.db", "/mnemo.db-wal", "/mnemo.db-shm", "/MEMORY.md",
                           "/SKILL.md", "/.memory-write.lock", "/mnemo.toml", "/index",
                           "/memory_tree/content/episodic/s/000000.md", "/not-yet-there"}) {
    EXPECT_TRUE(Protected(ws_ + name)) << name;
  }
  auto r = engine_->admin().PathProtected(me_, ws_ + "/mnemo.db");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->resolved, fs::canonical(ws_).string() + "/mnemo.db");
  EXPECT_NE(r->reason.find("workspace"), std::string::npos) << r->reason;
}

TEST_F(PathGuardTest, DotDotAndSymlinksAreResolvedFirst) {
  const std::string out = dir_.Sub("out");
  EXPECT_TRUE(Protected(out + "/../ws/mnemo.db"));
  EXPECT_TRUE(Protected(ws_ + "/index/../mnemo.db"));
  // A link to the database, a link to the folder, a relative link, a chain.
  fs::create_symlink(ws_ + "/mnemo.db", out + "/db-link");
  fs::create_directory_symlink(ws_, out + "/ws-link");
  fs::create_directory_symlink("../ws", out + "/rel-link");
  fs::create_symlink(out + "/db-link", out + "/chain");
  EXPECT_TRUE(Protected(out + "/db-link"));
  EXPECT_TRUE(Protected(out + "/ws-link/mnemo.db-wal"));
  EXPECT_TRUE(Protected(out + "/rel-link/MEMORY.md"));
  EXPECT_TRUE(Protected(out + "/chain"));
  EXPECT_TRUE(Protected(out + "/ws-link/../ws/mnemo.db"));
}

TEST_F(PathGuardTest, AHardLinkToTheDatabaseIsProtected) {
  const std::string link = dir_.Sub("out") + "/copy.db";
  std::error_code ec;
  fs::create_hard_link(ws_ + "/mnemo.db", link, ec);
  if (ec) GTEST_SKIP() << "hard links unavailable here: " << ec.message();
  auto r = engine_->admin().PathProtected(me_, link);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->is_protected);
  EXPECT_NE(r->reason.find("same file"), std::string::npos) << r->reason;
}

// A hard link `link` to `target`; false (the test skips) when the file
// system has none.
bool Link(const std::string& target, const std::string& link) {
  std::error_code ec;
  fs::create_hard_link(target, link, ec);
  return !ec;
}

void Write(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path) << text;
}

TEST_F(PathGuardTest, HardLinksToArchiveFilesAreProtected) {
  const std::string archive = ws_ + "/memory_tree/content/episodic/s/000000.md";
  Write(archive, "user: hello\n");
  if (!Link(archive, dir_.Sub("out") + "/turns.md")) GTEST_SKIP() << "no hard links here";
  auto r = engine_->admin().PathProtected(me_, dir_.Sub("out") + "/turns.md");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->is_protected);
  EXPECT_EQ(r->reason, "the same file as " + fs::canonical(archive).string());
}

TEST_F(PathGuardTest, HardLinksToFilesOfTheMarkdownStoreAndAuditRotationsAreProtected) {
  Write(dir_.Sub("notes") + "/global.md", "- a note\n");
  Write(dir_.Sub("logs") + "/audit.log.3", "{}\n");
  if (!Link(dir_.Sub("notes") + "/global.md", dir_.Sub("out") + "/notes.md")) {
    GTEST_SKIP() << "no hard links here";
  }
  ASSERT_TRUE(Link(dir_.Sub("logs") + "/audit.log.3", dir_.Sub("out") + "/old-audit"));
  EXPECT_TRUE(Protected(dir_.Sub("out") + "/notes.md"));
  EXPECT_TRUE(Protected(dir_.Sub("out") + "/old-audit"));
}

TEST_F(PathGuardTest, HardLinksToVectorIndexFilesAreProtected) {
  // A real index file: written when an engine with an embedder closes.
  engine_.reset();
  Config config;
  config.embedding.provider = "hash";
  config.security.audit.path = dir_.Sub("logs") + "/audit.log";
  config.memory.path = dir_.Sub("notes");
  {
    auto e = Engine::Open({.workspace = ws_, .config = config});
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    ASSERT_TRUE((*e)->memory().Store(me_, {.key = "v", .content = "a vector memory"}).ok());
  }
  std::vector<std::string> index_files;
  for (const auto& entry : fs::recursive_directory_iterator(ws_)) {
    const std::string name = entry.path().string();
    if (entry.is_regular_file() && name.find("/index") != std::string::npos) {
      index_files.push_back(name);
    }
  }
  ASSERT_FALSE(index_files.empty()) << "no vector index file was written under " << ws_;
  auto e = Engine::Open({.workspace = ws_, .config = config});
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  engine_ = std::move(*e);
  for (size_t i = 0; i < index_files.size(); ++i) {
    const std::string link = dir_.Sub("out") + "/index-" + std::to_string(i);
    if (!Link(index_files[i], link)) GTEST_SKIP() << "no hard links here";
    EXPECT_TRUE(Protected(link)) << index_files[i];
  }
}

TEST_F(PathGuardTest, HardLinkedFilesOfTheUserAndFilesLinkedFromTheWorkspaceAreNot) {
  Write(dir_.Sub("out") + "/mine.txt", "mine");
  if (!Link(dir_.Sub("out") + "/mine.txt", dir_.Sub("out") + "/mine-too.txt")) {
    GTEST_SKIP() << "no hard links here";
  }
  EXPECT_FALSE(Protected(dir_.Sub("out") + "/mine-too.txt"));
  // A symlink inside the workspace to a user's file does not make it ours.
  fs::create_symlink(dir_.Sub("out") + "/mine.txt", ws_ + "/link-out");
  EXPECT_FALSE(Protected(dir_.Sub("out") + "/mine.txt"));
}

TEST_F(PathGuardTest, TheMarkdownStoreAndTheAuditLogElsewhereAreProtected) {
  EXPECT_TRUE(Protected(dir_.Sub("notes") + "/global.md"));
  EXPECT_TRUE(Protected(dir_.Sub("logs") + "/audit.log"));
  EXPECT_TRUE(Protected(dir_.Sub("logs") + "/audit.log.1"));
  EXPECT_FALSE(Protected(dir_.Sub("logs") + "/other.log"));
}

TEST_F(PathGuardTest, NeighboursAreNotProtected) {
  const std::string sibling = dir_.Sub("ws2");
  std::ofstream(sibling + "/mnemo.db") << "not ours";
  EXPECT_FALSE(Protected(sibling + "/mnemo.db"));
  EXPECT_FALSE(Protected(dir_.path()));
  EXPECT_FALSE(Protected("/etc/passwd"));
  EXPECT_FALSE(Protected(dir_.Sub("out") + "/ws"));
}

TEST_F(PathGuardTest, AnEmptyPathIsAnError) {
  auto r = engine_->admin().PathProtected(me_, "");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  auto nul = engine_->admin().PathProtected(me_, std::string("/tmp/a\0b", 8));
  ASSERT_FALSE(nul.ok());
  EXPECT_EQ(nul.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace mnemo
