#include "text/pipeline/stopwords.h"

#include <gtest/gtest.h>

namespace mnemo::text {
namespace {

TEST(StopWords, CoversEnglishChineseAndArabic) {
  for (const char* w : {"the", "what", "did", "i", "about", "remind", "me", "tell", "do", "you",
                        "know", "的", "了", "是", "在", "من", "في", "الى", "هل"}) {
    EXPECT_TRUE(IsStopWord(w)) << w;
  }
}

TEST(StopWords, AcceptsStemmedForms) {
  EXPECT_TRUE(IsStopWord("doe"));     // does
  EXPECT_TRUE(IsStopWord("becaus"));  // because
  EXPECT_TRUE(IsStopWord("onli"));    // only
}

TEST(StopWords, LeavesContentWordsAlone) {
  for (const char* w : {"kubernet", "deploy.py", "email", "服务", "邮件", "كلمات", "sarah"}) {
    EXPECT_FALSE(IsStopWord(w)) << w;
  }
}

}  // namespace
}  // namespace mnemo::text
