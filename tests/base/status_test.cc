#include "mnemo/status.h"

#include <gtest/gtest.h>

namespace mnemo {
namespace {

Result<int> Half(int x) {
  if (x % 2 != 0) return InvalidArgument("x must be even", "x");
  return x / 2;
}

Status UseHalf(int x, int* out) {
  MNEMO_ASSIGN_OR_RETURN(*out, Half(x));
  return Status::Ok();
}

TEST(Status, OkByDefault) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.ToString(), "ok");
}

TEST(Status, CarriesCodeMessageAndField) {
  Status s = InvalidArgument("key must not be blank", "key");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.field(), "key");
  EXPECT_EQ(s.ToString(), "invalid_argument: key must not be blank");
}

TEST(Status, CorruptionIsAServerFaultOfItsOwn) {
  Status s = Corruption("page 7 is damaged");
  EXPECT_EQ(s.code(), StatusCode::kCorruption);
  EXPECT_EQ(s.ToString(), "corruption: page 7 is damaged");
  EXPECT_TRUE(IsServerFault(StatusCode::kCorruption));
  EXPECT_TRUE(IsServerFault(StatusCode::kInternal));
  EXPECT_FALSE(IsServerFault(StatusCode::kUnavailable));
  EXPECT_FALSE(IsServerFault(StatusCode::kInvalidArgument));
}

TEST(Result, ValueOrStatus) {
  Result<int> r = Half(4);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 2);
  Result<int> bad = Half(3);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().field(), "x");
}

TEST(Result, AssignOrReturnPropagates) {
  int v = 0;
  EXPECT_TRUE(UseHalf(8, &v).ok());
  EXPECT_EQ(v, 4);
  Status s = UseHalf(7, &v);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(v, 4);
}

}  // namespace
}  // namespace mnemo
