#include "base/uuid.h"

#include <gtest/gtest.h>

#include <set>

namespace mnemo::internal {
namespace {

TEST(Uuid, IsCanonicalVersion4) {
  std::string u = NewUuidV4();
  ASSERT_EQ(u.size(), 36u);
  EXPECT_EQ(u[8], '-');
  EXPECT_EQ(u[14], '4');
  EXPECT_TRUE(u[19] == '8' || u[19] == '9' || u[19] == 'a' || u[19] == 'b');
}

TEST(Uuid, DoesNotRepeat) {
  std::set<std::string> seen;
  for (int i = 0; i < 10000; ++i) EXPECT_TRUE(seen.insert(NewUuidV4()).second);
}

}  // namespace
}  // namespace mnemo::internal
