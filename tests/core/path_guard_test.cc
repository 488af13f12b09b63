// memory.path_protected through the Engine (spec 10, "Files"): the workspace
// and what lives elsewhere (markdown store, audit log) are protected however
// the path is spelled: symlinks, `..`, hard links; neighbours are not.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

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
    ASSERT_TRUE(engine_->Store(me_, {.key = "k", .content = "a memory"}).ok());
  }

  bool Protected(const std::string& path) {
    auto r = engine_->PathProtected(me_, path);
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
  auto r = engine_->PathProtected(me_, ws_ + "/mnemo.db");
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
  auto r = engine_->PathProtected(me_, link);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->is_protected);
  EXPECT_NE(r->reason.find("same file"), std::string::npos) << r->reason;
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
  auto r = engine_->PathProtected(me_, "");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  auto nul = engine_->PathProtected(me_, std::string("/tmp/a\0b", 8));
  ASSERT_FALSE(nul.ok());
  EXPECT_EQ(nul.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace mnemo
