#include "base/uuid.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <set>
#include <string>

namespace mnemo::internal {
namespace {

TEST(Uuid, IsCanonicalVersion4) {
  std::string u = NewUuidV4();
  ASSERT_EQ(u.size(), 36u);
  EXPECT_EQ(u[8], '-');
  EXPECT_EQ(u[14], '4');
  EXPECT_TRUE(u[19] == '8' || u[19] == '9' || u[19] == 'a' || u[19] == 'b');
}

TEST(Uuid, SecureIdsAreCanonicalVersion4AndDoNotRepeat) {
  std::set<std::string> seen;
  for (int i = 0; i < 10000; ++i) {
    Result<std::string> u = NewSecureUuidV4();
    ASSERT_TRUE(u.ok()) << u.status().ToString();
    ASSERT_EQ(u->size(), 36u);
    EXPECT_EQ((*u)[14], '4');
    EXPECT_TRUE((*u)[19] == '8' || (*u)[19] == '9' || (*u)[19] == 'a' || (*u)[19] == 'b');
    EXPECT_TRUE(seen.insert(*u).second);
  }
}

TEST(Uuid, DoesNotRepeat) {
  std::set<std::string> seen;
  for (int i = 0; i < 10000; ++i) EXPECT_TRUE(seen.insert(NewUuidV4()).second);
}

// A forked child must not repeat its parent's ids (it inherits the
// generator's state).
TEST(Uuid, AForkedChildDoesNotRepeatItsParent) {
  NewUuidV4();  // the parent's generator is seeded before the fork
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const std::string child = NewUuidV4();
    const bool written =
        ::write(pipe_fds[1], child.data(), child.size()) == static_cast<ssize_t>(child.size());
    ::_exit(written ? 0 : 1);
  }
  ::close(pipe_fds[1]);
  const std::string parent = NewUuidV4();
  std::string child(36, '\0');
  ASSERT_EQ(::read(pipe_fds[0], child.data(), child.size()), 36);
  ::close(pipe_fds[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_NE(child, parent);
}

}  // namespace
}  // namespace mnemo::internal
