// Issue 17, item 8, through the real binary: a configuration that would
// fail open (ACL and tokens silently off) stops `mnemo serve` with exit
// code 1 (a user error, the CLI's rule) and a message naming the problem.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "process.h"
#include "test_util.h"

namespace mnemo::e2e {
namespace {

// `mnemo serve` in `workspace`, killed after 20 s if it started serving (exit
// code 137: the configuration was accepted).
RunResult Serve(const std::string& workspace) {
  return RunMnemoKilledAfter({"--workspace", workspace, "serve", "--listen", "127.0.0.1:0"},
                             std::chrono::seconds(20));
}

TEST(ConfigE2e, ServeRefusesAMnemoTomlThatIsADirectory) {
  testing::TempDir dir;
  std::filesystem::create_directory(dir.Sub("mnemo.toml"));
  RunResult r = Serve(dir.path());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("mnemo.toml is a directory"), std::string::npos) << r.err;
}

TEST(ConfigE2e, ServeRefusesTwoTokensWithTheSameDigest) {
  testing::TempDir dir;
  const std::string digest(64, 'c');
  std::ofstream(dir.Sub("mnemo.toml"))
      << "[memory]\nacl_enabled = true\n"
      << "[[security.tokens]]\nprincipal = \"alice\"\nrole = \"admin\"\nsha256 = \"" << digest
      << "\"\n[[security.tokens]]\nprincipal = \"bob\"\nsha256 = \"" << digest << "\"\n";
  RunResult r = Serve(dir.path());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("[[security.tokens]] #1 and [[security.tokens]] #2 have the same sha256"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace mnemo::e2e
