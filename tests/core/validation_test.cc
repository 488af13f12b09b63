#include "core/validation.h"

#include <gtest/gtest.h>

namespace mnemo {
namespace {

TEST(Validation, KeyLimits) {
  EXPECT_TRUE(ValidateKey("user/timezone").ok());
  EXPECT_TRUE(ValidateKey(std::string(256, 'k')).ok());
  EXPECT_FALSE(ValidateKey(std::string(257, 'k')).ok());
  EXPECT_FALSE(ValidateKey("").ok());
  EXPECT_FALSE(ValidateKey(" \t").ok());
  EXPECT_FALSE(ValidateKey("line\nbreak").ok());
  EXPECT_FALSE(ValidateKey("\xC3\x28").ok());
  EXPECT_EQ(ValidateKey("").field(), "key");
}

// One blank test for every check (text::IsBlank): Unicode White_Space, so a
// key of ideographic or no-break spaces is as blank as one of ASCII spaces.
TEST(Validation, AKeyOfUnicodeSpacesIsBlank) {
  EXPECT_FALSE(ValidateKey("\xE3\x80\x80\xC2\xA0").ok());  // U+3000 U+00A0
  EXPECT_FALSE(ValidateContent("\xE2\x80\x83").ok());      // U+2003
  EXPECT_TRUE(ValidateKey("\xE3\x80\x80k").ok());
}

TEST(Validation, CategorySyntax) {
  for (const char* ok : {"core", "daily", "conversation", "project-note", "a_b", "x1"}) {
    EXPECT_TRUE(ValidateCategory(ok).ok()) << ok;
  }
  for (const char* bad : {"Core!", "", "Daily", "with space", "ü"}) {
    Status s = ValidateCategory(bad);
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_NE(s.message().find("use core, daily, conversation or [a-z0-9_-]{1,64}"),
              std::string::npos);
  }
  EXPECT_FALSE(ValidateCategory(std::string(65, 'a')).ok());
}

TEST(Validation, NamespaceSyntax) {
  EXPECT_TRUE(ValidateNamespace("global").ok());
  EXPECT_TRUE(ValidateNamespace("tool-send_email").ok());
  EXPECT_TRUE(ValidateNamespace("tool-*").ok());
  EXPECT_FALSE(ValidateNamespace("").ok());
  EXPECT_FALSE(ValidateNamespace("a b").ok());
  EXPECT_FALSE(ValidateNamespace("../etc").ok());
}

TEST(Validation, ContentRules) {
  EXPECT_TRUE(ValidateContent("永远不要给 Sarah 发邮件").ok());
  EXPECT_FALSE(ValidateContent("").ok());
  EXPECT_FALSE(ValidateContent(std::string("a\0b", 3)).ok());
  EXPECT_FALSE(ValidateContent("\xED\xA0\x80").ok());  // a UTF-16 surrogate
  EXPECT_TRUE(ValidateContent(std::string(1 << 20, 'a')).ok());
  EXPECT_FALSE(ValidateContent(std::string((1 << 20) + 1, 'a')).ok());
}

TEST(Validation, Tags) {
  EXPECT_TRUE(ValidateTags({"infra", "工作"}).ok());
  EXPECT_FALSE(ValidateTags({""}).ok());
  EXPECT_FALSE(ValidateTags(std::vector<std::string>(33, "t")).ok());
}

}  // namespace
}  // namespace mnemo
